//! The fields every result shares: `resultType`, `_meta`, and the caching hints of the
//! modern era.

use serde::{Deserialize, Serialize};

use super::meta::Meta;

/// What kind of result a modern response carries. Absent (legacy servers) means complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ResultType {
    /// The final result.
    #[default]
    #[serde(rename = "complete")]
    Complete,
    /// The server needs input from the client before it can finish (MRTR).
    #[serde(rename = "input_required")]
    InputRequired,
    /// The request runs as a task (the 2026-07-28 tasks extension).
    #[serde(rename = "task")]
    Task,
}

/// Whether shared intermediaries may cache a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any cache may keep it.
    #[default]
    Public,
    /// Only the requesting client may keep it.
    Private,
}

/// Access to the fields every result shares, so the dispatcher can stamp them once for
/// every method.
pub trait ProtocolResult {
    /// The `resultType` member (modern era only).
    fn result_type_mut(&mut self) -> &mut Option<ResultType>;
    /// The `_meta` member.
    fn meta_mut(&mut self) -> &mut Option<Meta>;
}

/// Results that carry the modern era's caching hints (`ttlMs`, `cacheScope`).
pub trait CacheableResult: ProtocolResult {
    /// Sets the freshness hint and scope.
    fn set_cache_hints(&mut self, ttl_ms: u64, scope: CacheScope);
}

/// Implements [`ProtocolResult`] (and, with `cacheable`, [`CacheableResult`]) for result
/// structs that have the standard field names.
macro_rules! protocol_result {
    (cacheable $($ty:ty),+ $(,)?) => {$(
        protocol_result!($ty);
        impl $crate::protocol::CacheableResult for $ty {
            fn set_cache_hints(&mut self, ttl_ms: u64, scope: $crate::protocol::CacheScope) {
                self.ttl_ms = Some(ttl_ms);
                self.cache_scope = Some(scope);
            }
        }
    )+};
    ($($ty:ty),+ $(,)?) => {$(
        impl $crate::protocol::ProtocolResult for $ty {
            fn result_type_mut(&mut self) -> &mut Option<$crate::protocol::ResultType> {
                &mut self.result_type
            }
            fn meta_mut(&mut self) -> &mut Option<$crate::protocol::Meta> {
                &mut self.meta
            }
        }
    )+};
}
pub(crate) use protocol_result;

/// A result with no method-specific members (e.g. the answer to `ping`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// `complete` in the modern era.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
protocol_result!(EmptyResult);
