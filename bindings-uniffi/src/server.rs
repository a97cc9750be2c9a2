//! The MCP server for Kotlin and Swift: a [`Server`] whose tools, resources and prompts are
//! implemented by foreign handlers (the traits of [`crate::handler`]), served over stdio or
//! HTTP (settings in [`crate::http`]), within the bounds on each client of its
//! [`ServerOptions`]. The per-request context those handlers receive is
//! [`crate::context::Context`].
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

use oxmcp::protocol::Implementation;
use oxmcp::server::http::HttpServerHandle;
use oxmcp::server::uri_template::UriTemplate;
use oxmcp::server::{
    PromptDef, Proxy, ResourceDef, ResourceTemplateDef, ServerBuilder, TaskLimits, ToolDef, ToolOutput,
};
use oxmcp::state::SqliteTaskStore;
use tokio::task::JoinHandle;

use crate::auth::Verifier;
use crate::client::Client;
use crate::convert::{duration_ms, icons_into, size, Icon, Prompt, Resource, ResourceTemplate, Tool};
use crate::error::McpError;
use crate::handler::{self, CompletionHandler, PromptHandler, ResourceHandler, ToolHandler};
use crate::http::HttpOptions;
use oxmcp::server::auth::TokenVerifier;

/// Which list a registration shows in.
#[derive(uniffi::Enum, Clone, Copy)]
pub enum DefinitionKind {
    /// A tool, by name.
    Tool,
    /// A static resource, by URI.
    Resource,
    /// A resource template, by URI template.
    ResourceTemplate,
    /// A prompt, by name.
    Prompt,
}

impl From<DefinitionKind> for oxmcp::server::DefinitionKind {
    fn from(kind: DefinitionKind) -> Self {
        match kind {
            DefinitionKind::Tool => Self::Tool,
            DefinitionKind::Resource => Self::Resource,
            DefinitionKind::ResourceTemplate => Self::ResourceTemplate,
            DefinitionKind::Prompt => Self::Prompt,
        }
    }
}

/// An MCP server whose definitions may be added and removed at any time (connected clients
/// are told the lists changed). One value serves any number of connections.
#[derive(uniffi::Object)]
pub struct Server {
    inner: oxmcp::server::Server,
    /// What checks the tokens of HTTP requests, when the server requires them.
    auth: Option<Arc<dyn TokenVerifier>>,
    /// The HTTP listeners, with the runtime each runs on (to stop them from `Drop`).
    listeners: Mutex<Vec<(HttpServerHandle, tokio::runtime::Handle)>>,
}

/// A server freed without [`Server::shutdown`] (Kotlin `close()`, Swift `deinit`) still stops
/// its HTTP listeners, in the background.
impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stop_listeners());
    }
}

