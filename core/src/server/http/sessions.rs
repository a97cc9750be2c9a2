//! The table of legacy sessions: opening one for a valid `initialize`, finding one by its
//! `Mcp-Session-Id`, and reaping the idle ones (sooner those that never came back after
//! `initialize`).
//!
//! With a [`SessionStore`] that replicas share, the table holds this replica's copies of
//! sessions: a request of a session opened elsewhere makes a copy from the session's
//! record, every request extends the record's life and brings the copy up to date, and
//! what a copy changes (log level, subscriptions) goes back to the record and to the other
//! copies. The copies talk through the store ([`follow_relay`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use http::{HeaderMap, StatusCode};
use tokio::sync::broadcast;

use super::endpoint::Endpoint;
use super::header_names;
use super::response::{header_str, Rejection};
use super::streams::{StreamHub, STANDALONE};
use crate::connection::Connection;
use crate::lock;
use crate::protocol::jsonrpc::{self, Incoming, Message};
use crate::protocol::ErrorObject;
use crate::server::auth::{Caller, Principal};
use crate::server::limits::Admission;
use crate::server::random_id;
use crate::server::session::Session;
use crate::state::{SessionMessage, SessionStore};
use crate::transport::{Frame, Transport, TransportKind};

/// One legacy session (with a shared session store, this replica's copy of it).
pub(super) struct HttpSession {
    id: String,
    pub(super) session: Arc<Session>,
    pub(super) hub: Arc<StreamHub>,
    last_seen: Mutex<Instant>,
    /// Whether the client came back after `initialize`.
    confirmed: AtomicBool,
    forwarder: tokio::task::JoinHandle<()>,
    /// The session's place among the endpoint's `max_sessions`.
    _slot: Admission,
    /// The dispatcher's [`record_changes`](crate::server::dispatch::Dispatcher::record_changes)
    /// when this copy last saved the session's record (`u64::MAX`: never).
    saved_changes: AtomicU64,
}

impl HttpSession {
    /// Whether the session is idle past its timeout: `idle_timeout`, and no more than
    /// `new_session_timeout` until the client comes back after `initialize`. A session with a
    /// stream being read or a request in flight is never idle.
    fn expired(&self, idle_timeout: Duration, new_session_timeout: Duration) -> bool {
        let timeout = if self.confirmed.load(Ordering::Relaxed) {
            idle_timeout
        } else {
            new_session_timeout.min(idle_timeout)
        };
        let idle = lock(&self.last_seen).elapsed();
        idle > timeout && !self.hub.has_reader() && !self.session.dispatcher().has_in_flight()
    }

    /// Keeps the session's record in `store`, and tells the copies on other replicas, when
    /// this copy changed it since it last did.
    async fn save(&self, store: &dyn SessionStore, ttl: Duration) -> std::io::Result<()> {
        let dispatcher = self.session.dispatcher();
        let changes = dispatcher.record_changes();
        if self.saved_changes.load(Ordering::Relaxed) == changes {
            return Ok(());
        }
        let Some(record) = dispatcher.session_record(self.session.owner_key()) else {
            return Ok(());
        };
        store.save(&self.id, &record, ttl).await?;
        store.relay(SessionMessage::Changed {
            session: self.id.clone(),
            record: Box::new(record),
        });
        self.saved_changes.store(changes, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.forwarder.abort();
        self.session.end();
    }
}

impl Endpoint {
    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        lock(&self.sessions)
    }

