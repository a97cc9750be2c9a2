//! `NativeContext`: the core's per-request [`Context`] as a JavaScript object, handed
//! to every server handler (the facade wraps it in its own `Context`).

use std::future::Future;

use napi_derive::napi;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use oxmcp::protocol::{Era, LoggingLevel};
use oxmcp::server::{Context, HandlerError, Next};

use crate::convert::{decode_js, decoded_or_default, from_js, to_value};
use crate::error::{handler_error, invalid, remote_error};
use crate::server::definition_kind;

/// One request being served: what it is, and how the handler talks back.
#[napi]
pub struct NativeContext {
    ctx: Context,
    /// Fires when this run of the handler ends, however it ends.
    run_ended: CancellationToken,
    /// The method an interceptor's run runs the request with.
    next: Option<Next>,
}

impl NativeContext {
    pub(crate) fn new(ctx: Context, run_ended: CancellationToken) -> Self {
        NativeContext {
            ctx,
            run_ended,
            next: None,
        }
    }

    /// The context of an interceptor's run, which runs the request's method with `next`.
    pub(crate) fn around(self, next: Option<Next>) -> Self {
        NativeContext { next, ..self }
    }

    /// Runs a request to the client until it answers or this run of the handler ends
    /// (cancelled, or ended for a multi round-trip retry), so that no promise is left
    /// pending forever. A notification's context is the session's: its requests may outlive
    /// the handler's run (as the official SDK's `server.listRoots()` does), and fail when
    /// the session ends.
    async fn until_run_ends<T>(&self, request: impl Future<Output = Result<T, HandlerError>>) -> napi::Result<T> {
        if self.ctx.request_id().is_none() {
            return request.await.map_err(handler_error);
        }
        tokio::select! {
            answer = request => answer.map_err(handler_error),
            _ = self.run_ended.cancelled() => Err(handler_error(HandlerError::message("the request has ended"))),
        }
    }
}

#[napi]
impl NativeContext {
    /// The JSON-RPC id of the request; null in a notification's handler.
    #[napi(getter, ts_return_type = "string | number | null")]
    pub fn request_id(&self) -> Option<Value> {
        to_value(&self.ctx.request_id())
    }

    /// The session of the request (a legacy HTTP session's id, or one for the stdio
    /// connection); undefined where each request stands alone.
    #[napi(getter)]
    pub fn session_id(&self) -> Option<String> {
        self.ctx.session_id().map(str::to_owned)
    }

