//! Reconnecting a broken SSE stream (legacy era: the GET stream, and a response stream
//! resumed with `Last-Event-ID`): the back-off policy, and each stream's reconnections,
//! bounded so that a server cannot make the client wait forever (an enormous `retry:`)
//! nor reconnect in a tight loop (a stream that keeps closing).

use std::time::Duration;

/// The shortest wait before reconnecting a stream, whatever `retry:` says.
const MIN_RECONNECT_DELAY: Duration = Duration::from_millis(50);

/// The reconnection policy of broken SSE streams.
#[derive(Debug, Clone, Copy)]
pub(super) struct Backoff {
    pub(super) initial: Duration,
    pub(super) max: Duration,
    pub(super) attempts: u32,
}

impl Backoff {
    /// The wait before reconnection `step` (from 1): the server's `retry:` for the first,
    /// then doubling from `initial` up to `max`, never below `retry:`. `retry:` counts up
    /// to `max` only.
    pub(super) fn delay(&self, step: u32, retry: Option<Duration>) -> Duration {
        let doubled = self
            .initial
            .saturating_mul(1u32 << step.saturating_sub(1).min(16))
            .min(self.max);
        let delay = match retry.map(|retry| retry.min(self.max)) {
            Some(retry) if step <= 1 => retry,
            Some(retry) => doubled.max(retry),
            None => doubled,
        };
        delay.max(MIN_RECONNECT_DELAY)
    }
}

/// The reconnections of one stream.
#[derive(Debug)]
pub(super) struct Reconnects {
    backoff: Backoff,
    /// Attempts in a row that brought no event; past `backoff.attempts` the stream is
    /// given up.
    idle: u32,
    /// Reconnections since the stream was last up for long: the back-off's step.
    step: u32,
}

impl Reconnects {
    pub(super) fn new(backoff: Backoff) -> Self {
        Reconnects {
            backoff,
            idle: 0,
            step: 0,
        }
    }

    /// After an attempt ended (the connection failed, or the stream it opened closed):
    /// `events` says whether it brought any, `lasted` how long the stream was open,
    /// `retry` is the server's latest `retry:`. The wait before the next attempt, or
    /// `None` to give up.
    ///
    /// Events keep the stream from being given up, but only a stream that stayed open
    /// at least the longest wait starts the back-off over: one that keeps closing sooner
    /// waits longer each time, up to the longest wait, instead of spinning.
    pub(super) fn after(&mut self, events: bool, lasted: Duration, retry: Option<Duration>) -> Option<Duration> {
        if events {
            self.idle = 0;
        }
        if lasted >= self.backoff.max {
            self.step = 0;
        }
        self.idle = self.idle.saturating_add(1);
        self.step = self.step.saturating_add(1);
        (self.idle <= self.backoff.attempts).then(|| self.backoff.delay(self.step, retry))
    }

    /// How many attempts in a row may bring no event.
    pub(super) fn attempts(&self) -> u32 {
        self.backoff.attempts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKOFF: Backoff = Backoff {
        initial: Duration::from_millis(100),
        max: Duration::from_millis(500),
        attempts: 3,
    };

    #[test]
    fn backoff_doubles_up_to_the_cap_and_honours_retry_up_to_it() {
        let delays: Vec<u128> = (1..=5).map(|a| BACKOFF.delay(a, None).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 500, 500]);
        let retry = Some(Duration::from_millis(300));
        let delays: Vec<u128> = (1..=4).map(|a| BACKOFF.delay(a, retry).as_millis()).collect();
        assert_eq!(delays, [300, 300, 400, 500]);
        // Never a tight loop, even when the server asks for none.
        assert_eq!(BACKOFF.delay(1, Some(Duration::ZERO)), MIN_RECONNECT_DELAY);
        assert_eq!(BACKOFF.delay(u32::MAX, None), Duration::from_millis(500));
        // Never parked for good, whatever the server asks for.
        let enormous = Some(Duration::from_millis(u64::MAX));
        assert_eq!(BACKOFF.delay(1, enormous), Duration::from_millis(500));
        assert_eq!(BACKOFF.delay(3, enormous), Duration::from_millis(500));
    }

    #[test]
    fn a_stream_that_keeps_closing_backs_off_and_one_that_fails_is_given_up() {
        let mut reconnects = Reconnects::new(BACKOFF);
        let brief = Duration::from_millis(1);
        // Events every time, but the stream never stays up: longer waits, never given up.
        let waits: Vec<u128> = (0..6)
            .map(|_| reconnects.after(true, brief, Some(Duration::ZERO)).unwrap().as_millis())
            .collect();
        assert_eq!(waits, [50, 200, 400, 500, 500, 500]);
        // A stream that stayed up long starts over.
        assert_eq!(reconnects.after(true, BACKOFF.max, None), Some(BACKOFF.initial));
        // Attempts without events: given up after `attempts` of them.
        let mut reconnects = Reconnects::new(BACKOFF);
        assert!(reconnects.after(false, Duration::ZERO, None).is_some());
        assert!(reconnects.after(false, Duration::ZERO, None).is_some());
        assert!(reconnects.after(false, Duration::ZERO, None).is_some());
        assert_eq!(reconnects.after(false, Duration::ZERO, None), None);
    }
}