    /// A place for one more session (legacy or `/sse`): 503 when `max_sessions` are open
    /// or the endpoint is shutting down.
    pub(super) fn session_slot(&self) -> Result<Admission, Rejection> {
        let unavailable = |reason: &str| {
            Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorObject::invalid_request(reason.to_owned()),
            )
        };
        if self.closing.is_cancelled() {
            return Err(unavailable("the server is shutting down"));
        }
        self.session_quota
            .admit()
            .ok_or_else(|| unavailable("too many sessions; try again later"))
    }

    /// A new legacy session for an `initialize`, serving only `opener`'s principal; it
    /// joins the table with [`keep_session`](Self::keep_session) once its `initialize`
    /// succeeded.
    pub(super) fn new_session(&self, opener: Option<&Caller>) -> Result<(String, Arc<HttpSession>), Rejection> {
        let id = random_id().map_err(internal)?;
        let session = self.start_session(&id, opener.map(|opener| opener.token().principal()))?;
        Ok((id, session))
    }

    /// This replica's copy of the session `id`, serving only `owner`, whose connection
    /// writes to its standalone stream. With a shared session store, what the copy has for
    /// the standalone stream while it is open on another replica goes there.
    fn start_session(&self, id: &str, owner: Option<Principal>) -> Result<Arc<HttpSession>, Rejection> {
        let slot = self.session_slot()?;
        let shared = self.server.session_store().cloned();
        let hub = match &self.config.event_store {
            Some(store) => StreamHub::with_store(Arc::clone(store), id.to_owned()),
            None => StreamHub::new(self.log_limits.clone()),
        };
        let hub = Arc::new(if shared.is_some() { hub.replicated() } else { hub });
        let relay = shared.map(|store| (store, id.to_owned()));
        let replicated = relay.is_some();
        let sink = futures::sink::unfold((Arc::clone(&hub), relay), |(hub, relay), message: String| async move {
            match &relay {
                Some((store, id)) if !hub.is_attached(STANDALONE) => store.relay(SessionMessage::ToStream {
                    session: id.clone(),
                    message,
                }),
                _ => hub.push(STANDALONE, message, false).await,
            }
            Ok::<_, std::io::Error>((hub, relay))
        });
        let (connection, _) = Connection::start(silent_transport(sink, TransportKind::StreamableHttp));
        let session = Session::owned(self.server.clone(), connection, owner);
        session.dispatcher().name_session(id);
        let forwarder = if replicated {
            // Of the copies of a session, the one whose standalone stream is open tells the
            // client of the server's events.
            session.dispatcher().share().map_err(internal)?;
            let hub = Arc::downgrade(&hub);
            session.forward_events_when(move || hub.upgrade().is_some_and(|hub| hub.is_attached(STANDALONE)))
        } else {
            session.forward_events()
        };
        Ok(Arc::new(HttpSession {
            id: id.to_owned(),
            forwarder,
            session,
            hub,
            last_seen: Mutex::new(Instant::now()),
            confirmed: AtomicBool::new(false),
            _slot: slot,
            saved_changes: AtomicU64::new(u64::MAX),
        }))
    }

    /// Puts a session whose `initialize` succeeded in the table, and in the shared session
    /// store if there is one (503 when it cannot be reached).
    pub(super) async fn keep_session(&self, session: Arc<HttpSession>) -> Result<(), Rejection> {
        self.save_session(&session).await?;
        *lock(&session.last_seen) = Instant::now();
        self.sessions().insert(session.id.clone(), session);
        Ok(())
    }

    /// Keeps what changed of `session` in the shared session store, if there is one (503
    /// when it cannot be reached).
    pub(super) async fn save_session(&self, session: &HttpSession) -> Result<(), Rejection> {
        let Some(store) = self.server.session_store() else {
            return Ok(());
        };
        session
            .save(store.as_ref(), self.config.session_idle_timeout)
            .await
            .map_err(store_unavailable)
    }

    /// The session a legacy request of `caller` names: 400 without the header, 404 when
    /// unknown or opened by another principal; with a shared session store, 503 when it
    /// cannot be reached.
    pub(super) async fn find_session(
        &self,
        headers: &HeaderMap,
        caller: Option<&Caller>,
    ) -> Result<Arc<HttpSession>, Rejection> {
        let id = header_str(headers, header_names::SESSION_ID).ok_or_else(|| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("the Mcp-Session-Id header is missing"),
            )
        })?;
        let local = self.sessions().get(id).cloned();
        let session = match self.server.session_store() {
            Some(store) => self.shared_session(store.as_ref(), id, local).await?,
            None => local,
        }
        .filter(|s| s.session.serves(caller))
        .ok_or_else(|| {
            Rejection::new(
                StatusCode::NOT_FOUND,
                ErrorObject::invalid_request("unknown or ended session"),
            )
        })?;
        *lock(&session.last_seen) = Instant::now();
        session.confirmed.store(true, Ordering::Relaxed);
        Ok(session)
    }

    /// This replica's copy of the session `id` (`local`, or one made from the session's
    /// record), up to date with the record, whose life it extends; `None` when the session
    /// ended or expired.
    async fn shared_session(
        &self,
        store: &dyn SessionStore,
        id: &str,
        local: Option<Arc<HttpSession>>,
    ) -> Result<Option<Arc<HttpSession>>, Rejection> {
        let Some(record) = store
            .touch(id, self.config.session_idle_timeout)
            .await
            .map_err(store_unavailable)?
        else {
            if local.is_some() {
                self.end_local_session(id);
            }
            return Ok(None);
        };
        let session = match local {
            Some(session) => session,
            None => {
                let owner = match &record.owner {
                    Some(key) => Some(Principal::from_key(key).ok_or_else(|| internal("an unreadable session owner"))?),
                    None => None,
                };
                let copy = self.start_session(id, owner)?;
                // Made from the record: nothing to save until this copy changes something.
                copy.saved_changes.store(0, Ordering::Relaxed);
                // Another request may have made a copy meanwhile: the first one stays.
                Arc::clone(self.sessions().entry(id.to_owned()).or_insert(copy))
            }
        };
        session.session.dispatcher().adopt(&record);
        Ok(Some(session))
    }

    /// Ends the session `id`: here, in the shared session store, and on the replicas that
    /// have copies of it.
    pub(super) async fn end_session(&self, id: &str) -> Result<(), Rejection> {
        if let Some(store) = self.server.session_store() {
            store.remove(id).await.map_err(store_unavailable)?;
            if let Some(events) = &self.config.event_store {
                // Copies leave the events to the session's end (see `StreamHub::replicated`).
                if let Err(error) = events.session_ended(id).await {
                    tracing::warn!(%error, "the event store failed");
                }
            }
            store.relay(SessionMessage::Ended { session: id.to_owned() });
        }
        self.end_local_session(id);
        Ok(())
    }

    /// Forgets the session `id` here and ends it now rather than when its last holder
    /// lets it go: a request in flight (a POST waiting for its call's first message) holds
    /// the session, and is cancelled with it.
    fn end_local_session(&self, id: &str) {
        let session = self.sessions().remove(id);
        if let Some(session) = session {
            session.session.end();
        }
    }

    /// Passes a response or cancellation from a client that no copy here awaits or serves
    /// to the copies of its session on other replicas; without a shared session store it
    /// is dropped.
    pub(super) fn relay_from_client(&self, session: &HttpSession, message: &Message) {
        match self.server.session_store() {
            Some(store) => store.relay(SessionMessage::FromClient {
                session: session.id.clone(),
                message: message.to_text(),
            }),
            None => tracing::debug!("dropped a response or cancellation for an unknown request"),
        }
    }
}

