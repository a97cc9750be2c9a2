//! The values that cross the boundary, as typed records and enums, one file per area as
//! `oxmcp::protocol` splits them: content, tools, resources, prompts, completion, sampling,
//! elicitation, roots, subscriptions, tasks, lifecycle, version (eras), logging, progress; and notifications (the
//! client's `ServerNotification`), what a tool returns (`returned`), and the JSON text
//! helpers exported to apps (`json`).
//!
//! Each mirrors a type of `oxmcp::protocol`; the conversions here are the only place the
//! binding knows the wire shapes. Values that really are arbitrary JSON (tool arguments,
//! structured content, JSON Schemas, `_meta`) cross as JSON text in fields named `…_json`.
//! Integers are signed (`Long` in Kotlin, `Int64` in Swift). This file holds the helpers
//! every area shares: JSON text, `_meta`, numbers and durations from the foreign side.

mod completion;
mod content;
mod elicitation;
mod json;
mod lifecycle;
mod logging;
mod notifications;
mod progress;
mod prompts;
mod resources;
mod returned;
mod roots;
mod sampling;
mod subscriptions;
mod tasks;
mod tools;
mod version;

pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use json::*;
pub use lifecycle::*;
pub use logging::*;
pub use notifications::*;
pub use progress::*;
pub use prompts::*;
pub use resources::*;
pub use returned::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use version::*;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use oxmcp::protocol as core;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::McpError;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
