//! Completion handlers for prompt arguments and template variables.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::context::Context;
use super::dispatch::{finish, parse_params, Outcome};
use super::handler::HandlerError;
use super::registry::DefinitionKind;
use super::stamp::Stamp;
use super::Server;
use crate::protocol::{CompleteRequestParams, CompleteResult, Completion, CompletionReference, ErrorObject};
use crate::BoxFuture;

/// The most values one completion result may carry.
pub(crate) const MAX_COMPLETION_VALUES: usize = 100;

/// Suggests values for one argument, given its partial value and the other arguments'
/// values.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Returns candidate values (more than 100 are cut, with `hasMore` set).
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>>;
}

impl<F, Fut> CompletionHandler for F
where
    F: Fn(String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let future = self(value, context);
        Box::pin(async move { Ok(future.await) })
    }
}

/// Completes an argument of any prompt or resource template that has no
/// [`CompletionHandler`] of its own for it, and of those the server's catalog lists: the
/// one completion handler per server of the official SDKs. `None` offers no values.
pub trait Completer: Send + Sync + 'static {
    /// The suggestions for what `params` names (more than 100 values are cut, with
    /// `hasMore` set), in the request's context.
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Option<Completion>, HandlerError>>;
}

impl<F, Fut> Completer for F
where
    F: Fn(CompleteRequestParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<Completion>> + Send + 'static,
{
    fn complete(
        &self,
        params: CompleteRequestParams,
        _ctx: Context,
    ) -> BoxFuture<'static, Result<Option<Completion>, HandlerError>> {
        let future = self(params);
        Box::pin(async move { Ok(future.await) })
    }
}

/// Completion handlers by argument or variable name.
pub(crate) type CompletionHandlers = HashMap<String, Arc<dyn CompletionHandler>>;

/// Cuts `values` to the protocol's limit, recording the total.
pub(crate) fn completion_from(mut values: Vec<String>) -> Completion {
    let total = values.len();
    let has_more = total > MAX_COMPLETION_VALUES;
    values.truncate(MAX_COMPLETION_VALUES);
    Completion {
        values,
        total: Some(total as u64),
        has_more: Some(has_more),
    }
}

/// `completion` as a [`Completer`] gave it, cut to the protocol's limit.
fn within_limit(mut completion: Completion) -> Completion {
    if completion.values.len() > MAX_COMPLETION_VALUES {
        let total = completion.values.len() as u64;
        completion.values.truncate(MAX_COMPLETION_VALUES);
        completion.total = Some(completion.total.unwrap_or(total).max(total));
        completion.has_more = Some(true);
    }
    completion
}

/// `completion/complete`: the completion handler of a registered prompt's or resource
/// template's argument, else the server's [`Completer`] (neither gives no values). A
/// reference to what is not registered goes to the completer when the catalog may list
/// it, and is an error otherwise.
pub(super) async fn complete(
    server: &Server,
    params: Option<&RawValue>,
    ctx: &Context,
    stamp: Option<&Stamp>,
) -> Outcome {
    let params: CompleteRequestParams = parse_params(params)?;
    let handler = {
        let registry = server.registry();
        let (handlers, unknown) = match &params.reference {
            CompletionReference::Prompt { name, .. } => (
                registry.prompts.get(name).map(|p| &p.completions),
                (DefinitionKind::Prompt, "prompt", name),
            ),
            CompletionReference::Resource { uri } => (
                registry
                    .templates
                    .listed()
                    .values()
                    .find(|t| &t.template.uri_template == uri)
                    .map(|t| &t.completions),
                (DefinitionKind::ResourceTemplate, "resource template", uri),
            ),
        };
        let (kind, what, name) = unknown;
        if handlers.is_none() && !server.catalog().offers(kind) {
            return Err(ErrorObject::invalid_params(format!("unknown {what}: {name}")));
        }
        handlers
            .and_then(|handlers| handlers.get(&params.argument.name))
            .cloned()
    };
    let failed = |error| server.disclose(error).into_error_object(ctx.era());
    let completion = match (handler, server.completer()) {
        (Some(handler), _) => {
            let context = params.context.and_then(|c| c.arguments).unwrap_or_default();
            let values = handler.complete(params.argument.value, context).await.map_err(failed)?;
            completion_from(values)
        }
        (None, Some(completer)) => within_limit(
            completer
                .complete(params, ctx.clone())
                .await
                .map_err(failed)?
                .unwrap_or_default(),
        ),
        (None, None) => completion_from(Vec::new()),
    };
    let result = CompleteResult {
        completion,
        ..Default::default()
    };
    finish(result, stamp)
}
