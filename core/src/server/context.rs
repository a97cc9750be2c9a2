//! The per-request [`Context`] every handler receives.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::auth::{AccessToken, Caller};
use super::dispatch::{Dispatcher, Exchange, Scope, Sender};
use super::handler::HandlerError;
use super::mrtr::InputRound;
use super::reply::Reply;
use super::schema::CompiledSchema;
use crate::protocol::jsonrpc;
use crate::protocol::{
    methods, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams,
    ElicitResult, ElicitationCapability, ElicitationCompleteNotificationParams, Era, ErrorObject, Implementation,
    InputRequest, InputResponse, InputResponses, ListRootsRequestParams, ListRootsResult, LoggingLevel,
    LoggingMessageNotificationParams, Meta, ProgressNotificationParams, ProgressToken, ProtocolVersion, RequestId,
    RootsCapability, SamplingCapability, SamplingContent,
};
use crate::transport::TransportKind;

/// What a handler knows about the request it serves, and how it talks back: progress,
/// log messages, cancellation, and requests to the client.
///
/// Cheap to clone; every clone refers to the same request.
#[derive(Clone)]
pub struct Context {
    inner: Arc<RequestState>,
}

struct RequestState {
    dispatcher: Arc<Dispatcher>,
    /// `None` for a notification's handler.
    request_id: Option<RequestId>,
    exchange: Exchange,
    /// The request's params as sent, their `_meta` read into `meta` only when asked for:
    /// most handlers never look, and building the map cost more than the rest of the
    /// dispatch.
    params: SentParams,
    meta: OnceLock<Option<Meta>>,
    cancellation: CancellationToken,
    reply: Reply,
    last_progress: Mutex<Option<f64>>,
    /// Set once the response is sent: nothing more may be sent for the request.
    finished: AtomicBool,
    /// The multi round-trip state of a modern tool call, prompt or resource read.
    input: OnceLock<Arc<InputRound>>,
    sender: Sender,
    /// The task this context runs, if any: a legacy task's messages are tagged with it.
    task_id: Option<String>,
}

/// A request's params as sent. A `tools/call` read in one pass with its envelope
/// ([`CallFrame`](super::dispatch::CallFrame)) keeps its frame instead, where its params
/// are found only when asked for (a handler reads `_meta`, a request state is sealed or
/// opened): most calls never ask. The frame is shared with the transport's read buffer,
/// not copied (copying it cost more than finding the params in it did).
#[derive(Clone)]
pub(crate) enum SentParams {
    /// Read apart from the envelope.
    Apart(Option<Box<RawValue>>),
    /// In the frame the request came in.
    InFrame {
        frame: Bytes,
        params: OnceLock<Option<Box<RawValue>>>,
    },
}

