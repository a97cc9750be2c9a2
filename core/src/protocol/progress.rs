//! Progress and cancellation notifications.

use serde::{Deserialize, Serialize};

use super::jsonrpc::RequestId;
use super::meta::Meta;

/// The token a request's `_meta.progressToken` carries; same shape as a request id.
pub type ProgressToken = RequestId;

/// Params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressNotificationParams {
    /// The token from the request.
    #[serde(rename = "progressToken")]
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    #[serde(serialize_with = "super::number::serialize")]
    pub progress: f64,
    /// The total, when known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::number::serialize_option"
    )]
    pub total: Option<f64>,
    /// What is happening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelledNotificationParams {
    /// The request to cancel.
    #[serde(rename = "requestId")]
    pub request_id: RequestId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
