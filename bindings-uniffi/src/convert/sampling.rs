//! Sampling: a request for an LLM completion and what the model produced
//! ([`CreateMessageRequest`], [`CreateMessageResult`]). Mirrors `oxmcp::protocol::sampling`
//! (the content items are in [`super::content`], as in the core).

use oxmcp::protocol as core;

use super::{
    json_text, meta_text, non_empty, parse_meta, parse_optional_object, to_i64, to_u64, try_map, Role, SamplingContent,
    Tool,
};
use crate::error::McpError;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
