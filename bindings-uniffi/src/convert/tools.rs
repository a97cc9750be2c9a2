//! Tools: their definitions and what a call returns ([`Tool`], [`CallToolResult`]). Mirrors
//! `oxmcp::protocol::tools`.

use oxmcp::protocol as core;

use super::lifecycle::{icons_from, icons_into};
use super::{
    json_text, meta_text, parse_json, parse_meta, parse_object, parse_optional_object, try_map, ContentBlock, Icon,
};
use crate::error::McpError;

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
}
