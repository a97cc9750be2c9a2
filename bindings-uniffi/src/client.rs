//! The MCP client for Kotlin and Swift: [`Client`], its [`ClientOptions`], per-call
//! [`CallOptions`] and [`CancellationHandle`].
//!
//! Every method is a `suspend fun` in Kotlin and `async throws` in Swift. Cancelling the
//! Kotlin coroutine drops the Rust future, and the core then tells the server to stop the
//! request (`notifications/cancelled`, or the end of the modern request's stream). Swift
//! does not propagate task cancellation across the FFI: pass a [`CancellationHandle`] and
//! cancel it from `withTaskCancellationHandler`.
//!
//! ```kotlin
//! val client = Client.connectHttp("http://127.0.0.1:8000/mcp", ClientOptions(name = "app", version = "1.0"))
//! val result = client.callTool("echo", """{"text":"hi"}""")
//! client.disconnect()
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use oxmcp::client::{CallOptions as CoreCallOptions, ClientOptions as CoreClientOptions, Subscription};
use oxmcp::transport::child::{StderrMode, StdioCommand as CoreStdioCommand};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_util::sync::CancellationToken;

use crate::convert::{
    duration_ms, json_text, parse_json, parse_object, size, to_btree, CallToolResult, Completion, CompletionReference,
    EraMode, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingLevel, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerDetails, ServerNotification,
    SubscriptionFilter, Task, Tool,
};
use crate::error::McpError;
use crate::handler::{
    Elicitation, ElicitationHandler, NotificationListener, ProgressListener, Roots, RootsHandler, Sampling,
    SamplingHandler,
};
use crate::http::HttpSettings;

/// How a client connects: its identity, era, timeouts, and the handlers that answer the
/// server's requests. Only `name` and `version` are required.
#[derive(uniffi::Record)]
pub struct ClientOptions {
    /// The client's name, sent to the server.
    pub name: String,
    /// The client's version.
    pub version: String,
    /// Which era to speak (default `Auto`: probe with `server/discover`, fall back to the
    /// `initialize` handshake).
    #[uniffi(default = None)]
    pub era: Option<EraMode>,
    /// The default timeout of every request in milliseconds (default 60 000).
    #[uniffi(default = 60000)]
    pub timeout_ms: i64,
    /// Requests have no timeout at all (overrides `timeout_ms`).
    #[uniffi(default = false)]
    pub wait_forever: bool,
    /// How long the `Auto` probe waits before taking the server for legacy (default 5000).
    #[uniffi(default = 5000)]
    pub probe_timeout_ms: i64,
    /// Answers elicitation requests (form mode).
    #[uniffi(default = None)]
    pub elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// The elicitation handler also takes URL-mode requests.
    #[uniffi(default = false)]
    pub elicitation_url: bool,
    /// Answers sampling requests.
    #[uniffi(default = None)]
    pub sampling: Option<Arc<dyn SamplingHandler>>,
    /// The sampling handler supports tools.
    #[uniffi(default = false)]
    pub sampling_tools: bool,
    /// Answers roots requests.
    #[uniffi(default = None)]
    pub roots: Option<Arc<dyn RootsHandler>>,
    /// Receives every notification of the connection.
    #[uniffi(default = None)]
    pub notifications: Option<Arc<dyn NotificationListener>>,
    /// How many pages the `listAll*` calls follow at most (default 100); a listing with
    /// more, or one whose server repeats a cursor, fails.
    #[uniffi(default = 100)]
    pub max_list_pages: i64,
    /// How many of the server's requests are answered at once (default 16); more are
    /// refused at once.
    #[uniffi(default = 16)]
    pub max_server_requests: i64,
    /// How many sampling requests one 2026-07-28 `input_required` round may ask for
    /// (default 8).
    #[uniffi(default = 8)]
    pub max_sampling_per_round: i64,
    /// Declare the 2026-07-28 tasks extension (default on): a tool call the server answers
    /// with a task is followed to its result.
    #[uniffi(default = true)]
    pub tasks: bool,
}

