//! Prompts: their definitions, arguments and rendered messages ([`Prompt`],
//! [`GetPromptResult`]). Mirrors `oxmcp::protocol::prompts`.

use oxmcp::protocol as core;

use super::lifecycle::{icons_from, icons_into};
use super::{meta_text, non_empty, parse_meta, ContentBlock, Icon, Role};
use crate::error::McpError;

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
