//! [`RedisEventStore`]: the SSE events of legacy sessions in Redis, so that a stream
//! resumes with `Last-Event-ID` on any replica.

use std::io;
use std::time::Duration;

use super::{failed, RedisStore};
use crate::state::{EventStore, StoredEvent};
use crate::BoxFuture;

/// How many events of one stream are kept by default.
const DEFAULT_EVENTS_KEPT: usize = 1024;
/// How long a stream's events are kept after its latest by default.
const DEFAULT_TTL: Duration = Duration::from_secs(30 * 60);

/// An [`EventStore`] shared by replicas: each stream is a sorted set
/// `{prefix}events:{session}:{stream}` of its latest events by sequence number, each
/// session a set of its streams, and a finished stream has a mark; every key expires a
/// TTL after the stream's latest event. Made by [`RedisStore::event_store`].
#[derive(Debug, Clone)]
pub struct RedisEventStore {
    redis: RedisStore,
    events_kept: usize,
    ttl: Duration,
}

impl RedisEventStore {
    /// A store over `redis` that keeps the latest 1024 events of each stream, for 30
    /// minutes after the latest.
    pub fn new(redis: &RedisStore) -> Self {
        RedisEventStore {
            redis: redis.clone(),
            events_kept: DEFAULT_EVENTS_KEPT,
            ttl: DEFAULT_TTL,
        }
    }

    /// Keeps the latest `events` of each stream.
    pub fn events_kept(mut self, events: usize) -> Self {
        self.events_kept = events.max(1);
        self
    }

    /// Keeps a stream's events for `ttl` after its latest.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    fn stream_key(&self, session: &str, stream: u64) -> String {
        self.redis.key(&format!("events:{session}:{stream}"))
    }

    fn finished_key(&self, session: &str, stream: u64) -> String {
        self.redis.key(&format!("events:{session}:{stream}:finished"))
    }

    fn session_key(&self, session: &str) -> String {
        self.redis.key(&format!("events:{session}"))
    }

    fn ttl_millis(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX).max(1)
    }
}

/// An event as its set keeps it: the sequence number first, so that two events never
/// read as one.
fn member(event: &StoredEvent) -> String {
    format!("{}:{}", event.seq, event.data)
}

fn read_member(member: &str) -> Option<StoredEvent> {
    let (seq, data) = member.split_once(':')?;
    Some(StoredEvent {
        seq: seq.parse().ok()?,
        data: data.to_owned(),
    })
}

impl EventStore for RedisEventStore {
    fn append<'a>(&'a self, session: &'a str, stream: u64, event: StoredEvent) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let (key, streams) = (self.stream_key(session, stream), self.session_key(session));
            let kept = isize::try_from(self.events_kept).unwrap_or(isize::MAX);
            redis::pipe()
                .zadd(&key, member(&event), event.seq)
                .ignore()
                .zremrangebyrank(&key, 0, -kept - 1)
                .ignore()
                .pexpire(&key, self.ttl_millis())
                .ignore()
                .sadd(&streams, stream)
                .ignore()
                .pexpire(&streams, self.ttl_millis())
                .ignore()
                .query_async::<()>(&mut self.redis.connection.clone())
                .await
                .map_err(failed)
        })
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, io::Result<Option<Vec<StoredEvent>>>> {
        Box::pin(async move {
            let key = self.stream_key(session, stream);
            let (known, members): (bool, Vec<String>) = redis::pipe()
                .exists(&key)
                .zrangebyscore(&key, format!("({after}"), "+inf")
                .query_async(&mut self.redis.connection.clone())
                .await
                .map_err(failed)?;
            Ok(known.then(|| members.iter().filter_map(|m| read_member(m)).collect()))
        })
    }

    fn stream_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            redis::cmd("SET")
                .arg(self.finished_key(session, stream))
                .arg(1)
                .arg("PX")
                .arg(self.ttl_millis())
                .query_async::<()>(&mut self.redis.connection.clone())
                .await
                .map_err(failed)
        })
    }

    fn session_ended<'a>(&'a self, session: &'a str) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let streams_key = self.session_key(session);
            let streams: Vec<u64> = redis::cmd("SMEMBERS")
                .arg(&streams_key)
                .query_async(&mut connection)
                .await
                .map_err(failed)?;
            let mut keys = vec![streams_key];
            for stream in streams {
                keys.push(self.stream_key(session, stream));
                keys.push(self.finished_key(session, stream));
            }
            redis::cmd("DEL")
                .arg(keys)
                .query_async::<()>(&mut connection)
                .await
                .map_err(failed)
        })
    }

    fn is_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<bool>> {
        Box::pin(async move {
            redis::cmd("EXISTS")
                .arg(self.finished_key(session, stream))
                .query_async(&mut self.redis.connection.clone())
                .await
                .map_err(failed)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_read_back_whatever_the_data_holds() {
        let event = StoredEvent {
            seq: 12,
            data: r#"{"a":"b:c"}"#.into(),
        };
        assert_eq!(read_member(&member(&event)), Some(event));
        assert_eq!(read_member("nonsense"), None);
    }
}