/// What the copies of sessions on other replicas pass to the copies here, until the
/// endpoint is gone: the client's answers and cancellations, messages for the standalone
/// stream open here, and the end of sessions.
pub(super) async fn follow_relay(endpoint: Weak<Endpoint>, mut relayed: broadcast::Receiver<SessionMessage>) {
    loop {
        let message = match relayed.recv().await {
            Ok(message) => message,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "missed messages between the copies of sessions");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(endpoint) = endpoint.upgrade() else { return };
        let Some(session) = endpoint.sessions().get(message.session()).cloned() else {
            continue;
        };
        match message {
            SessionMessage::FromClient { message, .. } => {
                if let Ok(Incoming::Single(from_client @ (Message::Response(_) | Message::Notification(_)))) =
                    jsonrpc::parse(message.as_bytes())
                {
                    // Every copy hears it; the one that awaits or serves its request takes it.
                    let _elsewhere = session.session.dispatcher().receive_here(from_client);
                }
            }
            SessionMessage::Changed { record, .. } => session.session.dispatcher().adopt(&record),
            SessionMessage::ToStream { message, .. } if session.hub.is_attached(STANDALONE) => {
                session.hub.push(STANDALONE, message, false).await;
            }
            SessionMessage::Ended { session: id } => endpoint.end_local_session(&id),
            _ => {}
        }
    }
}

fn internal(detail: impl std::fmt::Display) -> Rejection {
    Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorObject::internal(detail))
}

/// The shared session store failed: the client may try again; the detail is for the log.
fn store_unavailable(error: std::io::Error) -> Rejection {
    tracing::warn!(%error, "the session store failed");
    Rejection::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorObject::internal("the session store is unavailable; try again later"),
    )
}

/// A transport whose input never comes (requests arrive as HTTP requests instead).
pub(super) fn silent_transport(
    sink: impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
    kind: TransportKind,
) -> Transport {
    Transport::new(futures::stream::pending::<std::io::Result<Frame>>(), sink).with_kind(kind)
}

/// Ends the legacy sessions that have been idle longer than their timeout, until the
/// endpoint is gone.
pub(super) async fn reap_idle_sessions(endpoint: Weak<Endpoint>) {
    loop {
        let Some(period) = endpoint.upgrade().map(|e| {
            let shortest = e.config.session_idle_timeout.min(e.config.new_session_timeout);
            (shortest / 4).max(Duration::from_millis(50))
        }) else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let (idle_timeout, new_timeout) = (
            endpoint.config.session_idle_timeout,
            endpoint.config.new_session_timeout,
        );
        let idle: Vec<Arc<HttpSession>> = {
            let mut sessions = endpoint.sessions();
            let expired: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.expired(idle_timeout, new_timeout))
                .map(|(id, _)| id.clone())
                .collect();
            expired.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        if !idle.is_empty() {
            tracing::debug!(count = idle.len(), "reaped idle sessions");
        }
    }
}
