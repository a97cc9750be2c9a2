//! The MCP server for Kotlin and Swift: a [`Server`] whose tools, resources and prompts are
//! implemented by foreign handlers, served over stdio or HTTP, and the per-request
//! [`Context`] those handlers receive.
//!
//! ```kotlin
//! val server = Server("notes", "1.0", null)
//! server.addTool(Tool(name = "shout", inputSchemaJson = schema), object : ToolHandler {
//!     override suspend fun call(argumentsJson: String, context: Context) =
//!         CallToolResult(content = listOf(ContentBlock.Text(text = "HI")))
//! })
//! val url = server.serveHttp("127.0.0.1:0")
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::uri_template::UriTemplate;
use oxmcp::server::{PromptDef, ResourceDef, TemplateDef, ToolDef, ToolOutput};

use crate::error::McpError;
use crate::handlers::{self, CompletionHandler, PromptHandler, ResourceHandler, ToolHandler};
use crate::types::{
    duration_ms, json_text, parse_json, size, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult,
    Era, LoggingLevel, Prompt, Resource, ResourceTemplate, Root, Tool,
};

/// Settings of the HTTP endpoint; every field has a default. `None` in a numeric field
/// keeps the core's default, given in its description.
#[derive(Debug, Clone, uniffi::Record)]
pub struct HttpOptions {
    /// The endpoint's path (default `/mcp`).
    #[uniffi(default = "/mcp")]
    pub path: String,
    /// The `Host` names accepted (default: `localhost`, `127.0.0.1`, `[::1]`, against DNS
    /// rebinding). An empty list accepts any host: only behind a proxy that checks it.
    #[uniffi(default = None)]
    pub allowed_hosts: Option<Vec<String>>,
    /// The `Origin` values allowed, `scheme://host` with any port or `scheme://host:port`
    /// (default: pages served from loopback hosts). Requests without `Origin` pass; others
    /// get 403.
    #[uniffi(default = None)]
    pub allowed_origins: Option<Vec<String>>,
    /// Answer with one JSON object, never SSE (notifications during a request, progress
    /// among them, are then dropped).
    #[uniffi(default = false)]
    pub json_response: bool,
    /// Legacy era without sessions: no `Mcp-Session-Id`, no GET stream.
    #[uniffi(default = false)]
    pub stateless: bool,
    /// How long an idle legacy session lives, in milliseconds (default 30 minutes).
    #[uniffi(default = None)]
    pub session_idle_timeout_ms: Option<i64>,
    /// The most legacy sessions at once (default 10 000); past it `initialize` gets 503.
    #[uniffi(default = None)]
    pub max_sessions: Option<i64>,
    /// The largest request body in bytes (default 4 MiB); a larger one gets 413.
    #[uniffi(default = None)]
    pub body_limit: Option<i64>,
    /// Also serve the deprecated HTTP+SSE transport of 2024-11-05 at `/sse` (the stream)
    /// and `/messages` (the POSTs).
    #[uniffi(default = false)]
    pub legacy_sse: bool,
    /// How many events each legacy SSE stream keeps for resumption (default 1024).
    #[uniffi(default = None)]
    pub events_kept: Option<i64>,
    /// The reconnection delay suggested to clients of legacy SSE streams, in milliseconds
    /// (default 1000).
    #[uniffi(default = None)]
    pub retry_ms: Option<i64>,
    /// Origins allowed by CORS (`*` for any); answers to them expose `Mcp-Session-Id`.
    #[uniffi(default)]
    pub cors_origins: Vec<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            allowed_hosts: None,
            allowed_origins: None,
            json_response: false,
            stateless: false,
            session_idle_timeout_ms: None,
            max_sessions: None,
            body_limit: None,
            legacy_sse: false,
            events_kept: None,
            retry_ms: None,
            cors_origins: Vec::new(),
        }
    }
}

impl TryFrom<HttpOptions> for HttpConfig {
    type Error = McpError;
    fn try_from(o: HttpOptions) -> Result<Self, McpError> {
        let mut config = HttpConfig::default()
            .path(o.path)
            .json_response(o.json_response)
            .stateless(o.stateless)
            .legacy_sse(o.legacy_sse)
            .cors_origins(o.cors_origins);
        if let Some(hosts) = o.allowed_hosts {
            config = config.allowed_hosts(hosts);
        }
        if let Some(origins) = o.allowed_origins {
            config = config.allowed_origins(origins);
        }
        if let Some(ms) = o.session_idle_timeout_ms {
            config = config.session_idle_timeout(duration_ms(ms, "sessionIdleTimeoutMs")?);
        }
        if let Some(sessions) = o.max_sessions {
            config = config.max_sessions(size(sessions, "maxSessions")?);
        }
        if let Some(bytes) = o.body_limit {
            config = config.body_limit(size(bytes, "bodyLimit")?);
        }
        if let Some(events) = o.events_kept {
            config = config.events_kept(size(events, "eventsKept")?);
        }
        if let Some(ms) = o.retry_ms {
            config = config.retry(duration_ms(ms, "retryMs")?);
        }
        Ok(config)
    }
}

