//! Updates from the server: resource subscriptions (`resources/subscribe` in the legacy
//! era, a `subscriptions/listen` stream in the modern era) and [`Subscription`], the open
//! stream.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::{lock, to_value, CallOptions, Client, ServerNotification};
use crate::error::{Error, Result};
use crate::protocol::{methods, Era, SubscriptionFilter};

impl Client {
    /// Asks for updates of one resource: `resources/subscribe` in the legacy era, a
    /// `subscriptions/listen` stream in the modern era. Updates arrive on
    /// [`Client::notifications`].
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.subscribe_resource_with(uri, &CallOptions::default()).await
    }

    /// [`Client::subscribe_resource`] with per-call options (timeout, cancellation) for its
    /// request; in the modern era, for the wait for the server's acknowledgement.
    pub async fn subscribe_resource_with(&self, uri: &str, options: &CallOptions) -> Result<()> {
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            let _: Value = self.request(methods::RESOURCES_SUBSCRIBE, params, options).await?;
            self.inner.session.note_subscription(uri, true);
            return Ok(());
        }
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec![uri.to_owned()]),
            ..Default::default()
        };
        let subscription = self.listen_with(filter, options).await?;
        lock(&self.inner.resource_streams).insert(uri.to_owned(), subscription);
        Ok(())
    }

    /// Stops updates of one resource.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.unsubscribe_resource_with(uri, &CallOptions::default()).await
    }

    /// [`Client::unsubscribe_resource`] with per-call options for its request.
    pub async fn unsubscribe_resource_with(&self, uri: &str, options: &CallOptions) -> Result<()> {
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            let _: Value = self.request(methods::RESOURCES_UNSUBSCRIBE, params, options).await?;
            self.inner.session.note_subscription(uri, false);
            return Ok(());
        }
        lock(&self.inner.resource_streams).remove(uri);
        Ok(())
    }

    /// Opens a `subscriptions/listen` stream (modern era) for the notifications in
    /// `filter`; they arrive on [`Client::notifications`] until the returned
    /// [`Subscription`] is dropped. Returns once the server acknowledged it, with what it
    /// agreed to send ([`Subscription::acknowledged`]: what it does not offer is left out).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription> {
        self.listen_with(filter, &CallOptions::default()).await
    }

    /// [`Client::listen`] with per-call options: their timeout and cancellation bound the
    /// wait for the acknowledgement (not the stream, which lasts until dropped), their
    /// `_meta` goes with the request.
    pub async fn listen_with(&self, filter: SubscriptionFilter, options: &CallOptions) -> Result<Subscription> {
        if self.protocol_version().era() == Era::Legacy {
            return Err(Error::Unsupported(
                "subscriptions/listen needs the 2026-07-28 era".into(),
            ));
        }
        if options.given_up() {
            return Err(Error::Cancelled);
        }
        let mut acks = self.notifications();
        let cancellation = CancellationToken::new();
        let params = Map::from_iter([("notifications".to_owned(), to_value(&filter))]);
        let client = self.clone();
        let stream_options = CallOptions {
            timeout: Some(None),
            cancellation: Some(cancellation.clone()),
            meta: options.meta.clone(),
            ..Default::default()
        };
        self.inner.connection.spawn().detached(async move {
            let _listening = Listening::start(&client);
            let ended: Result<Value> = client
                .request(methods::SUBSCRIPTIONS_LISTEN, params, &stream_options)
                .await;
            tracing::debug!(?ended, "a subscription ended");
        });
        // Dropped on the way out if no acknowledgement comes, which ends the request.
        let mut subscription = Subscription {
            cancellation,
            acknowledged: SubscriptionFilter::default(),
        };
        let timeout = options
            .timeout
            .unwrap_or(self.inner.options.timeout)
            .unwrap_or(Duration::MAX);
        let acknowledged = tokio::time::timeout(timeout, async {
            loop {
                match acks.recv().await {
                    Ok(ServerNotification::SubscriptionAcknowledged(ack)) => return Ok(ack.notifications),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Err(Error::ConnectionClosed),
                }
            }
        });
        let given_up = options.cancellation.clone().unwrap_or_default();
        subscription.acknowledged = tokio::select! {
            // Giving up wins over an acknowledgement that is there at the same time.
            biased;
            () = given_up.cancelled() => return Err(Error::Cancelled),
            acknowledged = acknowledged => acknowledged.map_err(|_| Error::Timeout(timeout))??,
        };
        Ok(subscription)
    }
}

/// Counts a `subscriptions/listen` request among the client's while it is pending.
struct Listening(Client);

impl Listening {
    fn start(client: &Client) -> Self {
        client.inner.listens.fetch_add(1, Ordering::Relaxed);
        Listening(client.clone())
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.inner.listens.fetch_sub(1, Ordering::Relaxed);
    }
}

/// An open `subscriptions/listen` stream; dropping it (or [`Subscription::cancel`])
/// ends the stream.
#[derive(Debug)]
pub struct Subscription {
    cancellation: CancellationToken,
    acknowledged: SubscriptionFilter,
}

impl Subscription {
    /// What the server agreed to send: the asked-for notifications it offers.
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// Ends the stream.
    pub fn cancel(&self) {
        self.cancellation.cancel();
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.cancellation.cancel();
    }
}
