//! The [`SubscriptionBus`]: how a change on the server (a list changed, a resource was
//! updated) reaches every connection and every subscription stream, on every replica
//! that shares the bus.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::protocol::methods;

/// How many events may queue for a slow subscriber of the in-memory bus before it misses
/// some.
const EVENT_CAPACITY: usize = 256;

/// Something that changed on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// The list of tools changed.
    ToolsListChanged,
    /// The list of prompts changed.
    PromptsListChanged,
    /// The list of resources or resource templates changed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(Arc<str>),
    /// The task with this id changed: its status, message, result or input.
    TaskChanged(Arc<str>),
}

impl ServerEvent {
    /// The notification method that announces it.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            ServerEvent::ToolsListChanged => methods::TOOLS_LIST_CHANGED,
            ServerEvent::PromptsListChanged => methods::PROMPTS_LIST_CHANGED,
            ServerEvent::ResourcesListChanged => methods::RESOURCES_LIST_CHANGED,
            ServerEvent::ResourceUpdated(_) => methods::RESOURCES_UPDATED,
            ServerEvent::TaskChanged(_) => methods::TASKS_NOTIFICATION,
        }
    }
}

/// Carries [`ServerEvent`]s from the server that publishes them to every subscriber:
/// legacy connections (list-changed and resource-updated notifications) and modern
/// `subscriptions/listen` streams.
///
/// The default, [`InMemorySubscriptionBus`], reaches the subscribers of this process. A
/// bus shared by replicas (over Redis, say) publishes to the shared channel and feeds
/// what arrives from it into each local subscription.
///
/// ```
/// use std::sync::Arc;
/// use oxmcp::server::Server;
/// use oxmcp::state::InMemorySubscriptionBus;
///
/// let bus = Arc::new(InMemorySubscriptionBus::default());
/// let server = Server::builder("demo", "1.0.0").subscription_bus(bus).build().unwrap();
/// ```
pub trait SubscriptionBus: Send + Sync {
    /// Announces `event` to every subscriber.
    fn publish(&self, event: ServerEvent);

    /// A new subscription, which receives the events published after this call. A
    /// subscriber that falls behind misses events (`RecvError::Lagged`) rather than
    /// holding up the others.
    fn subscribe(&self) -> broadcast::Receiver<ServerEvent>;
}

/// The in-process [`SubscriptionBus`]: a broadcast channel.
pub struct InMemorySubscriptionBus {
    sender: broadcast::Sender<ServerEvent>,
}

impl InMemorySubscriptionBus {
    /// A bus on which a subscriber may fall `capacity` events behind before it misses some.
    pub fn new(capacity: usize) -> Self {
        InMemorySubscriptionBus {
            sender: broadcast::channel(capacity.max(1)).0,
        }
    }
}

impl Default for InMemorySubscriptionBus {
    fn default() -> Self {
        InMemorySubscriptionBus::new(EVENT_CAPACITY)
    }
}

impl std::fmt::Debug for InMemorySubscriptionBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemorySubscriptionBus")
            .field("subscribers", &self.sender.receiver_count())
            .finish()
    }
}

impl SubscriptionBus for InMemorySubscriptionBus {
    fn publish(&self, event: ServerEvent) {
        // No subscriber is not an error: nobody is listening yet.
        let _ = self.sender.send(event);
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.sender.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn subscribers_receive_what_is_published_after_they_subscribe() {
        let bus = InMemorySubscriptionBus::new(4);
        bus.publish(ServerEvent::ToolsListChanged);
        let mut first = bus.subscribe();
        bus.publish(ServerEvent::ResourceUpdated("file:///a".into()));
        let mut second = bus.subscribe();
        bus.publish(ServerEvent::PromptsListChanged);
        assert_eq!(
            first.recv().await.unwrap(),
            ServerEvent::ResourceUpdated("file:///a".into())
        );
        assert_eq!(first.recv().await.unwrap(), ServerEvent::PromptsListChanged);
        assert_eq!(second.recv().await.unwrap(), ServerEvent::PromptsListChanged);
    }

    #[tokio::test]
    async fn a_slow_subscriber_misses_events_instead_of_blocking() {
        let bus = InMemorySubscriptionBus::new(1);
        let mut slow = bus.subscribe();
        bus.publish(ServerEvent::ToolsListChanged);
        bus.publish(ServerEvent::PromptsListChanged);
        assert!(matches!(slow.recv().await, Err(broadcast::error::RecvError::Lagged(1))));
        assert_eq!(slow.recv().await.unwrap(), ServerEvent::PromptsListChanged);
    }
}