impl ClientOptions {
    fn to_core(&self) -> Result<CoreClientOptions, McpError> {
        let timeout = if self.wait_forever {
            None
        } else {
            Some(duration_ms(self.timeout_ms, "timeoutMs")?)
        };
        let mut options = CoreClientOptions::new(&self.name, &self.version)
            .era(self.era.unwrap_or_default().into())
            .timeout(timeout)
            .probe_timeout(duration_ms(self.probe_timeout_ms, "probeTimeoutMs")?)
            .max_list_pages(size(self.max_list_pages, "maxListPages")?)
            .max_server_requests(size(self.max_server_requests, "maxServerRequests")?)
            .max_sampling_per_round(size(self.max_sampling_per_round, "maxSamplingPerRound")?)
            .tasks(self.tasks);
        if let Some(handler) = &self.elicitation {
            options = options.on_elicitation(Elicitation(Arc::clone(handler)), self.elicitation_url);
        }
        if let Some(handler) = &self.sampling {
            options = options.on_sampling(Sampling(Arc::clone(handler)), self.sampling_tools);
        }
        if let Some(handler) = &self.roots {
            options = options.on_roots(Roots(Arc::clone(handler)));
        }
        Ok(options)
    }
}

/// A server to start as a child process and talk to over its stdin and stdout.
#[derive(uniffi::Record)]
pub struct StdioCommand {
    /// The program.
    pub program: String,
    /// Its arguments.
    #[uniffi(default)]
    pub args: Vec<String>,
    /// Environment variables set on top of this process's environment.
    #[uniffi(default)]
    pub env: HashMap<String, String>,
    /// The working directory.
    #[uniffi(default = None)]
    pub cwd: Option<String>,
    /// Discard the server's stderr instead of sharing this process's.
    #[uniffi(default = false)]
    pub quiet: bool,
    /// The largest message accepted from the server, in bytes (default `None`: 4 MiB).
    #[uniffi(default = None)]
    pub max_message_size: Option<i64>,
    /// How long each step of the shutdown waits (after closing stdin, after SIGTERM), in
    /// milliseconds (default `None`: 2000).
    #[uniffi(default = None)]
    pub shutdown_grace_ms: Option<i64>,
}

impl TryFrom<StdioCommand> for CoreStdioCommand {
    type Error = McpError;
    fn try_from(c: StdioCommand) -> Result<Self, McpError> {
        let mut command = CoreStdioCommand::new(c.program).args(c.args);
        for (key, value) in c.env {
            command = command.env(key, value);
        }
        if let Some(cwd) = c.cwd {
            command = command.cwd(cwd);
        }
        if c.quiet {
            command = command.stderr(StderrMode::Null);
        }
        if let Some(bytes) = c.max_message_size {
            command = command.max_message_size(size(bytes, "maxMessageSize")?);
        }
        if let Some(ms) = c.shutdown_grace_ms {
            command = command.shutdown_grace(duration_ms(ms, "shutdownGraceMs")?);
        }
        Ok(command)
    }
}

/// Cancels the requests it was given to. For Swift (whose task cancellation does not cross
/// the FFI) and for cancelling from elsewhere than the calling coroutine.
#[derive(Debug, Default, uniffi::Object)]
pub struct CancellationHandle {
    token: CancellationToken,
}

#[uniffi::export]
impl CancellationHandle {
    /// A handle not cancelled yet.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(CancellationHandle::default())
    }

    /// Cancels every request given this handle; they fail with `Cancelled`.
    pub fn cancel(&self) {
        self.token.cancel();
    }

    /// Whether [`CancellationHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

