//! Content: what tools return, prompts contain and sampling exchanges ([`ContentBlock`],
//! [`SamplingContent`]), who it is for ([`Role`], [`Annotations`]). Mirrors
//! `oxmcp::protocol::content`.

use oxmcp::protocol as core;

use super::{
    json_text, meta_text, non_empty, parse_json, parse_meta, parse_object, try_map, Resource, ResourceContents,
};
use crate::error::McpError;

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
