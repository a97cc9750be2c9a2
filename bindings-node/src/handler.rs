//! Calling JavaScript handlers from tokio tasks, as the core's handler traits.
//!
//! Server side: the facade registers each handler under a numeric id and hands the native
//! server one callback, `(handlerId, input, ctx, callId) => outcome`, through which every tool,
//! resource, prompt and completion handler runs ([`Bridge`]), and one `(callId) => void`
//! that tells it a run was cancelled (so that it can fire the run's AbortSignal).
//! [`JsTool`], [`JsResource`], [`JsPrompt`] and [`JsCompletion`] are the core's handlers
//! over that bridge. Client side: [`JsAnswerer`] answers the server's sampling,
//! elicitation and roots requests through the client's callback.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::{FnArgs, Function, FunctionRef};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use oxmcp::client::{ElicitationHandler, RootsHandler, SamplingHandler};
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ErrorObject, GetPromptResult, ListRootsResult, ReadResourceResult,
};
use oxmcp::server::auth::{AccessToken, TokenVerifier, VerifyError};
use oxmcp::server::{
    Completer, CompletionHandler, Context, HandlerError, Intercepted, Interceptor, Lister, Next, NotificationHandler,
    PromptGetter, PromptHandler, RequestHandler, ResourceHandler, TaskStarter, ToolCaller, ToolHandler, ToolOutput,
};
use oxmcp::BoxFuture;

use crate::client::ClientCallback;
use crate::context::NativeContext;
use crate::convert::{self, to_value, Failure, Settled};
use crate::runtime::{self, Callback, JsReturn};

/// What the facade's handler callback takes: `(handlerId, input, ctx, callId)`.
type HandlerArgs = FnArgs<(u32, Value, Option<NativeContext>, u32)>;
/// `(handlerId, input, ctx, callId) => outcome | Promise<outcome>`: `callId` names the run
/// (for cancellation); completion handlers get no `ctx`.
pub(crate) type HandlerFunction<'env> = Function<'env, HandlerArgs, JsReturn>;
/// `(callId) => void`: the run `callId` was cancelled.
pub(crate) type CancelCallback = Callback<u32>;

/// The two facade callbacks, shared by every handler of one server.
pub(crate) struct Bridge {
    handler: Callback<HandlerArgs>,
    /// The same callback, called directly within a turn on Node's thread.
    handler_here: FunctionRef<HandlerArgs, JsReturn>,
    cancel: CancelCallback,
    next_call: AtomicU32,
}

impl Bridge {
    /// The bridge of one server: `handler` runs its handlers, `cancel` tells of runs that
    /// were cancelled.
    pub(crate) fn new(handler: HandlerFunction<'_>, cancel: CancelCallback) -> napi::Result<Arc<Self>> {
        Ok(Arc::new(Bridge {
            handler: runtime::callback(&handler)?,
            handler_here: handler.create_ref()?,
            cancel,
            next_call: AtomicU32::new(0),
        }))
    }

    /// Tool handler `handler_id`, whose results carry their value as `output` says; run
    /// without a context unless `takes_context`.
    pub(crate) fn tool(self: &Arc<Self>, handler_id: u32, output: ToolOutput, takes_context: bool) -> JsTool {
        JsTool {
            bridge: Arc::clone(self),
            handler_id,
            output,
            takes_context,
        }
    }

    /// Resource (or template) handler `handler_id`; `mime_type` is the definition's.
    pub(crate) fn resource(self: &Arc<Self>, handler_id: u32, mime_type: Option<String>) -> JsResource {
        JsResource {
            bridge: Arc::clone(self),
            handler_id,
            mime_type,
        }
    }

