//! Notifications the server sends, decoded for the user.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::protocol::{
    methods, ElicitationCompleteNotificationParams, LoggingMessageNotificationParams, ProgressNotificationParams,
    ResourceUpdatedNotificationParams, SubscriptionsListenParams,
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
    /// The user completed a URL-mode elicitation (2025-11-25): a request refused with
    /// -32042 for it may be retried.
    ElicitationComplete(ElicitationCompleteNotificationParams),
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
            methods::ELICITATION_COMPLETE => typed(params).map(ServerNotification::ElicitationComplete),
            _ => None,
        };
        decoded.unwrap_or_else(|| ServerNotification::Other {
            method: method.to_owned(),
            params: params.and_then(|p| serde_json::from_str(p.get()).ok()),
        })
    }

    /// The notification as it came: its method and params (for a binding that hands
    /// notifications on as plain data).
    pub fn parts(&self) -> (String, Option<Value>) {
        fn json(params: &impl serde::Serialize) -> Option<Value> {
            serde_json::to_value(params).ok()
        }
        let (method, params) = match self {
            ServerNotification::ToolListChanged => (methods::TOOLS_LIST_CHANGED, None),
            ServerNotification::PromptListChanged => (methods::PROMPTS_LIST_CHANGED, None),
            ServerNotification::ResourceListChanged => (methods::RESOURCES_LIST_CHANGED, None),
            ServerNotification::ResourceUpdated(params) => (methods::RESOURCES_UPDATED, json(params)),
            ServerNotification::LogMessage(params) => (methods::MESSAGE, json(params)),
            ServerNotification::Progress(params) => (methods::PROGRESS, json(params)),
            ServerNotification::SubscriptionAcknowledged(params) => (methods::SUBSCRIPTIONS_ACKNOWLEDGED, json(params)),
            ServerNotification::ElicitationComplete(params) => (methods::ELICITATION_COMPLETE, json(params)),
            ServerNotification::Other { method, params } => return (method.clone(), params.clone()),
        };
        (method.to_owned(), params)
    }
}