/// Settings of one call.
#[derive(uniffi::Record)]
pub struct CallOptions {
    /// This call's timeout in milliseconds (default: the client's).
    #[uniffi(default = None)]
    pub timeout_ms: Option<i64>,
    /// This call has no timeout (overrides `timeout_ms`).
    #[uniffi(default = false)]
    pub wait_forever: bool,
    /// Receives the call's progress reports.
    #[uniffi(default = None)]
    pub progress: Option<Arc<dyn ProgressListener>>,
    /// Restart the timeout whenever progress arrives.
    #[uniffi(default = false)]
    pub reset_timeout_on_progress: bool,
    /// Cancels the call when cancelled.
    #[uniffi(default = None)]
    pub cancellation: Option<Arc<CancellationHandle>>,
}

impl CallOptions {
    fn to_core(&self) -> Result<CoreCallOptions, McpError> {
        let timeout = match (self.wait_forever, self.timeout_ms) {
            (true, _) => Some(None),
            (false, Some(ms)) => Some(Some(duration_ms(ms, "timeoutMs")?)),
            (false, None) => None,
        };
        Ok(CoreCallOptions {
            timeout,
            on_progress: self.progress.as_ref().map(|listener| {
                let listener = Arc::clone(listener);
                Arc::new(move |p: oxmcp::protocol::ProgressNotificationParams| listener.on_progress(p.into()))
                    as oxmcp::client::ProgressCallback
            }),
            reset_timeout_on_progress: self.reset_timeout_on_progress,
            cancellation: self.cancellation.as_ref().map(|c| c.token.clone()),
            ..CoreCallOptions::default()
        })
    }

    /// The core's options of a call given these (or no) options.
    fn core_or_default(options: Option<CallOptions>) -> Result<CoreCallOptions, McpError> {
        options.map(|o| o.to_core()).transpose().map(Option::unwrap_or_default)
    }
}

/// A connection to an MCP server.
#[derive(uniffi::Object)]
pub struct Client {
    inner: oxmcp::client::Client,
    /// Stops the task that feeds the notification listener, and ends `next_notification`.
    listener: CancellationToken,
    /// The notifications since the client connected, for `next_notification`.
    feed: tokio::sync::Mutex<broadcast::Receiver<oxmcp::client::ServerNotification>>,
    /// Open modern-era subscriptions, ended on disconnect.
    subscriptions: Mutex<Vec<Subscription>>,
    /// Set by [`Client::disconnect`]; otherwise dropping the client closes the connection.
    disconnected: AtomicBool,
    /// The runtime the connection runs on, to close it from `Drop`.
    runtime: Option<tokio::runtime::Handle>,
}

impl Client {
    /// The core's client, for what forwards through it (a proxy).
    pub(crate) fn core(&self) -> &oxmcp::client::Client {
        &self.inner
    }

    fn wrap(inner: oxmcp::client::Client, options: &ClientOptions) -> Arc<Self> {
        let listener = CancellationToken::new();
        let feed = tokio::sync::Mutex::new(inner.notifications());
        if let Some(target) = options.notifications.clone() {
            let mut notifications = inner.notifications();
            let stop = listener.clone();
            tokio::spawn(async move {
                loop {
                    let next = tokio::select! {
                        _ = stop.cancelled() => return,
                        next = notifications.recv() => next,
                    };
                    match next {
                        Ok(notification) => target.on_notification(notification.into()),
                        Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => return,
                    }
                }
            });
        }
        Arc::new(Client {
            inner,
            listener,
            feed,
            subscriptions: Mutex::new(Vec::new()),
            disconnected: AtomicBool::new(false),
            runtime: tokio::runtime::Handle::try_current().ok(),
        })
    }
}

/// A client freed without [`Client::disconnect`] (Kotlin `close()`, Swift `deinit`) still
/// closes its connection and shuts a spawned server down, in the background.
impl Drop for Client {
    fn drop(&mut self) {
        self.listener.cancel();
        if self.disconnected.load(Ordering::Acquire) {
            return;
        }
        if let Some(runtime) = &self.runtime {
            let inner = self.inner.clone();
            runtime.spawn(async move {
                let _ = inner.close().await;
            });
        }
    }
}

