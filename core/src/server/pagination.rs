//! Cursor pagination for the list methods. A cursor names the last item of the previous
//! page, so pages stay stable when items are added or removed elsewhere in the list.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use indexmap::map::Slice;
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::value::RawValue;

use super::auth::Caller;
use super::dispatch::{finish, parse_params, CursorParams, Outcome};
use super::registry::{DefinitionKind, Registry, Scoped};
use super::stamp::Stamp;
use super::Server;
use crate::protocol::{CacheableResult, ErrorObject};

/// Serves a list method: the page of `items` after the request's cursor, made into the
/// method's result by `build` (the page and the next cursor); modern results carry the
/// server's cache hints. A caller shown only what its scopes permit gets a list of its
/// own, which modern results mark private.
pub(super) fn list<T, R>(
    server: &Server,
    kind: DefinitionKind,
    params: Option<&RawValue>,
    stamp: Option<&Stamp>,
    caller: Option<&Caller>,
    items: impl FnOnce(&Registry) -> &IndexMap<String, Arc<T>>,
    build: impl FnOnce(&Slice<String, Arc<T>>, Option<String>) -> R,
) -> Outcome
where
    T: Scoped,
    R: CacheableResult + Serialize,
{
    let cursor: CursorParams = parse_params(params)?;
    let registry = server.registry();
    let all = items(&registry);
    let filtering = caller.filter(|caller| caller.lists_only_permitted());
    let permitted: IndexMap<String, Arc<T>>;
    let listed = match filtering {
        Some(caller) => {
            permitted = all
                .iter()
                .filter(|(_, item)| caller.may_use(item.scopes()))
                .map(|(key, item)| (key.clone(), Arc::clone(item)))
                .collect();
            &permitted
        }
        None => all,
    };
    let (page, next_cursor) = page(listed, cursor.cursor.as_deref(), server.page_size())?;
    let mut result = build(page, next_cursor);
    if stamp.is_some() {
        server.stamp_list_cache_hints(&mut result, kind, filtering.is_some());
    }
    finish(result, stamp)
}

/// One page of `items` after `cursor`, and the cursor of the next page if there is one.
pub(crate) fn page<'a, V>(
    items: &'a IndexMap<String, V>,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> Result<(&'a Slice<String, V>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let key = URL_SAFE_NO_PAD
                .decode(cursor)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .ok_or_else(|| ErrorObject::invalid_params("invalid cursor"))?;
            items
                .get_index_of(&key)
                .ok_or_else(|| ErrorObject::invalid_params("invalid cursor: its position no longer exists"))?
                + 1
        }
    };
    let end = page_size.map_or(items.len(), |size| start.saturating_add(size).min(items.len()));
    let next = (end < items.len() && end > start)
        .then(|| items.get_index(end - 1))
        .flatten()
        .map(|(key, _)| URL_SAFE_NO_PAD.encode(key));
    Ok((&items.as_slice()[start..end], next))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> IndexMap<String, usize> {
        (0..n).map(|i| (format!("item{i}"), i)).collect()
    }

    #[test]
    fn walks_every_page_once() {
        let items = items(5);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (values, next) = page(&items, cursor.as_deref(), Some(2)).unwrap();
            seen.extend(values.values().copied());
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn no_page_size_means_one_page() {
        let items = items(3);
        let (values, next) = page(&items, None, None).unwrap();
        assert_eq!(values.len(), 3);
        assert_eq!(next, None);
    }

    #[test]
    fn rejects_garbage_and_stale_cursors() {
        let items = items(3);
        assert_eq!(page(&items, Some("!!"), Some(1)).err().unwrap().code, -32602);
        let stale = URL_SAFE_NO_PAD.encode("gone");
        assert_eq!(page(&items, Some(&stale), Some(1)).err().unwrap().code, -32602);
    }
}
