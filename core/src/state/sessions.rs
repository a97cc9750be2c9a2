//! Legacy HTTP sessions that several replicas serve in turn: the [`SessionStore`] trait,
//! what it keeps of a session ([`SessionRecord`]), what it carries between the copies of a
//! session on different replicas ([`SessionMessage`]), and [`InMemorySessionStore`], which
//! shares sessions between the servers of one process.
//!
//! Without a session store a session lives on the replica that opened it. With one, any
//! replica that receives a request of the session makes a copy of it from its record; the
//! copies keep the record up to date and pass each other what the client sends to one
//! copy for another (the answer to a request another copy sent, a cancellation of a
//! request another copy serves) and what a copy has for the session's GET stream, which
//! is open on one replica.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use crate::{lock, BoxFuture};

/// How many messages may queue for a slow copy of the in-memory store before it misses
/// some.
const RELAY_CAPACITY: usize = 1024;

/// What a replica needs to serve a legacy session it did not open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The protocol version `initialize` settled on.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities, as `initialize` gave them.
    pub client_capabilities: ClientCapabilities,
    /// The client's `clientInfo`.
    pub client_info: Option<Implementation>,
    /// The level set by `logging/setLevel`, if any.
    pub log_level: Option<LoggingLevel>,
    /// The URIs the client subscribed to with `resources/subscribe`.
    pub subscriptions: Vec<String>,
    /// The principal who opened the session, on an endpoint that requires tokens (a stable
    /// text of issuer, subject and client).
    pub owner: Option<String>,
    /// What tells the session's tasks from others'.
    pub task_key: String,
}

/// What one copy of a session passes to the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionMessage {
    /// A response or a cancellation from the client (its JSON-RPC text) that the copy that
    /// received it could not place: the copy that sent the request, or serves the
    /// cancelled one, takes it.
    FromClient {
        /// The session's id.
        session: String,
        /// The message, as the client sent it.
        message: String,
    },
    /// A message for the session's GET stream: the copy that has it open sends it.
    ToStream {
        /// The session's id.
        session: String,
        /// The message to send.
        message: String,
    },
    /// The session's record changed: every copy takes it on.
    Changed {
        /// The session's id.
        session: String,
        /// The record as it is now.
        record: Box<SessionRecord>,
    },
    /// The session ended (DELETE): every copy ends.
    Ended {
        /// The session's id.
        session: String,
    },
}

impl SessionMessage {
    /// The id of the session the message is for.
    pub fn session(&self) -> &str {
        match self {
            SessionMessage::FromClient { session, .. }
            | SessionMessage::ToStream { session, .. }
            | SessionMessage::Changed { session, .. }
            | SessionMessage::Ended { session } => session,
        }
    }
}

/// Where replicas keep their legacy sessions, and how the copies of one session reach
/// each other. Set one with
/// [`ServerBuilder::session_store`](crate::server::ServerBuilder::session_store), or with
/// [`SharedState`](super::SharedState) for Redis.
///
/// A store keeps each record for the TTL it is given, which every use extends; messages
/// reach every replica's subscription, the sender's included, at most once (a replica
/// that is down misses them).
pub trait SessionStore: Send + Sync {
    /// Keeps `record` as the session `id`'s, for `ttl`.
    fn save<'a>(&'a self, id: &'a str, record: &'a SessionRecord, ttl: Duration) -> BoxFuture<'a, io::Result<()>>;

    /// The record of the session `id`, whose TTL is extended to `ttl`; `None` when the
    /// session is unknown, ended or expired.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, io::Result<Option<SessionRecord>>>;

    /// Forgets the session `id`.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<()>>;

    /// Passes `message` to the copies of its session on every replica.
    fn relay(&self, message: SessionMessage);

    /// A subscription to the messages relayed after this call.
    fn relayed(&self) -> broadcast::Receiver<SessionMessage>;
}

impl std::fmt::Debug for dyn SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionStore")
    }
}

/// A [`SessionStore`] for the servers of one process (tests, and endpoints that share
/// sessions in one process).
pub struct InMemorySessionStore {
    records: Mutex<HashMap<String, (SessionRecord, Instant)>>,
    relay: broadcast::Sender<SessionMessage>,
}

impl Default for InMemorySessionStore {
    fn default() -> Self {
        InMemorySessionStore {
            records: Mutex::new(HashMap::new()),
            relay: broadcast::channel(RELAY_CAPACITY).0,
        }
    }
}

impl std::fmt::Debug for InMemorySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemorySessionStore")
            .field("sessions", &lock(&self.records).len())
            .finish()
    }
}

impl SessionStore for InMemorySessionStore {
    fn save<'a>(&'a self, id: &'a str, record: &'a SessionRecord, ttl: Duration) -> BoxFuture<'a, io::Result<()>> {
        let mut records = lock(&self.records);
        let now = Instant::now();
        records.retain(|_, (_, expires)| *expires > now);
        records.insert(id.to_owned(), (record.clone(), now + ttl));
        Box::pin(std::future::ready(Ok(())))
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, io::Result<Option<SessionRecord>>> {
        let now = Instant::now();
        let record = lock(&self.records)
            .get_mut(id)
            .filter(|(_, expires)| *expires > now)
            .map(|(record, expires)| {
                *expires = now + ttl;
                record.clone()
            });
        Box::pin(std::future::ready(Ok(record)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<()>> {
        lock(&self.records).remove(id);
        Box::pin(std::future::ready(Ok(())))
    }

    fn relay(&self, message: SessionMessage) {
        // Nobody listening is no error.
        let _ = self.relay.send(message);
    }

    fn relayed(&self) -> broadcast::Receiver<SessionMessage> {
        self.relay.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> SessionRecord {
        SessionRecord {
            protocol_version: ProtocolVersion::V2025_06_18,
            client_capabilities: ClientCapabilities::default(),
            client_info: None,
            log_level: None,
            subscriptions: vec![],
            owner: None,
            task_key: "k".into(),
        }
    }

    #[tokio::test]
    async fn a_record_lives_while_it_is_used() {
        let store = InMemorySessionStore::default();
        store.save("s", &record(), Duration::from_millis(200)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert_eq!(
            store.touch("s", Duration::from_millis(200)).await.unwrap(),
            Some(record())
        );
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(
            store.touch("s", Duration::from_millis(50)).await.unwrap().is_some(),
            "extended"
        );
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert_eq!(
            store.touch("s", Duration::from_millis(50)).await.unwrap(),
            None,
            "expired"
        );
        store.save("t", &record(), Duration::from_secs(60)).await.unwrap();
        store.remove("t").await.unwrap();
        assert_eq!(store.touch("t", Duration::from_secs(60)).await.unwrap(), None);
    }
}