impl SentParams {
    /// The params of the request `frame` holds.
    pub(crate) fn in_frame(frame: Bytes) -> Self {
        SentParams::InFrame {
            frame,
            params: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&RawValue> {
        match self {
            SentParams::Apart(params) => params.as_deref(),
            SentParams::InFrame { frame, params } => params
                .get_or_init(|| {
                    let text = std::str::from_utf8(frame).ok()?;
                    match jsonrpc::parse_message(text).ok()? {
                        jsonrpc::Message::Request(request) => request.params,
                        _ => None,
                    }
                })
                .as_deref(),
        }
    }
}

/// Only the `_meta` of a request's params.
#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

impl Context {
    pub(crate) fn new(
        dispatcher: Arc<Dispatcher>,
        request_id: Option<RequestId>,
        exchange: Exchange,
        params: SentParams,
        scope: Scope,
    ) -> Self {
        Context {
            inner: Arc::new(RequestState {
                dispatcher,
                request_id,
                exchange,
                params,
                meta: OnceLock::new(),
                cancellation: scope.cancellation,
                reply: scope.reply,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                input: OnceLock::new(),
                sender: scope.sender,
                task_id: None,
            }),
        }
    }

    /// The context of one run of task `task_id`, made from this request: the same request
    /// and caller, stopped by `cancellation`. A 2026-07-28 task asks for input through
    /// `round`, and what it would send the client is dropped (it answers through
    /// `tasks/get` alone); a 2025-11-25 task talks to the client on its session, each
    /// message tagged with the task.
    pub(crate) fn for_task(&self, task_id: &str, cancellation: CancellationToken, round: Arc<InputRound>) -> Context {
        let inner = &self.inner;
        let session = match self.era() {
            Era::Legacy => inner.dispatcher.session_channel().cloned(),
            Era::Modern => None,
        };
        let reply = session.unwrap_or_else(Reply::nowhere);
        let ctx = Context {
            inner: Arc::new(RequestState {
                dispatcher: Arc::clone(&inner.dispatcher),
                request_id: inner.request_id.clone(),
                exchange: inner.exchange.clone(),
                params: inner.params.clone(),
                meta: OnceLock::new(),
                cancellation,
                reply,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                input: OnceLock::new(),
                sender: inner.sender.clone(),
                task_id: Some(task_id.to_owned()),
            }),
        };
        ctx.attach_input(round);
        ctx
    }

    /// The dispatcher of the client the request came from.
    pub(crate) fn dispatcher(&self) -> &Arc<Dispatcher> {
        &self.inner.dispatcher
    }

    /// The id of the request being served; `None` in a notification's handler (such as
    /// [`ServerBuilder::on_roots_list_changed`](super::ServerBuilder::on_roots_list_changed)'s).
    pub fn request_id(&self) -> Option<&RequestId> {
        self.inner.request_id.as_ref()
    }

    /// A number that tells the request apart from every other one the process serves, the
    /// same for every clone of this context: for a binding that pairs what a handler did
    /// with the request around it (an interceptor's). It identifies the request while it
    /// runs; a later request may get the same number.
    pub fn request_key(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// The session the request belongs to: the legacy HTTP session's `Mcp-Session-Id`, or
    /// a random id that stays the same over a stdio connection; `None` where each request
    /// stands alone (2026-07-28 over HTTP, a stateless endpoint).
    pub fn session_id(&self) -> Option<&str> {
        self.inner.dispatcher.session_id()
    }

    /// What carries the request: stdio, Streamable HTTP, the 2024-11-05 HTTP with SSE, or
    /// a client in this process.
    pub fn transport(&self) -> TransportKind {
        self.inner.dispatcher.transport()
    }

    /// The protocol version of this request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.exchange.version
    }

    /// The era of this request.
    pub fn era(&self) -> Era {
        self.inner.exchange.version.era()
    }

    /// Who the client says it is, when it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.exchange.client_info.as_deref()
    }

    /// What the client declared it can do (for this request, in the modern era).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.exchange.client_capabilities
    }

    /// The caller's verified access token, on an HTTP endpoint protected by a
    /// [`ResourceServer`](super::auth::ResourceServer); `None` elsewhere (stdio has no
    /// tokens).
    pub fn access_token(&self) -> Option<&AccessToken> {
        self.caller().map(Caller::token)
    }

    /// Who the caller is, as a stable text to bind state and tasks to: its principal on a
    /// protected endpoint, empty elsewhere.
    pub(crate) fn principal_key(&self) -> String {
        self.access_token()
            .map(|token| token.principal().key())
            .unwrap_or_default()
    }

    /// The verified caller, on a protected HTTP endpoint.
    pub(crate) fn caller(&self) -> Option<&Caller> {
        self.inner.sender.caller.as_deref()
    }

    /// The HTTP POST that carried the request: its target, headers and peer address;
    /// `None` over other transports, for a notification's handler, and for a task's later
    /// runs on other replicas.
    #[cfg(feature = "http-server")]
    pub fn http_request(&self) -> Option<&crate::server::http::HttpRequest> {
        self.inner.sender.request.as_deref()
    }

    /// The headers of the HTTP POST that carried the request (an API key, a tenant, a
    /// trace id that the server reads or forwards); `None` where
    /// [`http_request`](Self::http_request) is.
    #[cfg(feature = "http-server")]
    pub fn http_headers(&self) -> Option<&http::HeaderMap> {
        self.http_request().map(crate::server::http::HttpRequest::headers)
    }

