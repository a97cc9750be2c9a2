//! Where the events of legacy SSE streams are kept for resumption with `Last-Event-ID`:
//! the [`EventStore`] trait, and [`InMemoryEventStore`], the bounded in-memory log.
//!
//! The endpoint numbers a session's streams (stream 0 is the standalone GET stream; each
//! POST answered with SSE gets one of its own) and the events of each stream from 1; an
//! event's id on the wire is `{stream}-{sequence}`. A store keeps `(sequence, data)` pairs
//! per `(session, stream)` and hands back those after a sequence number: a sorted set or a
//! table keyed by session and stream, ordered by sequence.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::BoxFuture;

/// How many finished POST streams a session keeps for resumption.
const FINISHED_STREAMS_KEPT: usize = 32;

/// One event of a stream: its sequence number in the stream and its data (one JSON-RPC
/// message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The event's position in its stream, from 1.
    pub seq: u64,
    /// The message the event carries.
    pub data: String,
}

/// A log of the SSE events of legacy sessions, from which a client that reconnects with
/// `Last-Event-ID` gets what it missed. Set one with
/// [`HttpConfig::event_store`](crate::server::http::HttpConfig::event_store); without it each
/// session keeps its events in memory as [`InMemoryEventStore`] does.
///
/// Live delivery to a connected client does not go through the store: it only has to
/// answer [`replay`](EventStore::replay) for a client that reconnects. The events of one
/// stream are appended in order, one at a time; a store may keep only the latest ones.
/// A failure is logged by the endpoint and costs the client only its resumption.
///
/// # Example
///
/// A store that counts what goes through it and keeps the events in memory:
///
/// ```
/// use std::io;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use oxmcp::BoxFuture;
/// use oxmcp::state::{EventStore, InMemoryEventStore, StoredEvent};
///
/// struct Counted {
///     inner: InMemoryEventStore,
///     appended: AtomicUsize,
/// }
///
/// impl EventStore for Counted {
///     fn append<'a>(&'a self, session: &'a str, stream: u64, event: StoredEvent) -> BoxFuture<'a, io::Result<()>> {
///         self.appended.fetch_add(1, Ordering::Relaxed);
///         self.inner.append(session, stream, event)
///     }
///     fn replay<'a>(&'a self, session: &'a str, stream: u64, after: u64)
///         -> BoxFuture<'a, io::Result<Option<Vec<StoredEvent>>>> {
///         self.inner.replay(session, stream, after)
///     }
///     fn stream_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<()>> {
///         self.inner.stream_finished(session, stream)
///     }
///     fn session_ended<'a>(&'a self, session: &'a str) -> BoxFuture<'a, io::Result<()>> {
///         self.inner.session_ended(session)
///     }
/// }
/// ```
pub trait EventStore: Send + Sync {
    /// Keeps `event` as the latest of `stream` in `session`.
    fn append<'a>(&'a self, session: &'a str, stream: u64, event: StoredEvent) -> BoxFuture<'a, io::Result<()>>;

    /// The kept events of `stream` in `session` whose sequence number is above `after`, in
    /// order; `None` when the store does not know the stream (never seen, or freed).
    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, io::Result<Option<Vec<StoredEvent>>>>;

    /// `stream` got its last event: the store may free it once it is no longer worth
    /// resuming.
    fn stream_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<()>>;

    /// `session` ended: none of its streams will be resumed.
    fn session_ended<'a>(&'a self, session: &'a str) -> BoxFuture<'a, io::Result<()>>;

    /// Whether `stream` of `session` got its last event. A reader that resumes, on
    /// another replica, a stream that one replica is still writing follows it in the store
    /// until it is finished; a store that cannot tell says it is (the default), and such a
    /// reader gets what was kept, no more.
    fn is_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<bool>> {
        let _ = (session, stream);
        Box::pin(std::future::ready(Ok(true)))
    }
}

impl fmt::Debug for dyn EventStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventStore")
    }
}

/// The events of every session, in memory: `events_kept` per stream, the streams of the
/// last 32 finished POSTs per session, and at most a number of bytes per session and in
/// all (by default 8 MiB and 256 MiB).
#[derive(Debug)]
pub struct InMemoryEventStore {
    limits: LogLimits,
    sessions: Mutex<HashMap<String, SessionLog>>,
}