/// An MCP server whose definitions may be added and removed at any time (connected clients
/// are told the lists changed). One value serves any number of connections.
#[derive(uniffi::Object)]
pub struct Server {
    inner: oxmcp::server::Server,
    /// The HTTP listeners, with the runtime each runs on (to stop them from `Drop`).
    listeners: Mutex<Vec<(HttpServerHandle, tokio::runtime::Handle)>>,
}

/// A server freed without [`Server::shutdown`] (Kotlin `close()`, Swift `deinit`) still stops
/// its HTTP listeners, in the background.
impl Drop for Server {
    fn drop(&mut self) {
        let listeners = std::mem::take(&mut *self.listeners.lock().unwrap_or_else(|e| e.into_inner()));
        for (listener, runtime) in listeners {
            runtime.spawn(async move {
                let _ = listener.shutdown().await;
            });
        }
    }
}

#[uniffi::export(async_runtime = "tokio")]
impl Server {
    /// A server with this name and version, and optional guidance for the model.
    #[uniffi::constructor(default(instructions = None))]
    pub fn new(name: String, version: String, instructions: Option<String>) -> Result<Arc<Self>, McpError> {
        let mut builder = oxmcp::server::Server::builder(name, version);
        if let Some(instructions) = instructions {
            builder = builder.instructions(instructions);
        }
        Ok(Arc::new(Server {
            inner: builder.build()?,
            listeners: Mutex::new(Vec::new()),
        }))
    }

    /// Adds a tool; a name is registered once (remove the tool first to replace it). Its
    /// input schema must be an object schema; arguments are checked against it before the
    /// handler runs. With an output schema, the handler's value is also `structuredContent`.
    pub fn add_tool(&self, tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<(), McpError> {
        let output = match tool.output_schema_json {
            Some(_) => ToolOutput::Inferred,
            None => ToolOutput::Content,
        };
        let def = ToolDef::from_tool(tool.try_into()?).handler_object(Arc::new(handlers::Tool(handler, output)));
        Ok(self.inner.add_tool(def)?)
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// Adds a resource at a fixed URI; a URI is registered once.
    pub fn add_resource(&self, resource: Resource, handler: Arc<dyn ResourceHandler>) -> Result<(), McpError> {
        let def =
            ResourceDef::from_resource(resource.try_into()?).handler_object(Arc::new(handlers::Resource(handler)));
        Ok(self.inner.add_resource(def)?)
    }

    /// Removes a resource; returns whether it existed.
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Adds a resource template (registered once); the handler gets the template's variables.
    /// `completions` suggests values for variables, by variable name.
    #[uniffi::method(default(completions))]
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
        completions: HashMap<String, Arc<dyn CompletionHandler>>,
    ) -> Result<(), McpError> {
        let mut def =
            TemplateDef::from_template(template.try_into()?).handler_object(Arc::new(handlers::Resource(handler)));
        for (variable, completer) in completions {
            def = def.complete(variable, handlers::Completion(completer));
        }
        Ok(self.inner.add_template(def)?)
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.inner.remove_template(&uri_template)
    }

    /// Adds a prompt (registered once). `completions` suggests values for arguments, by argument
    /// name.
    #[uniffi::method(default(completions))]
    pub fn add_prompt(
        &self,
        prompt: Prompt,
        handler: Arc<dyn PromptHandler>,
        completions: HashMap<String, Arc<dyn CompletionHandler>>,
    ) -> Result<(), McpError> {
        let mut def = PromptDef::from_prompt(prompt.try_into()?).handler_object(Arc::new(handlers::Prompt(handler)));
        for (argument, completer) in completions {
            def = def.complete(argument, handlers::Completion(completer));
        }
        Ok(self.inner.add_prompt(def)?)
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: String) -> bool {
        self.inner.remove_prompt(&name)
    }

    /// Tells the clients subscribed to `uri` that it changed.
    pub fn notify_resource_updated(&self, uri: String) {
        self.inner.notify_resource_updated(&uri);
    }

    /// Serves Streamable HTTP (both eras) on `addr` in the background, e.g. `127.0.0.1:0`
    /// for any free port, and returns the endpoint's URL. Bind loopback unless a proxy in
    /// front checks `Host`. Stops on [`Server::shutdown`].
    #[uniffi::method(default(addr = "127.0.0.1:0", options = None))]
    pub async fn serve_http(&self, addr: String, options: Option<HttpOptions>) -> Result<String, McpError> {
        let options = options.unwrap_or_default();
        let path = options.path.clone();
        let handle = self.inner.bind_http(addr, options.try_into()?).await?;
        let url = handle.url(&path);
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((handle, tokio::runtime::Handle::current()));
        Ok(url)
    }

    /// Serves this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(&self) -> Result<(), McpError> {
        Ok(self.inner.serve_stdio().await?)
    }

