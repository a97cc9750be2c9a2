//! The values that cross the boundary, as typed records and enums: tools, content, resources,
//! prompts, completion, sampling, elicitation, roots, notifications.
//!
//! Each mirrors a type of `oxmcp::protocol`; the conversions here are the only place the
//! binding knows the wire shapes. Values that really are arbitrary JSON (tool arguments,
//! structured content, JSON Schemas, `_meta`) cross as JSON text in fields named `…_json`.
//! Integers are signed (`Long` in Kotlin, `Int64` in Swift).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use oxmcp::protocol as core;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::McpError;

// ---------------------------------------------------------------------------------------
// JSON text helpers
// ---------------------------------------------------------------------------------------

/// Serializes a value the core produced; these never fail to serialize.
pub(crate) fn json_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Parses JSON text given by the foreign side.
pub(crate) fn parse_json(text: &str, what: &str) -> Result<Value, McpError> {
    serde_json::from_str(text).map_err(|e| McpError::invalid_input(format!("{what} is not valid JSON: {e}")))
}

/// Parses JSON text that must be an object.
pub(crate) fn parse_object(text: &str, what: &str) -> Result<Map<String, Value>, McpError> {
    match parse_json(text, what)? {
        Value::Object(object) => Ok(object),
        other => Err(McpError::invalid_input(format!(
            "{what} must be a JSON object, not {other}"
        ))),
    }
}

fn parse_optional_object(text: Option<String>, what: &str) -> Result<Option<Map<String, Value>>, McpError> {
    text.map(|t| parse_object(&t, what)).transpose()
}

fn meta_text(meta: &Option<core::Meta>) -> Option<String> {
    meta.as_ref().map(json_text)
}

fn parse_meta(text: Option<String>) -> Result<Option<core::Meta>, McpError> {
    parse_optional_object(text, "_meta")
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64, what: &str) -> Result<u64, McpError> {
    u64::try_from(n).map_err(|_| McpError::invalid_input(format!("{what} must not be negative")))
}

/// A count or size in bytes given by the foreign side.
pub(crate) fn size(n: i64, what: &str) -> Result<usize, McpError> {
    Ok(usize::try_from(to_u64(n, what)?).unwrap_or(usize::MAX))
}

/// A duration in milliseconds given by the foreign side.
pub(crate) fn duration_ms(ms: i64, what: &str) -> Result<Duration, McpError> {
    Ok(Duration::from_millis(to_u64(ms, what)?))
}

fn non_empty<T>(items: Vec<T>) -> Option<Vec<T>> {
    (!items.is_empty()).then_some(items)
}

pub(crate) fn try_map<A, B>(items: Vec<A>) -> Result<Vec<B>, McpError>
where
    B: TryFrom<A, Error = McpError>,
{
    items.into_iter().map(B::try_from).collect()
}

pub(crate) fn to_btree(map: HashMap<String, String>) -> BTreeMap<String, String> {
    map.into_iter().collect()
}

// ---------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, uniffi::Enum)]
pub enum EraMode {
    /// Probe with `server/discover`; fall back to the `initialize` handshake.
    #[default]
    Auto,
    /// Always the `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// Always per-request metadata (2026-07-28).
    Modern,
}

impl From<EraMode> for oxmcp::client::EraMode {
    fn from(mode: EraMode) -> Self {
        match mode {
            EraMode::Auto => oxmcp::client::EraMode::Auto,
            EraMode::Legacy => oxmcp::client::EraMode::Legacy,
            EraMode::Modern => oxmcp::client::EraMode::Modern,
        }
    }
}

/// The era of a connection or request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Era {
    /// `initialize` handshake, sessions (2024-11-05 to 2025-11-25).
    Legacy,
    /// Per-request metadata, multi round-trip requests (2026-07-28 on).
    Modern,
}

impl From<core::Era> for Era {
    fn from(era: core::Era) -> Self {
        match era {
            core::Era::Legacy => Era::Legacy,
            core::Era::Modern => Era::Modern,
        }
    }
}

/// Who a message or content item is from or for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

impl From<core::Role> for Role {
    fn from(role: core::Role) -> Self {
        match role {
            core::Role::User => Role::User,
            core::Role::Assistant => Role::Assistant,
        }
    }
}

impl From<Role> for core::Role {
    fn from(role: Role) -> Self {
        match role {
            Role::User => core::Role::User,
            Role::Assistant => core::Role::Assistant,
        }
    }
}

/// Syslog severities, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical condition.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl From<core::LoggingLevel> for LoggingLevel {
    fn from(level: core::LoggingLevel) -> Self {
        use core::LoggingLevel as L;
        match level {
            L::Debug => LoggingLevel::Debug,
            L::Info => LoggingLevel::Info,
            L::Notice => LoggingLevel::Notice,
            L::Warning => LoggingLevel::Warning,
            L::Error => LoggingLevel::Error,
            L::Critical => LoggingLevel::Critical,
            L::Alert => LoggingLevel::Alert,
            L::Emergency => LoggingLevel::Emergency,
        }
    }
}

impl From<LoggingLevel> for core::LoggingLevel {
    fn from(level: LoggingLevel) -> Self {
        use core::LoggingLevel as L;
        match level {
            LoggingLevel::Debug => L::Debug,
            LoggingLevel::Info => L::Info,
            LoggingLevel::Notice => L::Notice,
            LoggingLevel::Warning => L::Warning,
            LoggingLevel::Error => L::Error,
            LoggingLevel::Critical => L::Critical,
            LoggingLevel::Alert => L::Alert,
            LoggingLevel::Emergency => L::Emergency,
        }
    }
}