impl InMemoryEventStore {
    /// A store that keeps at most `events_kept` events per stream.
    pub fn new(events_kept: usize) -> Self {
        InMemoryEventStore {
            limits: LogLimits::new(events_kept, DEFAULT_BYTES_PER_SESSION, DEFAULT_BYTES_TOTAL),
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps at most `per_session` bytes of event data per session (the oldest go first)
    /// and `total` bytes in all (past it, events are not kept).
    pub fn bytes_kept(mut self, per_session: usize, total: usize) -> Self {
        self.limits = LogLimits::new(self.limits.events_kept, per_session, total);
        self
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionLog>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(&'a self, session: &'a str, stream: u64, event: StoredEvent) -> BoxFuture<'a, io::Result<()>> {
        let mut sessions = self.sessions();
        // Looked up before inserting so that an append allocates no key.
        match sessions.get_mut(session) {
            Some(log) => log.append(stream, event),
            None => {
                let mut log = SessionLog::new(self.limits.clone());
                log.append(stream, event);
                sessions.insert(session.to_owned(), log);
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, io::Result<Option<Vec<StoredEvent>>>> {
        let events = self.sessions().get(session).and_then(|log| log.replay(stream, after));
        Box::pin(std::future::ready(Ok(events)))
    }

    fn stream_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<()>> {
        if let Some(log) = self.sessions().get_mut(session) {
            log.finish(stream);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn session_ended<'a>(&'a self, session: &'a str) -> BoxFuture<'a, io::Result<()>> {
        self.sessions().remove(session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn is_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<bool>> {
        // A stream forgotten is as good as finished: nothing more will come of it.
        let finished = self.sessions().get(session).is_none_or(|log| log.is_finished(stream));
        Box::pin(std::future::ready(Ok(finished)))
    }
}

/// The default bound on one session's event bytes.
const DEFAULT_BYTES_PER_SESSION: usize = 8 * 1024 * 1024;
/// The default bound on the event bytes of every session together.
const DEFAULT_BYTES_TOTAL: usize = 256 * 1024 * 1024;

/// The bounds of session logs: events per stream, bytes per session, and a byte budget
/// the logs that share these limits draw from together.
#[derive(Debug, Clone)]
pub(crate) struct LogLimits {
    events_kept: usize,
    bytes_per_session: usize,
    total: Arc<ByteBudget>,
}

impl LogLimits {
    pub(crate) fn new(events_kept: usize, bytes_per_session: usize, bytes_total: usize) -> Self {
        LogLimits {
            events_kept: events_kept.max(1),
            bytes_per_session,
            total: Arc::new(ByteBudget {
                used: AtomicUsize::new(0),
                limit: bytes_total,
            }),
        }
    }
}

/// Bytes shared by many logs.
#[derive(Debug)]
struct ByteBudget {
    used: AtomicUsize,
    limit: usize,
}

impl ByteBudget {
    /// Takes `bytes` from the budget, if they are left.
    fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&after| after <= self.limit)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// The bounded logs of one session's streams: what [`InMemoryEventStore`] keeps per
/// session, and what a session keeps by itself when no store is configured.
#[derive(Debug)]
pub(crate) struct SessionLog {
    limits: LogLimits,
    /// The event bytes kept, all streams together.
    bytes: usize,
    streams: HashMap<u64, VecDeque<StoredEvent>>,
    finished: VecDeque<u64>,
}

impl SessionLog {
    pub(crate) fn new(limits: LogLimits) -> Self {
        SessionLog {
            limits,
            bytes: 0,
            streams: HashMap::new(),
            finished: VecDeque::new(),
        }
    }

    /// Keeps `event` of `stream`, making room by dropping the oldest events (those of
    /// finished streams first). An event that does not fit is not kept: it was sent
    /// already, only resuming past it loses it.
    pub(crate) fn append(&mut self, stream: u64, event: StoredEvent) {
        let size = event.data.len();
        if size > self.limits.bytes_per_session {
            return;
        }
        while self.bytes + size > self.limits.bytes_per_session && self.drop_oldest(stream) {}
        if !self.limits.total.take(size) {
            return;
        }
        self.bytes += size;
        let events = self.streams.entry(stream).or_default();
        events.push_back(event);
        if events.len() > self.limits.events_kept {
            if let Some(oldest) = events.pop_front() {
                self.release(oldest.data.len());
            }
        }
    }

    pub(crate) fn replay(&self, stream: u64, after: u64) -> Option<Vec<StoredEvent>> {
        let events = self.streams.get(&stream)?;
        Some(events.iter().filter(|e| e.seq > after).cloned().collect())
    }

    /// Whether `stream` is finished, or forgotten.
    fn is_finished(&self, stream: u64) -> bool {
        self.finished.contains(&stream) || !self.streams.contains_key(&stream)
    }

    pub(crate) fn finish(&mut self, stream: u64) {
        self.finished.push_back(stream);
        if self.finished.len() > FINISHED_STREAMS_KEPT {
            if let Some(oldest) = self.finished.pop_front() {
                self.forget(oldest);
            }
        }
    }

    /// Drops the oldest finished stream, else the oldest event of `current`, else of any
    /// stream; false when nothing is left.
    fn drop_oldest(&mut self, current: u64) -> bool {
        if let Some(oldest) = self.finished.pop_front() {
            self.forget(oldest);
            return true;
        }
        let victim = if self.streams.get(&current).is_some_and(|events| !events.is_empty()) {
            Some(current)
        } else {
            self.streams
                .iter()
                .find(|(_, events)| !events.is_empty())
                .map(|(&stream, _)| stream)
        };
        let dropped = victim
            .and_then(|stream| self.streams.get_mut(&stream))
            .and_then(VecDeque::pop_front);
        match dropped {
            Some(event) => {
                self.release(event.data.len());
                true
            }
            None => false,
        }
    }

    fn forget(&mut self, stream: u64) {
        if let Some(events) = self.streams.remove(&stream) {
            self.release(events.iter().map(|event| event.data.len()).sum());
        }
    }

    fn release(&mut self, bytes: usize) {
        self.bytes -= bytes;
        self.limits.total.give_back(bytes);
    }
}

impl Drop for SessionLog {
    fn drop(&mut self) {
        self.limits.total.give_back(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64) -> StoredEvent {
        StoredEvent {
            seq,
            data: seq.to_string(),
        }
    }

    #[test]
    fn logs_are_bounded() {
        let mut log = SessionLog::new(LogLimits::new(2, 1 << 20, 1 << 20));
        for seq in 1..=5 {
            log.append(0, event(seq));
        }
        assert_eq!(log.replay(0, 0), Some(vec![event(4), event(5)]));
        assert_eq!(log.replay(0, 4), Some(vec![event(5)]));
        for stream in 1..=(FINISHED_STREAMS_KEPT as u64 + 3) {
            log.append(stream, event(1));
            log.finish(stream);
        }
        assert_eq!(log.streams.len(), FINISHED_STREAMS_KEPT + 1);
        assert_eq!(log.replay(1, 0), None, "the oldest finished streams are freed");
    }

    fn sized(seq: u64, bytes: usize) -> StoredEvent {
        StoredEvent {
            seq,
            data: "x".repeat(bytes),
        }
    }

    #[test]
    fn logs_are_bounded_in_bytes_per_session_and_in_all() {
        let limits = LogLimits::new(1000, 100, 150);
        let mut first = SessionLog::new(limits.clone());
        first.append(1, sized(1, 40));
        first.finish(1);
        first.append(2, sized(1, 40));
        first.append(2, sized(2, 40));
        assert_eq!(first.replay(1, 0), None, "a finished stream goes first");
        assert_eq!(first.bytes, 80);
        first.append(2, sized(3, 40));
        assert_eq!(first.replay(2, 0).unwrap().first().map(|e| e.seq), Some(2));
        assert_eq!(first.bytes, 80, "within 100 bytes");
        first.append(3, sized(1, 101));
        assert_eq!(first.replay(3, 0), None, "larger than a session may keep");

        let mut second = SessionLog::new(limits.clone());
        second.append(1, sized(1, 40));
        second.append(1, sized(2, 40));
        assert_eq!(second.bytes, 40, "150 bytes in all: 80 + 40, and no room for 40 more");
        drop(first);
        second.append(1, sized(3, 40));
        assert_eq!(second.bytes, 80, "the first session's bytes came back");
    }

    #[tokio::test]
    async fn the_in_memory_store_keeps_sessions_apart_and_frees_them() {
        let store = InMemoryEventStore::new(8);
        store.append("a", 1, event(1)).await.unwrap();
        assert_eq!(store.replay("a", 1, 0).await.unwrap(), Some(vec![event(1)]));
        assert!(!store.is_finished("a", 1).await.unwrap());
        store.stream_finished("a", 1).await.unwrap();
        assert!(store.is_finished("a", 1).await.unwrap());
        assert_eq!(store.replay("b", 1, 0).await.unwrap(), None);
        store.session_ended("a").await.unwrap();
        assert_eq!(store.replay("a", 1, 0).await.unwrap(), None);
    }
}
