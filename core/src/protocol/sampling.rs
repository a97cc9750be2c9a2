//! Sampling: the server asks the client's LLM for a completion.

use serde::{Deserialize, Serialize};
use serde_json::Map;
use serde_json::Value;

use super::content::{Role, SamplingContent};
use super::meta::Meta;
use super::tools::Tool;

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// One content item or several.
    pub content: OneOrMany<SamplingContent>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A member the schema allows as one value or an array of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// A single value.
    One(T),
    /// An array.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The values as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(one) => std::slice::from_ref(one),
            OneOrMany::Many(many) => many,
        }
    }
}

/// The server's preferences for model selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0 to 1: how much cost matters.
    #[serde(
        rename = "costPriority",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub cost_priority: Option<f64>,
    /// 0 to 1: how much speed matters.
    #[serde(
        rename = "speedPriority",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub speed_priority: Option<f64>,
    /// 0 to 1: how much capability matters.
    #[serde(
        rename = "intelligencePriority",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub intelligence_priority: Option<f64>,
}

/// A hint for model selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How the model may use the tools offered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `auto`, `required` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// Params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(rename = "modelPreferences", default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt.
    #[serde(rename = "systemPrompt", default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `none`, `thisServer` or `allServers` (the last two deprecated).
    #[serde(rename = "includeContext", default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    #[serde(rename = "maxTokens")]
    pub max_tokens: u64,
    /// Sequences that stop generation.
    #[serde(rename = "stopSequences", default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may call (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use them.
    #[serde(rename = "toolChoice", default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Request metadata (legacy era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateMessageResult {
    /// Who speaks (the assistant).
    pub role: Role,
    /// What the model produced.
    pub content: OneOrMany<SamplingContent>,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or other.
    #[serde(rename = "stopReason", default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
