//! Content: what tools return, prompts contain and sampling exchanges.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::meta::Meta;
use super::resources::{Resource, ResourceContents};
use super::version::ProtocolVersion;

/// Who a message or content item is from or for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// Hints on how a client should use an object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Annotations {
    /// Who the object is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change.
    #[serde(rename = "lastModified", default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// Text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An image or a sound: base64 data and its MIME type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// The MIME type, e.g. `image/png`.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A resource's contents embedded in a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Usage hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A content item of a tool result or prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// Text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// An image.
    #[serde(rename = "image")]
    Image(MediaContent),
    /// A sound (2025-03-26 on).
    #[serde(rename = "audio")]
    Audio(MediaContent),
    /// A link to a resource the client can read (2025-06-18 on).
    #[serde(rename = "resource_link")]
    ResourceLink(Resource),
    /// A resource's contents.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// The block as a client of `version` can read it: audio before 2025-03-26 and
    /// resource links before 2025-06-18 become text that says what they were (a link
    /// keeps its URI, so the client can still read the resource).
    pub fn for_version(self, version: ProtocolVersion) -> Self {
        match self {
            ContentBlock::Audio(audio) if !version.has_audio() => ContentBlock::text(format!(
                "[audio ({}) that this client's protocol version ({version}) cannot carry]",
                audio.mime_type
            )),
            ContentBlock::ResourceLink(link) if !version.has_resource_links() => {
                let mut text = format!("Resource {}: {}", link.name, link.uri);
                if let Some(description) = &link.description {
                    text.push_str(&format!(" ({description})"));
                }
                ContentBlock::text(text)
            }
            block => block,
        }
    }

    /// A text item.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An image item from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An audio item from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// The text, when this is a text item.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The model asks to call a tool (sampling with tools, 2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Correlates the matching [`ToolResultContent`].
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's arguments.
    pub input: Map<String, Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of a tool the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultContent {
    /// The id of the [`ToolUseContent`] it answers.
    #[serde(rename = "toolUseId")]
    pub tool_use_id: String,
    /// The tool's output.
    pub content: Vec<ContentBlock>,
    /// Structured output.
    #[serde(rename = "structuredContent", default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A content item of a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContent {
    /// Text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// An image.
    #[serde(rename = "image")]
    Image(MediaContent),
    /// A sound.
    #[serde(rename = "audio")]
    Audio(MediaContent),
    /// A tool call the model asks for.
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// A tool call's result.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}
