//! [`SharedState`]: the stores a server takes from one place that its replicas share.

use std::sync::Arc;

use super::{EventStore, KeyRing, SessionStore, SubscriptionBus, TaskStore};

/// The environment variable that names the store replicas share (`redis://host:6379/0`),
/// when a server is not given one.
pub const STORE_ENV: &str = "OXMCP_STORE";

/// Everything a server shares with its replicas: where tasks live, the bus that carries
/// events, the key that seals `requestState`, and where legacy sessions and their events
/// live. Set it with
/// [`ServerBuilder::shared_state`](crate::server::ServerBuilder::shared_state).
#[derive(Clone)]
pub struct SharedState {
    /// Where tasks live.
    pub task_store: Arc<dyn TaskStore>,
    /// What carries list changes, resource updates and task changes to every replica.
    pub subscription_bus: Arc<dyn SubscriptionBus>,
    /// The keys that seal `requestState`.
    pub request_state_keys: KeyRing,
    /// Where legacy sessions live, so that every replica serves each.
    pub session_store: Arc<dyn SessionStore>,
    /// Where the SSE events of legacy sessions are kept, so that a stream resumes on any
    /// replica.
    pub event_store: Arc<dyn EventStore>,
}

impl std::fmt::Debug for SharedState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedState").finish_non_exhaustive()
    }
}

impl SharedState {
    /// The URL of the store to share: `given`, else what [`STORE_ENV`] names; `None` when
    /// neither names one (then the server keeps its state to itself, and nothing connects).
    pub fn url(given: Option<&str>) -> Option<String> {
        given
            .map(str::to_owned)
            .or_else(|| std::env::var(STORE_ENV).ok())
            .filter(|url| !url.is_empty())
    }

    /// The state shared through the store at `url` (`redis://…` or `rediss://…`). Call it
    /// within a tokio runtime: the bus starts listening at once.
    #[cfg(feature = "redis")]
    pub async fn connect(url: &str) -> std::io::Result<SharedState> {
        if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the shared store must be a redis:// or rediss:// URL, not {url:?}"),
            ));
        }
        Self::redis(&super::RedisStore::connect(url).await?).await
    }

    /// The state shared through `redis`, a connection set up as this replica needs (key
    /// prefix, key rotation, liveness). Call it within a tokio runtime.
    #[cfg(feature = "redis")]
    pub async fn redis(redis: &super::RedisStore) -> std::io::Result<SharedState> {
        Ok(SharedState {
            task_store: redis.task_store(),
            subscription_bus: redis.subscription_bus(),
            request_state_keys: redis.key_ring().await?,
            session_store: redis.session_store(),
            event_store: redis.event_store(),
        })
    }
}
