//! What a Kotlin or Swift tool returns: a value the core shapes into the result by the
//! rules every language shares (`oxmcp::server::Returned`), or a complete result.

use oxmcp::protocol as core;
use oxmcp::server::{HandlerError, Returned as CoreReturned, ToolOutput};

use super::{parse_json, CallToolResult, ContentBlock};
use crate::error::McpError;

/// A tool's value. `Text("hi")` is one text block; `Json("42")` is data, sent as its JSON
/// text (and as `structuredContent` when the tool declares an output schema, wrapped as
/// `{"result": …}` unless it is an object); `Complete` is sent as it is. (Variant names
/// avoid Kotlin's `Nothing`, `List` and `Result`, which they would shadow.)
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum Returned {
    /// No content.
    Empty,
    /// A string: one text block.
    Text {
        /// The text.
        value: String,
    },
    /// Bytes: an embedded blob.
    Bytes {
        /// The bytes.
        value: Vec<u8>,
    },
    /// Any other data (numbers, objects, arrays), as JSON text.
    Json {
        /// The JSON text.
        json: String,
    },
    /// A content block.
    Content {
        /// The block.
        block: ContentBlock,
    },
    /// Several values, each shaped in turn.
    Items {
        /// The values.
        items: Vec<Returned>,
    },
    /// A complete result, sent as it is.
    Complete {
        /// The result.
        result: CallToolResult,
    },
}

impl Returned {
    /// The tool result: a complete one converted straight across (no detour through JSON),
    /// any other value shaped by the core as `output` says.
    pub(crate) fn into_tool_result(self, output: ToolOutput) -> Result<core::CallToolResult, HandlerError> {
        match self {
            Returned::Complete { result } => result.try_into().map_err(McpError::into_handler_error),
            value => CoreReturned::try_from(value)
                .map_err(McpError::into_handler_error)?
                .into_tool_result(output),
        }
    }
}

impl TryFrom<Returned> for CoreReturned {
    type Error = McpError;

    fn try_from(value: Returned) -> Result<Self, McpError> {
        Ok(match value {
            Returned::Empty => CoreReturned::Nothing,
            Returned::Text { value } => CoreReturned::Text(value),
            Returned::Bytes { value } => CoreReturned::Bytes(value),
            Returned::Json { json } => CoreReturned::Data(parse_json(&json, "the returned JSON")?),
            Returned::Content { block } => CoreReturned::Content(block.try_into()?),
            Returned::Items { items } => CoreReturned::List(
                items
                    .into_iter()
                    .map(CoreReturned::try_from)
                    .collect::<Result<_, _>>()?,
            ),
            // Only in a list: a complete result among other values is sent as its JSON.
            Returned::Complete { result } => {
                let result = core::CallToolResult::try_from(result)?;
                CoreReturned::Result(serde_json::to_value(result).map_err(|e| McpError::invalid_input(e.to_string()))?)
            }
        })
    }
}