    /// Prompt handler `handler_id`.
    pub(crate) fn prompt(self: &Arc<Self>, handler_id: u32) -> JsPrompt {
        JsPrompt {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Completion handler `handler_id`.
    pub(crate) fn completion(self: &Arc<Self>, handler_id: u32) -> JsCompletion {
        JsCompletion {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Resource lister `handler_id`.
    pub(crate) fn catalog(self: &Arc<Self>, handler_id: u32) -> JsCatalog {
        JsCatalog {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// The server's completer, handler `handler_id`.
    pub(crate) fn completer(self: &Arc<Self>, handler_id: u32) -> JsCompleter {
        JsCompleter {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Custom request handler `handler_id`.
    pub(crate) fn request(self: &Arc<Self>, handler_id: u32) -> JsRequest {
        JsRequest {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Notification handler `handler_id`.
    pub(crate) fn notification(self: &Arc<Self>, handler_id: u32) -> JsNotification {
        JsNotification {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Interceptor `handler_id`.
    pub(crate) fn interceptor(self: &Arc<Self>, handler_id: u32) -> JsInterceptor {
        JsInterceptor {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Token verifier `handler_id`.
    pub(crate) fn verifier(self: &Arc<Self>, handler_id: u32) -> JsVerifier {
        JsVerifier {
            bridge: Arc::clone(self),
            handler_id,
        }
    }

    /// Runs handler `handler_id` with `input` and returns what the facade settled it with
    /// (read by `convert`'s `*_result`).
    async fn run(
        self: Arc<Self>,
        handler_id: u32,
        input: Value,
        ctx: Option<Context>,
    ) -> Result<Settled, HandlerError> {
        self.run_around(handler_id, input, ctx, None).await
    }

    /// [`run`](Self::run), with the method an interceptor's run calls through its context
    /// (`NativeContext::run_next`).
    async fn run_around(
        self: Arc<Self>,
        handler_id: u32,
        input: Value,
        ctx: Option<Context>,
        next: Option<Next>,
    ) -> Result<Settled, HandlerError> {
        let call_id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let mut run = Run {
            bridge: Arc::clone(&self),
            call_id,
            ended: CancellationToken::new(),
            finished: false,
        };
        let js_ctx = ctx.map(|ctx| NativeContext::new(ctx, run.ended.clone()).around(next));
        let args = FnArgs::from((handler_id, input, js_ctx, call_id));
        let returned = runtime::call_in_place(&self.handler_here, &self.handler, args).await;
        run.finished = true;
        returned.map_err(|e| Failure::from(e).into_handler_error())
    }
}

/// One handler run. Dropped unfinished, the core stopped waiting for it (the client
/// cancelled, the connection ended, or the run ended for a multi round-trip retry): the
/// facade is told, so that the handler's AbortSignal fires.
struct Run {
    bridge: Arc<Bridge>,
    call_id: u32,
    ended: CancellationToken,
    finished: bool,
}

impl Drop for Run {
    fn drop(&mut self) {
        self.ended.cancel();
        if !self.finished {
            self.bridge
                .cancel
                .call(self.call_id, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A tool handler run through the bridge.
pub(crate) struct JsTool {
    bridge: Arc<Bridge>,
    handler_id: u32,
    output: ToolOutput,
    /// Whether the handler reads its context: making one for JavaScript (a class
    /// instance, wrapped and later finalized) cost a fifth of a call over stdio.
    takes_context: bool,
}

impl ToolHandler for JsTool {
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        let ctx = self.takes_context.then_some(ctx);
        let run = Arc::clone(&self.bridge).run(self.handler_id, Value::Object(arguments), ctx);
        let output = self.output;
        Box::pin(async move { convert::tool_result(run.await?, output) })
    }
}

/// A resource or template handler run through the bridge; `uri` and `mimeType` fill in
/// contents that lack them.
pub(crate) struct JsResource {
    bridge: Arc<Bridge>,
    handler_id: u32,
    mime_type: Option<String>,
}

impl ResourceHandler for JsResource {
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let input = json!({ "uri": uri, "variables": variables });
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, Some(ctx));
        let mime_type = self.mime_type.clone();
        Box::pin(async move { convert::read_result(run.await?, &uri, mime_type.as_deref()) })
    }
}

/// A prompt handler run through the bridge.
pub(crate) struct JsPrompt {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl PromptHandler for JsPrompt {
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, json!(arguments), Some(ctx));
        Box::pin(async move { convert::prompt_result(run.await?) })
    }
}

/// A completion handler run through the bridge (it gets no request context).
pub(crate) struct JsCompletion {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl CompletionHandler for JsCompletion {
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let input = json!({ "value": value, "context": context });
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, None);
        Box::pin(async move { convert::completion_values(run.await?) })
    }
}

/// The server's one completer, for arguments without a completion handler of their own,
/// run through the bridge: it gets the request's params and the context, and settles with
/// a completion or null.
pub(crate) struct JsCompleter {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl Completer for JsCompleter {
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Option<Completion>, HandlerError>> {
        let input = to_value(&params).unwrap_or_default();
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, Some(ctx));
        Box::pin(async move { convert::decoded(run.await?, "a completion") })
    }
}

/// A function of the server's catalog, for what is not registered, run through the bridge:
/// a lister gets the cursor (null for the first page); a tool's caller, a prompt's getter
/// and a resource's reader the request's params (`name` and `arguments`, or `uri`). It
/// settles with the method's result.
pub(crate) struct JsCatalog {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl JsCatalog {
    fn run<R: serde::de::DeserializeOwned + 'static>(
        &self,
        input: Value,
        ctx: Context,
        what: &'static str,
    ) -> BoxFuture<'static, Result<R, HandlerError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, Some(ctx));
        Box::pin(async move { convert::decoded(run.await?, what) })
    }
}

impl<R: serde::de::DeserializeOwned + 'static> Lister<R> for JsCatalog {
    fn list(&self, cursor: Option<String>, ctx: Context) -> BoxFuture<'static, Result<R, HandlerError>> {
        self.run(json!(cursor), ctx, "a list result")
    }
}

impl ToolCaller for JsCatalog {
    fn call(
        &self,
        name: String,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        self.run(
            json!({"name": name, "arguments": arguments}),
            ctx,
            "a tools/call result",
        )
    }
}

impl TaskStarter for JsCatalog {
    fn start(
        &self,
        name: String,
        arguments: Map<String, Value>,
        task: Value,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        self.run(
            json!({"name": name, "arguments": arguments, "task": task}),
            ctx,
            "a CreateTaskResult",
        )
    }
}

impl PromptGetter for JsCatalog {
    fn get(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        self.run(
            json!({"name": name, "arguments": arguments}),
            ctx,
            "a prompts/get result",
        )
    }
}

impl ResourceHandler for JsCatalog {
    fn read(
        &self,
        uri: String,
        _variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        self.run(json!({"uri": uri}), ctx, "a resources/read result")
    }
}

/// A custom request's handler run through the bridge: it gets the params, and settles
/// with the result object.
pub(crate) struct JsRequest {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl RequestHandler for JsRequest {
    fn call(&self, params: Value, ctx: Context) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, params, Some(ctx));
        Box::pin(async move { convert::result_object(run.await?) })
    }
}

/// What runs around every request, run through the bridge: its handler gets the request's
/// `{ method, params }` and its context, runs the method through the context
/// (`NativeContext::run_next`), and settles with the result object.
pub(crate) struct JsInterceptor {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl Interceptor for JsInterceptor {
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let Intercepted { method, params, ctx } = request;
        let input = json!({ "method": method, "params": params });
        let run = Arc::clone(&self.bridge).run_around(self.handler_id, input, Some(ctx), Some(next));
        Box::pin(async move { convert::result_object(run.await?) })
    }
}

/// A notification's handler run through the bridge, with the session's context; how it
/// settles is dropped (the facade reports a failure).
pub(crate) struct JsNotification {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl NotificationHandler for JsNotification {
    fn notify(&self, params: Value, ctx: Context) -> BoxFuture<'static, ()> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, params, Some(ctx));
        Box::pin(async move { drop(run.await) })
    }
}

/// A token verifier written in JavaScript, run through the bridge: its handler gets the
/// token and settles with its fields (the core's `AccessToken`), or null to refuse it.
pub(crate) struct JsVerifier {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl TokenVerifier for JsVerifier {
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, Value::String(token.clone()), None);
        Box::pin(async move {
            let settled = run
                .await
                .map_err(|e| VerifyError::unavailable(format!("the JavaScript verifier failed: {e:?}")))?;
            match convert::outcome(settled) {
                Ok(Value::Null) => Err(VerifyError::invalid("the token is not valid")),
                // The token is the one presented, whatever the verifier says it was.
                Ok(accepted) => serde_json::from_value::<AccessToken>(accepted)
                    .map(|mut accepted| {
                        accepted.token = token;
                        accepted
                    })
                    .map_err(|e| {
                        VerifyError::unavailable(format!("the JavaScript verifier's token does not read: {e}"))
                    }),
                Err(failure) => Err(VerifyError::unavailable(format!(
                    "the JavaScript verifier failed: {:?}",
                    failure.into_handler_error()
                ))),
            }
        })
    }
}

/// Answers the server's requests by calling the facade.
pub(crate) struct JsAnswerer {
    callback: Arc<ClientCallback>,
}

impl JsAnswerer {
    /// Answers through the client's `callback`.
    pub(crate) fn new(callback: &Arc<ClientCallback>) -> Self {
        JsAnswerer {
            callback: Arc::clone(callback),
        }
    }

    fn ask<R: DeserializeOwned>(
        &self,
        kind: &'static str,
        params: Value,
    ) -> BoxFuture<'static, Result<R, ErrorObject>> {
        let callback = Arc::clone(&self.callback);
        Box::pin(async move {
            let answer = runtime::call(&callback, FnArgs::from((kind.to_owned(), params)))
                .await
                .map_err(Failure::from)
                .and_then(convert::outcome)
                .map_err(Failure::into_rpc_error)?;
            serde_json::from_value(answer).map_err(|e| ErrorObject::internal(format!("invalid {kind} answer: {e}")))
        })
    }
}

impl SamplingHandler for JsAnswerer {
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        self.ask("sampling", to_value(&params).unwrap_or_default())
    }
}

impl ElicitationHandler for JsAnswerer {
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        self.ask("elicitation", to_value(&params).unwrap_or_default())
    }
}

impl RootsHandler for JsAnswerer {
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        self.ask("roots", Value::Object(Map::new()))
    }
}
