//! The SSE streams of one legacy HTTP session: every event is logged (in the session's own
//! bounded memory, or in the configured [`EventStore`]) so that a client whose stream broke
//! can reconnect with `Last-Event-ID` and lose nothing, and passed to the reader attached
//! to its stream, if any.
//!
//! Stream 0 is the session's standalone GET stream; each POST that answers with SSE gets
//! a stream of its own. Event ids are `{stream}-{sequence}`.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::lock;
use crate::state::{EventStore, LogLimits, SessionLog, StoredEvent};

/// The standalone stream opened by GET.
pub(crate) const STANDALONE: u64 = 0;

/// One SSE event; its id is `{stream}-{seq}`, written only when the event is.
pub(crate) type Event = StoredEvent;

/// What a (re)attached reader gets: the events it missed, then the live ones.
pub(crate) struct Attached {
    pub(crate) missed: Vec<Event>,
    /// `None` when the stream is already complete.
    pub(crate) live: Option<mpsc::Receiver<Event>>,
    /// Where the reader stands before `missed`: the sequence number it asked to resume
    /// after, or the stream's latest when that is lower (a fresh GET starts there).
    pub(crate) position: u64,
}

impl Attached {
    /// The last sequence number the reader has once it read `missed`: live events up to
    /// it were replayed already (the log and the live channel may both carry an event
    /// pushed while the reader attached).
    pub(crate) fn seen(&self) -> u64 {
        self.missed.last().map_or(self.position, |event| event.seq)
    }
}

/// What the hub knows of a stream still open; a finished one is known only to the log.
struct OpenStream {
    next_seq: u64,
    live: Option<mpsc::Sender<Event>>,
}

/// Where a session's events are kept.
enum Log {
    /// The default: in the hub, without a boxed future per event.
    Memory(Mutex<SessionLog>),
    /// A configured store, which knows the session by its id.
    Store {
        store: Arc<dyn EventStore>,
        session: String,
    },
}

/// The streams of one session.
pub(crate) struct StreamHub {
    next_stream: AtomicU64,
    /// Whether this is one replica's hub of a session that replicas share (see
    /// [`replicated`](Self::replicated)).
    replicated: bool,
    open: Mutex<HashMap<u64, OpenStream>>,
    log: Log,
}

impl StreamHub {
    /// A hub that keeps its events in memory, within `limits`.
    pub(crate) fn new(limits: LogLimits) -> Self {
        Self::with_log(Log::Memory(Mutex::new(SessionLog::new(limits))))
    }

    /// A hub that logs the events of session `session` in `store`.
    pub(crate) fn with_store(store: Arc<dyn EventStore>, session: String) -> Self {
        Self::with_log(Log::Store { store, session })
    }

    fn with_log(log: Log) -> Self {
        StreamHub {
            next_stream: AtomicU64::new(STANDALONE + 1),
            replicated: false,
            open: Mutex::new(HashMap::from([(STANDALONE, OpenStream::new())])),
            log,
        }
    }

    /// Makes this one replica's hub of a session that replicas share, each with a hub of
    /// its own: POST streams are numbered at random, so that the stream a client resumes is
    /// never another hub's; with a store they share, a stream resumed here that another
    /// replica writes is followed in the store, the standalone stream continues where the
    /// store's ends, and a hub that goes leaves the session's events to the others.
    pub(crate) fn replicated(mut self) -> Self {
        self.replicated = true;
        self
    }

    /// Opens a stream for one POST.
    pub(crate) fn open(&self) -> u64 {
        let mut streams = self.streams();
        let stream = loop {
            let next = || self.next_stream.fetch_add(1, Ordering::Relaxed);
            let stream = match self.replicated {
                // Below 2^53, which any client reads back exactly; 0 is the GET stream.
                true => getrandom::u64().map_or_else(|_| next(), |random| random >> 11),
                false => next(),
            };
            if stream != STANDALONE && !streams.contains_key(&stream) {
                break stream;
            }
        };
        streams.insert(stream, OpenStream::new());
        stream
    }