    /// Stops every HTTP listener started by [`Server::serve_http`] and waits for them.
    pub async fn shutdown(&self) -> Result<(), McpError> {
        let listeners = std::mem::take(&mut *self.listeners.lock().unwrap_or_else(|e| e.into_inner()));
        for (listener, _) in listeners {
            listener.shutdown().await?;
        }
        Ok(())
    }
}

/// What a handler knows about the request it serves, and how it talks back: progress, log
/// messages, cancellation, and requests to the client (elicitation, sampling, roots), which
/// work the same in both eras.
#[derive(uniffi::Object)]
pub struct Context {
    inner: oxmcp::server::Context,
}

impl Context {
    pub(crate) fn new(inner: oxmcp::server::Context) -> Arc<Self> {
        Arc::new(Context { inner })
    }
}

#[uniffi::export(async_runtime = "tokio")]
impl Context {
    /// The request's id, as JSON text (a number or a string).
    pub fn request_id_json(&self) -> String {
        json_text(self.inner.request_id())
    }

    /// The protocol version of the request, e.g. `2025-11-25`.
    pub fn protocol_version(&self) -> String {
        self.inner.protocol_version().as_str().to_owned()
    }

    /// The era of the request.
    pub fn era(&self) -> Era {
        self.inner.era().into()
    }

    /// The client's name, when it said.
    pub fn client_name(&self) -> Option<String> {
        self.inner.client_info().map(|info| info.name.clone())
    }

    /// What the client declared it can do (for this request, in the 2026-07-28 era), as
    /// JSON object text.
    pub fn client_capabilities_json(&self) -> String {
        json_text(self.inner.client_capabilities())
    }

    /// The request's `_meta` as the client sent it, as JSON object text (`progressToken`
    /// and, in the 2026-07-28 era, the protocol's own keys among the client's).
    pub fn meta_json(&self) -> Option<String> {
        self.inner.meta().map(json_text)
    }

    /// Whether the client cancelled the request (the handler's coroutine is cancelled too).
    pub fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// Waits until the client cancels the request.
    pub async fn cancelled(&self) {
        self.inner.cancellation().cancelled().await;
    }

    /// Reports progress, when the client asked for it. Values must increase.
    #[uniffi::method(default(total = None, message = None))]
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.inner.progress(progress, total, message).await;
    }

    /// Sends a log message (any JSON value, as text) if the client wants this level.
    #[uniffi::method(default(logger = None))]
    pub async fn log(&self, level: LoggingLevel, logger: Option<String>, data_json: String) -> Result<(), McpError> {
        let data = parse_json(&data_json, "log data")?;
        self.inner.log(level.into(), logger.as_deref(), data).await;
        Ok(())
    }

    /// Asks the client's user for input. In the 2026-07-28 era the first call ends this run
    /// of the handler (its coroutine is cancelled); the client's retry runs the handler
    /// again and this call then returns the answer. Keep handlers free of side effects
    /// before their questions.
    pub async fn elicit(&self, request: ElicitRequest) -> Result<ElicitResult, McpError> {
        let result = self.inner.elicit(request.try_into()?).await?;
        Ok(result.into())
    }

    /// Asks the client's LLM for a completion (same era behaviour as [`Context::elicit`]).
    pub async fn sample(&self, request: CreateMessageRequest) -> Result<CreateMessageResult, McpError> {
        let result = self.inner.sample(request.try_into()?).await?;
        Ok(result.into())
    }

    /// Asks the client for its roots (same era behaviour as [`Context::elicit`]).
    pub async fn list_roots(&self) -> Result<Vec<Root>, McpError> {
        let result = self.inner.list_roots().await?;
        Ok(result.roots.into_iter().map(Into::into).collect())
    }
}

/// The variable names of an RFC 6570 URI template, in order (none for a plain URI).
#[uniffi::export]
pub fn uri_template_variables(template: String) -> Result<Vec<String>, McpError> {
    let template = UriTemplate::parse(&template).map_err(McpError::invalid_input)?;
    Ok(template.variables().map(str::to_owned).collect())
}