#[uniffi::export(async_runtime = "tokio")]
impl Client {
    /// Connects to a Streamable HTTP endpoint (an old HTTP+SSE endpoint works too) and
    /// settles the era. `http` adds headers, a bearer token, transport settings.
    #[uniffi::constructor(default(http = None))]
    pub async fn connect_http(
        url: String,
        options: ClientOptions,
        http: Option<HttpSettings>,
    ) -> Result<Arc<Self>, McpError> {
        let inner = match http {
            None => oxmcp::client::Client::connect_http(url, options.to_core()?).await?,
            Some(http) => {
                let transport = oxmcp::transport::http::client::connect(http.to_core(url)?)?;
                oxmcp::client::Client::connect(transport, options.to_core()?).await?
            }
        };
        Ok(Client::wrap(inner, &options))
    }

    /// Starts a server process and connects to it over its stdin and stdout (desktop JVM,
    /// macOS; not on iOS or Android).
    #[uniffi::constructor]
    pub async fn spawn(command: StdioCommand, options: ClientOptions) -> Result<Arc<Self>, McpError> {
        let inner = oxmcp::client::Client::spawn(command.try_into()?, options.to_core()?).await?;
        Ok(Client::wrap(inner, &options))
    }

    /// What the connection settled on: version, era, server info, capabilities.
    pub fn server_details(&self) -> ServerDetails {
        self.inner.server_details().into()
    }