    /// Logs an event on `stream`, then passes it to the attached reader, if any. `last`
    /// marks the stream complete. The events of one stream must be pushed one at a time.
    pub(crate) async fn push(&self, stream: u64, data: String, last: bool) {
        let seq = {
            let mut streams = self.streams();
            let open = streams.entry(stream).or_insert_with(OpenStream::new);
            open.next_seq += 1;
            open.next_seq
        };
        let event = Event { seq, data };
        match &self.log {
            Log::Memory(log) => lock(log).append(stream, event.clone()),
            Log::Store { store, session } => {
                report(store.append(session, stream, event.clone()).await, "append");
            }
        }
        {
            let mut streams = self.streams();
            if let Some(open) = streams.get_mut(&stream) {
                if let Some(live) = &open.live {
                    // A reader that cannot keep up is detached; it resumes from the log.
                    if live.try_send(event).is_err() {
                        open.live = None;
                    }
                }
            }
            if last {
                streams.remove(&stream);
            }
        }
        if last {
            match &self.log {
                Log::Memory(log) => lock(log).finish(stream),
                Log::Store { store, session } => {
                    report(store.stream_finished(session, stream).await, "stream_finished");
                }
            }
        }
    }

    /// Attaches a reader to `stream` after event `after` (0: from the start; `u64::MAX`:
    /// from now on). `None` when the stream is neither open nor in the log.
    pub(crate) async fn attach(&self, stream: u64, after: u64, capacity: usize) -> Option<Attached> {
        if let (true, Log::Store { store, session }) = (self.replicated, &self.log) {
            if stream == STANDALONE {
                self.catch_up_standalone(store.as_ref(), session, after).await;
            } else if !self.streams().contains_key(&stream) {
                return follow(Arc::clone(store), session.clone(), stream, after, capacity).await;
            }
        }
        // The reader is attached before the log is read, so that nothing pushed meanwhile
        // is lost; what both carry is skipped by `Attached::seen`.
        let open = self.streams().get_mut(&stream).map(|open| {
            let (tx, rx) = mpsc::channel(capacity);
            open.live = Some(tx);
            (open.next_seq, rx)
        });
        Some(match open {
            Some((latest, live)) => Attached {
                missed: if after < latest {
                    self.replay(stream, after).await.unwrap_or_default()
                } else {
                    Vec::new()
                },
                live: Some(live),
                position: after.min(latest),
            },
            None => Attached {
                missed: self.replay(stream, after).await?,
                live: None,
                position: after,
            },
        })
    }

    /// Numbers this hub's next standalone events after the last one the shared store
    /// has: the replica that had the client's GET stream before may have written them.
    async fn catch_up_standalone(&self, store: &dyn EventStore, session: &str, after: u64) {
        let from = if after == u64::MAX { 0 } else { after };
        let latest = report(store.replay(session, STANDALONE, from).await, "replay")
            .flatten()
            .and_then(|events| events.last().map(|event| event.seq))
            .unwrap_or(from);
        if let Some(open) = self.streams().get_mut(&STANDALONE) {
            open.next_seq = open.next_seq.max(latest);
        }
    }

    /// Ends the reader's stream: its events from now on are only logged, for the client
    /// to resume.
    pub(crate) fn detach(&self, stream: u64) {
        if let Some(open) = self.streams().get_mut(&stream) {
            open.live = None;
        }
    }

