//! One connection's view of the server: reads each request's era, dispatches it to the
//! registries, and stamps the result the way the request's protocol version expects.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, RwLock};

use futures::FutureExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::completion::completion_from;
use super::context::Context;
use super::events::ServerEvent;
use super::mrtr::{self, InputRound, Run};
use super::pagination::page;
use super::registry::ResourceMatch;
use super::reply::Reply;
use super::schema::Rejection;
use super::Server;
use crate::connection::Connection;
use crate::protocol::jsonrpc::{self, Incoming, InvalidMessage, Message, Notification, Request};
use crate::protocol::{
    code, meta, methods, CallToolRequestParams, CallToolResult, CancelledNotificationParams, ClientCapabilities,
    CompleteRequestParams, CompleteResult, CompletionReference, DiscoverResult, EmptyResult, Era, ErrorObject,
    GetPromptRequestParams, Implementation, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, Meta, ProtocolResult,
    ProtocolVersion, ReadResourceRequestParams, RequestId, RequestMeta, ResourceUpdatedNotificationParams, ResultType,
    SetLevelRequestParams, SubscriptionFilter, SubscriptionsListenParams, SubscriptionsListenResult,
};
use crate::transport::Frame;

/// The protocol facts one request is served under.
#[derive(Clone)]
pub(crate) struct Exchange {
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// The per-request log level (modern era).
    pub(crate) log_level: Option<LoggingLevel>,
}

/// What a legacy `initialize` established for the connection.
struct Handshake {
    exchange: Exchange,
}

/// The server side of one connection.
pub(crate) struct Session {
    server: Server,
    connection: Arc<Connection>,
    /// Whether `initialize` sets up this session (false for a session shared by many clients).
    remembers_handshake: bool,
    handshake: RwLock<Option<Handshake>>,
    log_level: Mutex<Option<LoggingLevel>>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    subscribed_uris: Mutex<HashSet<String>>,
    /// Cancelled when the connection's input ends: stops subscription streams.
    input_ended: CancellationToken,
    tasks: TaskTracker,
}

/// How one request is served: where its messages go, what cancels it, and, for stateless
/// HTTP, the legacy protocol version assumed when the request carries none.
pub(crate) struct Scope {
    pub(crate) reply: Reply,
    pub(crate) cancellation: CancellationToken,
    pub(crate) assumed_version: Option<ProtocolVersion>,
    /// The request's `_meta` when the transport has read it already (the modern HTTP
    /// header checks do), so that it is not read twice.
    pub(crate) meta: Option<RequestMeta>,
}

impl Scope {
    pub(crate) fn new(reply: Reply, cancellation: CancellationToken) -> Self {
        Scope {
            reply,
            cancellation,
            assumed_version: None,
            meta: None,
        }
    }
}

/// How a request ends: a result's JSON text, or an error. `None` answers nothing (the
/// request was cancelled).
type Outcome = Result<String, ErrorObject>;

impl Session {
    pub(crate) fn new(server: Server, connection: Arc<Connection>) -> Arc<Self> {
        Self::build(server, connection, true)
    }

    /// A session shared by unrelated requests (stateless HTTP): an `initialize` is
    /// answered but not remembered, so no client's handshake applies to another's requests.
    pub(crate) fn shared(server: Server, connection: Arc<Connection>) -> Arc<Self> {
        Self::build(server, connection, false)
    }

    fn build(server: Server, connection: Arc<Connection>, remembers_handshake: bool) -> Arc<Self> {
        Arc::new(Session {
            server,
            connection,
            remembers_handshake,
            handshake: RwLock::new(None),
            log_level: Mutex::new(None),
            in_flight: Mutex::new(HashMap::new()),
            subscribed_uris: Mutex::new(HashSet::new()),
            input_ended: CancellationToken::new(),
            tasks: TaskTracker::new(),
        })
    }

