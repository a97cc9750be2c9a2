//! Completion: what is being completed and the suggestions ([`CompletionReference`],
//! [`Completion`]). Mirrors `oxmcp::protocol::completion`.

use oxmcp::protocol as core;

use super::to_i64;

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
