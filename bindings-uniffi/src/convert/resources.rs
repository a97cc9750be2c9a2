//! Resources and resource templates, their contents and listings ([`Resource`],
//! [`ResourceTemplate`], [`ResourceContents`]). Mirrors `oxmcp::protocol::resources`.

use oxmcp::protocol as core;

use super::lifecycle::{icons_from, icons_into};
use super::{meta_text, parse_meta, to_i64, to_u64, try_map, Annotations, Icon};
use crate::error::McpError;

/// A resource a server offers.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// What it is.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// Its MIME type.
    #[uniffi(default = None)]
    pub mime_type: Option<String>,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// Size in bytes, when known.
    #[uniffi(default = None)]
    pub size: Option<i64>,
    /// Usage hints.
    #[uniffi(default = None)]
    pub annotations: Option<Annotations>,
    /// Icons for display.
    #[uniffi(default)]
    pub icons: Vec<Icon>,
    /// `_meta`, as JSON text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::Resource> for Resource {
    fn from(r: core::Resource) -> Self {
        Resource {
            uri: r.uri,
            name: r.name,
            description: r.description,
            mime_type: r.mime_type,
            title: r.title,
            size: r.size.map(to_i64),
            annotations: r.annotations.map(Into::into),
            icons: icons_from(r.icons),
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<Resource> for core::Resource {
    type Error = McpError;
    fn try_from(r: Resource) -> Result<Self, McpError> {
        Ok(core::Resource {
            size: r.size.map(|s| to_u64(s, "size")).transpose()?,
            icons: icons_into(r.icons)?,
            meta: parse_meta(r.meta_json)?,
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mime_type: r.mime_type,
            annotations: r.annotations.map(Into::into),
        })
    }
}

/// A family of resources described by an RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ResourceTemplate {
    /// The URI template, e.g. `greeting://{name}`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// What the resources are.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// MIME type of every matching resource.
    #[uniffi(default = None)]
    pub mime_type: Option<String>,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// Usage hints.
    #[uniffi(default = None)]
    pub annotations: Option<Annotations>,
    /// Icons for display.
    #[uniffi(default)]
    pub icons: Vec<Icon>,
    /// `_meta`, as JSON text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::ResourceTemplate> for ResourceTemplate {
    fn from(t: core::ResourceTemplate) -> Self {
        ResourceTemplate {
            uri_template: t.uri_template,
            name: t.name,
            description: t.description,
            mime_type: t.mime_type,
            title: t.title,
            annotations: t.annotations.map(Into::into),
            icons: icons_from(t.icons),
            meta_json: meta_text(&t.meta),
        }
    }
}

impl TryFrom<ResourceTemplate> for core::ResourceTemplate {
    type Error = McpError;
    fn try_from(t: ResourceTemplate) -> Result<Self, McpError> {
        Ok(core::ResourceTemplate {
            icons: icons_into(t.icons)?,
            meta: parse_meta(t.meta_json)?,
            uri_template: t.uri_template,
            name: t.name,
            title: t.title,
            description: t.description,
            mime_type: t.mime_type,
            annotations: t.annotations.map(Into::into),
        })
    }
}

/// The contents of a resource: text, or base64 bytes.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: String,
        /// The text.
        text: String,
        /// Its MIME type.
        #[uniffi(default = None)]
        mime_type: Option<String>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// Binary contents.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Base64-encoded bytes.
        blob: String,
        /// Its MIME type.
        #[uniffi(default = None)]
        mime_type: Option<String>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
}

impl From<core::ResourceContents> for ResourceContents {
    fn from(c: core::ResourceContents) -> Self {
        match c {
            core::ResourceContents::Text(t) => ResourceContents::Text {
                meta_json: meta_text(&t.meta),
                uri: t.uri,
                text: t.text,
                mime_type: t.mime_type,
            },
            core::ResourceContents::Blob(b) => ResourceContents::Blob {
                meta_json: meta_text(&b.meta),
                uri: b.uri,
                blob: b.blob,
                mime_type: b.mime_type,
            },
        }
    }
}

impl TryFrom<ResourceContents> for core::ResourceContents {
    type Error = McpError;
    fn try_from(c: ResourceContents) -> Result<Self, McpError> {
        Ok(match c {
            ResourceContents::Text {
                uri,
                text,
                mime_type,
                meta_json,
            } => core::ResourceContents::Text(core::TextResourceContents {
                uri,
                mime_type,
                text,
                meta: parse_meta(meta_json)?,
            }),
            ResourceContents::Blob {
                uri,
                blob,
                mime_type,
                meta_json,
            } => core::ResourceContents::Blob(core::BlobResourceContents {
                uri,
                mime_type,
                blob,
                meta: parse_meta(meta_json)?,
            }),
        })
    }
}

/// The result of reading a resource.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ReadResourceResult {
    /// The contents (a resource may have several parts).
    pub contents: Vec<ResourceContents>,
    /// The result's `_meta`, as JSON object text.
    pub meta_json: Option<String>,
}

impl From<core::ReadResourceResult> for ReadResourceResult {
    fn from(r: core::ReadResourceResult) -> Self {
        ReadResourceResult {
            contents: r.contents.into_iter().map(Into::into).collect(),
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<ReadResourceResult> for core::ReadResourceResult {
    type Error = McpError;
    fn try_from(r: ReadResourceResult) -> Result<Self, McpError> {
        Ok(core::ReadResourceResult {
            contents: try_map(r.contents)?,
            meta: parse_meta(r.meta_json)?,
            ..Default::default()
        })
    }
}

/// One page of resources.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ListResourcesResult {
    /// The resources.
    pub resources: Vec<Resource>,
    /// Where the next page starts.
    pub next_cursor: Option<String>,
    /// The result's `_meta`, as JSON object text.
    pub meta_json: Option<String>,
}

impl From<core::ListResourcesResult> for ListResourcesResult {
    fn from(r: core::ListResourcesResult) -> Self {
        ListResourcesResult {
            resources: r.resources.into_iter().map(Into::into).collect(),
            next_cursor: r.next_cursor,
            meta_json: meta_text(&r.meta),
        }
    }
}

/// One page of resource templates.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ListResourceTemplatesResult {
    /// The templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Where the next page starts.
    pub next_cursor: Option<String>,
    /// The result's `_meta`, as JSON object text.
    pub meta_json: Option<String>,
}

impl From<core::ListResourceTemplatesResult> for ListResourceTemplatesResult {
    fn from(r: core::ListResourceTemplatesResult) -> Self {
        ListResourceTemplatesResult {
            resource_templates: r.resource_templates.into_iter().map(Into::into).collect(),
            next_cursor: r.next_cursor,
            meta_json: meta_text(&r.meta),
        }
    }
}