    /// One page of tools. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(cursor = None, options = None))]
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<ListToolsResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.list_tools_with(cursor, &options).await?.into())
    }

    /// Every tool, following cursors. `options` may set a timeout or a cancellation
    /// handle for each page's request.
    #[uniffi::method(default(options = None))]
    pub async fn list_all_tools(&self, options: Option<CallOptions>) -> Result<Vec<Tool>, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .list_all_tools_with(&options)
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// One page of resources. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(cursor = None, options = None))]
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<ListResourcesResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.list_resources_with(cursor, &options).await?.into())
    }

    /// Every resource, following cursors. `options` may set a timeout or a cancellation
    /// handle for each page's request.
    #[uniffi::method(default(options = None))]
    pub async fn list_all_resources(&self, options: Option<CallOptions>) -> Result<Vec<Resource>, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .list_all_resources_with(&options)
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// One page of resource templates. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(cursor = None, options = None))]
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.list_resource_templates_with(cursor, &options).await?.into())
    }

    /// Every resource template, following cursors. `options` may set a timeout or a cancellation
    /// handle for each page's request.
    #[uniffi::method(default(options = None))]
    pub async fn list_all_resource_templates(
        &self,
        options: Option<CallOptions>,
    ) -> Result<Vec<ResourceTemplate>, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .list_all_resource_templates_with(&options)
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// One page of prompts. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(cursor = None, options = None))]
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<ListPromptsResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.list_prompts_with(cursor, &options).await?.into())
    }

    /// Every prompt, following cursors. `options` may set a timeout or a cancellation
    /// handle for each page's request.
    #[uniffi::method(default(options = None))]
    pub async fn list_all_prompts(&self, options: Option<CallOptions>) -> Result<Vec<Prompt>, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .list_all_prompts_with(&options)
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// Calls a tool. `arguments_json` is a JSON object as text (`None`: no arguments). A
    /// tool that fails returns a result with `isError`; a protocol failure (unknown tool,
    /// arguments that break the schema) throws `McpException.Remote`.
    #[uniffi::method(default(arguments_json = None, options = None))]
    pub async fn call_tool(
        &self,
        name: String,
        arguments_json: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<CallToolResult, McpError> {
        let arguments = tool_arguments(arguments_json)?;
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.call_tool_with(&name, arguments, &options).await?.into())
    }

    /// Calls a tool as a task, when the server runs it as one, and gives a `ToolTask` to
    /// poll, wait for, read or cancel. In 2026-07-28 the server decides (for clients that
    /// declare the tasks extension, as this one does unless `ClientOptions.tasks` is off);
    /// in 2025-11-25 the call asks for a task when the server runs tool calls as tasks. A
    /// server that answers in place gives a `ToolTask` without an id, whose `result()` is
    /// that answer. `callTool` follows tasks on its own.
    #[uniffi::method(default(arguments_json = None))]
    pub async fn call_tool_as_task(
        &self,
        name: String,
        arguments_json: Option<String>,
    ) -> Result<Arc<ToolTask>, McpError> {
        let arguments = tool_arguments(arguments_json)?;
        let inner = self.inner.call_tool_as_task(&name, arguments).await?;
        Ok(Arc::new(ToolTask { inner }))
    }

    /// A handle on task `id`, made by an earlier tool call (of this connection, or of
    /// another one of the same caller: say, before the app restarted).
    pub fn tool_task(&self, id: String) -> Arc<ToolTask> {
        Arc::new(ToolTask {
            inner: self.inner.tool_task(id),
        })
    }

    /// Reads a resource. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(options = None))]
    pub async fn read_resource(
        &self,
        uri: String,
        options: Option<CallOptions>,
    ) -> Result<ReadResourceResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.read_resource_with(&uri, &options).await?.into())
    }

    /// Gets a prompt rendered with its arguments. `options` may set a timeout or a
    /// cancellation handle.
    #[uniffi::method(default(options = None, arguments))]
    pub async fn get_prompt(
        &self,
        name: String,
        arguments: HashMap<String, String>,
        options: Option<CallOptions>,
    ) -> Result<GetPromptResult, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .get_prompt_with(&name, to_btree(arguments), &options)
            .await?
            .into())
    }

    /// Asks for completions of one argument of a prompt or resource template; `context`
    /// holds the values of the other arguments. `options` may set a timeout or a
    /// cancellation handle.
    #[uniffi::method(default(options = None, context))]
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: String,
        value: String,
        context: HashMap<String, String>,
        options: Option<CallOptions>,
    ) -> Result<Completion, McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self
            .inner
            .complete_with(reference.into(), &argument, &value, to_btree(context), &options)
            .await?
            .into())
    }

    /// Asks for updates of one resource; they arrive on the notification listener as
    /// `ResourceUpdated`. `options` may set a timeout or a cancellation handle for the
    /// request (in the 2026-07-28 era, for the wait for the server's acknowledgement).
    #[uniffi::method(default(options = None))]
    pub async fn subscribe_resource(&self, uri: String, options: Option<CallOptions>) -> Result<(), McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.subscribe_resource_with(&uri, &options).await?)
    }

    /// Stops updates of one resource. `options` may set a timeout or a cancellation handle.
    #[uniffi::method(default(options = None))]
    pub async fn unsubscribe_resource(&self, uri: String, options: Option<CallOptions>) -> Result<(), McpError> {
        let options = CallOptions::core_or_default(options)?;
        Ok(self.inner.unsubscribe_resource_with(&uri, &options).await?)
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28 era) for the notifications in
    /// `filter`; they arrive on the notification listener until [`Client::disconnect`]. In
    /// the legacy era the server sends them unasked, and this does nothing.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<(), McpError> {
        if self.inner.protocol_version().era() == oxmcp::protocol::Era::Legacy {
            return Ok(());
        }
        let subscription = self.inner.listen(filter.into()).await?;
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(subscription);
        Ok(())
    }

    /// Sends any request (an extension method, say) in the connection's era and returns its
    /// result as JSON text. `params_json` must be a JSON object (`None`: no params). Multi
    /// round-trip answers are handled as for every other request.
    #[uniffi::method(default(params_json = None, options = None))]
    pub async fn request(
        &self,
        method: String,
        params_json: Option<String>,
        options: Option<CallOptions>,
    ) -> Result<String, McpError> {
        let params = match params_json {
            Some(text) => parse_object(&text, "params")?,
            None => serde_json::Map::new(),
        };
        let options = CallOptions::core_or_default(options)?;
        let result: serde_json::Value = self.inner.request(&method, params, &options).await?;
        Ok(json_text(&result))
    }

    /// Sends notification `method` with `params_json` (a JSON object; `None`: no params).
    #[uniffi::method(default(params_json = None))]
    pub async fn notify(&self, method: String, params_json: Option<String>) -> Result<(), McpError> {
        let params = params_json.map(|text| parse_object(&text, "params")).transpose()?;
        Ok(self.inner.notify(&method, params).await?)
    }

    /// Tells the server the roots the roots handler gives changed (legacy era; a
    /// 2026-07-28 server asks for them within each request, so nothing is sent).
    pub async fn notify_roots_list_changed(&self) -> Result<(), McpError> {
        Ok(self.inner.notify_roots_list_changed().await?)
    }

    /// Sets the lowest level of log messages to receive.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), McpError> {
        Ok(self.inner.set_log_level(level.into()).await?)
    }

    /// Checks the server answers.
    pub async fn ping(&self) -> Result<(), McpError> {
        Ok(self.inner.ping().await?)
    }

    /// The next notification of the connection (list changes, resource updates, log
    /// messages, progress), once it comes; `None` once the client is disconnected. Every
    /// notification since the client connected comes once, in order (a reader more than
    /// 1024 behind misses the oldest). Kotlin's `Client.notifications()` Flow reads it.
    pub async fn next_notification(&self) -> Option<ServerNotification> {
        let mut feed = self.feed.lock().await;
        loop {
            let next = tokio::select! {
                _ = self.listener.cancelled() => return None,
                next = feed.recv() => next,
            };
            match next {
                Ok(notification) => return Some(notification.into()),
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// Closes the connection; a spawned server process is shut down. (Named so as not to
    /// clash with `AutoCloseable.close`, which frees the native object.)
    pub async fn disconnect(&self) -> Result<(), McpError> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.listener.cancel();
        self.disconnected.store(true, Ordering::Release);
        Ok(self.inner.close().await?)
    }
}

/// Tool arguments from their JSON text: an object, or nothing.
fn tool_arguments(arguments_json: Option<String>) -> Result<serde_json::Value, McpError> {
    let arguments = match arguments_json {
        Some(text) => parse_json(&text, "tool arguments")?,
        None => serde_json::Value::Null,
    };
    if !(arguments.is_object() || arguments.is_null()) {
        return Err(McpError::invalid_input("tool arguments must be a JSON object"));
    }
    Ok(arguments)
}

/// A tool call the server runs as a task (see `Client.callToolAsTask`). What the task asks
/// for while it runs goes to the client's elicitation, sampling and roots handlers.
#[derive(uniffi::Object)]
pub struct ToolTask {
    inner: oxmcp::client::ToolTask,
}

#[uniffi::export(async_runtime = "tokio")]
impl ToolTask {
    /// The task's id; `None` when the server answered the call in place.
    pub fn id(&self) -> Option<String> {
        self.inner.id().map(str::to_owned)
    }

    /// The task as the server shows it now; `None` when the call was answered in place.
    pub async fn status(&self) -> Result<Option<Task>, McpError> {
        Ok(self.inner.status().await?.map(Into::into))
    }

    /// Waits until the task ends, and gives it as it ended.
    pub async fn wait(&self) -> Result<Option<Task>, McpError> {
        Ok(self.inner.wait().await?.map(Into::into))
    }

    /// What the tool returned, once the task ended (waiting for it). A task that failed
    /// throws its error; one that was cancelled, `McpException.Cancelled`.
    pub async fn result(&self) -> Result<CallToolResult, McpError> {
        Ok(self.inner.result().await?.into())
    }

    /// Asks the server to stop the task; a task that ended stays as it ended.
    pub async fn cancel(&self) -> Result<(), McpError> {
        Ok(self.inner.cancel().await?)
    }
}
