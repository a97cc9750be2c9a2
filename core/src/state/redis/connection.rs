//! [`Connection`]: the stores' connection to Redis, which sends a command again, once,
//! when it failed because its connection was lost.
//!
//! The `redis` [`ConnectionManager`] replaces a lost connection, but only once a command
//! has failed on it: after Redis restarts, the first command of each replica fails although
//! Redis is back. Sent again, the command goes over the new connection (waiting for it to
//! be made), so a replica answers from the first request after Redis returns.
//!
//! Sending again is safe for what the stores send: reads, and writes that set a value or a
//! sorted-set member. An update of a task that ran before its connection dropped is refused
//! the second time (the task ended), as if another replica had ended it: its pollers see the
//! change at their next look.

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::{Cmd, Pipeline, RedisError, RedisFuture, Value};

/// A [`ConnectionManager`] whose commands are sent again once when their connection was
/// lost (not when they timed out: Redis may still be at work on them).
#[derive(Clone)]
pub(super) struct Connection(ConnectionManager);

impl Connection {
    pub(super) fn new(manager: ConnectionManager) -> Self {
        Connection(manager)
    }
}

/// Whether `error` says the connection was lost, so that the manager makes a new one.
fn connection_lost(error: &RedisError) -> bool {
    !error.is_timeout() && (error.is_io_error() || error.is_unrecoverable_error())
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        Box::pin(async move {
            match self.0.send_packed_command(cmd).await {
                Err(error) if connection_lost(&error) => self.0.send_packed_command(cmd).await,
                sent => sent,
            }
        })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        Box::pin(async move {
            match self.0.send_packed_commands(pipeline, offset, count).await {
                Err(error) if connection_lost(&error) => self.0.send_packed_commands(pipeline, offset, count).await,
                sent => sent,
            }
        })
    }

    fn get_db(&self) -> i64 {
        self.0.get_db()
    }
}
