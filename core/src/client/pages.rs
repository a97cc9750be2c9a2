//! Following `nextCursor` through the pages of a list, within limits a server cannot
//! lead the client past: at most [`ClientOptions::max_list_pages`](super::ClientOptions::max_list_pages)
//! pages, and never a cursor the listing already followed (a loop).

use std::collections::HashSet;

use crate::error::{Error, Result};

/// One page of a listing: its items, where the next starts, and how long the server says
/// it stays fresh.
pub(super) struct Page<T> {
    pub(super) items: Vec<T>,
    pub(super) next_cursor: Option<String>,
    pub(super) ttl_ms: Option<u64>,
}

impl<T> Page<T> {
    pub(super) fn new(items: Vec<T>, next_cursor: Option<String>, ttl_ms: Option<u64>) -> Self {
        Page {
            items,
            next_cursor,
            ttl_ms,
        }
    }
}

/// The cursors one listing followed so far.
pub(super) struct Cursors<'a> {
    method: &'a str,
    limit: usize,
    pages: usize,
    seen: HashSet<String>,
}

impl<'a> Cursors<'a> {
    /// A listing with `method` of at most `limit` pages.
    pub(super) fn new(method: &'a str, limit: usize) -> Self {
        Cursors {
            method,
            limit,
            pages: 0,
            seen: HashSet::new(),
        }
    }

    /// Takes a page's `nextCursor`: `None` when the list is complete, else the cursor
    /// to ask for next; an error when the server repeats a cursor or the listing would
    /// pass the page limit.
    pub(super) fn follow(&mut self, next: Option<String>) -> Result<Option<String>> {
        self.pages += 1;
        let Some(next) = next else { return Ok(None) };
        if self.pages >= self.limit {
            return Err(Error::Protocol(format!(
                "{}: still more after {} pages, the client's limit",
                self.method, self.pages
            )));
        }
        if !self.seen.insert(next.clone()) {
            return Err(Error::Protocol(format!(
                "{}: the server sent the cursor {next:?} again (a loop)",
                self.method
            )));
        }
        Ok(Some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_at_the_end_at_the_limit_and_on_a_repeated_cursor() {
        let mut cursors = Cursors::new("tools/list", 3);
        assert_eq!(cursors.follow(Some("a".into())).unwrap().as_deref(), Some("a"));
        assert_eq!(cursors.follow(None).unwrap(), None);

        let mut cursors = Cursors::new("tools/list", 3);
        cursors.follow(Some("a".into())).unwrap();
        cursors.follow(Some("b".into())).unwrap();
        let error = cursors.follow(Some("c".into())).unwrap_err().to_string();
        assert!(error.contains("after 3 pages"), "{error}");

        let mut cursors = Cursors::new("tools/list", 100);
        cursors.follow(Some("a".into())).unwrap();
        cursors.follow(Some("b".into())).unwrap();
        let error = cursors.follow(Some("a".into())).unwrap_err().to_string();
        assert!(error.contains("\"a\" again"), "{error}");
    }
}
