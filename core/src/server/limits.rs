//! The bounds a server keeps: per client (requests in flight, resource subscriptions, how
//! long requests may finish once the client's connection is gone, how long a request to the
//! client may wait), and the [`Quota`] that
//! counts what is capped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The bounds of one client's session, set on the [`ServerBuilder`](super::ServerBuilder).
#[derive(Debug, Clone)]
pub(crate) struct SessionLimits {
    /// Requests served at once; past it a request is answered with an error at once.
    pub(crate) max_in_flight: usize,
    /// URIs one legacy client may subscribe to with `resources/subscribe`.
    pub(crate) max_subscriptions: usize,
    /// How long requests in flight may finish after the connection's input ended.
    pub(crate) end_grace: Duration,
    /// How long a request to the client (legacy elicitation, sampling, roots) may wait
    /// for its answer.
    pub(crate) client_request_timeout: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max_in_flight: 256,
            max_subscriptions: 1024,
            end_grace: Duration::from_secs(5),
            client_request_timeout: Duration::from_secs(300),
        }
    }
}

/// Counts what is open at once (requests in flight, sessions) against a cap.
#[derive(Debug)]
pub(crate) struct Quota {
    active: AtomicUsize,
    max: usize,
}

impl Quota {
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Quota {
            active: AtomicUsize::new(0),
            max,
        })
    }

    /// The cap.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Admits one more until the admission is dropped; `None` when the cap is reached.
    pub(crate) fn admit(self: &Arc<Self>) -> Option<Admission> {
        self.active
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |active| {
                (active < self.max).then_some(active + 1)
            })
            .ok()
            .map(|_| Admission(Arc::clone(self)))
    }
}

/// One admitted request or session.
#[derive(Debug)]
pub(crate) struct Admission(Arc<Quota>);

impl Drop for Admission {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admissions_stop_at_the_cap_and_come_back_when_dropped() {
        let quota = Quota::new(2);
        let first = quota.admit().expect("first");
        let _second = quota.admit().expect("second");
        assert!(quota.admit().is_none(), "a third is refused");
        drop(first);
        assert!(quota.admit().is_some(), "room again");
    }
}
