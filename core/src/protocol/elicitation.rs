//! Elicitation: the server asks the client's user for input.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::meta::Meta;

/// Params of `elicitation/create`: a form or a URL to visit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// A URL the user must visit (2025-11-25 on). Listed first: it is told apart by `mode`.
    Url(ElicitRequestUrlParams),
    /// A form described by a restricted JSON Schema.
    Form(ElicitRequestFormParams),
}

/// Form-mode elicitation params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestFormParams {
    /// `form`, or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What to ask the user.
    pub message: String,
    /// A flat object schema of primitive properties.
    #[serde(rename = "requestedSchema")]
    pub requested_schema: Map<String, Value>,
    /// Request metadata (legacy era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The `form` mode tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormMode {
    /// Form mode.
    #[serde(rename = "form")]
    Form,
}

/// The `url` mode tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlMode {
    /// URL mode.
    #[serde(rename = "url")]
    Url,
}

/// URL-mode elicitation params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestUrlParams {
    /// Always `url`.
    pub mode: UrlMode,
    /// Why the user should visit the URL.
    pub message: String,
    /// The URL.
    pub url: String,
    /// Correlates `notifications/elicitation/complete` (2025-11-25 only).
    #[serde(rename = "elicitationId", default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Request metadata (legacy era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `notifications/elicitation/complete` (2025-11-25): the user completed a URL-mode
/// elicitation out of band, so a request that failed with -32042 for it may be retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the elicitation that completed.
    #[serde(rename = "elicitationId")]
    pub elicitation_id: String,
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form (or agreed to visit the URL).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// Result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values, with `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