/// Hints on how a client should use an object.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Annotations {
    /// Who the object is meant for.
    #[uniffi(default)]
    pub audience: Vec<Role>,
    /// Importance from 0 to 1.
    #[uniffi(default = None)]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change.
    #[uniffi(default = None)]
    pub last_modified: Option<String>,
}

impl From<core::Annotations> for Annotations {
    fn from(a: core::Annotations) -> Self {
        Annotations {
            audience: a.audience.unwrap_or_default().into_iter().map(Into::into).collect(),
            priority: a.priority,
            last_modified: a.last_modified,
        }
    }
}

impl From<Annotations> for core::Annotations {
    fn from(a: Annotations) -> Self {
        core::Annotations {
            audience: non_empty(a.audience.into_iter().map(Into::into).collect()),
            priority: a.priority,
            last_modified: a.last_modified,
        }
    }
}

/// An icon for display.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The image's MIME type.
    #[uniffi(default = None)]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `"48x48"` or `"any"`.
    #[uniffi(default)]
    pub sizes: Vec<String>,
    /// `light` or `dark`: the background it is designed for.
    #[uniffi(default = None)]
    pub theme: Option<String>,
}

impl From<core::Icon> for Icon {
    fn from(icon: core::Icon) -> Self {
        Icon {
            src: icon.src,
            mime_type: icon.mime_type,
            sizes: icon.sizes.unwrap_or_default(),
            theme: icon.theme.map(|t| match t {
                core::IconTheme::Light => "light".to_owned(),
                core::IconTheme::Dark => "dark".to_owned(),
            }),
        }
    }
}

impl TryFrom<Icon> for core::Icon {
    type Error = McpError;
    fn try_from(icon: Icon) -> Result<Self, McpError> {
        let theme = match icon.theme.as_deref() {
            None => None,
            Some("light") => Some(core::IconTheme::Light),
            Some("dark") => Some(core::IconTheme::Dark),
            Some(other) => return Err(McpError::invalid_input(format!("icon theme {other:?}"))),
        };
        Ok(core::Icon {
            src: icon.src,
            mime_type: icon.mime_type,
            sizes: non_empty(icon.sizes),
            theme,
        })
    }
}

fn icons_from(icons: Option<Vec<core::Icon>>) -> Vec<Icon> {
    icons.unwrap_or_default().into_iter().map(Into::into).collect()
}

fn icons_into(icons: Vec<Icon>) -> Result<Option<Vec<core::Icon>>, McpError> {
    Ok(non_empty(try_map(icons)?))
}

/// The name and version of a client or server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// What it is, for people.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// Its web site.
    #[uniffi(default = None)]
    pub website_url: Option<String>,
}

impl From<core::Implementation> for Implementation {
    fn from(i: core::Implementation) -> Self {
        Implementation {
            name: i.name,
            version: i.version,
            title: i.title,
            description: i.description,
            website_url: i.website_url,
        }
    }
}

impl From<Implementation> for core::Implementation {
    fn from(i: Implementation) -> Self {
        let mut out = core::Implementation::new(i.name, i.version);
        out.title = i.title;
        out.description = i.description;
        out.website_url = i.website_url;
        out
    }
}

// ---------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------