/// How a server describes itself, bounds on each client, and how much its errors say; every
/// field has a default. `None` keeps the core's default, given in its description.
#[derive(Default, uniffi::Record)]
pub struct ServerOptions {
    /// The server's display name, shown to users.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// What the server is, for people.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// The server's web site.
    #[uniffi(default = None)]
    pub website_url: Option<String>,
    /// Icons clients may show for the server.
    #[uniffi(default)]
    pub icons: Vec<Icon>,
    /// Splits list results into pages of at most this many items (default: one page).
    #[uniffi(default = None)]
    pub page_size: Option<i64>,
    /// Capabilities declared while nothing is registered for them: `tools`, `resources`,
    /// `prompts`, `completions`. A server declares what it has when a client asks; name
    /// what it will add while clients are connected (a 2025-11-25 client reads
    /// capabilities once, at its handshake).
    #[uniffi(default)]
    pub declare: Vec<String>,
    /// The most requests one client may have in flight (default 256); past it a request
    /// gets an error at once.
    #[uniffi(default = None)]
    pub max_in_flight: Option<i64>,
    /// The most resources one legacy client may subscribe to (default 1024).
    #[uniffi(default = None)]
    pub max_subscriptions: Option<i64>,
    /// How long a client's requests in flight may finish once its input ended (stdin
    /// closed, the peer gone), in milliseconds (default 5000); then they are cancelled.
    #[uniffi(default = None)]
    pub end_grace_ms: Option<i64>,
    /// How long a request to a legacy client (elicitation, sampling, roots) waits for its
    /// answer, in milliseconds (default 300000).
    #[uniffi(default = None)]
    pub client_request_timeout_ms: Option<i64>,
    /// Sends a generic message instead of what a handler's error says (default false; the
    /// detail is logged).
    #[uniffi(default = None)]
    pub mask_error_details: Option<bool>,
    /// Makes every HTTP request need a token this verifier accepts, meant for the
    /// server's URL (`HttpOptions` name it, the authorization servers and the required
    /// scopes); handlers read it from `Context.accessToken()`.
    #[uniffi(default = None)]
    pub auth: Option<Verifier>,
    /// The SQLite file tools run as tasks are kept in (default: in memory): a restarted
    /// server still gives the results of tasks that finished, and reports those it was
    /// running as failed.
    #[uniffi(default = None)]
    pub task_store: Option<String>,
    /// How long a task is kept after it was created, in milliseconds (default 3600000).
    #[uniffi(default = None)]
    pub task_ttl_ms: Option<i64>,
    /// How often clients are asked to poll a task, in milliseconds (default 500).
    #[uniffi(default = None)]
    pub task_poll_interval_ms: Option<i64>,
    /// The most tasks kept at once (default 10000).
    #[uniffi(default = None)]
    pub max_tasks: Option<i64>,
}

impl ServerOptions {
    /// `builder` with this description, these bounds and declarations.
    fn apply(&self, mut builder: ServerBuilder, mut info: Implementation) -> Result<ServerBuilder, McpError> {
        info.title.clone_from(&self.title);
        info.description.clone_from(&self.description);
        info.website_url.clone_from(&self.website_url);
        info.icons = icons_into(self.icons.clone())?;
        builder = builder.info(info);
        if let Some(items) = self.page_size {
            builder = builder.page_size(size(items, "pageSize")?);
        }
        for name in &self.declare {
            builder = builder.declare(name.parse().map_err(McpError::invalid_input)?);
        }
        if let Some(requests) = self.max_in_flight {
            builder = builder.max_in_flight(size(requests, "maxInFlight")?);
        }
        if let Some(uris) = self.max_subscriptions {
            builder = builder.max_subscriptions(size(uris, "maxSubscriptions")?);
        }
        if let Some(ms) = self.end_grace_ms {
            builder = builder.end_grace(duration_ms(ms, "endGraceMs")?);
        }
        if let Some(ms) = self.client_request_timeout_ms {
            builder = builder.client_request_timeout(duration_ms(ms, "clientRequestTimeoutMs")?);
        }
        if let Some(mask) = self.mask_error_details {
            builder = builder.mask_error_details(mask);
        }
        let defaults = TaskLimits::default();
        builder = builder.task_limits(TaskLimits {
            ttl: self
                .task_ttl_ms
                .map_or(Ok(defaults.ttl), |ms| duration_ms(ms, "taskTtlMs"))?,
            poll_interval: self
                .task_poll_interval_ms
                .map_or(Ok(defaults.poll_interval), |ms| duration_ms(ms, "taskPollIntervalMs"))?,
            max_tasks: self
                .max_tasks
                .map_or(Ok(defaults.max_tasks), |max| size(max, "maxTasks"))?,
        });
        if let Some(path) = &self.task_store {
            let store =
                SqliteTaskStore::open(path).map_err(|e| McpError::invalid_input(format!("taskStore {path}: {e}")))?;
            builder = builder.task_store(Arc::new(store));
        }
        Ok(builder)
    }
}

#[uniffi::export(async_runtime = "tokio")]
impl Server {
    /// A server with this name and version, optional guidance for the model, and the
    /// bounds on each client.
    #[uniffi::constructor(default(instructions = None, options = None))]
    pub fn new(
        name: String,
        version: String,
        instructions: Option<String>,
        options: Option<ServerOptions>,
    ) -> Result<Arc<Self>, McpError> {
        let info = Implementation::new(name.clone(), version.clone());
        let mut builder = oxmcp::server::Server::builder(name, version);
        if let Some(instructions) = instructions {
            builder = builder.instructions(instructions);
        }
        let options = options.unwrap_or_default();
        let builder = options.apply(builder, info)?;
        Ok(Arc::new(Server {
            inner: builder.build()?,
            auth: options.auth.map(Verifier::into_core).transpose()?,
            listeners: Mutex::new(Vec::new()),
        }))
    }