    /// Whether a reader is attached to `stream`.
    pub(crate) fn is_attached(&self, stream: u64) -> bool {
        self.streams()
            .get(&stream)
            .is_some_and(|open| open.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    /// Whether a reader is attached to any stream of the session.
    pub(crate) fn has_reader(&self) -> bool {
        self.streams()
            .values()
            .any(|open| open.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    async fn replay(&self, stream: u64, after: u64) -> Option<Vec<Event>> {
        match &self.log {
            Log::Memory(log) => lock(log).replay(stream, after),
            Log::Store { store, session } => report(store.replay(session, stream, after).await, "replay").flatten(),
        }
    }

    fn streams(&self) -> MutexGuard<'_, HashMap<u64, OpenStream>> {
        lock(&self.open)
    }
}

/// A stream that another replica writes, read from the shared store: what was kept after
/// `after`, then what comes, until the stream is finished or the store forgets it.
async fn follow(
    store: Arc<dyn EventStore>,
    session: String,
    stream: u64,
    after: u64,
    capacity: usize,
) -> Option<Attached> {
    let missed = report(store.replay(&session, stream, after).await, "replay").flatten()?;
    let seen = missed.last().map_or(after, |event| event.seq);
    let finished = report(store.is_finished(&session, stream).await, "is_finished").unwrap_or(true);
    let live = (!finished).then(|| {
        let (tx, rx) = mpsc::channel(capacity);
        tokio::spawn(poll_store(store, session, stream, seen, tx));
        rx
    });
    Some(Attached {
        missed,
        live,
        position: after,
    })
}

/// How often a stream written on another replica is read again from the shared store.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(100);

/// Passes the events of `stream` after `seen` to `reader` as the store gets them, until
/// the stream is finished, the store forgets it, or the reader goes.
async fn poll_store(
    store: Arc<dyn EventStore>,
    session: String,
    stream: u64,
    mut seen: u64,
    reader: mpsc::Sender<Event>,
) {
    loop {
        tokio::select! {
            _ = reader.closed() => return,
            _ = tokio::time::sleep(FOLLOW_INTERVAL) => {}
        }
        // Asked first, so that the events read next include the last one.
        let finished = report(store.is_finished(&session, stream).await, "is_finished");
        let Some(events) = report(store.replay(&session, stream, seen).await, "replay") else {
            continue;
        };
        let Some(events) = events else { return };
        for event in events {
            seen = event.seq;
            if reader.send(event).await.is_err() {
                return;
            }
        }
        if finished == Some(true) {
            return;
        }
    }
}

impl Drop for StreamHub {
    /// Tells a configured store that the session ended; the hub is dropped once the
    /// session and every stream still being written are gone. A replicated hub leaves
    /// that to the session's end (the session lives on in the other replicas).
    fn drop(&mut self) {
        if self.replicated {
            return;
        }
        let Log::Store { store, session } = &mut self.log else {
            return;
        };
        let (store, session) = (Arc::clone(store), std::mem::take(session));
        // Outside a runtime (an endpoint dropped after its runtime) there is no one to
        // wait for the store; it keeps the session until it frees it by itself.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                report(store.session_ended(&session).await, "session_ended");
            });
        }
    }
}

impl OpenStream {
    fn new() -> Self {
        OpenStream {
            next_seq: 0,
            live: None,
        }
    }
}

/// A store's failure costs only resumption: it is logged, and the stream goes on.
fn report<T>(result: io::Result<T>, operation: &str) -> Option<T> {
    result
        .inspect_err(|error| tracing::warn!(%error, operation, "the event store failed"))
        .ok()
}

/// Reads an event id back into its stream and sequence number.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::InMemoryEventStore;

    fn event(seq: u64, data: &str) -> Event {
        Event { seq, data: data.into() }
    }

    async fn reattach(hub: StreamHub) {
        let stream = hub.open();
        let first = hub.attach(stream, 0, 8).await.unwrap();
        hub.push(stream, "one".into(), false).await;
        let mut live = first.live.unwrap();
        assert_eq!(live.try_recv().unwrap(), event(1, "one"));
        drop(live);
        hub.push(stream, "two".into(), false).await;
        let again = hub.attach(stream, 1, 8).await.unwrap();
        assert_eq!(again.missed, vec![event(2, "two")]);
        assert_eq!(again.seen(), 2);
        hub.push(stream, "three".into(), true).await;
        let mut live = again.live.unwrap();
        assert_eq!(live.try_recv().unwrap(), event(3, "three"));
        assert!(live.try_recv().is_err(), "closed after the last event");
        let finished = hub.attach(stream, 1, 8).await.unwrap();
        assert!(finished.live.is_none(), "complete");
        assert_eq!(finished.missed, vec![event(2, "two"), event(3, "three")]);
        assert!(hub.attach(stream + 1, 0, 8).await.is_none(), "unknown stream");
    }

    #[tokio::test]
    async fn a_reader_that_reattaches_gets_what_it_missed_then_the_rest() {
        reattach(StreamHub::new(LogLimits::new(100, 1 << 20, 1 << 20))).await;
        reattach(StreamHub::with_store(
            Arc::new(InMemoryEventStore::new(100)),
            "s".into(),
        ))
        .await;
    }

    #[tokio::test]
    async fn a_fresh_reader_starts_at_the_latest_event() {
        let hub = StreamHub::new(LogLimits::new(100, 1 << 20, 1 << 20));
        hub.push(STANDALONE, "old".into(), false).await;
        let attached = hub.attach(STANDALONE, u64::MAX, 8).await.unwrap();
        assert!(attached.missed.is_empty());
        assert_eq!(attached.position, 1);
    }

    #[test]
    fn event_ids_parse() {
        assert_eq!(parse_event_id("7-42"), Some((7, 42)));
        assert_eq!(parse_event_id("nonsense"), None);
    }
}
