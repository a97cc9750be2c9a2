//! The MCP client: connects over any transport, settles the protocol era, and offers a
//! typed method per request.
//!
//! ```no_run
//! use oxmcp::client::{Client, ClientOptions};
//! use oxmcp::transport::child::StdioCommand;
//!
//! # async fn run() -> oxmcp::Result<()> {
//! let client = Client::spawn(StdioCommand::new("my-server"), ClientOptions::new("app", "1.0")).await?;
//! let tools = client.list_all_tools().await?;
//! let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
//! client.close().await?;
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, Notify};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "oauth")]
pub mod auth;
mod notifications;
mod options;

pub use notifications::ServerNotification;
pub use options::{ClientOptions, ElicitationHandler, EraMode, RootsHandler, SamplingHandler};

use crate::connection::{await_reply, read_loop, Connection};
use crate::error::{Error, Result};
use crate::protocol::headers::header_params;
use crate::protocol::jsonrpc::{self, Incoming, Message, Request};
use crate::protocol::{
    code, meta, methods, CallToolResult, CompleteRequestParams, CompleteResult, Completion, CompletionArgument,
    CompletionContext, CompletionReference, DiscoverResult, ElicitRequestParams, Era, ErrorObject, GetPromptResult,
    Implementation, InitializeResult, InputRequest, InputRequiredResult, InputResponse, InputResponses,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel,
    ProgressNotificationParams, Prompt, ProtocolVersion, ReadResourceResult, RequestId, Resource, ResourceTemplate,
    ResultType, ServerCapabilities, SubscriptionFilter, Tool,
};
use crate::transport::child::{ChildProcess, StdioCommand};
use crate::transport::{Frame, Transport};

/// How many `input_required` rounds one request may take before the client gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// How many notifications may queue for a slow reader before it misses some.
const NOTIFICATION_CAPACITY: usize = 1024;

/// Called with each progress notification of a request.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Per-call settings.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Overrides the client's default timeout (`Some(None)`: no timeout).
    pub timeout: Option<Option<Duration>>,
    /// Receives progress notifications; the request then carries a progress token.
    pub on_progress: Option<ProgressCallback>,
    /// Restart the timeout whenever progress arrives.
    pub reset_timeout_on_progress: bool,
    /// Cancel the request when this fires.
    pub cancellation: Option<CancellationToken>,
}

/// What the connection settled on.
#[derive(Debug, Clone)]
pub struct ServerDetails {
    /// The protocol version in use.
    pub protocol_version: ProtocolVersion,
    /// Who the server says it is.
    pub server_info: Option<Implementation>,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
    /// The server's guidance for the model.
    pub instructions: Option<String>,
}

/// A connection to an MCP server. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    connection: Arc<Connection>,
    options: ClientOptions,
    details: Mutex<Option<ServerDetails>>,
    notifications: broadcast::Sender<ServerNotification>,
    progress: Mutex<HashMap<RequestId, ProgressWatch>>,
    log_level: Mutex<Option<LoggingLevel>>,
    resource_streams: Mutex<HashMap<String, Subscription>>,
    child: tokio::sync::Mutex<Option<ChildProcess>>,
}

struct ProgressWatch {
    callback: Option<ProgressCallback>,
    arrived: Arc<Notify>,
}

impl Client {
    /// Connects over `transport` and settles the era as `options` say.
    pub async fn connect(transport: Transport, options: ClientOptions) -> Result<Client> {
        Self::connect_with_child(transport, options, None).await
    }

    /// Connects to a Streamable HTTP endpoint (an old server's HTTP+SSE endpoint works
    /// too: the transport falls back to it).
    #[cfg(feature = "http-client")]
    pub async fn connect_http(url: impl Into<String>, options: ClientOptions) -> Result<Client> {
        let transport =
            crate::transport::http::client::connect(crate::transport::http::client::HttpClientOptions::new(url))?;
        Self::connect(transport, options).await
    }

    /// Starts a server process and connects to it over its stdin and stdout.
    pub async fn spawn(command: StdioCommand, options: ClientOptions) -> Result<Client> {
        let (transport, child) = command.spawn()?;
        Self::connect_with_child(transport, options, Some(child)).await
    }