    /// Serves what `upstream`'s server offers too, after what is registered here and the
    /// servers proxied before: its tools, prompts, resources and templates, listed page by
    /// page and forwarded through that client, and its completions. With a `namespace`,
    /// its tool and prompt names get `namespace_` in front and its URIs `namespace/` after
    /// their scheme. A forwarded call's progress comes back as it arrives, its caller
    /// cancelling cancels it, and what a 2026-07-28 server asks reaches the caller.
    #[uniffi::method(default(namespace = None))]
    pub fn proxy(&self, upstream: Arc<Client>, namespace: Option<String>) {
        let proxy = Proxy::new(upstream.core().clone());
        self.inner
            .add_proxy(namespace.into_iter().fold(proxy, Proxy::namespaced));
    }

    /// Adds a tool; a name is registered once (remove the tool first to replace it). Its
    /// input schema must be an object schema; arguments are checked against it before the
    /// handler runs. With an output schema, the handler's value is also `structuredContent`.
    /// `scopes` are those a caller's token must grant to call it over protected HTTP; `task`
    /// says whether it runs as a task (default never); with `asksBeforeTask` the handler's
    /// questions come first, answered in place, and the call becomes a task where the
    /// handler calls `context.beginTask()`.
    #[uniffi::method(default(scopes = [], task = None, asks_before_task = false))]
    pub fn add_tool(
        &self,
        tool: Tool,
        handler: Arc<dyn ToolHandler>,
        scopes: Vec<String>,
        task: Option<TaskSupport>,
        asks_before_task: bool,
    ) -> Result<(), McpError> {
        let output = match tool.output_schema_json {
            Some(_) => ToolOutput::Inferred,
            None => ToolOutput::Content,
        };
        let mut def = ToolDef::from_tool(tool.try_into()?)
            .handler_object(Arc::new(handler::Tool(handler, output)))
            .scopes(scopes)
            .task_support(task.map_or(oxmcp::server::TaskSupport::Forbidden, Into::into));
        if asks_before_task {
            def = def.asks_before_task();
        }
        Ok(self.inner.add_tool(def)?)
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// Adds a resource at a fixed URI; a URI is registered once. `scopes` as for tools.
    #[uniffi::method(default(scopes))]
    pub fn add_resource(
        &self,
        resource: Resource,
        handler: Arc<dyn ResourceHandler>,
        scopes: Vec<String>,
    ) -> Result<(), McpError> {
        let def = ResourceDef::from_resource(resource.try_into()?)
            .handler_object(Arc::new(handler::Resource(handler)))
            .scopes(scopes);
        Ok(self.inner.add_resource(def)?)
    }

    /// Removes a resource; returns whether it existed.
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Adds a resource template (registered once); the handler gets the template's variables.
    /// `completions` suggests values for variables, by variable name; `scopes` as for tools.
    #[uniffi::method(default(scopes = [], completions))]
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        handler: Arc<dyn ResourceHandler>,
        completions: HashMap<String, Arc<dyn CompletionHandler>>,
        scopes: Vec<String>,
    ) -> Result<(), McpError> {
        let mut def = ResourceTemplateDef::from_template(template.try_into()?)
            .handler_object(Arc::new(handler::Resource(handler)))
            .scopes(scopes);
        for (variable, completer) in completions {
            def = def.complete(variable, handler::Completion(completer));
        }
        Ok(self.inner.add_resource_template(def)?)
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.inner.remove_resource_template(&uri_template)
    }

