//! The MCP header names as [`HeaderName`]s, made at compile time: a lookup by `&str`
//! parses and lowercases the name on every request, which cost a modern call more than
//! comparing the header's value.

use http::HeaderName;

use crate::protocol::headers::names;

/// `MCP-Protocol-Version`.
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static(names::PROTOCOL_VERSION);
/// `Mcp-Session-Id`.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static(names::SESSION_ID);
/// `Mcp-Method`.
pub(super) const METHOD: HeaderName = HeaderName::from_static(names::METHOD);
/// `Mcp-Name`.
pub(super) const NAME: HeaderName = HeaderName::from_static(names::NAME);
/// `Last-Event-ID`.
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static(names::LAST_EVENT_ID);
