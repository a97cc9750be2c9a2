//! The SSE streams of one legacy HTTP session: every event is logged with an id so that a
//! client whose stream broke can reconnect with `Last-Event-ID` and lose nothing.
//!
//! Stream 0 is the session's standalone GET stream; each POST that answers with SSE gets
//! a stream of its own. Event ids are `{stream}-{sequence}`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tokio::sync::mpsc;

/// The standalone stream opened by GET.
pub(crate) const STANDALONE: u64 = 0;

/// How many finished POST streams a session keeps for resumption.
const FINISHED_STREAMS_KEPT: usize = 32;

/// One SSE event, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub(crate) id: String,
    pub(crate) data: String,
}

/// What a (re)attached reader gets: the events it missed, then the live ones.
pub(crate) struct Attached {
    pub(crate) missed: Vec<Event>,
    /// `None` when the stream is already complete.
    pub(crate) live: Option<mpsc::Receiver<Event>>,
    /// The sequence number of the stream's latest event when the reader attached.
    pub(crate) position: u64,
}

struct StreamLog {
    next_seq: u64,
    events: VecDeque<(u64, String)>,
    live: Option<mpsc::Sender<Event>>,
    finished: bool,
}

/// The logs of one session's streams.
pub(crate) struct StreamHub {
    next_stream: AtomicU64,
    streams: Mutex<HashMap<u64, StreamLog>>,
    events_kept: usize,
    finished_order: Mutex<VecDeque<u64>>,
}

impl StreamHub {
    /// A hub that keeps at most `events_kept` events per stream.
    pub(crate) fn new(events_kept: usize) -> Self {
        StreamHub {
            next_stream: AtomicU64::new(STANDALONE + 1),
            streams: Mutex::new(HashMap::from([(STANDALONE, StreamLog::new())])),
            events_kept: events_kept.max(1),
            finished_order: Mutex::new(VecDeque::new()),
        }
    }

    /// Opens a stream for one POST; its first (priming) event id is returned with it.
    pub(crate) fn open(&self) -> u64 {
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        self.logs().insert(stream, StreamLog::new());
        stream
    }

    /// Logs an event on `stream` and passes it to the attached reader, if any. `last`
    /// marks the stream complete.
    pub(crate) fn push(&self, stream: u64, data: String, last: bool) {
        let mut logs = self.logs();
        let log = logs.entry(stream).or_insert_with(StreamLog::new);
        log.next_seq += 1;
        let event = Event {
            id: event_id(stream, log.next_seq),
            data: data.clone(),
        };
        log.events.push_back((log.next_seq, data));
        if log.events.len() > self.events_kept {
            log.events.pop_front();
        }
        if let Some(live) = &log.live {
            // A reader that cannot keep up is detached; it resumes from the log.
            if live.try_send(event).is_err() {
                log.live = None;
            }
        }
        if last {
            log.finished = true;
            log.live = None;
            drop(logs);
            self.retire(stream);
        }
    }

    /// Attaches a reader to `stream` after event `after` (0: from the start).
    pub(crate) fn attach(&self, stream: u64, after: u64, capacity: usize) -> Option<Attached> {
        let mut logs = self.logs();
        let log = logs.get_mut(&stream)?;
        let missed = log
            .events
            .iter()
            .filter(|(seq, _)| *seq > after)
            .map(|(seq, data)| Event {
                id: event_id(stream, *seq),
                data: data.clone(),
            })
            .collect();
        let live = (!log.finished).then(|| {
            let (tx, rx) = mpsc::channel(capacity);
            log.live = Some(tx);
            rx
        });
        Some(Attached {
            missed,
            live,
            position: log.next_seq,
        })
    }

    /// Whether a reader is attached to `stream`.
    pub(crate) fn is_attached(&self, stream: u64) -> bool {
        self.logs()
            .get(&stream)
            .is_some_and(|log| log.live.as_ref().is_some_and(|l| !l.is_closed()))
    }

    fn retire(&self, stream: u64) {
        let mut order = self.finished_order.lock().unwrap_or_else(|e| e.into_inner());
        order.push_back(stream);
        if order.len() > FINISHED_STREAMS_KEPT {
            if let Some(oldest) = order.pop_front() {
                self.logs().remove(&oldest);
            }
        }
    }

    fn logs(&self) -> std::sync::MutexGuard<'_, HashMap<u64, StreamLog>> {
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl StreamLog {
    fn new() -> Self {
        StreamLog {
            next_seq: 0,
            events: VecDeque::new(),
            live: None,
            finished: false,
        }
    }
}

/// The id of event `seq` on `stream`.
pub(crate) fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Reads an event id back into its stream and sequence number.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_reattaches_gets_what_it_missed_then_the_rest() {
        let hub = StreamHub::new(100);
        let stream = hub.open();
        let first = hub.attach(stream, 0, 8).unwrap();
        hub.push(stream, "one".into(), false);
        let mut live = first.live.unwrap();
        assert_eq!(live.try_recv().unwrap().data, "one");
        drop(live);
        hub.push(stream, "two".into(), false);
        let again = hub.attach(stream, 1, 8).unwrap();
        assert_eq!(
            again.missed,
            vec![Event {
                id: "1-2".into(),
                data: "two".into()
            }]
        );
        hub.push(stream, "three".into(), true);
        let mut live = again.live.unwrap();
        assert_eq!(live.try_recv().unwrap().data, "three");
        assert!(live.try_recv().is_err(), "closed after the last event");
        assert!(hub.attach(stream, 3, 8).unwrap().live.is_none(), "complete");
    }

    #[test]
    fn logs_are_bounded() {
        let hub = StreamHub::new(2);
        for i in 0..5 {
            hub.push(STANDALONE, i.to_string(), false);
        }
        let attached = hub.attach(STANDALONE, 0, 8).unwrap();
        assert_eq!(
            attached.missed.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["3", "4"]
        );
        for _ in 0..(FINISHED_STREAMS_KEPT + 3) {
            let stream = hub.open();
            hub.push(stream, "x".into(), true);
        }
        assert!(hub.logs().len() <= FINISHED_STREAMS_KEPT + 1);
    }

    #[test]
    fn event_ids_round_trip() {
        assert_eq!(parse_event_id(&event_id(7, 42)), Some((7, 42)));
        assert_eq!(parse_event_id("nonsense"), None);
    }
}