    pub(crate) fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }

    /// The level set by `logging/setLevel`, if any.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    /// Serves frames until the input ends, then waits for the requests in flight.
    pub(crate) async fn run(self: Arc<Self>, incoming: crate::transport::FrameStream) {
        let forwarder = self.forward_events();
        crate::connection::read_loop(&self.connection, incoming, |frame| self.on_frame(frame)).await;
        self.input_ended.cancel();
        self.tasks.close();
        self.tasks.wait().await;
        forwarder.abort();
        self.connection.close();
    }

    /// Starts sending list-changed and resource-updated notifications to a legacy client
    /// on the connection; abort the handle to stop.
    pub(crate) fn forward_events(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(Arc::clone(self).forward_legacy_events(self.server.subscribe_events()))
    }

    /// Ends a session whose requests arrive one by one (HTTP): subscription streams stop,
    /// requests in flight are cancelled, and the connection closes.
    pub(crate) fn end(&self) {
        self.input_ended.cancel();
        for cancellation in lock(&self.in_flight).values() {
            cancellation.cancel();
        }
        self.connection.close();
    }

    fn on_frame(self: &Arc<Self>, frame: Frame) {
        let bytes = match frame {
            Frame::Message(bytes) => bytes,
            Frame::Oversized { limit } => {
                let error = ErrorObject::invalid_request(format!("message larger than {limit} bytes"));
                self.send_later(jsonrpc::error_text(None, &error));
                return;
            }
        };
        match jsonrpc::parse(&bytes) {
            Ok(Incoming::Single(message)) => self.accept(message, self.connection_reply()),
            Ok(Incoming::Batch(entries)) => self.on_batch(entries),
            Err(invalid) => self.reject(&invalid),
        }
    }

    /// The route of every message on a stream connection.
    fn connection_reply(&self) -> Reply {
        Reply::Connection(Arc::clone(&self.connection))
    }

    fn reject(&self, invalid: &InvalidMessage) {
        tracing::debug!(%invalid, "rejected a message");
        self.send_later(jsonrpc::error_text(invalid.id(), &ErrorObject::from(invalid)));
    }

    /// Takes one message: a request is served on its own task, its messages sent on
    /// `reply`; notifications and responses are handled at once.
    pub(crate) fn accept(self: &Arc<Self>, message: Message, reply: Reply) {
        match message {
            Message::Request(request) => {
                let session = Arc::clone(self);
                self.tasks.spawn(async move {
                    let cancellation = session.track(&request.id);
                    let id = request.id.clone();
                    let answer = session.answer(request, Scope::new(reply.clone(), cancellation)).await;
                    lock(&session.in_flight).remove(&id);
                    if let Some(text) = answer {
                        reply.finish(text).await;
                    }
                });
            }
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(response) => {
                if !self.connection.resolve(response) {
                    tracing::debug!("dropped a response to an unknown request id");
                }
            }
        }
    }

    /// JSON-RPC batches: only a 2025-03-26 session may send them.
    fn on_batch(self: &Arc<Self>, entries: Vec<Result<Message, InvalidMessage>>) {
        let version = read(&self.handshake).as_ref().map(|h| h.exchange.version);
        if !version.is_some_and(ProtocolVersion::allows_batches) {
            let error = ErrorObject::invalid_request("batches are only allowed in protocol version 2025-03-26");
            self.send_later(jsonrpc::error_text(None, &error));
            return;
        }
        let session = Arc::clone(self);
        self.tasks.spawn(async move {
            let mut answers = Vec::new();
            for entry in entries {
                match entry {
                    Ok(Message::Request(request)) => {
                        let scope = Scope::new(session.connection_reply(), session.track(&request.id));
                        answers.push(session.answer(request, scope));
                    }
                    Ok(other) => session.accept(other, session.connection_reply()),
                    Err(invalid) => {
                        let text = jsonrpc::error_text(invalid.id(), &ErrorObject::from(&invalid));
                        answers.push(Box::pin(std::future::ready(Some(text))));
                    }
                }
            }
            let texts: Vec<String> = futures::future::join_all(answers).await.into_iter().flatten().collect();
            if !texts.is_empty() {
                let _ = session.connection.send(format!("[{}]", texts.join(","))).await;
            }
        });
    }

    fn send_later(&self, text: String) {
        let connection = Arc::clone(&self.connection);
        self.tasks.spawn(async move {
            let _ = connection.send(text).await;
        });
    }

    fn on_notification(&self, notification: Notification) {
        match notification.method.as_str() {
            methods::CANCELLED => {
                let Ok(params) = parse_params::<CancelledNotificationParams>(notification.params.as_deref()) else {
                    tracing::debug!("ignored a malformed cancellation");
                    return;
                };
                if let Some(token) = lock(&self.in_flight).get(&params.request_id) {
                    token.cancel();
                }
            }
            methods::INITIALIZED | methods::ROOTS_LIST_CHANGED => {}
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }

    /// Registers a request for cancellation by `notifications/cancelled`.
    fn track(&self, id: &RequestId) -> CancellationToken {
        let cancellation = CancellationToken::new();
        lock(&self.in_flight).insert(id.clone(), cancellation.clone());
        cancellation
    }

    /// Answers one request: the response text, or `None` when it was cancelled.
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: Request,
        scope: Scope,
    ) -> futures::future::BoxFuture<'static, Option<String>> {
        let session = Arc::clone(self);
        Box::pin(async move {
            let id = request.id.clone();
            let cancellation = scope.cancellation.clone();
            let dispatch = AssertUnwindSafe(Arc::clone(&session).dispatch(request, scope)).catch_unwind();
            // Cancellation first: a handler that ends because it was cancelled (such as a
            // subscription stream) must not answer.
            let outcome = tokio::select! {
                biased;
                _ = cancellation.cancelled() => None,
                outcome = dispatch => Some(outcome.unwrap_or_else(|panic| {
                    let detail = panic_message(&*panic);
                    tracing::error!(detail, "a handler panicked");
                    Err(ErrorObject::internal(format!("the handler panicked: {detail}")))
                })),
            };
            outcome.map(|outcome| match outcome {
                Ok(result) => jsonrpc::raw_result_text(&id, &result),
                Err(error) => jsonrpc::error_text(Some(&id), &error),
            })
        })
    }

    async fn dispatch(self: Arc<Self>, request: Request, mut scope: Scope) -> Outcome {
        let Request { id, method, params } = request;
        let params = params.as_deref();
        let head: ParamsHead = parse_params(params)?;
        if method == methods::INITIALIZE {
            // 2026-07-28 removed `initialize`: a request of that era must not start a
            // legacy handshake (on a shared stateless session it would change the era of
            // every later request).
            if is_modern_meta(head.meta.as_deref()) {
                return Err(ErrorObject::method_not_found(&method));
            }
            return self.initialize(params);
        }
        let request_meta = match scope.meta.take() {
            Some(read) => read,
            None => read_request_meta(head.meta.as_deref())?,
        };
        let exchange = match self.exchange_for(&method, request_meta, scope.assumed_version)? {
            Some(exchange) => exchange,
            // `ping` before `initialize`.
            None => return finish(EmptyResult::default(), None),
        };
        let era = exchange.version.era();
        // `exchange_for` read `_meta` as an object already, so the context's lazy read of it
        // cannot fail.
        let ctx = Context::new(Arc::clone(&self), id.clone(), exchange.clone(), head.meta, scope);
        let stamp = (era == Era::Modern).then(|| self.server.server_info_json());
        let outcome = match (method.as_str(), era) {
            (methods::PING, Era::Legacy) => finish(EmptyResult::default(), None),
            (methods::DISCOVER, Era::Modern) => self.discover(stamp),
            (methods::TOOLS_LIST, _) => self.list_tools(params, stamp),
            (methods::TOOLS_CALL, _) => self.call_tool(params, &ctx, stamp).await,
            (methods::RESOURCES_LIST, _) => self.list_resources(params, stamp),
            (methods::RESOURCES_TEMPLATES_LIST, _) => self.list_templates(params, stamp),
            (methods::RESOURCES_READ, _) => self.read_resource(params, &ctx, stamp).await,
            (methods::RESOURCES_SUBSCRIBE, Era::Legacy) => self.subscribe(params, true),
            (methods::RESOURCES_UNSUBSCRIBE, Era::Legacy) => self.subscribe(params, false),
            (methods::PROMPTS_LIST, _) => self.list_prompts(params, stamp),
            (methods::PROMPTS_GET, _) => self.get_prompt(params, &ctx, stamp).await,
            (methods::COMPLETION_COMPLETE, _) => self.complete(params, stamp).await,
            (methods::LOGGING_SET_LEVEL, Era::Legacy) => self.set_level(params),
            (methods::SUBSCRIPTIONS_LISTEN, Era::Modern) => self.listen(params, &id, &ctx, stamp).await,
            _ => Err(ErrorObject::method_not_found(&method)),
        };
        ctx.finish();
        outcome
    }

    /// Decides the request's era and protocol facts: the modern `_meta` fields when
    /// present, else the legacy handshake. `Ok(None)` is a `ping` before the handshake.
    fn exchange_for(
        &self,
        method: &str,
        request_meta: RequestMeta,
        assumed_version: Option<ProtocolVersion>,
    ) -> Result<Option<Exchange>, ErrorObject> {
        if let Some(handshake) = read(&self.handshake).as_ref() {
            return Ok(Some(handshake.exchange.clone()));
        }
        let Some(requested) = request_meta.protocol_version else {
            if let Some(version) = assumed_version {
                return Ok(Some(Exchange {
                    version,
                    client_capabilities: Arc::default(),
                    client_info: None,
                    log_level: None,
                }));
            }
            if method == methods::PING {
                return Ok(None);
            }
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is missing: send `initialize` first (legacy era) or give the protocol version on every request (2026-07-28)",
                meta::PROTOCOL_VERSION
            )));
        };
        let version = ProtocolVersion::parse(&requested)
            .filter(|v| v.era() == Era::Modern)
            .ok_or_else(|| ErrorObject::unsupported_protocol_version(&requested, &ProtocolVersion::all_strs()))?;
        let client_capabilities = request_meta.client_capabilities.ok_or_else(|| {
            ErrorObject::invalid_params(format!("_meta[\"{}\"] is missing", meta::CLIENT_CAPABILITIES))
        })?;
        Ok(Some(Exchange {
            version,
            client_capabilities: Arc::new(client_capabilities),
            client_info: request_meta.client_info.map(Arc::new),
            log_level: request_meta.log_level,
        }))
    }

    fn initialize(&self, params: Option<&RawValue>) -> Outcome {
        let params: InitializeRequestParams = parse_params(params)?;
        let version = ProtocolVersion::parse(&params.protocol_version)
            .filter(|v| v.era() == Era::Legacy)
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let exchange = Exchange {
            version,
            client_capabilities: Arc::new(params.capabilities),
            client_info: Some(Arc::new(params.client_info)),
            log_level: None,
        };
        if self.remembers_handshake {
            *write(&self.handshake) = Some(Handshake { exchange });
        }
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.server.capabilities(),
            server_info: (*self.server.server_info()).clone(),
            instructions: self.server.instructions(),
            result_type: None,
            meta: None,
        };
        finish(result, None)
    }

    fn discover(&self, stamp: Option<&Value>) -> Outcome {
        let mut result = DiscoverResult {
            supported_versions: ProtocolVersion::all_strs().into_iter().map(str::to_owned).collect(),
            capabilities: self.server.capabilities(),
            instructions: self.server.instructions(),
            result_type: None,
            meta: None,
            ttl_ms: None,
            cache_scope: None,
        };
        self.server.stamp_cache_hints(&mut result);
        finish(result, stamp)
    }

    fn list_tools(&self, params: Option<&RawValue>, stamp: Option<&Value>) -> Outcome {
        let cursor: CursorParams = parse_params(params)?;
        let registry = self.server.registry();
        let (tools, next_cursor) = page(&registry.tools, cursor.cursor.as_deref(), self.server.page_size())?;
        let mut result = ListToolsResult {
            tools: tools.map(|t| t.tool.clone()).collect(),
            next_cursor,
            ..Default::default()
        };
        if stamp.is_some() {
            self.server.stamp_cache_hints(&mut result);
        }
        finish(result, stamp)
    }

    async fn call_tool(&self, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Value>) -> Outcome {
        let params: CallToolRequestParams = parse_params(params)?;
        let Some(tool) = self.server.registry().tools.get(&params.name).cloned() else {
            return Err(ErrorObject::invalid_params(format!("unknown tool: {}", params.name)));
        };
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        match tool.validate_input(&arguments) {
            Ok(()) => {}
            Err(Rejection::BadSchema(problem)) => {
                return Err(ErrorObject::internal(format!(
                    "tool {} has an input schema that does not compile: {problem}",
                    params.name
                )))
            }
            Err(Rejection::Invalid(problems)) => {
                let message = format!("invalid arguments for tool {}: {problems}", params.name);
                if ctx.protocol_version().reports_input_errors_as_results() {
                    return finish(CallToolResult::error(message), stamp);
                }
                return Err(ErrorObject::invalid_params(message));
            }
        }
        let round = self.input_round(
            ctx,
            methods::TOOLS_CALL,
            &params.name,
            &arguments,
            params.request_state,
            params.input_responses,
        )?;
        let Value::Object(arguments) = arguments else {
            unreachable!("built from an object above")
        };
        let outcome = match self
            .run_handler(round.as_deref(), tool.handler.call(arguments, ctx.clone()))
            .await
        {
            Handled::Done(outcome) => outcome,
            Handled::NeedsInput(result) => return finish(result?, stamp),
        };
        let mut result = match outcome {
            Ok(result) => result,
            Err(super::HandlerError::Message(message)) => CallToolResult::error(message),
            Err(other) => return Err(other.into_error_object()),
        };
        if result.is_error != Some(true) && tool.tool.output_schema.is_some() {
            let structured = result.structured_content.as_ref().ok_or_else(|| {
                ErrorObject::internal(format!(
                    "tool {} has an output schema but returned no structured content",
                    params.name
                ))
            })?;
            tool.validate_output(structured).map_err(|rejection| {
                ErrorObject::internal(match rejection {
                    Rejection::BadSchema(problem) => format!(
                        "tool {} has an output schema that does not compile: {problem}",
                        params.name
                    ),
                    Rejection::Invalid(problems) => format!(
                        "tool {} returned output that breaks its schema: {problems}",
                        params.name
                    ),
                })
            })?;
        }
        if !ctx.protocol_version().has_structured_content() {
            result.structured_content = None;
        }
        finish(result, stamp)
    }

    /// The multi round-trip state of a modern request that may ask the client for input.
    fn input_round(
        &self,
        ctx: &Context,
        method: &str,
        target: &str,
        arguments: &impl Serialize,
        request_state: Option<String>,
        responses: Option<crate::protocol::InputResponses>,
    ) -> Result<Option<Arc<InputRound>>, ErrorObject> {
        if ctx.era() != Era::Modern {
            return Ok(None);
        }
        let binding = mrtr::binding(method, target, arguments);
        let round = Arc::new(InputRound::start(
            self.server.input_policy(),
            binding,
            request_state.as_deref(),
            responses,
        )?);
        ctx.attach_input(Arc::clone(&round));
        Ok(Some(round))
    }

    /// Runs a handler; in the modern era, a request for input ends the run with the
    /// `input_required` result.
    async fn run_handler<T>(
        &self,
        round: Option<&InputRound>,
        handler: impl std::future::Future<Output = Result<T, super::HandlerError>>,
    ) -> Handled<Result<T, super::HandlerError>> {
        let Some(round) = round else {
            return Handled::Done(handler.await);
        };
        let policy = self.server.input_policy();
        match round.run(handler).await {
            Run::Done(Err(super::HandlerError::InputRequired(explicit))) => {
                Handled::NeedsInput(round.input_required(policy, Some(*explicit)))
            }
            Run::Done(outcome) => Handled::Done(outcome),
            Run::NeedsInput => Handled::NeedsInput(round.input_required(policy, None)),
        }
    }

    fn list_resources(&self, params: Option<&RawValue>, stamp: Option<&Value>) -> Outcome {
        let cursor: CursorParams = parse_params(params)?;
        let registry = self.server.registry();
        let (resources, next_cursor) = page(&registry.resources, cursor.cursor.as_deref(), self.server.page_size())?;
        let mut result = ListResourcesResult {
            resources: resources.map(|r| r.resource.clone()).collect(),
            next_cursor,
            ..Default::default()
        };
        if stamp.is_some() {
            self.server.stamp_cache_hints(&mut result);
        }
        finish(result, stamp)
    }

    fn list_templates(&self, params: Option<&RawValue>, stamp: Option<&Value>) -> Outcome {
        let cursor: CursorParams = parse_params(params)?;
        let registry = self.server.registry();
        let (templates, next_cursor) = page(&registry.templates, cursor.cursor.as_deref(), self.server.page_size())?;
        let mut result = ListResourceTemplatesResult {
            resource_templates: templates.map(|t| t.template.clone()).collect(),
            next_cursor,
            ..Default::default()
        };
        if stamp.is_some() {
            self.server.stamp_cache_hints(&mut result);
        }
        finish(result, stamp)
    }

    async fn read_resource(&self, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Value>) -> Outcome {
        let params: ReadResourceRequestParams = parse_params(params)?;
        let found = self.server.registry().find_resource(&params.uri);
        let (handler, variables) = match found {
            Some(ResourceMatch::Static(resource)) => (Arc::clone(&resource.handler), BTreeMap::new()),
            Some(ResourceMatch::Template(template, variables)) => (Arc::clone(&template.handler), variables),
            None => return Err(resource_not_found(&params.uri, ctx.era())),
        };
        let round = self.input_round(
            ctx,
            methods::RESOURCES_READ,
            &params.uri,
            &(),
            params.request_state,
            params.input_responses,
        )?;
        let mut result = match self
            .run_handler(round.as_deref(), handler.read(params.uri, variables, ctx.clone()))
            .await
        {
            Handled::Done(outcome) => outcome.map_err(super::HandlerError::into_error_object)?,
            Handled::NeedsInput(result) => return finish(result?, stamp),
        };
        if stamp.is_some() {
            self.server.stamp_cache_hints(&mut result);
        }
        finish(result, stamp)
    }

    fn subscribe(&self, params: Option<&RawValue>, on: bool) -> Outcome {
        let params: ReadResourceRequestParams = parse_params(params)?;
        let mut uris = lock(&self.subscribed_uris);
        if on {
            uris.insert(params.uri);
        } else {
            uris.remove(&params.uri);
        }
        finish(EmptyResult::default(), None)
    }

    fn list_prompts(&self, params: Option<&RawValue>, stamp: Option<&Value>) -> Outcome {
        let cursor: CursorParams = parse_params(params)?;
        let registry = self.server.registry();
        let (prompts, next_cursor) = page(&registry.prompts, cursor.cursor.as_deref(), self.server.page_size())?;
        let mut result = ListPromptsResult {
            prompts: prompts.map(|p| p.prompt.clone()).collect(),
            next_cursor,
            ..Default::default()
        };
        if stamp.is_some() {
            self.server.stamp_cache_hints(&mut result);
        }
        finish(result, stamp)
    }

    async fn get_prompt(&self, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Value>) -> Outcome {
        let params: GetPromptRequestParams = parse_params(params)?;
        let Some(prompt) = self.server.registry().prompts.get(&params.name).cloned() else {
            return Err(ErrorObject::invalid_params(format!("unknown prompt: {}", params.name)));
        };
        let arguments = params.arguments.unwrap_or_default();
        let missing = prompt.missing_arguments(&arguments);
        if !missing.is_empty() {
            return Err(ErrorObject::invalid_params(format!(
                "prompt {} is missing required arguments: {}",
                params.name,
                missing.join(", ")
            )));
        }
        let round = self.input_round(
            ctx,
            methods::PROMPTS_GET,
            &params.name,
            &arguments,
            params.request_state,
            params.input_responses,
        )?;
        let result = match self
            .run_handler(round.as_deref(), prompt.handler.get(arguments, ctx.clone()))
            .await
        {
            Handled::Done(outcome) => outcome.map_err(super::HandlerError::into_error_object)?,
            Handled::NeedsInput(result) => return finish(result?, stamp),
        };
        finish(result, stamp)
    }

    async fn complete(&self, params: Option<&RawValue>, stamp: Option<&Value>) -> Outcome {
        let params: CompleteRequestParams = parse_params(params)?;
        let registry = self.server.registry();
        let handlers = match &params.reference {
            CompletionReference::Prompt { name, .. } => registry
                .prompts
                .get(name)
                .map(|p| &p.completions)
                .ok_or_else(|| ErrorObject::invalid_params(format!("unknown prompt: {name}")))?,
            CompletionReference::Resource { uri } => registry
                .templates
                .values()
                .find(|t| &t.template.uri_template == uri)
                .map(|t| &t.completions)
                .ok_or_else(|| ErrorObject::invalid_params(format!("unknown resource template: {uri}")))?,
        };
        let values = match handlers.get(&params.argument.name) {
            Some(handler) => {
                let context = params.context.and_then(|c| c.arguments).unwrap_or_default();
                handler
                    .complete(params.argument.value, context)
                    .await
                    .map_err(super::HandlerError::into_error_object)?
            }
            None => Vec::new(),
        };
        let result = CompleteResult {
            completion: completion_from(values),
            ..Default::default()
        };
        finish(result, stamp)
    }

    fn set_level(&self, params: Option<&RawValue>) -> Outcome {
        let params: SetLevelRequestParams = parse_params(params)?;
        *lock(&self.log_level) = Some(params.level);
        finish(EmptyResult::default(), None)
    }

    /// `subscriptions/listen`: acknowledges, then forwards the chosen notifications tagged
    /// with the subscription id until the client cancels or the input ends.
    async fn listen(&self, params: Option<&RawValue>, id: &RequestId, ctx: &Context, stamp: Option<&Value>) -> Outcome {
        let params: SubscriptionsListenParams = parse_params(params)?;
        let filter = params.notifications;
        let mut events = self.server.subscribe_events();
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
                _ = self.input_ended.cancelled() => break,
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
            if let Some((method, params)) = modern_notification(&event, &filter, tag()) {
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

    /// Sends list-changed and resource-updated notifications to a legacy client.
    async fn forward_legacy_events(self: Arc<Self>, mut events: broadcast::Receiver<ServerEvent>) {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            if read(&self.handshake).is_none() {
                continue;
            }
            let sent = match &event {
                ServerEvent::ResourceUpdated(uri) => {
                    if !lock(&self.subscribed_uris).contains(uri.as_ref()) {
                        continue;
                    }
                    let params = ResourceUpdatedNotificationParams {
                        uri: uri.to_string(),
                        meta: None,
                    };
                    self.connection.notify(methods::RESOURCES_UPDATED, Some(&params)).await
                }
                list_changed => self.connection.notify(list_changed.method(), None::<&()>).await,
            };
            if sent.is_err() {
                return;
            }
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

/// The resource-not-found error of the request's era: -32002 before 2026-07-28, -32602 after.
fn resource_not_found(uri: &str, era: Era) -> ErrorObject {
    let code = match era {
        Era::Legacy => code::RESOURCE_NOT_FOUND,
        Era::Modern => code::INVALID_PARAMS,
    };
    ErrorObject::new(code, format!("Resource not found: {uri}")).with_data(serde_json::json!({ "uri": uri }))
}

/// How a handler run ended.
enum Handled<T> {
    /// The handler's own outcome.
    Done(T),
    /// The `input_required` result to send instead (or why it could not be made).
    NeedsInput(Result<crate::protocol::InputRequiredResult, ErrorObject>),
}

/// Stamps the modern era's `resultType` (unless the result set its own) and server info
/// (as JSON already, see [`Server::server_info_json`]), then writes the result as JSON.
fn finish<R: ProtocolResult + Serialize>(mut result: R, stamp: Option<&Value>) -> Outcome {
    if let Some(server_info) = stamp {
        result.result_type_mut().get_or_insert(ResultType::Complete);
        let meta = result.meta_mut().get_or_insert_with(Meta::new);
        meta.insert(meta::SERVER_INFO.to_owned(), server_info.clone());
    }
    serde_json::to_string(&result).map_err(ErrorObject::internal)
}

/// The protocol fields of a request's `_meta` (all absent without one).
fn read_request_meta(raw: Option<&RawValue>) -> Result<RequestMeta, ErrorObject> {
    match raw {
        Some(raw) => serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("_meta: {e}"))),
        None => Ok(RequestMeta::default()),
    }
}

/// Only `_meta`, read before the method's own params.
#[derive(Deserialize, Default)]
struct ParamsHead {
    #[serde(rename = "_meta", default)]
    meta: Option<Box<RawValue>>,
}

#[derive(Deserialize, Default)]
struct CursorParams {
    #[serde(default)]
    cursor: Option<String>,
}

/// Whether `_meta` names a protocol version, which makes the request modern.
fn is_modern_meta(meta: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct VersionOnly {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
        protocol_version: Option<Value>,
    }
    meta.and_then(|raw| serde_json::from_str::<VersionOnly>(raw.get()).ok())
        .is_some_and(|m| m.protocol_version.is_some())
}

/// Decodes a method's params; absent params read as `{}`.
fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(ErrorObject::invalid_params)
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}
