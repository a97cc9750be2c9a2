//! Elicitation: what the server asks the user and the answer ([`ElicitRequest`],
//! [`ElicitResult`]). Mirrors `oxmcp::protocol::elicitation`.

use oxmcp::protocol as core;

use super::{json_text, meta_text, parse_meta, parse_object, parse_optional_object};
use crate::error::McpError;

/// What the server asks the user.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ElicitRequest {
    /// Fill in a form.
    Form {
        /// What to ask the user.
        message: String,
        /// A flat object schema of primitive properties, as JSON text.
        requested_schema_json: String,
    },
    /// Visit a URL.
    Url {
        /// Why the user should visit the URL.
        message: String,
        /// The URL.
        url: String,
        /// Correlates the completion notification.
        #[uniffi(default = None)]
        elicitation_id: Option<String>,
    },
}

impl From<core::ElicitRequestParams> for ElicitRequest {
    fn from(p: core::ElicitRequestParams) -> Self {
        match p {
            core::ElicitRequestParams::Form(f) => ElicitRequest::Form {
                message: f.message,
                requested_schema_json: json_text(&f.requested_schema),
            },
            core::ElicitRequestParams::Url(u) => ElicitRequest::Url {
                message: u.message,
                url: u.url,
                elicitation_id: u.elicitation_id,
            },
        }
    }
}

impl TryFrom<ElicitRequest> for core::ElicitRequestParams {
    type Error = McpError;
    fn try_from(r: ElicitRequest) -> Result<Self, McpError> {
        Ok(match r {
            ElicitRequest::Form {
                message,
                requested_schema_json,
            } => core::ElicitRequestParams::Form(core::ElicitRequestFormParams {
                mode: None,
                message,
                requested_schema: parse_object(&requested_schema_json, "requestedSchema")?,
                meta: None,
            }),
            ElicitRequest::Url {
                message,
                url,
                elicitation_id,
            } => core::ElicitRequestParams::Url(core::ElicitRequestUrlParams {
                mode: core::UrlMode::Url,
                message,
                url,
                elicitation_id,
                meta: None,
            }),
        })
    }
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum ElicitAction {
    /// Submitted the form (or agreed to visit the URL).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values with `Accept` in form mode, as JSON object text.
    #[uniffi(default = None)]
    pub content_json: Option<String>,
    /// The result's `_meta`, as JSON object text.
    #[uniffi(default = None)]
    pub meta_json: Option<String>,
}

impl From<core::ElicitResult> for ElicitResult {
    fn from(r: core::ElicitResult) -> Self {
        ElicitResult {
            action: match r.action {
                core::ElicitAction::Accept => ElicitAction::Accept,
                core::ElicitAction::Decline => ElicitAction::Decline,
                core::ElicitAction::Cancel => ElicitAction::Cancel,
            },
            content_json: r.content.as_ref().map(json_text),
            meta_json: meta_text(&r.meta),
        }
    }
}

impl TryFrom<ElicitResult> for core::ElicitResult {
    type Error = McpError;
    fn try_from(r: ElicitResult) -> Result<Self, McpError> {
        Ok(core::ElicitResult {
            action: match r.action {
                ElicitAction::Accept => core::ElicitAction::Accept,
                ElicitAction::Decline => core::ElicitAction::Decline,
                ElicitAction::Cancel => core::ElicitAction::Cancel,
            },
            content: parse_optional_object(r.content_json, "elicitation content")?,
            meta: parse_meta(r.meta_json)?,
        })
    }
}
