//! State that outlives one request, behind the seams that shared stores plug into: the keys
//! that seal `requestState` ([`KeyRing`]), the log of legacy SSE events kept for resumption
//! ([`EventStore`]), the bus that carries server events to every listener
//! ([`SubscriptionBus`]), where tasks are kept ([`TaskStore`]), and where legacy sessions
//! are kept for the replicas that serve them in turn ([`SessionStore`]).
//!
//! Each has an in-memory implementation, the default; replicas that share state plug in
//! stores that they share.

pub(crate) mod bus;
mod event_store;
#[cfg(feature = "redis")]
mod redis;
pub mod sealing;
mod sessions;
mod shared;
#[cfg(feature = "sqlite")]
mod sqlite_tasks;
pub(crate) mod tasks;

pub use bus::{InMemorySubscriptionBus, ServerEvent, SubscriptionBus};
pub use event_store::{EventStore, InMemoryEventStore, StoredEvent};
#[cfg(feature = "http-server")]
pub(crate) use event_store::{LogLimits, SessionLog};
#[cfg(feature = "redis")]
pub use redis::{
    RedisEventStore, RedisSessionStore, RedisStore, RedisSubscriptionBus, RedisTaskStore, KEY_OVERLAP, KEY_ROTATION,
};
pub use sealing::{KeyRing, SealError, SealingKey, REQUEST_STATE_KEYS_ENV};
pub use sessions::{InMemorySessionStore, SessionMessage, SessionRecord, SessionStore};
pub use shared::{SharedState, STORE_ENV};
#[cfg(feature = "sqlite")]
pub use sqlite_tasks::SqliteTaskStore;
pub use tasks::{check_task_store, InMemoryTaskStore, TaskOutcome, TaskRecord, TaskStore};
