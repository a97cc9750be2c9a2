//! [`RedisSubscriptionBus`]: server events carried to every replica over Redis
//! publish/subscribe.

use std::time::Duration;

use futures::StreamExt;
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::RedisStore;
use crate::state::bus::EVENT_CAPACITY;
use crate::state::{ServerEvent, SubscriptionBus};

/// How many events may wait to be published before new ones are dropped (Redis down).
const OUTBOX_CAPACITY: usize = 1024;
/// The longest wait between attempts to subscribe again.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

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
    local: broadcast::Sender<ServerEvent>,
    outbox: mpsc::Sender<String>,
    tasks: [JoinHandle<()>; 2],
}

impl std::fmt::Debug for RedisSubscriptionBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSubscriptionBus")
            .field("subscribers", &self.local.receiver_count())
            .finish()
    }
}

impl RedisSubscriptionBus {
    pub(super) fn start(redis: RedisStore) -> Self {
        let channel = redis.key("events");
        let local = broadcast::channel(EVENT_CAPACITY).0;
        let (outbox, pending) = mpsc::channel(OUTBOX_CAPACITY);
        let listening = tokio::spawn(listen(redis.clone(), channel.clone(), local.clone()));
        let publishing = tokio::spawn(publish(redis, channel, pending));
        RedisSubscriptionBus {
            local,
            outbox,
            tasks: [listening, publishing],
        }
    }
}

impl Drop for RedisSubscriptionBus {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl SubscriptionBus for RedisSubscriptionBus {
    fn publish(&self, event: ServerEvent) {
        let text = serde_json::to_string(&Wire::from(&event)).unwrap_or_default();
        if self.outbox.try_send(text).is_err() {
            tracing::warn!("Redis is not keeping up: a server event was dropped");
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.local.subscribe()
    }
}

/// Publishes the queued events, in order.
async fn publish(redis: RedisStore, channel: String, mut pending: mpsc::Receiver<String>) {
    let mut connection = redis.connection.clone();
    while let Some(text) = pending.recv().await {
        if let Err(error) = connection.publish::<_, _, i64>(&channel, text).await {
            tracing::warn!(%error, "a server event could not be published to Redis");
        }
    }
}

/// Feeds what arrives on the channel to the local subscribers, subscribing again (with
/// back-off) whenever the connection is lost.
async fn listen(redis: RedisStore, channel: String, local: broadcast::Sender<ServerEvent>) {
    let mut backoff = Duration::from_millis(50);
    loop {
        match redis.client.get_async_pubsub().await {
            Ok(mut pubsub) => match pubsub.subscribe(&channel).await {
                Ok(()) => {
                    backoff = Duration::from_millis(50);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        let event = message
                            .get_payload::<String>()
                            .ok()
                            .and_then(|text| serde_json::from_str::<Wire>(&text).ok());
                        match event {
                            // Nobody listening here is no error.
                            Some(event) => drop(local.send(event.into())),
                            None => tracing::warn!("an unreadable server event arrived from Redis"),
                        }
                    }
                    tracing::warn!("the Redis subscription was lost; subscribing again");
                }
                Err(error) => tracing::warn!(%error, "could not subscribe to Redis"),
            },
            Err(error) => tracing::warn!(%error, "could not reach Redis for server events"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}