    /// [`http_headers`](Self::http_headers) as text by lowercase name, as the bindings
    /// give them to handlers: a repeated header's values joined with ", ", values that are
    /// not visible ASCII left out.
    #[cfg(feature = "http-server")]
    pub fn http_header_texts(&self) -> Option<std::collections::BTreeMap<String, String>> {
        let mut texts = std::collections::BTreeMap::<String, String>::new();
        for (name, value) in self.http_headers()? {
            let Ok(value) = value.to_str() else { continue };
            texts
                .entry(name.as_str().to_owned())
                .and_modify(|joined| {
                    joined.push_str(", ");
                    joined.push_str(value);
                })
                .or_insert_with(|| value.to_owned());
        }
        Some(texts)
    }

    /// The request's params as sent.
    pub(crate) fn params(&self) -> Option<&RawValue> {
        self.inner.params.get()
    }

    /// The request's raw `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        let inner = &self.inner;
        inner
            .meta
            .get_or_init(|| serde_json::from_str::<MetaOnly>(inner.params.get()?.get()).ok()?.meta)
            .as_ref()
    }

    /// The progress token the client sent in `_meta`, if any.
    fn progress_token(&self) -> Option<ProgressToken> {
        let token = self.meta()?.get(crate::protocol::meta::PROGRESS_TOKEN)?;
        serde_json::from_value(token.clone()).ok()
    }

    /// Fires when the client cancels the request (or the connection ends). The handler's
    /// future is dropped then anyway; use this to stop work it spawned elsewhere.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the client cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Ends the SSE stream this request's messages go on while the request goes on
    /// (SEP-1699's polling): the client reconnects once the stream's `retry` has passed and
    /// resumes with `Last-Event-ID`, missing nothing; a long request need not hold a
    /// connection open. Only a resumable stream ends, a legacy-era POST's in an HTTP
    /// session; elsewhere (stdio, 2026-07-28, stateless endpoints, JSON answers) nothing
    /// happens.
    pub async fn close_stream(&self) {
        self.inner.reply.end_stream().await;
    }

    /// Reports progress, when the client asked for it with a progress token. Values must
    /// increase: a value not above the last one is dropped, and nothing is sent after the
    /// response.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = self.progress_token() else {
            return;
        };
        {
            let mut last = self.inner.last_progress.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|last| progress <= last) {
                tracing::warn!(progress, "progress must increase; dropped");
                return;
            }
            *last = Some(progress);
        }
        let params = ProgressNotificationParams {
            progress_token: token,
            progress,
            total,
            message,
            meta: None,
        };
        self.notify(methods::PROGRESS, &params).await;
    }

    /// Says what the task this call runs as is doing now: its `statusMessage`, which
    /// `tasks/get` shows (and, in 2025-11-25, a status notification). A call that does not
    /// run as a task has no status to set: nothing is sent.
    pub async fn task_status(&self, message: impl Into<String>) {
        if let Some(task_id) = &self.inner.task_id {
            let tasks = self.inner.dispatcher.server().tasks();
            tasks.set_message(task_id, message.into()).await;
        }
    }

    /// Where a tool declared with
    /// [`ToolDef::asks_before_task`](super::ToolDef::asks_before_task) becomes a task: in a
    /// 2026-07-28 call from a client with the tasks extension, this run ends here and the
    /// task runs the handler again with the answers so far (this call then returns at
    /// once). Anywhere else it returns at once and the call goes on as it is.
    pub async fn begin_task(&self) {
        if self.inner.input.get().is_some_and(|round| round.begin_task()) {
            // The dispatcher ends the run and answers with the task.
            std::future::pending::<()>().await;
        }
    }

    /// Whether this call runs as a task.
    pub fn is_task(&self) -> bool {
        self.inner.task_id.is_some()
    }

    /// The id of the task this call runs as, as the client knows it.
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task_id.as_deref()
    }

    /// Tells every client that the list of `kind` changed (see
    /// [`Server::notify_list_changed`](crate::server::Server::notify_list_changed)).
    pub fn notify_list_changed(&self, kind: crate::server::DefinitionKind) {
        self.inner.dispatcher.server().notify_list_changed(kind);
    }

    /// Tells this request's client, and no other, that the list of `kind` changed: what one
    /// session is shown changed (FastMCP's per-session visibility; the official SDK's
    /// `ctx.session.send_tool_list_changed()`). In the legacy era it goes on the session;
    /// 2026-07-28 has no sessions, and every client is told, as by
    /// [`notify_list_changed`](Self::notify_list_changed).
    pub async fn notify_session_list_changed(&self, kind: crate::server::DefinitionKind) {
        if self.era() == Era::Modern {
            self.notify_list_changed(kind);
            return;
        }
        let method = crate::server::list_changed_event(kind).method();
        let text = jsonrpc::notification_text::<()>(method, None);
        // A closed stream only means nobody is listening any more.
        self.session_or_reply().send(text).await;
    }

    /// The least level of log message the client wants: in the legacy era as set by
    /// `logging/setLevel` (every level until then), in the modern era as the request
    /// carried it (none without).
    pub(crate) fn log_threshold(&self) -> Option<LoggingLevel> {
        match self.era() {
            Era::Legacy => Some(self.inner.dispatcher.log_level().unwrap_or(LoggingLevel::Debug)),
            Era::Modern => self.inner.exchange.log_level,
        }
    }

    /// Sends a log message to the client, if the client wants messages of this level:
    /// in the legacy era as set by `logging/setLevel`, in the modern era only when the
    /// request carried a log level.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        if self.log_threshold().is_none_or(|threshold| level < threshold) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data: data.into(),
            meta: None,
        };
        self.notify(methods::MESSAGE, &params).await;
    }

    /// Asks the client's user for input (`elicitation/create`), in either era. An
    /// accepted form is checked against the requested schema before it is returned.
    ///
    /// In the 2026-07-28 era the first call ends this run of the handler with an
    /// `input_required` result; the client's retry runs the handler again, and this call
    /// then returns the user's answer.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, HandlerError> {
        let capability = self.client_capabilities().elicitation.as_ref();
        let (supported, required) = match &params {
            ElicitRequestParams::Form(_) => (
                capability.is_some_and(ElicitationCapability::supports_form),
                ElicitationCapability {
                    form: Some(Default::default()),
                    url: None,
                },
            ),
            ElicitRequestParams::Url(_) => (
                capability.is_some_and(ElicitationCapability::supports_url),
                ElicitationCapability {
                    form: None,
                    url: Some(Default::default()),
                },
            ),
        };
        if !supported {
            return Err(self.missing_capability(
                "this mode of elicitation",
                ClientCapabilities {
                    elicitation: Some(required),
                    ..Default::default()
                },
            ));
        }
        let form_schema = match &params {
            ElicitRequestParams::Form(form) => Some(form.requested_schema.clone()),
            ElicitRequestParams::Url(_) => None,
        };
        let result: ElicitResult = match self.era() {
            Era::Legacy => self.request_from_client(methods::ELICITATION_CREATE, &params).await?,
            Era::Modern => match self.ask_input(InputRequest::Elicitation(params)).await? {
                InputResponse::Elicitation(result) => result,
                _ => {
                    return Err(HandlerError::message(
                        "the client answered an elicitation with something else",
                    ))
                }
            },
        };
        if let (Some(schema), ElicitAction::Accept) = (form_schema, result.action) {
            let content = serde_json::Value::Object(result.content.clone().unwrap_or_default());
            CompiledSchema::compile(&schema)
                .and_then(|schema| schema.validate(&content))
                .map_err(|problems| {
                    HandlerError::message(format!(
                        "the user's answer does not match the requested schema: {problems}"
                    ))
                })?;
        }
        Ok(result)
    }

    /// Asks the client's LLM for a completion (`sampling/createMessage`), in either era.
    /// With tools, the conversation must keep every tool use answered by a tool result.
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
        let capability = self.client_capabilities().sampling.as_ref();
        let uses_tools = params.tools.is_some() || params.tool_choice.is_some();
        if capability.is_none() || (uses_tools && capability.is_some_and(|c| c.tools.is_none())) {
            let required = SamplingCapability {
                context: None,
                tools: uses_tools.then(Default::default),
            };
            let what = if uses_tools { "tools in sampling" } else { "sampling" };
            return Err(self.missing_capability(
                what,
                ClientCapabilities {
                    sampling: Some(required),
                    ..Default::default()
                },
            ));
        }
        check_tool_balance(&params).map_err(HandlerError::message)?;
        match self.era() {
            Era::Legacy => {
                self.request_from_client(methods::SAMPLING_CREATE_MESSAGE, &params)
                    .await
            }
            Era::Modern => match self.ask_input(InputRequest::Sampling(params)).await? {
                InputResponse::Sampling(result) => Ok(result),
                _ => Err(HandlerError::message(
                    "the client answered a sampling request with something else",
                )),
            },
        }
    }

    /// Asks the client for its roots (`roots/list`), in either era.
    pub async fn list_roots(&self) -> Result<ListRootsResult, HandlerError> {
        if self.client_capabilities().roots.is_none() {
            return Err(self.missing_capability(
                "roots",
                ClientCapabilities {
                    roots: Some(RootsCapability::default()),
                    ..Default::default()
                },
            ));
        }
        match self.era() {
            Era::Legacy => {
                self.request_from_client(methods::ROOTS_LIST, &serde_json::Map::new())
                    .await
            }
            Era::Modern => match self
                .ask_input(InputRequest::Roots(ListRootsRequestParams::default()))
                .await?
            {
                InputResponse::Roots(result) => Ok(result),
                _ => Err(HandlerError::message(
                    "the client answered a roots request with something else",
                )),
            },
        }
    }

    /// Tells the client the user completed URL-mode elicitation `elicitation_id`
    /// (`notifications/elicitation/complete`, 2025-11-25). It goes on the session, not on
    /// this request, since it usually comes after the request that asked has ended (failed
    /// with [`HandlerError::url_elicitation_required`], then the user finished in the
    /// browser): keep a clone of the context for it. Does nothing in 2026-07-28, which has
    /// no such notification (a retry carries the answer there).
    pub async fn notify_elicitation_complete(&self, elicitation_id: &str) {
        if self.era() == Era::Modern {
            return;
        }
        let params = ElicitationCompleteNotificationParams {
            elicitation_id: elicitation_id.to_owned(),
        };
        let text = jsonrpc::notification_text(methods::ELICITATION_COMPLETE, Some(&params));
        // A closed stream only means nobody is listening any more.
        self.session_or_reply().send(text).await;
    }

    /// Where a legacy session's client hears from the server outside this request: the
    /// session's channel, else this request's reply.
    fn session_or_reply(&self) -> &Reply {
        self.inner.dispatcher.session_channel().unwrap_or(&self.inner.reply)
    }

    /// Pings the client on the request's session, which may outlive the request (keep a
    /// clone of the context): to keep a quiet connection from being dropped by what is
    /// between the two (FastMCP's `PingMiddleware`). Fails once the session is gone or when
    /// the client does not answer within the server's client request timeout. Does nothing
    /// in 2026-07-28, which has no sessions.
    pub async fn ping(&self) -> Result<(), HandlerError> {
        if self.era() == Era::Modern {
            return Ok(());
        }
        let _: serde::de::IgnoredAny = self
            .request_on(self.session_or_reply(), methods::PING, &serde_json::Map::new())
            .await?;
        Ok(())
    }

    /// The answers the client sent with this retry (explicit multi round-trip style).
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.inner.input.get().and_then(|round| round.responses.as_ref())
    }

    /// The state this handler returned with its last `input_required` result, after the
    /// server checked it was not altered (explicit multi round-trip style).
    pub fn request_state(&self) -> Option<&str> {
        self.inner.input.get().and_then(|round| round.handler_state.as_deref())
    }

    pub(crate) fn attach_input(&self, round: Arc<InputRound>) {
        // Attached once, by the dispatcher, before the handler runs.
        let _ = self.inner.input.set(round);
    }

    /// The error for a capability the client lacks: in the modern era the request fails
    /// with -32021; in the legacy era the handler gets a message it may act on.
    fn missing_capability(&self, what: &str, required: ClientCapabilities) -> HandlerError {
        match self.era() {
            Era::Modern => HandlerError::rpc(ErrorObject::missing_required_client_capability(&required)),
            Era::Legacy => HandlerError::message(format!("the client does not support {what}")),
        }
    }

    /// Modern era: the answer from an earlier round, or the end of this run.
    async fn ask_input(&self, request: InputRequest) -> Result<InputResponse, HandlerError> {
        let round = self.inner.input.get().ok_or_else(|| {
            HandlerError::message("in 2026-07-28 only tool calls, prompts and resource reads can ask the client")
        })?;
        match round.ask(request) {
            Some(answer) => Ok(answer),
            // The dispatcher ends the run and answers `input_required`.
            None => std::future::pending().await,
        }
    }

    /// Legacy era: sends a request to the client on this connection and awaits the answer.
    async fn request_from_client<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, HandlerError> {
        self.request_on(&self.inner.reply, method, params).await
    }

    /// Sends `method` to the client on `reply` (the request's channel or its session's)
    /// and waits for the answer, within the server's client request timeout.
    async fn request_on<P: Serialize, R: DeserializeOwned>(
        &self,
        reply: &Reply,
        method: &str,
        params: &P,
    ) -> Result<R, HandlerError> {
        let failed = |e: crate::Error| HandlerError::message(format!("{method} failed: {e}"));
        let client_requests = self.inner.dispatcher.client_requests();
        let (id, answer) = client_requests.register().map_err(failed)?;
        // However this ends (answered, timed out, the handler cancelled), the request
        // leaves the table.
        let _pending = ForgetOnDrop {
            requests: client_requests,
            id: id.clone(),
        };
        let text = match self.related_task() {
            Some(tagged) => jsonrpc::request_text(&id, method, Some(&tagged(params))),
            None => jsonrpc::request_text(&id, method, Some(params)),
        };
        if !reply.send(text).await {
            return Err(failed(crate::Error::ConnectionClosed));
        }
        let timeout = self.inner.dispatcher.server().limits().client_request_timeout;
        // A task waits for the client meanwhile: `input_required` until the answer.
        let tasks = self.inner.dispatcher.server().tasks();
        if let Some(task_id) = &self.inner.task_id {
            tasks.set_waiting(task_id, true).await;
        }
        let answered = tokio::time::timeout(timeout, crate::connection::await_reply(answer)).await;
        if let Some(task_id) = &self.inner.task_id {
            tasks.set_waiting(task_id, false).await;
        }
        let Ok(answered) = answered else {
            reply.send(jsonrpc::cancellation_text(&id, "timed out")).await;
            return Err(failed(crate::Error::Timeout(timeout)));
        };
        let raw = answered.map_err(failed)?;
        serde_json::from_str(raw.get()).map_err(|e| HandlerError::message(format!("invalid {method} answer: {e}")))
    }

    /// Marks the response as sent; later notifications for the request are dropped.
    pub(crate) fn finish(&self) {
        self.inner.finished.store(true, Ordering::Release);
    }

    /// The route of this request's messages.
    pub(crate) fn reply(&self) -> &Reply {
        &self.inner.reply
    }

    async fn notify<P: Serialize>(&self, method: &str, params: &P) {
        if self.inner.finished.load(Ordering::Acquire) || self.is_cancelled() {
            return;
        }
        let text = match self.related_task() {
            Some(tagged) => jsonrpc::notification_text(method, Some(&tagged(params))),
            None => jsonrpc::notification_text(method, Some(params)),
        };
        // A closed stream only means nobody is listening any more.
        self.inner.reply.send(text).await;
    }

    /// For a task's context, what tags a message's params with the task
    /// (`_meta["io.modelcontextprotocol/related-task"]`).
    fn related_task<P: Serialize>(&self) -> Option<impl Fn(&P) -> Value + '_> {
        let task_id = self.inner.task_id.as_deref()?;
        Some(move |params: &P| {
            let mut params = serde_json::to_value(params).unwrap_or_default();
            crate::protocol::meta::tag_related_task(&mut params, task_id);
            params
        })
    }
}

