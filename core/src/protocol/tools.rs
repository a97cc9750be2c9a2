//! Tools: `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::lifecycle::Icon;
use super::meta::Meta;
use super::mrtr::InputResponses;
use super::result::{protocol_result, CacheScope, ResultType};

/// A tool the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Programmatic name: 1 to 128 of `A-Z a-z 0-9 _ - .`.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments (an object schema).
    #[serde(rename = "inputSchema")]
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent`.
    #[serde(rename = "outputSchema", default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution settings (task support, 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Hints about a tool's behaviour. Untrusted unless the server is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool changes nothing.
    #[serde(rename = "readOnlyHint", default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy things.
    #[serde(rename = "destructiveHint", default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments does nothing more.
    #[serde(rename = "idempotentHint", default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside entities.
    #[serde(rename = "openWorldHint", default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// How a tool may be executed (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolExecution {
    /// `forbidden`, `optional` or `required`.
    #[serde(rename = "taskSupport", default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<String>,
}

/// Params of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallToolRequestParams {
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Answers to the server's input requests (MRTR retry).
    #[serde(rename = "inputResponses", default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The state the server returned with its input requests (MRTR retry).
    #[serde(rename = "requestState", default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallToolResult {
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Structured output, matching the tool's `outputSchema` (2025-06-18 on).
    #[serde(rename = "structuredContent", default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed; the content says how, for the model.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `complete` in the modern era.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with these content items.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A tool execution error the model can read and act on.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..Default::default()
        }
    }

    /// A successful result with structured content and its JSON text as content.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }
}

/// Result of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListToolsResult {
    /// One page of tools.
    pub tools: Vec<Tool>,
    /// Where the next page starts.
    #[serde(rename = "nextCursor", default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `complete` in the modern era.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Freshness hint (modern era).
    #[serde(rename = "ttlMs", default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (modern era).
    #[serde(rename = "cacheScope", default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

protocol_result!(CallToolResult);
protocol_result!(cacheable ListToolsResult);