    /// What carries the request: `stdio`, `streamable-http`, `sse` (2024-11-05), `memory`
    /// (a client in this process) or `other`.
    #[napi(getter, ts_return_type = "'stdio' | 'streamable-http' | 'sse' | 'memory' | 'other'")]
    pub fn transport(&self) -> &'static str {
        self.ctx.transport().as_str()
    }

    /// The caller's verified access token, on a server with `auth` over HTTP.
    #[napi(getter, ts_return_type = "Record<string, unknown> | undefined")]
    pub fn access_token(&self) -> Option<Value> {
        self.ctx.access_token().map(crate::auth::token_object)
    }

    /// The headers of the HTTP POST that carried the request, by lowercase name (a
    /// repeated header's values joined with ", "); undefined over other transports.
    #[napi(getter, ts_return_type = "Record<string, string> | undefined")]
    pub fn http_headers(&self) -> Option<Value> {
        let texts = self.ctx.http_header_texts()?;
        Some(Value::Object(
            texts
                .into_iter()
                .map(|(name, text)| (name, Value::String(text)))
                .collect(),
        ))
    }

    /// The target (path and `?query`) of the HTTP POST that carried the request, and the
    /// address it came from when known (`{ target, address?, port? }`); undefined over other
    /// transports.
    #[napi(
        getter,
        ts_return_type = "{ target: string; address?: string; port?: number } | undefined"
    )]
    pub fn http_target(&self) -> Option<Value> {
        let request = self.ctx.http_request()?;
        let mut target = serde_json::Map::from_iter([("target".to_owned(), Value::from(request.uri().to_string()))]);
        if let Some(peer) = request.peer() {
            target.insert("address".to_owned(), Value::from(peer.ip().to_string()));
            target.insert("port".to_owned(), Value::from(peer.port()));
        }
        Some(Value::Object(target))
    }

    /// The request's `_meta`, if it had one.
    #[napi(getter, ts_return_type = "Record<string, unknown> | undefined")]
    pub fn meta(&self) -> Option<Value> {
        self.ctx.meta().cloned().map(Value::Object)
    }

    /// The protocol version of the request, such as `2025-11-25`.
    #[napi(getter)]
    pub fn protocol_version(&self) -> String {
        self.ctx.protocol_version().as_str().to_owned()
    }

    /// `legacy` or `modern`.
    #[napi(getter, ts_return_type = "'legacy' | 'modern'")]
    pub fn era(&self) -> String {
        match self.ctx.era() {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
        .to_owned()
    }

    /// Who the client says it is.
    #[napi(getter, ts_return_type = "Record<string, unknown> | undefined")]
    pub fn client_info(&self) -> Option<Value> {
        self.ctx.client_info().and_then(to_value)
    }

    /// What the client can do.
    #[napi(getter, ts_return_type = "Record<string, unknown>")]
    pub fn client_capabilities(&self) -> Option<Value> {
        to_value(self.ctx.client_capabilities())
    }

    /// The client's answers to the `input_required` result of the previous run, by the
    /// keys that run gave its requests (2026-07-28, explicit multi round-trip style).
    #[napi(getter, ts_return_type = "Record<string, unknown> | undefined")]
    pub fn input_responses(&self) -> Option<Value> {
        self.ctx.input_responses().and_then(to_value)
    }

    /// The state the previous run returned with its `input_required` result, checked
    /// unaltered by the core.
    #[napi(getter)]
    pub fn request_state(&self) -> Option<String> {
        self.ctx.request_state().map(str::to_owned)
    }

    /// Whether the client cancelled the request.
    #[napi(getter)]
    pub fn cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }

    /// Reports progress when the client asked for it (values must increase).
    #[napi]
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.ctx.progress(progress, total, message).await;
    }

    /// Ends the SSE stream this request's messages go on while it goes on; the client
    /// resumes (see the core's `Context::close_stream`).
    #[napi]
    pub async fn close_stream(&self) {
        self.ctx.close_stream().await;
    }

    /// Says what the task this call runs as is doing now (its status message).
    #[napi]
    pub async fn task_status(&self, message: String) {
        self.ctx.task_status(message).await;
    }

    /// Where a tool that asks before it becomes a task becomes one; anywhere else it
    /// returns at once.
    #[napi]
    pub async fn begin_task(&self) -> napi::Result<()> {
        self.until_run_ends(async {
            self.ctx.begin_task().await;
            Ok(())
        })
        .await
    }

    /// An interceptor's run: runs the request's method, with the params as sent
    /// (`params` undefined) or `params`; resolves to its result, or rejects with the error it
    /// answered with (`kind` `remote`).
    #[napi(ts_args_type = "params?: unknown")]
    pub async fn run_next(&self, params: Option<Value>) -> napi::Result<Value> {
        let next = self
            .next
            .as_ref()
            .ok_or_else(|| invalid("only an interceptor runs the method"))?;
        next.run(params.map(from_js))
            .await
            .map_err(|error| remote_error(&error))
    }

    /// Whether this call runs as a task.
    #[napi(getter)]
    pub fn is_task(&self) -> bool {
        self.ctx.is_task()
    }

    /// The id of the task this call runs as, as the client knows it.
    #[napi(getter)]
    pub fn task_id(&self) -> Option<String> {
        self.ctx.task_id().map(str::to_owned)
    }

    /// Sends a log message, if the client wants messages of this level.
    #[napi(
        ts_args_type = "level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency', data: unknown, logger?: string"
    )]
    pub async fn log(&self, level: Value, data: Value, logger: Option<String>) -> napi::Result<()> {
        let level: LoggingLevel = decode_js(level, "log level")?;
        self.ctx.log(level, logger.as_deref(), from_js(data)).await;
        Ok(())
    }

    /// Asks the client's user for input (`elicitation/create` params); resolves to the
    /// `ElicitResult`.
    #[napi(
        ts_args_type = "params: Record<string, unknown>",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn elicit(&self, params: Value) -> napi::Result<Value> {
        let params = decode_js(params, "elicitation params")?;
        let result = self.until_run_ends(self.ctx.elicit(params)).await?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Asks the client's model for a completion (`sampling/createMessage` params);
    /// resolves to the `CreateMessageResult`.
    #[napi(
        ts_args_type = "params: Record<string, unknown>",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn sample(&self, params: Value) -> napi::Result<Value> {
        let params = decode_js(params, "sampling params")?;
        let result = self.until_run_ends(self.ctx.sample(params)).await?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Asks the client for its roots; resolves to the `ListRootsResult`.
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn list_roots(&self) -> napi::Result<Value> {
        let result = self.until_run_ends(self.ctx.list_roots()).await?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Reads a resource of this server as a client would get it, its handler run with this
    /// context; resolves to the `ReadResourceResult`.
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn read_resource(&self, uri: String) -> napi::Result<Value> {
        let result = self.ctx.read_resource(&uri).await.map_err(handler_error)?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Renders a prompt of this server as a client would get it, its handler run with this
    /// context; resolves to the `GetPromptResult`.
    #[napi(
        ts_args_type = "name: string, arguments?: Record<string, string>",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn get_prompt(&self, name: String, arguments: Option<Value>) -> napi::Result<Value> {
        let arguments = decoded_or_default(arguments, "prompt arguments")?;
        let result = self.ctx.get_prompt(&name, arguments).await.map_err(handler_error)?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Calls a tool of this server in place, its handler run with this context; resolves to
    /// the `CallToolResult` (a failure of the tool is its error result).
    #[napi(
        ts_args_type = "name: string, arguments?: Record<string, unknown>",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn call_tool(&self, name: String, arguments: Option<Value>) -> napi::Result<Value> {
        let arguments = decoded_or_default(arguments, "tool arguments")?;
        let result = self.ctx.call_tool(&name, arguments).await.map_err(handler_error)?;
        Ok(to_value(&result).unwrap_or_default())
    }

    /// Pings the client on the request's session, which may outlive the run; resolves once
    /// it answers. Nothing is sent in 2026-07-28, which has no sessions.
    #[napi]
    pub async fn ping(&self) -> napi::Result<()> {
        self.ctx.ping().await.map_err(handler_error)
    }

    /// Tells this request's client, and no other, that the list of `kind` changed (on its
    /// legacy session; every client in 2026-07-28, which has no sessions).
    #[napi]
    pub async fn notify_session_list_changed(&self, kind: String) -> napi::Result<()> {
        self.ctx.notify_session_list_changed(definition_kind(&kind)?).await;
        Ok(())
    }

    /// Tells the client the user completed URL-mode elicitation `elicitationId`
    /// (2025-11-25), on the session: also after the run has ended. Nothing in 2026-07-28.
    #[napi]
    pub async fn notify_elicitation_complete(&self, elicitation_id: String) -> napi::Result<()> {
        self.ctx.notify_elicitation_complete(&elicitation_id).await;
        Ok(())
    }
}
