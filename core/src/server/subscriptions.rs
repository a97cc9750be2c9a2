//! Telling clients what changed, in each era's form: legacy `resources/subscribe` and the
//! list-changed and resource-updated notifications on a legacy connection; modern
//! `subscriptions/listen` streams. Events come from the server's
//! [`SubscriptionBus`](crate::state::SubscriptionBus).

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::context::Context;
use super::dispatch::{finish, parse_params, Dispatcher, Outcome};
use super::reply::Reply;
use super::stamp::Stamp;
use crate::lock;
use crate::protocol::jsonrpc;
use crate::protocol::{
    meta, methods, EmptyResult, ErrorObject, Meta, ReadResourceRequestParams, RequestId,
    ResourceUpdatedNotificationParams, SubscriptionFilter, SubscriptionsListenParams, SubscriptionsListenResult,
};
use crate::state::ServerEvent;

/// `resources/subscribe` (`on`) and `resources/unsubscribe` (legacy era).
pub(super) fn subscribe(dispatcher: &Dispatcher, params: Option<&RawValue>, on: bool) -> Outcome {
    let params: ReadResourceRequestParams = parse_params(params)?;
    if on && !dispatcher.serves_one_client() {
        // A stateless endpoint has no client to tell, and would keep every URI forever.
        return Err(ErrorObject::invalid_request(
            "resources/subscribe needs a session; this endpoint is stateless",
        ));
    }
    let mut uris = lock(&dispatcher.subscribed_uris);
    if on {
        let max = dispatcher.server().limits().max_subscriptions;
        if uris.len() >= max && !uris.contains(&params.uri) {
            return Err(ErrorObject::invalid_request(format!(
                "too many subscriptions (at most {max}); unsubscribe from some first"
            )));
        }
        uris.insert(params.uri);
    } else {
        uris.remove(&params.uri);
    }
    drop(uris);
    dispatcher.record_changed();
    finish(EmptyResult::default(), None)
}

/// `subscriptions/listen`: acknowledges, then forwards the chosen notifications tagged
/// with the subscription id until the client cancels or goes away.
pub(super) async fn listen(
    dispatcher: &Dispatcher,
    params: Option<&RawValue>,
    id: &RequestId,
    ctx: &Context,
    stamp: Option<&Stamp>,
) -> Outcome {
    let params: SubscriptionsListenParams = parse_params(params)?;
    // The acknowledgement names only what the server will send.
    let mut filter = dispatcher.server().offered().narrow(params.notifications);
    let mut events = dispatcher.server().subscribe_events();
    let tasks = dispatcher.server().tasks();
    // Only the caller's own tasks are followed; the acknowledgement names them.
    if let Some(task_ids) = &filter.task_ids {
        if !super::tasks::requested(ctx.client_capabilities()) {
            return Err(super::tasks::extension_required());
        }
        filter.task_ids = Some(tasks.owned(&ctx.principal_key(), task_ids).await?);
    }
    let tag = || {
        Meta::from_iter([(
            meta::SUBSCRIPTION_ID.to_owned(),
            serde_json::to_value(id).unwrap_or_default(),
        )])
    };
    let ack = SubscriptionsListenParams {
        notifications: filter.clone(),
        meta: Some(tag()),
    };
    if !ctx
        .reply()
        .send(jsonrpc::notification_text(
            methods::SUBSCRIPTIONS_ACKNOWLEDGED,
            Some(&ack),
        ))
        .await
    {
        return Err(ErrorObject::internal("the subscriber is gone"));
    }
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = dispatcher.ended().cancelled() => break,
            _ = ctx.cancellation().cancelled() => break,
        };
        let event = match event {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "a subscription fell behind; notifications were dropped");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        };
        let notification = match &event {
            ServerEvent::TaskChanged(task_id) => {
                let followed = filter.task_ids.iter().flatten().any(|id| id == task_id.as_ref());
                // Only a followed task is read from the store.
                let task = match followed {
                    true => tasks.notification(task_id).await?,
                    false => None,
                };
                task.map(|mut params| {
                    params["_meta"] = Value::Object(tag());
                    (event.method(), params)
                })
            }
            event => modern_notification(event, &filter, tag()),
        };
        if let Some((method, params)) = notification {
            if !ctx
                .reply()
                .send(jsonrpc::notification_text(method, Some(&params)))
                .await
            {
                break;
            }
        }
    }
    let result = SubscriptionsListenResult {
        result_type: None,
        meta: Some(tag()),
    };
    finish(result, stamp)
}

/// Sends list-changed and resource-updated notifications to a legacy client on `reply`
/// (its connection), once it has completed the handshake.
pub(super) async fn forward_legacy_events(dispatcher: Arc<Dispatcher>, reply: Reply, wanted: impl Fn() -> bool) {
    let mut events = dispatcher.server().subscribe_events();
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if dispatcher.handshake_version().is_none() || !wanted() {
            continue;
        }
        let text = match &event {
            ServerEvent::ResourceUpdated(uri) => {
                if !lock(&dispatcher.subscribed_uris).contains(uri.as_ref()) {
                    continue;
                }
                let params = ResourceUpdatedNotificationParams {
                    uri: uri.to_string(),
                    meta: None,
                };
                jsonrpc::notification_text(methods::RESOURCES_UPDATED, Some(&params))
            }
            // A legacy session hears of its tasks on its own (`notifications/tasks/status`).
            ServerEvent::TaskChanged(_) => continue,
            list_changed => jsonrpc::notification_text(list_changed.method(), None::<&()>),
        };
        if !reply.send(text).await {
            return;
        }
    }
}

/// The notification for `event` on a modern subscription with `filter`, if it asked for it.
fn modern_notification(event: &ServerEvent, filter: &SubscriptionFilter, tag: Meta) -> Option<(&'static str, Value)> {
    let wanted = match event {
        ServerEvent::ToolsListChanged => filter.tools_list_changed == Some(true),
        ServerEvent::PromptsListChanged => filter.prompts_list_changed == Some(true),
        ServerEvent::ResourcesListChanged => filter.resources_list_changed == Some(true),
        ServerEvent::ResourceUpdated(uri) => filter
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == uri.as_ref())),
        // Carried with the task as it is now; see `listen`.
        ServerEvent::TaskChanged(_) => false,
    };
    if !wanted {
        return None;
    }
    let mut params = Map::new();
    if let ServerEvent::ResourceUpdated(uri) = event {
        params.insert("uri".into(), Value::from(uri.as_ref()));
    }
    params.insert("_meta".into(), Value::Object(tag));
    Some((event.method(), Value::Object(params)))
}