/// Forgets a request to the client when dropped.
struct ForgetOnDrop<'a> {
    requests: &'a crate::connection::PendingRequests,
    id: RequestId,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        self.requests.forget(&self.id);
    }
}

/// Sampling with tools: every assistant message with tool uses is followed by a user
/// message of only tool results, one per use, before anything else.
fn check_tool_balance(params: &CreateMessageRequestParams) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for (index, message) in params.messages.iter().enumerate() {
        let content = message.content.as_slice();
        let results: Vec<&str> = content
            .iter()
            .filter_map(|c| match c {
                SamplingContent::ToolResult(r) => Some(r.tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        if !results.is_empty() && results.len() != content.len() {
            return Err(format!("message {index} mixes tool results with other content"));
        }
        let mut expected = std::mem::take(&mut open);
        expected.sort_unstable();
        let mut answered = results.clone();
        answered.sort_unstable();
        if expected != answered {
            return Err(format!(
                "message {index} must answer the tool uses {expected:?} with tool results, and only them (it has {answered:?})"
            ));
        }
        open = content
            .iter()
            .filter_map(|c| match c {
                SamplingContent::ToolUse(u) => Some(u.id.as_str()),
                _ => None,
            })
            .collect();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{OneOrMany, Role, SamplingMessage, TextContent, ToolResultContent, ToolUseContent};

    fn message(role: Role, content: Vec<SamplingContent>) -> SamplingMessage {
        SamplingMessage {
            role,
            content: OneOrMany::Many(content),
            meta: None,
        }
    }

    fn text(t: &str) -> SamplingContent {
        SamplingContent::Text(TextContent {
            text: t.into(),
            annotations: None,
            meta: None,
        })
    }

    fn tool_use(id: &str) -> SamplingContent {
        SamplingContent::ToolUse(ToolUseContent {
            id: id.into(),
            name: "weather".into(),
            input: Default::default(),
            meta: None,
        })
    }

    fn tool_result(id: &str) -> SamplingContent {
        SamplingContent::ToolResult(ToolResultContent {
            tool_use_id: id.into(),
            content: Vec::new(),
            structured_content: None,
            is_error: None,
            meta: None,
        })
    }

    fn params(messages: Vec<SamplingMessage>) -> CreateMessageRequestParams {
        serde_json::from_value(serde_json::json!({"messages": [], "maxTokens": 10}))
            .map(|p: CreateMessageRequestParams| CreateMessageRequestParams { messages, ..p })
            .unwrap()
    }

    #[test]
    fn tool_uses_must_be_answered_by_tool_results_only() {
        let ask = message(Role::User, vec![text("weather?")]);
        let uses = message(Role::Assistant, vec![tool_use("a"), tool_use("b")]);
        let good = params(vec![
            ask.clone(),
            uses.clone(),
            message(Role::User, vec![tool_result("b"), tool_result("a")]),
        ]);
        assert!(check_tool_balance(&good).is_ok());
        let missing = params(vec![
            ask.clone(),
            uses.clone(),
            message(Role::User, vec![tool_result("a")]),
        ]);
        assert!(check_tool_balance(&missing).is_err());
        let mixed = params(vec![
            ask.clone(),
            uses,
            message(Role::User, vec![tool_result("a"), tool_result("b"), text("x")]),
        ]);
        assert!(check_tool_balance(&mixed).is_err());
        let stray = params(vec![ask, message(Role::User, vec![tool_result("z")])]);
        assert!(check_tool_balance(&stray).is_err());
    }
}
