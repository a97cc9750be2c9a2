//! Logging: `notifications/message`, and `logging/setLevel` in the legacy era.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::meta::Meta;

/// Syslog severities, lowest first, so that `>=` compares severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical condition.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// Params of `logging/setLevel` (legacy era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The lowest level to send.
    pub level: LoggingLevel,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Which logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON value.
    pub data: Value,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
