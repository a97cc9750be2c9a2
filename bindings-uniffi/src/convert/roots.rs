//! Roots: the directories and files a client exposes ([`Root`]). Mirrors
//! `oxmcp::protocol::roots`.

use oxmcp::protocol as core;

use super::{meta_text, parse_meta};
use crate::error::McpError;

/// A directory or file the client exposes to the server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[uniffi(default = None)]
    pub name: Option<String>,
    /// `_meta`, as JSON object text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::Root> for Root {
    fn from(r: core::Root) -> Self {
        Root {
            meta_json: meta_text(&r.meta),
            uri: r.uri,
            name: r.name,
        }
    }
}

impl TryFrom<Root> for core::Root {
    type Error = McpError;
    fn try_from(r: Root) -> Result<Self, McpError> {
        Ok(core::Root {
            meta: parse_meta(r.meta_json)?,
            uri: r.uri,
            name: r.name,
        })
    }
}
