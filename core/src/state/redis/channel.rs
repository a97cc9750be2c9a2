//! [`Channel`]: messages carried to every replica over one Redis publish/subscribe
//! channel, with reconnection; the subscription bus and the session relay ride on it.

use std::time::Duration;

use futures::StreamExt;
use redis::AsyncCommands;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::RedisStore;

/// How many messages may wait to be published before new ones are dropped (Redis down).
const OUTBOX_CAPACITY: usize = 1024;
/// How many messages may queue for a slow local subscriber before it misses some.
const LOCAL_CAPACITY: usize = 1024;
/// The longest wait between attempts to subscribe again.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// One Redis channel: what is published goes to every replica's subscribers (this one's
/// included, once), decoded from its text. While Redis is down, messages are dropped (with
/// a warning) and the channel subscribes again as soon as it can.
pub(super) struct Channel<T> {
    local: broadcast::Sender<T>,
    outbox: mpsc::Sender<String>,
    tasks: [JoinHandle<()>; 2],
}

impl<T: Clone + Send + 'static> Channel<T> {
    /// Starts listening on the channel `name` (under the store's prefix) and publishing to
    /// it; `decode` reads what arrives.
    pub(super) fn start(redis: RedisStore, name: &str, decode: fn(&str) -> Option<T>) -> Self {
        let channel = redis.key(name);
        let local = broadcast::channel(LOCAL_CAPACITY).0;
        let (outbox, pending) = mpsc::channel(OUTBOX_CAPACITY);
        let listening = tokio::spawn(listen(redis.clone(), channel.clone(), local.clone(), decode));
        let publishing = tokio::spawn(publish(redis, channel, pending));
        Channel {
            local,
            outbox,
            tasks: [listening, publishing],
        }
    }

    /// Queues `text` to be published; false when the queue is full (Redis is not keeping
    /// up) and it was dropped.
    pub(super) fn publish(&self, text: String) -> bool {
        self.outbox.try_send(text).is_ok()
    }

    /// A subscription to what arrives after this call.
    pub(super) fn subscribe(&self) -> broadcast::Receiver<T> {
        self.local.subscribe()
    }

    /// How many local subscribers there are.
    pub(super) fn subscribers(&self) -> usize {
        self.local.receiver_count()
    }
}

impl<T> Drop for Channel<T> {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Publishes the queued messages, in order.
async fn publish(redis: RedisStore, channel: String, mut pending: mpsc::Receiver<String>) {
    let mut connection = redis.connection.clone();
    while let Some(text) = pending.recv().await {
        if let Err(error) = connection.publish::<_, _, i64>(&channel, text).await {
            tracing::warn!(%error, channel, "a message could not be published to Redis");
        }
    }
}

/// Feeds what arrives on the channel to the local subscribers, subscribing again (with
/// back-off) whenever the connection is lost.
async fn listen<T>(redis: RedisStore, channel: String, local: broadcast::Sender<T>, decode: fn(&str) -> Option<T>) {
    let mut backoff = Duration::from_millis(50);
    loop {
        match redis.client.get_async_pubsub().await {
            Ok(mut pubsub) => match pubsub.subscribe(&channel).await {
                Ok(()) => {
                    backoff = Duration::from_millis(50);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        match message.get_payload::<String>().ok().as_deref().and_then(decode) {
                            // Nobody listening here is no error.
                            Some(decoded) => drop(local.send(decoded)),
                            None => tracing::warn!(channel, "an unreadable message arrived from Redis"),
                        }
                    }
                    tracing::warn!(channel, "the Redis subscription was lost; subscribing again");
                }
                Err(error) => tracing::warn!(%error, channel, "could not subscribe to Redis"),
            },
            Err(error) => tracing::warn!(%error, channel, "could not reach Redis"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}
