//! Updates from the server: resource subscriptions (`resources/subscribe` in the legacy
//! era, a `subscriptions/listen` stream in the modern era) and [`Subscription`], the open
//! stream.

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
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            let _: Value = self
                .request(methods::RESOURCES_SUBSCRIBE, params, &CallOptions::default())
                .await?;
            return Ok(());
        }
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec![uri.to_owned()]),
            ..Default::default()
        };
        let subscription = self.listen(filter).await?;
        lock(&self.inner.resource_streams).insert(uri.to_owned(), subscription);
        Ok(())
    }

    /// Stops updates of one resource.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            let _: Value = self
                .request(methods::RESOURCES_UNSUBSCRIBE, params, &CallOptions::default())
                .await?;
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
        if self.protocol_version().era() == Era::Legacy {
            return Err(Error::Unsupported(
                "subscriptions/listen needs the 2026-07-28 era".into(),
            ));
        }
        let mut acks = self.notifications();
        let cancellation = CancellationToken::new();
        let params = Map::from_iter([("notifications".to_owned(), to_value(&filter))]);
        let client = self.clone();
        let options = CallOptions {
            timeout: Some(None),
            cancellation: Some(cancellation.clone()),
            ..Default::default()
        };
        tokio::spawn(async move {
            let ended: Result<Value> = client.request(methods::SUBSCRIPTIONS_LISTEN, params, &options).await;
            tracing::debug!(?ended, "a subscription ended");
        });
        // Dropped on the way out if no acknowledgement comes, which ends the request.
        let mut subscription = Subscription {
            cancellation,
            acknowledged: SubscriptionFilter::default(),
        };
        let timeout = self.inner.options.timeout.unwrap_or(Duration::MAX);
        subscription.acknowledged = tokio::time::timeout(timeout, async {
            loop {
                match acks.recv().await {
                    Ok(ServerNotification::SubscriptionAcknowledged(ack)) => return Ok(ack.notifications),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Err(Error::ConnectionClosed),
                }
            }
        })
        .await
        .map_err(|_| Error::Timeout(timeout))??;
        Ok(subscription)
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
