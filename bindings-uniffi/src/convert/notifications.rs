//! The server's notifications as a client receives them ([`ServerNotification`]). Mirrors
//! `oxmcp::client::ServerNotification`.

use super::{json_text, LoggingLevel};

/// A notification from the server.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ServerNotification {
    /// The tool list changed.
    ToolListChanged,
    /// The prompt list changed.
    PromptListChanged,
    /// The resource list changed.
    ResourceListChanged,
    /// A subscribed resource changed.
    ResourceUpdated {
        /// The URI that changed.
        uri: String,
    },
    /// A log message.
    LogMessage {
        /// Severity.
        level: LoggingLevel,
        /// Which logger.
        logger: Option<String>,
        /// The message: any JSON value, as JSON text.
        data_json: String,
    },
    /// Progress of some request (also given to that request's progress listener).
    Progress {
        /// The request's progress token, as JSON text (a number or a string).
        token_json: String,
        /// Progress so far.
        progress: f64,
        /// The total, when known.
        total: Option<f64>,
        /// What is happening.
        message: Option<String>,
    },
    /// Any other notification.
    Other {
        /// The method.
        method: String,
        /// The params, as JSON text.
        params_json: Option<String>,
    },
}

impl From<oxmcp::client::ServerNotification> for ServerNotification {
    fn from(n: oxmcp::client::ServerNotification) -> Self {
        use oxmcp::client::ServerNotification as N;
        match n {
            N::ToolListChanged => ServerNotification::ToolListChanged,
            N::PromptListChanged => ServerNotification::PromptListChanged,
            N::ResourceListChanged => ServerNotification::ResourceListChanged,
            N::ResourceUpdated(p) => ServerNotification::ResourceUpdated { uri: p.uri },
            N::LogMessage(m) => ServerNotification::LogMessage {
                level: m.level.into(),
                logger: m.logger,
                data_json: json_text(&m.data),
            },
            N::Progress(p) => ServerNotification::Progress {
                token_json: json_text(&p.progress_token),
                progress: p.progress,
                total: p.total,
                message: p.message,
            },
            other @ (N::SubscriptionAcknowledged(_) | N::ElicitationComplete(_) | N::Other { .. }) => {
                let (method, params) = other.parts();
                ServerNotification::Other {
                    method,
                    params_json: params.as_ref().map(json_text),
                }
            }
        }
    }
}
