//! Notifications the server sends, decoded for the user.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::protocol::{
    methods, LoggingMessageNotificationParams, ProgressNotificationParams, ResourceUpdatedNotificationParams,
    SubscriptionsListenParams,
};

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerNotification {
    /// The tool list changed.
    ToolListChanged,
    /// The prompt list changed.
    PromptListChanged,
    /// The resource list changed.
    ResourceListChanged,
    /// A subscribed resource changed.
    ResourceUpdated(ResourceUpdatedNotificationParams),
    /// A log message.
    LogMessage(LoggingMessageNotificationParams),
    /// Progress of a request (also delivered to that request's progress callback).
    Progress(ProgressNotificationParams),
    /// A modern subscription is open.
    SubscriptionAcknowledged(SubscriptionsListenParams),
    /// Any other notification, undecoded.
    Other {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
}

impl ServerNotification {
    /// Decodes a notification; unknown or malformed ones become [`ServerNotification::Other`].
    pub(crate) fn decode(method: &str, params: Option<&RawValue>) -> Self {
        fn typed<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Option<T> {
            serde_json::from_str(params.map_or("{}", RawValue::get)).ok()
        }
        let decoded = match method {
            methods::TOOLS_LIST_CHANGED => Some(ServerNotification::ToolListChanged),
            methods::PROMPTS_LIST_CHANGED => Some(ServerNotification::PromptListChanged),
            methods::RESOURCES_LIST_CHANGED => Some(ServerNotification::ResourceListChanged),
            methods::RESOURCES_UPDATED => typed(params).map(ServerNotification::ResourceUpdated),
            methods::MESSAGE => typed(params).map(ServerNotification::LogMessage),
            methods::PROGRESS => typed(params).map(ServerNotification::Progress),
            methods::SUBSCRIPTIONS_ACKNOWLEDGED => typed(params).map(ServerNotification::SubscriptionAcknowledged),
            _ => None,
        };
        decoded.unwrap_or_else(|| ServerNotification::Other {
            method: method.to_owned(),
            params: params.and_then(|p| serde_json::from_str(p.get()).ok()),
        })
    }
}
