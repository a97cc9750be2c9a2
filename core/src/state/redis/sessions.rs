//! [`RedisSessionStore`]: legacy sessions that every replica serves, their records in
//! Redis and their copies talking over a Redis channel.

use std::io;
use std::time::Duration;

use tokio::sync::broadcast;

use super::channel::Channel;
use super::{failed, RedisStore};
use crate::state::{SessionMessage, SessionRecord, SessionStore};
use crate::BoxFuture;

/// A [`SessionStore`] shared by replicas: each record is a JSON string at
/// `{prefix}session:{id}` that expires when the session has been idle for its TTL, and the
/// copies of a session talk on the channel `{prefix}sessions`. Made by
/// [`RedisStore::session_store`].
pub struct RedisSessionStore {
    redis: RedisStore,
    relay: Channel<SessionMessage>,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore").field("redis", &self.redis).finish()
    }
}

impl RedisSessionStore {
    pub(super) fn start(redis: RedisStore) -> Self {
        RedisSessionStore {
            relay: Channel::start(redis.clone(), "sessions", |text| serde_json::from_str(text).ok()),
            redis,
        }
    }

    fn record_key(&self, id: &str) -> String {
        self.redis.key(&format!("session:{id}"))
    }
}

/// A TTL as Redis takes it, at least a millisecond.
fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl SessionStore for RedisSessionStore {
    fn save<'a>(&'a self, id: &'a str, record: &'a SessionRecord, ttl: Duration) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let text = serde_json::to_string(record).map_err(io::Error::other)?;
            redis::cmd("SET")
                .arg(self.record_key(id))
                .arg(text)
                .arg("PX")
                .arg(millis(ttl))
                .query_async::<()>(&mut self.redis.connection.clone())
                .await
                .map_err(failed)
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, io::Result<Option<SessionRecord>>> {
        Box::pin(async move {
            let text: Option<String> = redis::cmd("GETEX")
                .arg(self.record_key(id))
                .arg("PX")
                .arg(millis(ttl))
                .query_async(&mut self.redis.connection.clone())
                .await
                .map_err(failed)?;
            text.map(|text| serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)))
                .transpose()
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            redis::cmd("DEL")
                .arg(self.record_key(id))
                .query_async::<()>(&mut self.redis.connection.clone())
                .await
                .map_err(failed)
        })
    }

    fn relay(&self, message: SessionMessage) {
        let text = serde_json::to_string(&message).unwrap_or_default();
        if !self.relay.publish(text) {
            tracing::warn!("Redis is not keeping up: a message between replicas was dropped");
        }
    }

    fn relayed(&self) -> broadcast::Receiver<SessionMessage> {
        self.relay.subscribe()
    }
}
