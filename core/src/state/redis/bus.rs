//! [`RedisSubscriptionBus`]: server events carried to every replica over Redis
//! publish/subscribe.

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::channel::Channel;
use super::RedisStore;
use crate::state::{ServerEvent, SubscriptionBus};

/// An event as the channel carries it.
#[derive(Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Wire {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated { uri: String },
    TaskChanged { task_id: String },
}

impl From<&ServerEvent> for Wire {
    fn from(event: &ServerEvent) -> Self {
        match event {
            ServerEvent::ToolsListChanged => Wire::ToolsListChanged,
            ServerEvent::PromptsListChanged => Wire::PromptsListChanged,
            ServerEvent::ResourcesListChanged => Wire::ResourcesListChanged,
            ServerEvent::ResourceUpdated(uri) => Wire::ResourceUpdated { uri: uri.to_string() },
            ServerEvent::TaskChanged(id) => Wire::TaskChanged {
                task_id: id.to_string(),
            },
        }
    }
}

impl From<Wire> for ServerEvent {
    fn from(wire: Wire) -> Self {
        match wire {
            Wire::ToolsListChanged => ServerEvent::ToolsListChanged,
            Wire::PromptsListChanged => ServerEvent::PromptsListChanged,
            Wire::ResourcesListChanged => ServerEvent::ResourcesListChanged,
            Wire::ResourceUpdated { uri } => ServerEvent::ResourceUpdated(uri.into()),
            Wire::TaskChanged { task_id } => ServerEvent::TaskChanged(task_id.into()),
        }
    }
}

/// A [`SubscriptionBus`] shared by replicas: what one publishes goes to the Redis channel
/// `{prefix}events`, and what arrives there reaches the subscribers of every replica (this
/// one's included, once). Made by [`RedisStore::subscription_bus`]. While Redis is down,
/// events are dropped (with a warning) and the bus subscribes again as soon as it can.
pub struct RedisSubscriptionBus {
    channel: Channel<ServerEvent>,
}

impl std::fmt::Debug for RedisSubscriptionBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSubscriptionBus")
            .field("subscribers", &self.channel.subscribers())
            .finish()
    }
}

impl RedisSubscriptionBus {
    pub(super) fn start(redis: RedisStore) -> Self {
        RedisSubscriptionBus {
            channel: Channel::start(redis, "events", |text| {
                serde_json::from_str::<Wire>(text).ok().map(ServerEvent::from)
            }),
        }
    }
}

impl SubscriptionBus for RedisSubscriptionBus {
    fn publish(&self, event: ServerEvent) {
        let text = serde_json::to_string(&Wire::from(&event)).unwrap_or_default();
        if !self.channel.publish(text) {
            tracing::warn!("Redis is not keeping up: a server event was dropped");
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.channel.subscribe()
    }
}
