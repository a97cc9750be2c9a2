//! State shared by replicas through Redis: [`RedisStore`] connects once and gives the
//! stores that plug into the server's seams: [`RedisTaskStore`] (a task started on one
//! replica is seen, and cancelled, on any other), [`RedisSubscriptionBus`] (an event
//! published on one replica reaches the listeners of every replica), [`RedisSessionStore`]
//! (a legacy session opened on one replica is served by all), [`RedisEventStore`] (its
//! streams resume on any replica), and the key that seals
//! `requestState` ([`RedisStore::key_ring`]).
//!
//! Every key starts with the store's prefix (default `oxmcp:`), so that several servers
//! share one Redis, and every key has a TTL. The connection is a `redis`
//! [`ConnectionManager`]: it reconnects on its own, a command that failed because its
//! connection was lost is sent once more over the new one, and each command has a timeout,
//! so a Redis that is down costs a clear error, not a hang.

mod bus;
mod channel;
mod connection;
mod events;
mod keys;
mod sessions;
mod tasks;

use std::io;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use connection::Connection;

pub use bus::RedisSubscriptionBus;
pub use events::RedisEventStore;
pub use keys::{KEY_OVERLAP, KEY_ROTATION};
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;

/// How long one Redis command may take before it fails.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a replica that stopped beating is taken for alive, by default.
const DEFAULT_LIVENESS: Duration = Duration::from_secs(15);

/// A connection to the Redis that replicas share, and the prefix of its keys.
///
/// ```no_run
/// use oxmcp::server::Server;
/// use oxmcp::state::RedisStore;
///
/// # async fn run() -> std::io::Result<()> {
/// let redis = RedisStore::connect("redis://127.0.0.1:6379/0").await?;
/// let server = Server::builder("builds", "1.0.0")
///     .task_store(redis.task_store())
///     .subscription_bus(redis.subscription_bus())
///     .request_state_keys(redis.key_ring().await?)
///     .build()
///     .unwrap();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    client: redis::Client,
    connection: Connection,
    prefix: String,
    rotation: keys::Rotation,
    /// This replica's id among those on this Redis.
    replica: std::sync::Arc<str>,
    /// How long this replica's heartbeat outlives its last beat.
    liveness: Duration,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("prefix", &self.prefix).finish()
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://host:port/db`, `rediss://` for TLS), with
    /// the key prefix `oxmcp:`.
    pub async fn connect(url: &str) -> io::Result<Self> {
        let client = redis::Client::open(url).map_err(failed)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT));
        let connection = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(failed)?;
        let connection = Connection::new(connection);
        Ok(RedisStore {
            client,
            connection,
            prefix: "oxmcp:".to_owned(),
            rotation: keys::Rotation::default(),
            replica: replica_id()?.into(),
            liveness: DEFAULT_LIVENESS,
        })
    }

    /// Starts every key with `prefix` instead of `oxmcp:` (servers that must not see each
    /// other's state on one Redis).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Takes a replica whose heartbeat stopped `liveness` ago for gone (default 15 s): its
    /// running tasks fail when read. A replica cut off from Redis that long loses them too.
    pub fn replica_liveness(mut self, liveness: Duration) -> Self {
        self.liveness = liveness.max(Duration::from_millis(30));
        self
    }

    /// The task store of this Redis (call it within a tokio runtime: this replica's
    /// heartbeat starts at once).
    pub fn task_store(&self) -> std::sync::Arc<RedisTaskStore> {
        std::sync::Arc::new(RedisTaskStore::new(self.clone()))
    }

    /// A subscription bus over this Redis's publish/subscribe: it starts listening at once
    /// (call it within a tokio runtime), and reconnects when the connection drops.
    pub fn subscription_bus(&self) -> std::sync::Arc<RedisSubscriptionBus> {
        std::sync::Arc::new(RedisSubscriptionBus::start(self.clone()))
    }

    /// A store of legacy sessions over this Redis, so that every replica serves every
    /// session: it starts listening at once (call it within a tokio runtime).
    pub fn session_store(&self) -> std::sync::Arc<RedisSessionStore> {
        std::sync::Arc::new(RedisSessionStore::start(self.clone()))
    }

    /// A store of the SSE events of legacy sessions over this Redis, so that a stream
    /// resumes on any replica (see [`RedisEventStore`] for its bounds).
    pub fn event_store(&self) -> std::sync::Arc<RedisEventStore> {
        std::sync::Arc::new(RedisEventStore::new(self))
    }

    /// The key `name` under the prefix.
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// A random id for this replica.
fn replica_id() -> io::Result<String> {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A Redis failure, as the stores' callers take it.
fn failed(error: redis::RedisError) -> io::Error {
    let kind = if error.is_timeout() {
        io::ErrorKind::TimedOut
    } else if error.is_connection_refusal() || error.is_connection_dropped() || error.is_io_error() {
        io::ErrorKind::ConnectionRefused
    } else {
        io::ErrorKind::Other
    };
    io::Error::new(kind, error)
}
