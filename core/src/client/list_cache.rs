//! The client's lists kept while the server says they are fresh (SEP-2549): a full listing
//! of tools, prompts, resources or templates is reused until its `ttlMs` runs out, or
//! until the server says that list changed. A server that gives no `ttlMs` (every
//! legacy one), or `0`, is asked each time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::lock;
use super::notifications::ServerNotification;
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};

/// One list: its items and when they go stale, and a count of the changes the server
/// announced (a listing that began before a change is not kept).
pub(super) struct Fresh<T> {
    kept: Mutex<Option<(Instant, Vec<T>)>>,
    changes: AtomicU64,
}

impl<T> Default for Fresh<T> {
    fn default() -> Self {
        Fresh {
            kept: Mutex::new(None),
            changes: AtomicU64::new(0),
        }
    }
}

impl<T: Clone> Fresh<T> {
    /// The items, while they are fresh.
    pub(super) fn get(&self) -> Option<Vec<T>> {
        let kept = lock(&self.kept);
        let (stale_at, items) = kept.as_ref()?;
        (Instant::now() < *stale_at).then(|| items.clone())
    }

    /// Where the count of changes stands before a listing begins.
    pub(super) fn mark(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Keeps `items`, listed since `mark`, for `ttl_ms`, unless the list changed
    /// meanwhile or the server gave no positive TTL.
    pub(super) fn keep(&self, items: &[T], ttl_ms: Option<u64>, mark: u64) {
        let Some(ttl) = ttl_ms.filter(|ttl| *ttl > 0) else {
            return;
        };
        let mut kept = lock(&self.kept);
        if self.changes.load(Ordering::Acquire) == mark {
            *kept = Some((Instant::now() + Duration::from_millis(ttl), items.to_vec()));
        }
    }

    /// Drops the items: the list changed.
    pub(super) fn forget(&self) {
        let mut kept = lock(&self.kept);
        self.changes.fetch_add(1, Ordering::AcqRel);
        *kept = None;
    }
}

/// Every list the client keeps.
#[derive(Default)]
pub(super) struct ListCache {
    pub(super) tools: Fresh<Tool>,
    pub(super) prompts: Fresh<Prompt>,
    pub(super) resources: Fresh<Resource>,
    pub(super) templates: Fresh<ResourceTemplate>,
}

impl ListCache {
    /// Drops what a notification says changed.
    pub(super) fn on_notification(&self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ToolListChanged => self.tools.forget(),
            ServerNotification::PromptListChanged => self.prompts.forget(),
            ServerNotification::ResourceListChanged => {
                self.resources.forget();
                self.templates.forget();
            }
            _ => {}
        }
    }

    /// Drops every list.
    pub(super) fn forget_all(&self) {
        self.tools.forget();
        self.prompts.forget();
        self.resources.forget();
        self.templates.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_kept_for_its_ttl_unless_it_changed_meanwhile() {
        let fresh = Fresh::<u32>::default();
        let mark = fresh.mark();
        fresh.keep(&[1, 2], Some(60_000), mark);
        assert_eq!(fresh.get(), Some(vec![1, 2]));
        fresh.forget();
        assert_eq!(fresh.get(), None);

        let before_change = fresh.mark();
        fresh.forget();
        fresh.keep(&[3], Some(60_000), before_change);
        assert_eq!(fresh.get(), None, "listed before a change: not kept");

        for ttl in [None, Some(0)] {
            let mark = fresh.mark();
            fresh.keep(&[4], ttl, mark);
            assert_eq!(fresh.get(), None, "{ttl:?}: asked each time");
        }
        let mark = fresh.mark();
        fresh.keep(&[5], Some(1), mark);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(fresh.get(), None, "stale");
    }
}