    /// Adds a prompt (registered once). `completions` suggests values for arguments, by argument
    /// name; `scopes` as for tools.
    #[uniffi::method(default(scopes = [], completions))]
    pub fn add_prompt(
        &self,
        prompt: Prompt,
        handler: Arc<dyn PromptHandler>,
        completions: HashMap<String, Arc<dyn CompletionHandler>>,
        scopes: Vec<String>,
    ) -> Result<(), McpError> {
        let mut def = PromptDef::from_prompt(prompt.try_into()?)
            .handler_object(Arc::new(handler::Prompt(handler)))
            .scopes(scopes);
        for (argument, completer) in completions {
            def = def.complete(argument, handler::Completion(completer));
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

    /// Disables a registration (`enabled = false`): it leaves its list and is served no
    /// more, its key staying registered until it is removed; enabling it brings it back.
    /// Clients are told the list changed. Returns whether anything changed (false for an
    /// unknown key, or one already as asked).
    pub fn set_enabled(&self, kind: DefinitionKind, key: String, enabled: bool) -> bool {
        self.inner.set_enabled(kind.into(), &key, enabled)
    }

    /// Tells every client that the list of `kind` changed, for what the registrations do
    /// not show (their own changes are told without it).
    pub fn notify_list_changed(&self, kind: DefinitionKind) {
        self.inner.notify_list_changed(kind.into());
    }

    /// Serves Streamable HTTP (both eras) on `addr` in the background, e.g. `127.0.0.1:0`
    /// for any free port, and returns the endpoint's URL. Bind loopback unless a proxy in
    /// front checks `Host`. Stops on [`Server::shutdown`].
    #[uniffi::method(default(addr = "127.0.0.1:0", options = None))]
    pub async fn serve_http(&self, addr: String, options: Option<HttpOptions>) -> Result<String, McpError> {
        let options = options.unwrap_or_default();
        let path = options.path.clone();
        let handle = self
            .inner
            .bind_http(addr, options.into_core(self.auth.clone())?)
            .await?;
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

    /// Stops every HTTP listener started by [`Server::serve_http`], all at once: each ends
    /// its streams that only wait for events, lets requests in flight finish until its
    /// `shutdownTimeoutMs`, then cancels them and closes every connection. Returns once
    /// all of them are done (the first failure, if any, after that).
    pub async fn shutdown(&self) -> Result<(), McpError> {
        let mut outcome = Ok(());
        for stopping in self.stop_listeners() {
            let stopped = stopping.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
            if let (Ok(()), Err(e)) = (&outcome, stopped) {
                outcome = Err(e.into());
            }
        }
        outcome
    }
}

impl Server {
    /// Starts stopping every HTTP listener, each on its runtime: they stop even if nobody
    /// awaits the tasks (a cancelled `shutdown()`, a server freed).
    fn stop_listeners(&self) -> Vec<JoinHandle<std::io::Result<()>>> {
        let listeners = std::mem::take(&mut *self.listeners.lock().unwrap_or_else(|e| e.into_inner()));
        listeners
            .into_iter()
            .map(|(listener, runtime)| runtime.spawn(listener.shutdown()))
            .collect()
    }
}

/// The variable names of an RFC 6570 URI template, in order (none for a plain URI).
#[uniffi::export]
pub fn uri_template_variables(template: String) -> Result<Vec<String>, McpError> {
    let template = UriTemplate::parse(&template).map_err(McpError::invalid_input)?;
    Ok(template.variables().map(str::to_owned).collect())
}

/// Whether a tool runs as a task: for a 2025-11-25 call that asks for one, and for any
/// 2026-07-28 call from a client that declares the tasks extension. Other calls get the
/// answer in place (`Optional`) or an error (`Required`: -32601 in 2025-11-25, -32021 in
/// 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum TaskSupport {
    /// Never: every call is answered in place.
    Forbidden,
    /// As a task for clients that support tasks.
    Optional,
    /// Only as a task.
    Required,
}

impl From<TaskSupport> for oxmcp::server::TaskSupport {
    fn from(support: TaskSupport) -> Self {
        match support {
            TaskSupport::Forbidden => oxmcp::server::TaskSupport::Forbidden,
            TaskSupport::Optional => oxmcp::server::TaskSupport::Optional,
            TaskSupport::Required => oxmcp::server::TaskSupport::Required,
        }
    }
}