/// A content item of a tool result or prompt message.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Usage hints.
        #[uniffi(default = None)]
        annotations: Option<Annotations>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// An image: base64 data and its MIME type.
    Image {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
        /// Usage hints.
        #[uniffi(default = None)]
        annotations: Option<Annotations>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// A sound: base64 data and its MIME type.
    Audio {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type, e.g. `audio/wav`.
        mime_type: String,
        /// Usage hints.
        #[uniffi(default = None)]
        annotations: Option<Annotations>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// A link to a resource the client can read (its `_meta` is the resource's).
    ResourceLink {
        /// The resource.
        resource: Resource,
    },
    /// A resource's contents, embedded.
    EmbeddedResource {
        /// The contents.
        contents: ResourceContents,
        /// Usage hints.
        #[uniffi(default = None)]
        annotations: Option<Annotations>,
        /// `_meta` of the item (the contents have their own), as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
}

/// The parts of an image or sound item, as the binding's fields hold them.
type Media = (String, String, Option<Annotations>, Option<String>);

fn media_from(m: core::MediaContent) -> Media {
    (m.data, m.mime_type, m.annotations.map(Into::into), meta_text(&m.meta))
}

fn media_into((data, mime_type, annotations, meta_json): Media) -> Result<core::MediaContent, McpError> {
    Ok(core::MediaContent {
        data,
        mime_type,
        annotations: annotations.map(Into::into),
        meta: parse_meta(meta_json)?,
    })
}

impl From<core::ContentBlock> for ContentBlock {
    fn from(block: core::ContentBlock) -> Self {
        match block {
            core::ContentBlock::Text(t) => ContentBlock::Text {
                text: t.text,
                annotations: t.annotations.map(Into::into),
                meta_json: meta_text(&t.meta),
            },
            core::ContentBlock::Image(m) => {
                let (data, mime_type, annotations, meta_json) = media_from(m);
                ContentBlock::Image {
                    data,
                    mime_type,
                    annotations,
                    meta_json,
                }
            }
            core::ContentBlock::Audio(m) => {
                let (data, mime_type, annotations, meta_json) = media_from(m);
                ContentBlock::Audio {
                    data,
                    mime_type,
                    annotations,
                    meta_json,
                }
            }
            core::ContentBlock::ResourceLink(r) => ContentBlock::ResourceLink { resource: r.into() },
            core::ContentBlock::Resource(e) => ContentBlock::EmbeddedResource {
                contents: e.resource.into(),
                annotations: e.annotations.map(Into::into),
                meta_json: meta_text(&e.meta),
            },
        }
    }
}

impl TryFrom<ContentBlock> for core::ContentBlock {
    type Error = McpError;
    fn try_from(block: ContentBlock) -> Result<Self, McpError> {
        Ok(match block {
            ContentBlock::Text {
                text,
                annotations,
                meta_json,
            } => core::ContentBlock::Text(core::TextContent {
                text,
                annotations: annotations.map(Into::into),
                meta: parse_meta(meta_json)?,
            }),
            ContentBlock::Image {
                data,
                mime_type,
                annotations,
                meta_json,
            } => core::ContentBlock::Image(media_into((data, mime_type, annotations, meta_json))?),
            ContentBlock::Audio {
                data,
                mime_type,
                annotations,
                meta_json,
            } => core::ContentBlock::Audio(media_into((data, mime_type, annotations, meta_json))?),
            ContentBlock::ResourceLink { resource } => core::ContentBlock::ResourceLink(resource.try_into()?),
            ContentBlock::EmbeddedResource {
                contents,
                annotations,
                meta_json,
            } => core::ContentBlock::Resource(core::EmbeddedResource {
                resource: contents.try_into()?,
                annotations: annotations.map(Into::into),
                meta: parse_meta(meta_json)?,
            }),
        })
    }
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

/// Hints about a tool's behaviour. Untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, uniffi::Record)]
pub struct ToolAnnotations {
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// The tool changes nothing.
    #[uniffi(default = None)]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy things.
    #[uniffi(default = None)]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments does nothing more.
    #[uniffi(default = None)]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside entities.
    #[uniffi(default = None)]
    pub open_world_hint: Option<bool>,
}

impl From<core::ToolAnnotations> for ToolAnnotations {
    fn from(a: core::ToolAnnotations) -> Self {
        ToolAnnotations {
            title: a.title,
            read_only_hint: a.read_only_hint,
            destructive_hint: a.destructive_hint,
            idempotent_hint: a.idempotent_hint,
            open_world_hint: a.open_world_hint,
        }
    }
}

impl From<ToolAnnotations> for core::ToolAnnotations {
    fn from(a: ToolAnnotations) -> Self {
        core::ToolAnnotations {
            title: a.title,
            read_only_hint: a.read_only_hint,
            destructive_hint: a.destructive_hint,
            idempotent_hint: a.idempotent_hint,
            open_world_hint: a.open_world_hint,
        }
    }
}

/// A tool a server offers (listed by a client, or defined for a [`crate::server::Server`]).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Tool {
    /// Programmatic name: 1 to 128 of `A-Z a-z 0-9 _ - .`.
    pub name: String,
    /// What the tool does, for the model.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// JSON Schema of the arguments, as JSON text: an object schema (`{"type":"object"}`
    /// for a tool without arguments).
    pub input_schema_json: String,
    /// JSON Schema of the structured output, as JSON text.
    #[uniffi(default = None)]
    pub output_schema_json: Option<String>,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// Behaviour hints.
    #[uniffi(default = None)]
    pub annotations: Option<ToolAnnotations>,
    /// Icons for display.
    #[uniffi(default)]
    pub icons: Vec<Icon>,
    /// `_meta`, as JSON text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::Tool> for Tool {
    fn from(t: core::Tool) -> Self {
        Tool {
            name: t.name,
            description: t.description,
            input_schema_json: json_text(&t.input_schema),
            output_schema_json: t.output_schema.as_ref().map(json_text),
            title: t.title,
            annotations: t.annotations.map(Into::into),
            icons: icons_from(t.icons),
            meta_json: meta_text(&t.meta),
        }
    }
}

impl TryFrom<Tool> for core::Tool {
    type Error = McpError;
    fn try_from(t: Tool) -> Result<Self, McpError> {
        Ok(core::Tool {
            input_schema: parse_object(&t.input_schema_json, "inputSchema")?,
            output_schema: parse_optional_object(t.output_schema_json, "outputSchema")?,
            name: t.name,
            title: t.title,
            description: t.description,
            icons: icons_into(t.icons)?,
            annotations: t.annotations.map(Into::into),
            execution: None,
            meta: parse_meta(t.meta_json)?,
        })
    }
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct CallToolResult {
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Whether the tool failed; the content says how, for the model.
    #[uniffi(default = false)]
    pub is_error: bool,
    /// Structured output (matching the tool's output schema), as JSON text.
    #[uniffi(default = None)]
    pub structured_content_json: Option<String>,
    /// `_meta`, as JSON text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::CallToolResult> for CallToolResult {
    fn from(r: core::CallToolResult) -> Self {
        CallToolResult {
            content: r.content.into_iter().map(Into::into).collect(),
            is_error: r.is_error.unwrap_or(false),
            structured_content_json: r.structured_content.as_ref().map(json_text),
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<CallToolResult> for core::CallToolResult {
    type Error = McpError;
    fn try_from(r: CallToolResult) -> Result<Self, McpError> {
        Ok(core::CallToolResult {
            content: try_map(r.content)?,
            structured_content: r
                .structured_content_json
                .map(|t| parse_json(&t, "structuredContent"))
                .transpose()?,
            is_error: r.is_error.then_some(true),
            result_type: None,
            meta: parse_meta(r.meta_json)?,
        })
    }
}

/// One page of tools.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ListToolsResult {
    /// The tools.
    pub tools: Vec<Tool>,
    /// Where the next page starts.
    pub next_cursor: Option<String>,
    /// The result's `_meta`, as JSON object text.
    pub meta_json: Option<String>,
}

impl From<core::ListToolsResult> for ListToolsResult {
    fn from(r: core::ListToolsResult) -> Self {
        ListToolsResult {
            tools: r.tools.into_iter().map(Into::into).collect(),
            next_cursor: r.next_cursor,
            meta_json: meta_text(&r.meta),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// What it is.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// Whether it must be given.
    #[uniffi(default = false)]
    pub required: bool,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
}

impl From<core::PromptArgument> for PromptArgument {
    fn from(a: core::PromptArgument) -> Self {
        PromptArgument {
            name: a.name,
            description: a.description,
            required: a.required.unwrap_or(false),
            title: a.title,
        }
    }
}

impl From<PromptArgument> for core::PromptArgument {
    fn from(a: PromptArgument) -> Self {
        core::PromptArgument {
            name: a.name,
            title: a.title,
            description: a.description,
            required: Some(a.required),
        }
    }
}

/// A prompt template a server offers.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// What the prompt is for.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// The arguments it takes.
    #[uniffi(default)]
    pub arguments: Vec<PromptArgument>,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// Icons for display.
    #[uniffi(default)]
    pub icons: Vec<Icon>,
    /// `_meta`, as JSON text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::Prompt> for Prompt {
    fn from(p: core::Prompt) -> Self {
        Prompt {
            name: p.name,
            description: p.description,
            arguments: p.arguments.unwrap_or_default().into_iter().map(Into::into).collect(),
            title: p.title,
            icons: icons_from(p.icons),
            meta_json: meta_text(&p.meta),
        }
    }
}

impl TryFrom<Prompt> for core::Prompt {
    type Error = McpError;
    fn try_from(p: Prompt) -> Result<Self, McpError> {
        Ok(core::Prompt {
            icons: icons_into(p.icons)?,
            meta: parse_meta(p.meta_json)?,
            name: p.name,
            title: p.title,
            description: p.description,
            arguments: non_empty(p.arguments.into_iter().map(Into::into).collect()),
        })
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct GetPromptResult {
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// What the prompt is for.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// The result's `_meta`, as JSON object text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::GetPromptResult> for GetPromptResult {
    fn from(r: core::GetPromptResult) -> Self {
        GetPromptResult {
            messages: r
                .messages
                .into_iter()
                .map(|m| PromptMessage {
                    role: m.role.into(),
                    content: m.content.into(),
                })
                .collect(),
            description: r.description,
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<GetPromptResult> for core::GetPromptResult {
    type Error = McpError;
    fn try_from(r: GetPromptResult) -> Result<Self, McpError> {
        let messages = r
            .messages
            .into_iter()
            .map(|m| {
                Ok(core::PromptMessage {
                    role: m.role.into(),
                    content: m.content.try_into()?,
                })
            })
            .collect::<Result<_, McpError>>()?;
        Ok(core::GetPromptResult {
            description: r.description,
            messages,
            meta: parse_meta(r.meta_json)?,
            ..Default::default()
        })
    }
}

/// One page of prompts.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ListPromptsResult {
    /// The prompts.
    pub prompts: Vec<Prompt>,
    /// Where the next page starts.
    pub next_cursor: Option<String>,
    /// The result's `_meta`, as JSON object text.
    pub meta_json: Option<String>,
}

impl From<core::ListPromptsResult> for ListPromptsResult {
    fn from(r: core::ListPromptsResult) -> Self {
        ListPromptsResult {
            prompts: r.prompts.into_iter().map(Into::into).collect(),
            next_cursor: r.next_cursor,
            meta_json: meta_text(&r.meta),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Completion
// ---------------------------------------------------------------------------------------

/// What is being completed.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum CompletionReference {
    /// An argument of a prompt.
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// A variable of a resource template.
    ResourceTemplate {
        /// The URI template.
        uri_template: String,
    },
}

impl From<CompletionReference> for core::CompletionReference {
    fn from(r: CompletionReference) -> Self {
        match r {
            CompletionReference::Prompt { name } => core::CompletionReference::Prompt { name, title: None },
            CompletionReference::ResourceTemplate { uri_template } => {
                core::CompletionReference::Resource { uri: uri_template }
            }
        }
    }
}

/// Completion suggestions.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many there are in all, when the server said.
    pub total: Option<i64>,
    /// Whether there are more than those returned.
    pub has_more: bool,
}

impl From<core::Completion> for Completion {
    fn from(c: core::Completion) -> Self {
        Completion {
            values: c.values,
            total: c.total.map(to_i64),
            has_more: c.has_more.unwrap_or(false),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------

/// A content item of a sampling message.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// An image: base64 data and its MIME type.
    Image {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type.
        mime_type: String,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// A sound: base64 data and its MIME type.
    Audio {
        /// Base64-encoded bytes.
        data: String,
        /// The MIME type.
        mime_type: String,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// The model asks to call a tool.
    ToolUse {
        /// Correlates the matching `ToolResult`.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, as JSON object text.
        input_json: String,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
    /// The result of a tool the model asked for.
    ToolResult {
        /// The id of the `ToolUse` it answers.
        tool_use_id: String,
        /// The tool's output.
        content: Vec<ContentBlock>,
        /// Whether the tool failed.
        #[uniffi(default = false)]
        is_error: bool,
        /// Structured output, as JSON text.
        #[uniffi(default = None)]
        structured_content_json: Option<String>,
        /// `_meta`, as JSON object text.
        #[uniffi(default = None)]
        meta_json: Option<String>,
    },
}

impl From<core::SamplingContent> for SamplingContent {
    fn from(c: core::SamplingContent) -> Self {
        match c {
            core::SamplingContent::Text(t) => SamplingContent::Text {
                text: t.text,
                meta_json: meta_text(&t.meta),
            },
            core::SamplingContent::Image(m) => SamplingContent::Image {
                meta_json: meta_text(&m.meta),
                data: m.data,
                mime_type: m.mime_type,
            },
            core::SamplingContent::Audio(m) => SamplingContent::Audio {
                meta_json: meta_text(&m.meta),
                data: m.data,
                mime_type: m.mime_type,
            },
            core::SamplingContent::ToolUse(u) => SamplingContent::ToolUse {
                input_json: json_text(&u.input),
                meta_json: meta_text(&u.meta),
                id: u.id,
                name: u.name,
            },
            core::SamplingContent::ToolResult(r) => SamplingContent::ToolResult {
                content: r.content.into_iter().map(Into::into).collect(),
                is_error: r.is_error.unwrap_or(false),
                structured_content_json: r.structured_content.as_ref().map(json_text),
                meta_json: meta_text(&r.meta),
                tool_use_id: r.tool_use_id,
            },
        }
    }
}

impl TryFrom<SamplingContent> for core::SamplingContent {
    type Error = McpError;
    fn try_from(c: SamplingContent) -> Result<Self, McpError> {
        Ok(match c {
            SamplingContent::Text { text, meta_json } => core::SamplingContent::Text(core::TextContent {
                text,
                annotations: None,
                meta: parse_meta(meta_json)?,
            }),
            SamplingContent::Image {
                data,
                mime_type,
                meta_json,
            } => core::SamplingContent::Image(media_into((data, mime_type, None, meta_json))?),
            SamplingContent::Audio {
                data,
                mime_type,
                meta_json,
            } => core::SamplingContent::Audio(media_into((data, mime_type, None, meta_json))?),
            SamplingContent::ToolUse {
                id,
                name,
                input_json,
                meta_json,
            } => core::SamplingContent::ToolUse(core::ToolUseContent {
                id,
                name,
                input: parse_object(&input_json, "tool use input")?,
                meta: parse_meta(meta_json)?,
            }),
            SamplingContent::ToolResult {
                tool_use_id,
                content,
                is_error,
                structured_content_json,
                meta_json,
            } => core::SamplingContent::ToolResult(core::ToolResultContent {
                tool_use_id,
                content: try_map(content)?,
                structured_content: structured_content_json
                    .map(|t| parse_json(&t, "structuredContent"))
                    .transpose()?,
                is_error: is_error.then_some(true),
                meta: parse_meta(meta_json)?,
            }),
        })
    }
}

fn one_or_many(content: Vec<core::SamplingContent>) -> core::OneOrMany<core::SamplingContent> {
    if content.len() == 1 {
        let mut content = content;
        core::OneOrMany::One(content.remove(0))
    } else {
        core::OneOrMany::Many(content)
    }
}

fn from_one_or_many(content: core::OneOrMany<core::SamplingContent>) -> Vec<SamplingContent> {
    match content {
        core::OneOrMany::One(one) => vec![one.into()],
        core::OneOrMany::Many(many) => many.into_iter().map(Into::into).collect(),
    }
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said (one item or several).
    pub content: Vec<SamplingContent>,
}

/// The server's preferences for model selection.
#[derive(Debug, Clone, Default, PartialEq, uniffi::Record)]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[uniffi(default)]
    pub hints: Vec<String>,
    /// 0 to 1: how much cost matters.
    #[uniffi(default = None)]
    pub cost_priority: Option<f64>,
    /// 0 to 1: how much speed matters.
    #[uniffi(default = None)]
    pub speed_priority: Option<f64>,
    /// 0 to 1: how much capability matters.
    #[uniffi(default = None)]
    pub intelligence_priority: Option<f64>,
}

/// A request for an LLM completion (`sampling/createMessage`).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct CreateMessageRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens to generate.
    pub max_tokens: i64,
    /// A system prompt.
    #[uniffi(default = None)]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[uniffi(default = None)]
    pub temperature: Option<f64>,
    /// Sequences that stop generation.
    #[uniffi(default)]
    pub stop_sequences: Vec<String>,
    /// Model selection preferences.
    #[uniffi(default = None)]
    pub model_preferences: Option<ModelPreferences>,
    /// `none`, `thisServer` or `allServers`.
    #[uniffi(default = None)]
    pub include_context: Option<String>,
    /// Provider-specific metadata, as JSON object text.
    #[uniffi(default = None)]
    pub metadata_json: Option<String>,
    /// Tools the model may call.
    #[uniffi(default)]
    pub tools: Vec<Tool>,
    /// `auto`, `required` or `none`.
    #[uniffi(default = None)]
    pub tool_choice: Option<String>,
}

impl From<core::CreateMessageRequestParams> for CreateMessageRequest {
    fn from(p: core::CreateMessageRequestParams) -> Self {
        CreateMessageRequest {
            messages: p
                .messages
                .into_iter()
                .map(|m| SamplingMessage {
                    role: m.role.into(),
                    content: from_one_or_many(m.content),
                })
                .collect(),
            max_tokens: to_i64(p.max_tokens),
            system_prompt: p.system_prompt,
            temperature: p.temperature,
            stop_sequences: p.stop_sequences.unwrap_or_default(),
            model_preferences: p.model_preferences.map(|m| ModelPreferences {
                hints: m.hints.unwrap_or_default().into_iter().filter_map(|h| h.name).collect(),
                cost_priority: m.cost_priority,
                speed_priority: m.speed_priority,
                intelligence_priority: m.intelligence_priority,
            }),
            include_context: p.include_context,
            metadata_json: p.metadata.as_ref().map(json_text),
            tools: p.tools.unwrap_or_default().into_iter().map(Into::into).collect(),
            tool_choice: p.tool_choice.and_then(|c| c.mode),
        }
    }
}

impl TryFrom<CreateMessageRequest> for core::CreateMessageRequestParams {
    type Error = McpError;
    fn try_from(p: CreateMessageRequest) -> Result<Self, McpError> {
        let messages = p
            .messages
            .into_iter()
            .map(|m| {
                Ok(core::SamplingMessage {
                    role: m.role.into(),
                    content: one_or_many(try_map(m.content)?),
                    meta: None,
                })
            })
            .collect::<Result<_, McpError>>()?;
        Ok(core::CreateMessageRequestParams {
            messages,
            model_preferences: p.model_preferences.map(|m| core::ModelPreferences {
                hints: non_empty(
                    m.hints
                        .into_iter()
                        .map(|name| core::ModelHint { name: Some(name) })
                        .collect(),
                ),
                cost_priority: m.cost_priority,
                speed_priority: m.speed_priority,
                intelligence_priority: m.intelligence_priority,
            }),
            system_prompt: p.system_prompt,
            include_context: p.include_context,
            temperature: p.temperature,
            max_tokens: to_u64(p.max_tokens, "maxTokens")?,
            stop_sequences: non_empty(p.stop_sequences),
            metadata: parse_optional_object(p.metadata_json, "metadata")?,
            tools: non_empty(try_map(p.tools)?),
            tool_choice: p.tool_choice.map(|mode| core::ToolChoice { mode: Some(mode) }),
            meta: None,
        })
    }
}

/// What the model produced.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct CreateMessageResult {
    /// What the model produced (one item or several).
    pub content: Vec<SamplingContent>,
    /// The model that produced it.
    pub model: String,
    /// Who speaks (the assistant).
    #[uniffi(default = None)]
    pub role: Option<Role>,
    /// Why generation stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or other.
    #[uniffi(default = None)]
    pub stop_reason: Option<String>,
    /// The result's `_meta`, as JSON object text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::CreateMessageResult> for CreateMessageResult {
    fn from(r: core::CreateMessageResult) -> Self {
        CreateMessageResult {
            content: from_one_or_many(r.content),
            model: r.model,
            role: Some(r.role.into()),
            stop_reason: r.stop_reason,
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<CreateMessageResult> for core::CreateMessageResult {
    type Error = McpError;
    fn try_from(r: CreateMessageResult) -> Result<Self, McpError> {
        Ok(core::CreateMessageResult {
            role: r.role.unwrap_or(Role::Assistant).into(),
            content: one_or_many(try_map(r.content)?),
            model: r.model,
            stop_reason: r.stop_reason,
            meta: parse_meta(r.meta_json)?,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Elicitation
// ---------------------------------------------------------------------------------------

/// What the server asks the user.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ElicitRequest {
    /// Fill in a form.
    Form {
        /// What to ask the user.
        message: String,
        /// A flat object schema of primitive properties, as JSON text.
        requested_schema_json: String,
    },
    /// Visit a URL.
    Url {
        /// Why the user should visit the URL.
        message: String,
        /// The URL.
        url: String,
        /// Correlates the completion notification.
        #[uniffi(default = None)]
        elicitation_id: Option<String>,
    },
}

impl From<core::ElicitRequestParams> for ElicitRequest {
    fn from(p: core::ElicitRequestParams) -> Self {
        match p {
            core::ElicitRequestParams::Form(f) => ElicitRequest::Form {
                message: f.message,
                requested_schema_json: json_text(&f.requested_schema),
            },
            core::ElicitRequestParams::Url(u) => ElicitRequest::Url {
                message: u.message,
                url: u.url,
                elicitation_id: u.elicitation_id,
            },
        }
    }
}

impl TryFrom<ElicitRequest> for core::ElicitRequestParams {
    type Error = McpError;
    fn try_from(r: ElicitRequest) -> Result<Self, McpError> {
        Ok(match r {
            ElicitRequest::Form {
                message,
                requested_schema_json,
            } => core::ElicitRequestParams::Form(core::ElicitRequestFormParams {
                mode: None,
                message,
                requested_schema: parse_object(&requested_schema_json, "requestedSchema")?,
                meta: None,
            }),
            ElicitRequest::Url {
                message,
                url,
                elicitation_id,
            } => core::ElicitRequestParams::Url(core::ElicitRequestUrlParams {
                mode: core::UrlMode::Url,
                message,
                url,
                elicitation_id,
                meta: None,
            }),
        })
    }
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ElicitAction {
    /// Submitted the form (or agreed to visit the URL).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values with `Accept` in form mode, as JSON object text.
    #[uniffi(default = None)]
    pub content_json: Option<String>,
    /// The result's `_meta`, as JSON object text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::ElicitResult> for ElicitResult {
    fn from(r: core::ElicitResult) -> Self {
        ElicitResult {
            action: match r.action {
                core::ElicitAction::Accept => ElicitAction::Accept,
                core::ElicitAction::Decline => ElicitAction::Decline,
                core::ElicitAction::Cancel => ElicitAction::Cancel,
            },
            content_json: r.content.as_ref().map(json_text),
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<ElicitResult> for core::ElicitResult {
    type Error = McpError;
    fn try_from(r: ElicitResult) -> Result<Self, McpError> {
        Ok(core::ElicitResult {
            action: match r.action {
                ElicitAction::Accept => core::ElicitAction::Accept,
                ElicitAction::Decline => core::ElicitAction::Decline,
                ElicitAction::Cancel => core::ElicitAction::Cancel,
            },
            content: parse_optional_object(r.content_json, "elicitation content")?,
            meta: parse_meta(r.meta_json)?,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Roots, progress, notifications, connection details
// ---------------------------------------------------------------------------------------

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

/// One progress report of a request.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ProgressUpdate {
    /// Progress so far; increases with every report.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening.
    pub message: Option<String>,
}

impl From<core::ProgressNotificationParams> for ProgressUpdate {
    fn from(p: core::ProgressNotificationParams) -> Self {
        ProgressUpdate {
            progress: p.progress,
            total: p.total,
            message: p.message,
        }
    }
}

/// A notification from the server.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ServerNotification {
    /// The tool list changed.
    ToolListChanged,
    /// The prompt list changed.
    PromptListChanged,
    /// The resource list changed.
    ResourceListChanged,
    /// A subscribed resource changed.
    ResourceUpdated {
        /// The URI that changed.
        uri: String,
    },
    /// A log message.
    LogMessage {
        /// Severity.
        level: LoggingLevel,
        /// Which logger.
        logger: Option<String>,
        /// The message: any JSON value, as JSON text.
        data_json: String,
    },
    /// Progress of some request (also given to that request's progress listener).
    Progress {
        /// The request's progress token, as JSON text (a number or a string).
        token_json: String,
        /// Progress so far.
        progress: f64,
        /// The total, when known.
        total: Option<f64>,
        /// What is happening.
        message: Option<String>,
    },
    /// Any other notification.
    Other {
        /// The method.
        method: String,
        /// The params, as JSON text.
        params_json: Option<String>,
    },
}

impl From<oxmcp::client::ServerNotification> for ServerNotification {
    fn from(n: oxmcp::client::ServerNotification) -> Self {
        use oxmcp::client::ServerNotification as N;
        match n {
            N::ToolListChanged => ServerNotification::ToolListChanged,
            N::PromptListChanged => ServerNotification::PromptListChanged,
            N::ResourceListChanged => ServerNotification::ResourceListChanged,
            N::ResourceUpdated(p) => ServerNotification::ResourceUpdated { uri: p.uri },
            N::LogMessage(m) => ServerNotification::LogMessage {
                level: m.level.into(),
                logger: m.logger,
                data_json: json_text(&m.data),
            },
            N::Progress(p) => ServerNotification::Progress {
                token_json: json_text(&p.progress_token),
                progress: p.progress,
                total: p.total,
                message: p.message,
            },
            N::SubscriptionAcknowledged(p) => ServerNotification::Other {
                method: core::methods::SUBSCRIPTIONS_ACKNOWLEDGED.to_owned(),
                params_json: Some(json_text(&p)),
            },
            N::Other { method, params } => ServerNotification::Other {
                method,
                params_json: params.as_ref().map(json_text),
            },
        }
    }
}

/// What a connection settled on.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ServerDetails {
    /// The protocol version in use, e.g. `2026-07-28`.
    pub protocol_version: String,
    /// Its era.
    pub era: Era,
    /// Who the server says it is.
    pub server_info: Option<Implementation>,
    /// The server's guidance for the model.
    pub instructions: Option<String>,
    /// What the server can do, as JSON object text.
    pub capabilities_json: String,
}

impl From<oxmcp::client::ServerDetails> for ServerDetails {
    fn from(d: oxmcp::client::ServerDetails) -> Self {
        ServerDetails {
            protocol_version: d.protocol_version.as_str().to_owned(),
            era: d.protocol_version.era().into(),
            server_info: d.server_info.map(Into::into),
            instructions: d.instructions,
            capabilities_json: json_text(&d.capabilities),
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON text helpers for apps without a JSON library at hand
// ---------------------------------------------------------------------------------------

/// The value at `pointer` (RFC 6901, e.g. `/user/name`; empty for the whole document) in
/// the JSON text `json`, as JSON text; `None` when there is no such value.
#[uniffi::export]
pub fn json_pointer(json: String, pointer: String) -> Result<Option<String>, McpError> {
    let value = parse_json(&json, "the document")?;
    Ok(value.pointer(&pointer).map(json_text))
}

/// The string at `pointer` in the JSON text `json`; `None` when there is no value there or
/// it is not a string.
#[uniffi::export]
pub fn json_pointer_string(json: String, pointer: String) -> Result<Option<String>, McpError> {
    let value = parse_json(&json, "the document")?;
    Ok(value.pointer(&pointer).and_then(Value::as_str).map(str::to_owned))
}

/// `text` as a JSON string literal, quoted and escaped.
#[uniffi::export]
pub fn json_string(text: String) -> String {
    json_text(&text)
}

/// A JSON object as text, from member names and their values as JSON text (e.g. from
/// [`json_string`]); fails when a value is not JSON.
#[uniffi::export]
pub fn json_object(members: HashMap<String, String>) -> Result<String, McpError> {
    let object = members
        .into_iter()
        .map(|(name, value)| {
            let value = parse_json(&value, &format!("member {name:?}"))?;
            Ok((name, value))
        })
        .collect::<Result<Map<String, Value>, McpError>>()?;
    Ok(json_text(&object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_round_trip_with_their_schemas_as_json_text() {
        let tool = Tool {
            name: "add".into(),
            description: Some("Add".into()),
            input_schema_json: // Members in sorted order: the text comes back as serde_json writes it.
            r#"{"properties":{"a":{"type":"integer"}},"type":"object"}"#.into(),
            output_schema_json: None,
            title: None,
            annotations: Some(ToolAnnotations {
                read_only_hint: Some(true),
                ..Default::default()
            }),
            icons: vec![],
            meta_json: None,
        };
        let core_tool = core::Tool::try_from(tool.clone()).unwrap();
        assert_eq!(core_tool.input_schema["properties"]["a"]["type"], "integer");
        assert_eq!(Tool::from(core_tool), tool);
    }

    #[test]
    fn bad_json_text_is_invalid_input() {
        let tool = Tool {
            name: "t".into(),
            description: None,
            input_schema_json: "[1]".into(),
            output_schema_json: None,
            title: None,
            annotations: None,
            icons: vec![],
            meta_json: None,
        };
        assert!(matches!(core::Tool::try_from(tool), Err(McpError::InvalidInput { .. })));
        assert!(matches!(parse_json("{", "x"), Err(McpError::InvalidInput { .. })));
    }

    /// Converts `value` to the core type, checks it comes back equal through the wire JSON,
    /// and returns that JSON.
    fn through_the_wire<F, C>(value: F) -> Value
    where
        F: From<C> + Clone + PartialEq + std::fmt::Debug,
        C: TryFrom<F, Error = McpError> + Serialize + serde::de::DeserializeOwned,
    {
        let wire = serde_json::to_value(C::try_from(value.clone()).unwrap()).unwrap();
        let back = F::from(serde_json::from_value::<C>(wire.clone()).unwrap());
        assert_eq!(back, value);
        wire
    }

    #[test]
    fn meta_crosses_as_json_text_on_content_and_results() {
        let meta = || Some(r#"{"com.example/tag":"x"}"#.to_owned());
        let audio = ContentBlock::Audio {
            data: "AA".into(),
            mime_type: "audio/wav".into(),
            annotations: None,
            meta_json: meta(),
        };
        let wire = through_the_wire::<_, core::ContentBlock>(audio);
        assert_eq!(wire["_meta"]["com.example/tag"], "x");
        let tool_use = SamplingContent::ToolUse {
            id: "1".into(),
            name: "t".into(),
            input_json: "{}".into(),
            meta_json: meta(),
        };
        assert_eq!(
            through_the_wire::<_, core::SamplingContent>(tool_use)["_meta"]["com.example/tag"],
            "x"
        );
        let root = Root {
            uri: "file:///a".into(),
            name: None,
            meta_json: meta(),
        };
        assert_eq!(through_the_wire::<_, core::Root>(root)["_meta"]["com.example/tag"], "x");
        let answer = ElicitResult {
            action: ElicitAction::Decline,
            content_json: None,
            meta_json: meta(),
        };
        assert_eq!(
            through_the_wire::<_, core::ElicitResult>(answer)["_meta"]["com.example/tag"],
            "x"
        );
        let not_an_object = ContentBlock::Text {
            text: "t".into(),
            annotations: None,
            meta_json: Some("[1]".into()),
        };
        assert!(matches!(
            core::ContentBlock::try_from(not_an_object),
            Err(McpError::InvalidInput { .. })
        ));
    }

    #[test]
    fn json_helpers_read_and_build_json_text() {
        let doc = r#"{"user":{"name":"ada","age":36}}"#.to_owned();
        assert_eq!(
            json_pointer(doc.clone(), "/user/age".into()).unwrap(),
            Some("36".into())
        );
        assert_eq!(
            json_pointer_string(doc.clone(), "/user/name".into()).unwrap(),
            Some("ada".into())
        );
        assert_eq!(json_pointer_string(doc.clone(), "/user/age".into()).unwrap(), None);
        assert_eq!(json_pointer(doc, "/missing".into()).unwrap(), None);
        let quoted = json_string("say \"hi\"".into());
        assert_eq!(quoted, r#""say \"hi\"""#);
        let object = json_object(HashMap::from([("text".to_owned(), quoted)])).unwrap();
        assert_eq!(object, r#"{"text":"say \"hi\""}"#);
        assert!(json_object(HashMap::from([("x".to_owned(), "nope".to_owned())])).is_err());
    }

    #[test]
    fn one_sampling_item_is_sent_as_one() {
        let result = CreateMessageResult {
            content: vec![SamplingContent::Text {
                text: "Paris".into(),
                meta_json: None,
            }],
            model: "m".into(),
            role: None,
            stop_reason: None,
            meta_json: None,
        };
        let core_result = core::CreateMessageResult::try_from(result).unwrap();
        assert!(matches!(core_result.content, core::OneOrMany::One(_)));
        assert_eq!(core_result.role, core::Role::Assistant);
    }

    #[test]
    fn errors_keep_the_remote_code_both_ways() {
        let remote = McpError::from(oxmcp::Error::Remote(core::ErrorObject::invalid_params("bad")));
        assert!(matches!(remote, McpError::Remote { code: -32602, .. }));
        let back = core::ErrorObject::from(remote);
        assert_eq!(back.code, -32602);
        let handler = McpError::Handler { detail: "nope".into() }.into_handler_error();
        assert_eq!(handler, oxmcp::server::HandlerError::message("nope"));
    }
}