    async fn connect_with_child(
        transport: Transport,
        options: ClientOptions,
        child: Option<ChildProcess>,
    ) -> Result<Client> {
        let (connection, incoming) = Connection::start(transport);
        let (notifications, _) = broadcast::channel(NOTIFICATION_CAPACITY);
        let client = Client {
            inner: Arc::new(ClientInner {
                connection,
                options,
                details: Mutex::new(None),
                notifications,
                progress: Mutex::new(HashMap::new()),
                log_level: Mutex::new(None),
                resource_streams: Mutex::new(HashMap::new()),
                child: tokio::sync::Mutex::new(child),
            }),
        };
        let reader = client.clone();
        tokio::spawn(async move {
            let connection = Arc::clone(&reader.inner.connection);
            read_loop(&connection, incoming, |frame| reader.on_frame(frame)).await;
        });
        if let Err(e) = client.negotiate().await {
            let _ = client.close().await;
            return Err(e);
        }
        Ok(client)
    }

    /// What the connection settled on.
    pub fn server_details(&self) -> ServerDetails {
        lock(&self.inner.details).clone().expect("set before connect returns")
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.server_details().protocol_version
    }

    /// Notifications from the server (list changes, resource updates, log messages,
    /// progress), from now on.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.inner.notifications.subscribe()
    }

    async fn negotiate(&self) -> Result<()> {
        let modern_error = match self.inner.options.era {
            EraMode::Legacy => return self.initialize(ProtocolVersion::LATEST_LEGACY).await,
            EraMode::Modern => return self.discover().await,
            EraMode::Auto => {
                let probe = tokio::time::timeout(self.inner.options.probe_timeout, self.discover()).await;
                match probe {
                    Ok(Ok(())) => return Ok(()),
                    Ok(Err(error)) => error,
                    Err(_) => Error::Timeout(self.inner.options.probe_timeout),
                }
            }
        };
        match modern_error {
            // A modern server that does not speak our modern version: use a legacy one
            // it lists, never a blind fallback.
            Error::Remote(ErrorObject {
                code: code::UNSUPPORTED_PROTOCOL_VERSION,
                data,
                ..
            }) => {
                let supported: Vec<String> = data
                    .and_then(|d| d.get("supported").cloned())
                    .and_then(|s| serde_json::from_value(s).ok())
                    .unwrap_or_default();
                let legacy = supported
                    .iter()
                    .filter_map(|v| ProtocolVersion::parse(v))
                    .filter(|v| v.era() == Era::Legacy)
                    .max()
                    .ok_or_else(|| {
                        Error::Protocol(format!("the server supports none of our versions: {supported:?}"))
                    })?;
                self.initialize(legacy).await
            }
            Error::ConnectionClosed => Err(Error::ConnectionClosed),
            _ => self.initialize(ProtocolVersion::LATEST_LEGACY).await,
        }
    }

    /// `server/discover`; when the server rejects our version but lists a modern version
    /// we speak, one more try with that one.
    async fn discover(&self) -> Result<()> {
        match self.discover_at(ProtocolVersion::LATEST).await {
            Err(Error::Remote(error)) if error.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
                let mutual = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().and_then(ProtocolVersion::parse))
                    .filter(|v| v.era() == Era::Modern)
                    .max();
                match mutual {
                    Some(version) => self.discover_at(version).await,
                    None => Err(Error::Remote(error)),
                }
            }
            other => other,
        }
    }

    async fn discover_at(&self, version: ProtocolVersion) -> Result<()> {
        let params = self.modern_params(Map::new(), version, None);
        let raw = self
            .send_request(methods::DISCOVER, params, &CallOptions::default())
            .await?;
        let result: DiscoverResult = decode(&raw)?;
        if !result.supported_versions.iter().any(|v| v == version.as_str()) {
            return Err(Error::Remote(ErrorObject::unsupported_protocol_version(
                version.as_str(),
                &result.supported_versions.iter().map(String::as_str).collect::<Vec<_>>(),
            )));
        }
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(meta::SERVER_INFO))
            .and_then(|info| serde_json::from_value(info.clone()).ok());
        *lock(&self.inner.details) = Some(ServerDetails {
            protocol_version: version,
            server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
        });
        Ok(())
    }

    async fn initialize(&self, version: ProtocolVersion) -> Result<()> {
        let params = serde_json::json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.inner.options.capabilities(),
            "clientInfo": self.inner.options.info,
        });
        let Value::Object(params) = params else {
            unreachable!("an object literal")
        };
        let raw = self
            .send_request(methods::INITIALIZE, params, &CallOptions::default())
            .await?;
        let result: InitializeResult = decode(&raw)?;
        let negotiated = ProtocolVersion::parse(&result.protocol_version)
            .filter(|v| v.era() == Era::Legacy)
            .ok_or_else(|| {
                Error::Protocol(format!(
                    "the server chose an unsupported version: {}",
                    result.protocol_version
                ))
            })?;
        *lock(&self.inner.details) = Some(ServerDetails {
            protocol_version: negotiated,
            server_info: Some(result.server_info),
            capabilities: result.capabilities,
            instructions: result.instructions,
        });
        self.inner.connection.notify(methods::INITIALIZED, None::<&()>).await
    }

    /// `_meta` of a modern request, merged into its params.
    fn modern_params(
        &self,
        mut params: Map<String, Value>,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
    ) -> Map<String, Value> {
        let options = &self.inner.options;
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(meta::PROTOCOL_VERSION.into(), version.as_str().into());
            meta.insert(meta::CLIENT_CAPABILITIES.into(), to_value(&options.capabilities()));
            meta.insert(meta::CLIENT_INFO.into(), to_value(&options.info));
            if let Some(level) = log_level {
                meta.insert(meta::LOG_LEVEL.into(), to_value(&level));
            }
        }
        params
    }

    /// Sends a request in the connection's era and decodes its final result. In the
    /// 2026-07-28 era an `input_required` answer is handled here: each input request goes
    /// to the registered handler, and the request is retried with the answers and the
    /// server's `requestState`, for at most [`MAX_INPUT_ROUNDS`] rounds.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<R> {
        let mut raw = self.request_raw(method, params.clone(), options).await?;
        for _ in 0..MAX_INPUT_ROUNDS {
            let head: ResultHead = decode(&raw)?;
            if head.result_type != Some(ResultType::InputRequired) {
                return decode(&raw);
            }
            let input: InputRequiredResult = decode(&raw)?;
            let mut retry = params.clone();
            let mut responses = InputResponses::new();
            for (key, request) in input.input_requests.unwrap_or_default() {
                let answer = self.answer_input(request).await.map_err(|e| {
                    Error::Unsupported(format!(
                        "{method}: the server's input request {key:?} could not be answered: {e}"
                    ))
                })?;
                responses.insert(key, answer);
            }
            if !responses.is_empty() {
                retry.insert("inputResponses".into(), to_value(&responses));
            }
            if let Some(state) = input.request_state {
                retry.insert("requestState".into(), state.into());
            }
            raw = self.request_raw(method, retry, options).await?;
        }
        Err(Error::Protocol(format!(
            "{method}: still no result after {MAX_INPUT_ROUNDS} input rounds"
        )))
    }

    /// Sends one request in the connection's era and returns its raw result: an
    /// `input_required` result is returned as is, for callers that drive multi round-trip
    /// requests themselves.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        let version = self.protocol_version();
        let params = match version.era() {
            Era::Modern => self.modern_params(params, version, *lock(&self.inner.log_level)),
            Era::Legacy => params,
        };
        self.send_request(method, params, options).await
    }

    /// Answers one request of the server with the registered handlers: sampling,
    /// elicitation or roots, in either era.
    async fn answer_input(&self, request: InputRequest) -> std::result::Result<InputResponse, ErrorObject> {
        let options = &self.inner.options;
        let missing = |what: &str| ErrorObject::method_not_found(what);
        match request {
            InputRequest::Sampling(params) => match &options.sampling {
                Some(handler) => handler.create_message(params).await.map(InputResponse::Sampling),
                None => Err(missing(methods::SAMPLING_CREATE_MESSAGE)),
            },
            InputRequest::Elicitation(ElicitRequestParams::Url(_)) if !options.elicitation_url => Err(
                ErrorObject::invalid_params("this client does not support URL-mode elicitation"),
            ),
            InputRequest::Elicitation(params) => match &options.elicitation {
                Some(handler) => handler.elicit(params).await.map(InputResponse::Elicitation),
                None => Err(missing(methods::ELICITATION_CREATE)),
            },
            InputRequest::Roots(_) => match &options.roots {
                Some(handler) => handler.list_roots().await.map(InputResponse::Roots),
                None => Err(missing(methods::ROOTS_LIST)),
            },
        }
    }

    /// Sends a request as is, with timeout, progress and cancellation handling.
    async fn send_request(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        // A request cancelled before it starts is not sent at all.
        if options
            .cancellation
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
        {
            return Err(Error::Cancelled);
        }
        let connection = &self.inner.connection;
        let (id, reply) = connection.pending().register()?;
        let arrived = Arc::new(Notify::new());
        let wants_progress = options.on_progress.is_some() || options.reset_timeout_on_progress;
        if wants_progress {
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(meta::PROGRESS_TOKEN.into(), to_value(&id));
            }
            lock(&self.inner.progress).insert(
                id.clone(),
                ProgressWatch {
                    callback: options.on_progress.clone(),
                    arrived: Arc::clone(&arrived),
                },
            );
        }
        let guard = PendingGuard {
            client: self,
            id: id.clone(),
            armed: true,
        };
        connection
            .send(jsonrpc::request_text(&id, method, Some(&params)))
            .await?;
        let timeout = options.timeout.unwrap_or(self.inner.options.timeout);
        let cancellation = options.cancellation.clone().unwrap_or_default();
        let mut reply = std::pin::pin!(await_reply(reply));
        let outcome = loop {
            let deadline = async {
                match timeout {
                    Some(timeout) => tokio::time::sleep(timeout).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                outcome = &mut reply => break outcome,
                _ = deadline => break Err(Error::Timeout(timeout.unwrap_or_default())),
                _ = cancellation.cancelled() => break Err(Error::Cancelled),
                _ = arrived.notified(), if options.reset_timeout_on_progress => continue,
            }
        };
        let mut guard = guard;
        guard.armed = matches!(outcome, Err(Error::Timeout(_)) | Err(Error::Cancelled));
        drop(guard);
        outcome
    }

    fn on_frame(&self, frame: Frame) {
        let Frame::Message(bytes) = frame else {
            tracing::warn!("dropped an oversized message from the server");
            return;
        };
        let messages = match jsonrpc::parse(&bytes) {
            Ok(Incoming::Single(message)) => vec![message],
            Ok(Incoming::Batch(entries)) => entries.into_iter().filter_map(|e| e.ok()).collect(),
            Err(invalid) => {
                tracing::warn!(%invalid, "dropped an unreadable message from the server");
                return;
            }
        };
        for message in messages {
            match message {
                Message::Response(response) => {
                    lock(&self.inner.progress).remove(&response.id);
                    self.inner.connection.pending().resolve(response);
                }
                Message::Notification(notification) => {
                    let decoded = ServerNotification::decode(&notification.method, notification.params.as_deref());
                    if let ServerNotification::Progress(progress) = &decoded {
                        if let Some(watch) = lock(&self.inner.progress).get(&progress.progress_token) {
                            watch.arrived.notify_one();
                            if let Some(callback) = &watch.callback {
                                callback(progress.clone());
                            }
                        }
                    }
                    let _ = self.inner.notifications.send(decoded);
                }
                Message::Request(request) => {
                    let client = self.clone();
                    tokio::spawn(async move { client.answer_server(request).await });
                }
            }
        }
    }

    /// Answers a request from the server (legacy era): ping, sampling, elicitation, roots.
    async fn answer_server(&self, request: Request) {
        let outcome = match request.method.as_str() {
            methods::PING => Ok(Value::Object(Map::new())),
            methods::SAMPLING_CREATE_MESSAGE | methods::ELICITATION_CREATE | methods::ROOTS_LIST => {
                let params = request
                    .params
                    .as_deref()
                    .map_or(Ok(Value::Object(Map::new())), |raw| serde_json::from_str(raw.get()));
                let input = params.and_then(|params| {
                    serde_json::from_value::<InputRequest>(
                        serde_json::json!({"method": request.method, "params": params}),
                    )
                });
                match input {
                    Ok(input) => self.answer_input(input).await.map(|answer| to_value(&answer)),
                    Err(e) => Err(ErrorObject::invalid_params(e)),
                }
            }
            other => Err(ErrorObject::method_not_found(other)),
        };
        let text = match outcome {
            Ok(result) => jsonrpc::result_text(&request.id, &result),
            Err(error) => jsonrpc::error_text(Some(&request.id), &error),
        };
        let _ = self.inner.connection.send(text).await;
    }

    /// One page of tools. Tools whose `x-mcp-header` annotations break the spec's rules
    /// are left out, with a warning.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult> {
        self.list_tools_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_tools`] with per-call options (timeout, cancellation).
    pub async fn list_tools_with(&self, cursor: Option<String>, options: &CallOptions) -> Result<ListToolsResult> {
        let mut page: ListToolsResult = self
            .request(methods::TOOLS_LIST, cursor_params(cursor), options)
            .await?;
        page.tools.retain(|tool| match header_params(&tool.input_schema) {
            Ok(_) => true,
            Err(reason) => {
                tracing::warn!(tool = %tool.name, %reason, "left out a tool with invalid x-mcp-header annotations");
                false
            }
        });
        Ok(page)
    }

    /// Every tool, following cursors.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.collect_pages(|cursor| async move {
            let page = self.list_tools(cursor).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    /// One page of resources.
    pub async fn list_resources(&self, cursor: Option<String>) -> Result<ListResourcesResult> {
        self.list_resources_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_resources`] with per-call options.
    pub async fn list_resources_with(
        &self,
        cursor: Option<String>,
        options: &CallOptions,
    ) -> Result<ListResourcesResult> {
        self.request(methods::RESOURCES_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every resource, following cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.collect_pages(|cursor| async move {
            let page = self.list_resources(cursor).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// One page of resource templates.
    pub async fn list_resource_templates(&self, cursor: Option<String>) -> Result<ListResourceTemplatesResult> {
        self.list_resource_templates_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_resource_templates`] with per-call options.
    pub async fn list_resource_templates_with(
        &self,
        cursor: Option<String>,
        options: &CallOptions,
    ) -> Result<ListResourceTemplatesResult> {
        self.request(methods::RESOURCES_TEMPLATES_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every resource template, following cursors.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.collect_pages(|cursor| async move {
            let page = self.list_resource_templates(cursor).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// One page of prompts.
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult> {
        self.list_prompts_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_prompts`] with per-call options.
    pub async fn list_prompts_with(&self, cursor: Option<String>, options: &CallOptions) -> Result<ListPromptsResult> {
        self.request(methods::PROMPTS_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every prompt, following cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.collect_pages(|cursor| async move {
            let page = self.list_prompts(cursor).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    async fn collect_pages<T, F, Fut>(&self, mut fetch: F) -> Result<Vec<T>>
    where
        F: FnMut(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>)>>,
    {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let (items, next) = fetch(cursor.take()).await?;
            all.extend(items);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Calls a tool. `arguments` must serialize to a JSON object (or null for none).
    pub async fn call_tool(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult> {
        self.call_tool_with(name, arguments, &CallOptions::default()).await
    }

    /// Calls a tool with per-call options (timeout, progress, cancellation).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: &CallOptions,
    ) -> Result<CallToolResult> {
        let arguments = serde_json::to_value(arguments).map_err(|e| Error::Protocol(e.to_string()))?;
        let mut params = Map::new();
        params.insert("name".into(), name.into());
        match arguments {
            Value::Null => {}
            Value::Object(_) => {
                params.insert("arguments".into(), arguments);
            }
            _ => return Err(Error::Protocol("tool arguments must be a JSON object".into())),
        }
        self.request(methods::TOOLS_CALL, params, options).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.read_resource_with(uri, &CallOptions::default()).await
    }

    /// [`Client::read_resource`] with per-call options (timeout, progress, cancellation).
    pub async fn read_resource_with(&self, uri: &str, options: &CallOptions) -> Result<ReadResourceResult> {
        let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
        self.request(methods::RESOURCES_READ, params, options).await
    }

    /// Gets a prompt with its arguments.
    pub async fn get_prompt(&self, name: &str, arguments: BTreeMap<String, String>) -> Result<GetPromptResult> {
        self.get_prompt_with(name, arguments, &CallOptions::default()).await
    }

    /// [`Client::get_prompt`] with per-call options (timeout, progress, cancellation).
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
        options: &CallOptions,
    ) -> Result<GetPromptResult> {
        let mut params = Map::from_iter([("name".to_owned(), Value::from(name))]);
        if !arguments.is_empty() {
            params.insert("arguments".into(), to_value(&arguments));
        }
        self.request(methods::PROMPTS_GET, params, options).await
    }

    /// Asks for completions of one argument of a prompt or resource template.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
    ) -> Result<Completion> {
        self.complete_with(reference, argument, value, context, &CallOptions::default())
            .await
    }

    /// [`Client::complete`] with per-call options (timeout, cancellation).
    pub async fn complete_with(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
        options: &CallOptions,
    ) -> Result<Completion> {
        let params = CompleteRequestParams {
            reference,
            argument: CompletionArgument {
                name: argument.to_owned(),
                value: value.to_owned(),
            },
            context: (!context.is_empty()).then_some(CompletionContext {
                arguments: Some(context),
            }),
            meta: None,
        };
        let Value::Object(params) = to_value(&params) else {
            unreachable!("a struct")
        };
        let result: CompleteResult = self.request(methods::COMPLETION_COMPLETE, params, options).await?;
        Ok(result.completion)
    }

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
    /// [`Subscription`] is dropped. Returns once the server acknowledged it.
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
        let subscription = Subscription { cancellation };
        let timeout = self.inner.options.timeout.unwrap_or(Duration::MAX);
        tokio::time::timeout(timeout, async {
            loop {
                match acks.recv().await {
                    Ok(ServerNotification::SubscriptionAcknowledged(_)) => return Ok(()),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Err(Error::ConnectionClosed),
                }
            }
        })
        .await
        .map_err(|_| Error::Timeout(timeout))??;
        Ok(subscription)
    }

    /// Sets the lowest level of log messages to receive: `logging/setLevel` in the legacy
    /// era, the `_meta` log level of every later request in the modern era.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<()> {
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("level".to_owned(), to_value(&level))]);
            let _: Value = self
                .request(methods::LOGGING_SET_LEVEL, params, &CallOptions::default())
                .await?;
        }
        *lock(&self.inner.log_level) = Some(level);
        Ok(())
    }

    /// Checks the server answers: `ping` in the legacy era, `server/discover` in the
    /// modern era (which has no `ping`).
    pub async fn ping(&self) -> Result<()> {
        let method = match self.protocol_version().era() {
            Era::Legacy => methods::PING,
            Era::Modern => methods::DISCOVER,
        };
        let _: Value = self.request(method, Map::new(), &CallOptions::default()).await?;
        Ok(())
    }

    /// Closes the connection; for a spawned server, shuts the process down (close stdin,
    /// wait, SIGTERM, wait, SIGKILL).
    pub async fn close(&self) -> Result<()> {
        self.inner.connection.shutdown().await;
        if let Some(child) = self.inner.child.lock().await.take() {
            child.shutdown().await?;
        }
        Ok(())
    }
}

/// An open `subscriptions/listen` stream; dropping it (or [`Subscription::cancel`])
/// ends the stream.
#[derive(Debug)]
pub struct Subscription {
    cancellation: CancellationToken,
}

impl Subscription {
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

/// Forgets a request that ended without its answer, and tells the server to stop it.
struct PendingGuard<'a> {
    client: &'a Client,
    id: RequestId,
    armed: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.client.inner.progress).remove(&self.id);
        if !self.armed {
            return;
        }
        let connection = Arc::clone(&self.client.inner.connection);
        connection.pending().forget(&self.id);
        let params = serde_json::json!({ "requestId": self.id, "reason": "cancelled by the client" });
        let text = jsonrpc::notification_text(methods::CANCELLED, Some(&params));
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = connection.send(text).await;
            });
        }
    }
}

#[derive(serde::Deserialize)]
struct ResultHead {
    #[serde(rename = "resultType", default)]
    result_type: Option<ResultType>,
}

fn cursor_params(cursor: Option<String>) -> Map<String, Value> {
    cursor
        .map(|c| Map::from_iter([("cursor".to_owned(), Value::from(c))]))
        .unwrap_or_default()
}

fn decode<T: DeserializeOwned>(raw: &RawValue) -> Result<T> {
    serde_json::from_str(raw.get()).map_err(|e| Error::InvalidResponse(e.to_string()))
}

fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
