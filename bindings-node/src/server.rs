//! `NativeServer`: the core's [`Server`] with handlers implemented in JavaScript.
//!
//! The facade registers each handler under a numeric id and hands the native server the
//! two callbacks through which they run ([`crate::handler`]); definitions name their
//! handler by that id.

use std::collections::HashMap;
use std::sync::Arc;

use napi::bindgen_prelude::{within_runtime_if_available, Buffer, Function};
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use oxmcp::protocol::{Implementation, Prompt, Resource, ResourceTemplate, Tool};
use oxmcp::server::auth::TokenVerifier;
use oxmcp::server::uri_template::UriTemplate;
use oxmcp::server::{
    DefinitionKind, PromptDef, Proxy, ResourceDef, ResourceTemplateDef, Server, TaskLimits, TaskSupport, ToolDef,
    ToolOutput,
};
use oxmcp::state::{SharedState, SqliteTaskStore};

use crate::auth::AuthOptions;
use crate::convert::{count, decode_js, duration_ms};
use crate::error::{client_error, definition_error, invalid};
use crate::handler::{Bridge, CancelCallback, HandlerFunction};
use crate::http::{HttpOptions, NativeHttpListener};
use crate::mounted::NativeHttpEndpoint;
use crate::runtime::JsReturn;
use crate::stdio::{NativeStdio, WriteFunction};

/// Server settings beyond its name and version.
#[napi(object)]
pub struct ServerOptions {
    /// Guidance for the model on how to use the server.
    pub instructions: Option<String>,
    /// Splits list results into pages of at most this many items.
    pub page_size: Option<f64>,
    /// The most requests one client may have in flight.
    pub max_in_flight: Option<f64>,
    /// The most resources one legacy client may subscribe to.
    pub max_subscriptions: Option<f64>,
    /// How long a client's requests in flight may finish once its input ended, in
    /// milliseconds.
    pub end_grace_ms: Option<f64>,
    /// How long a request to a legacy client (elicitation, sampling, roots) waits for its
    /// answer, in milliseconds.
    pub client_request_timeout_ms: Option<f64>,
    /// Sends a generic message instead of what a handler's error says.
    pub mask_error_details: Option<bool>,
    /// Makes every HTTP request need a token this verifier accepts.
    pub auth: Option<AuthOptions>,
    /// The SQLite file tasks are kept in across restarts (default: in memory).
    pub task_store: Option<String>,
    /// How long a task is kept after it was created, in milliseconds.
    pub task_ttl_ms: Option<f64>,
    /// How often clients are asked to poll a task, in milliseconds.
    pub task_poll_interval_ms: Option<f64>,
    /// The most tasks kept at once.
    pub max_tasks: Option<f64>,
    /// The store replicas share (a `redis://` URL; default: `OXMCP_STORE`).
    pub store: Option<String>,
    /// A directory of Agent Skills to serve (the skills extension).
    pub skills: Option<String>,
    /// Capabilities declared while nothing is registered for them (`tools`, `resources`,
    /// `prompts`, `completions`).
    pub declare: Option<Vec<String>>,
}

/// An MCP server whose handlers live in JavaScript. One value serves any number of
/// connections.
#[napi]
pub struct NativeServer {
    server: Server,
    bridge: Arc<Bridge>,
    /// What checks the tokens of HTTP requests, when the server requires them.
    auth: Option<Arc<dyn TokenVerifier>>,
    /// Fires on `close()`: every connection this server serves stops.
    stop: CancellationToken,
}

impl NativeServer {
    /// The core server, for connections made elsewhere in the binding.
    pub(crate) fn core(&self) -> &Server {
        &self.server
    }

    /// Fires when the server is closed.
    pub(crate) fn stopped(&self) -> CancellationToken {
        self.stop.clone()
    }
}

#[napi]
impl NativeServer {
    /// A server with this `Implementation` (`{ name, version, ... }`) and no definitions.
    #[napi(
        constructor,
        ts_args_type = "info: { name: string; version: string } & Record<string, unknown>, options: ServerOptions, \
                        handler: (handlerId: number, input: unknown, ctx: NativeContext | null, callId: number) => unknown, \
                        cancel: (callId: number) => void"
    )]
    pub fn new(
        info: Value,
        options: ServerOptions,
        handler: HandlerFunction<'_>,
        cancel: CancelCallback,
    ) -> napi::Result<Self> {
        let info: Implementation = decode_js(info, "server info")?;
        let mut builder = Server::builder(info.name.clone(), info.version.clone()).info(info);
        if let Some(instructions) = options.instructions {
            builder = builder.instructions(instructions);
        }
        if let Some(size) = options.page_size {
            builder = builder.page_size(count(size, "pageSize")?);
        }
        if let Some(requests) = options.max_in_flight {
            builder = builder.max_in_flight(count(requests, "maxInFlight")?);
        }
        if let Some(uris) = options.max_subscriptions {
            builder = builder.max_subscriptions(count(uris, "maxSubscriptions")?);
        }
        if let Some(ms) = options.end_grace_ms {
            builder = builder.end_grace(duration_ms(ms, "endGrace")?);
        }
        if let Some(ms) = options.client_request_timeout_ms {
            builder = builder.client_request_timeout(duration_ms(ms, "clientRequestTimeout")?);
        }
        if let Some(mask) = options.mask_error_details {
            builder = builder.mask_error_details(mask);
        }
        let defaults = TaskLimits::default();
        builder = builder.task_limits(TaskLimits {
            ttl: options
                .task_ttl_ms
                .map_or(Ok(defaults.ttl), |ms| duration_ms(ms, "taskTtl"))?,
            poll_interval: options
                .task_poll_interval_ms
                .map_or(Ok(defaults.poll_interval), |ms| duration_ms(ms, "taskPollInterval"))?,
            max_tasks: options
                .max_tasks
                .map_or(Ok(defaults.max_tasks), |max| count(max, "maxTasks"))?,
        });
        // Once, while the server is made: blocking here is connecting to its own state.
        if let Some(url) = SharedState::url(options.store.as_deref()) {
            if options.task_store.is_some() {
                return Err(invalid(
                    "taskStore and a shared store (store, OXMCP_STORE) exclude each other: tasks live in the shared store",
                ));
            }
            let shared = napi::bindgen_prelude::block_on(SharedState::connect(&url))
                .map_err(|e| invalid(format!("the shared store: {e}")))?;
            builder = builder.shared_state(shared);
        }
        if let Some(dir) = options.skills {
            builder = builder.skills(dir);
        }
        for name in options.declare.unwrap_or_default() {
            builder = builder.declare(name.parse().map_err(invalid)?);
        }
        if let Some(path) = options.task_store {
            let store = SqliteTaskStore::open(&path).map_err(|e| invalid(format!("taskStore {path}: {e}")))?;
            builder = builder.task_store(Arc::new(store));
        }
        let server = builder.build().map_err(definition_error)?;
        let bridge = Bridge::new(handler, cancel)?;
        let auth = options.auth.map(|auth| auth.into_verifier(&bridge)).transpose()?;
        Ok(NativeServer {
            server,
            bridge,
            auth,
            stop: CancellationToken::new(),
        })
    }

    /// Adds a tool from its `Tool` definition; announces the change. `scopes` are those a
    /// caller's token must grant to call it over protected HTTP; `task` is `forbidden`
    /// (the default), `optional` or `required` (see `TaskSupport`); `asksBeforeTask`: the
    /// handler's questions come before the call becomes a task (`ctx.beginTask()`);
    /// `takesContext` (default true): whether the handler reads its context.
    #[napi(
        ts_args_type = "definition: Record<string, unknown>, handlerId: number, scopes?: string[], task?: 'forbidden' | 'optional' | 'required', asksBeforeTask?: boolean, takesContext?: boolean"
    )]
    pub fn add_tool(
        &self,
        definition: Value,
        handler_id: u32,
        scopes: Option<Vec<String>>,
        task: Option<String>,
        asks_before_task: Option<bool>,
        takes_context: Option<bool>,
    ) -> napi::Result<()> {
        let task: TaskSupport = task.as_deref().unwrap_or("forbidden").parse().map_err(invalid)?;
        let tool: Tool = decode_js(definition, "tool definition")?;
        let output = match tool.output_schema {
            Some(_) => ToolOutput::Inferred,
            None => ToolOutput::Content,
        };
        let handler = self.bridge.tool(handler_id, output, takes_context.unwrap_or(true));
        let mut def = ToolDef::from_tool(tool)
            .handler_object(Arc::new(handler))
            .scopes(scopes.unwrap_or_default())
            .task_support(task);
        if asks_before_task == Some(true) {
            def = def.asks_before_task();
        }
        self.server.add_tool(def).map_err(definition_error)
    }

    /// Removes a tool; returns whether it existed.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    /// Adds a static resource from its `Resource` definition; `scopes` as for tools.
    #[napi(ts_args_type = "definition: Record<string, unknown>, handlerId: number, scopes?: string[]")]
    pub fn add_resource(&self, definition: Value, handler_id: u32, scopes: Option<Vec<String>>) -> napi::Result<()> {
        let resource: Resource = decode_js(definition, "resource definition")?;
        let handler = self.bridge.resource(handler_id, resource.mime_type.clone());
        self.server
            .add_resource(
                ResourceDef::from_resource(resource)
                    .handler_object(Arc::new(handler))
                    .scopes(scopes.unwrap_or_default()),
            )
            .map_err(definition_error)
    }

    /// Serves the Agent Skills under directory `dir` besides those the server has; a
    /// skill it already serves keeps what it has.
    #[napi]
    pub fn add_skills(&self, dir: String) -> napi::Result<()> {
        self.server.add_skills(dir).map_err(definition_error)
    }

    /// Serves the skill at `path` below `skill://` whose files are `files` (each file's
    /// path in the skill and its bytes, `SKILL.md` among them).
    #[napi(ts_args_type = "path: string, files: Array<[string, Buffer]>")]
    pub fn add_skill(&self, path: String, files: Vec<(String, Buffer)>) -> napi::Result<()> {
        let files = files.into_iter().map(|(file, bytes)| (file, bytes.to_vec()));
        self.server.add_skill(&path, files).map_err(definition_error)
    }

    /// Removes a static resource; returns whether it existed.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    /// Adds a resource template from its `ResourceTemplate` definition;
    /// `completions` maps variable names to completion handler ids; `scopes` as for tools.
    #[napi(
        ts_args_type = "definition: Record<string, unknown>, handlerId: number, completions: Record<string, number>, \
                        scopes?: string[]"
    )]
    pub fn add_resource_template(
        &self,
        definition: Value,
        handler_id: u32,
        completions: HashMap<String, u32>,
        scopes: Option<Vec<String>>,
    ) -> napi::Result<()> {
        let template: ResourceTemplate = decode_js(definition, "resource template definition")?;
        let handler = self.bridge.resource(handler_id, template.mime_type.clone());
        let mut def = ResourceTemplateDef::from_template(template)
            .handler_object(Arc::new(handler))
            .scopes(scopes.unwrap_or_default());
        for (variable, handler_id) in completions {
            def = def.complete(variable, self.bridge.completion(handler_id));
        }
        self.server.add_resource_template(def).map_err(definition_error)
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    #[napi]
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.server.remove_resource_template(&uri_template)
    }

    /// Adds a prompt from its `Prompt` definition; `completions` maps
    /// argument names to completion handler ids; `scopes` as for tools.
    #[napi(
        ts_args_type = "definition: Record<string, unknown>, handlerId: number, completions: Record<string, number>, \
                        scopes?: string[]"
    )]
    pub fn add_prompt(
        &self,
        definition: Value,
        handler_id: u32,
        completions: HashMap<String, u32>,
        scopes: Option<Vec<String>>,
    ) -> napi::Result<()> {
        let prompt: Prompt = decode_js(definition, "prompt definition")?;
        let handler = self.bridge.prompt(handler_id);
        let mut def = PromptDef::from_prompt(prompt)
            .handler_object(Arc::new(handler))
            .scopes(scopes.unwrap_or_default());
        for (argument, handler_id) in completions {
            def = def.complete(argument, self.bridge.completion(handler_id));
        }
        self.server.add_prompt(def).map_err(definition_error)
    }

    /// Removes a prompt; returns whether it existed.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.server.remove_prompt(&name)
    }

    /// Enables or disables a registration by its kind and key (name, URI or URI
    /// template): a disabled one is neither listed nor served, and its key stays taken.
    /// Returns whether anything changed.
    #[napi(ts_args_type = "kind: 'tool' | 'resource' | 'resourceTemplate' | 'prompt', key: string, enabled: boolean")]
    pub fn set_enabled(&self, kind: String, key: String, enabled: bool) -> napi::Result<bool> {
        Ok(self.server.set_enabled(definition_kind(&kind)?, &key, enabled))
    }

    /// Tells every client that the list of `kind` (`tool`, `resource`, `resourceTemplate`,
    /// `prompt`) changed, for what the registrations do not show (their changes are told
    /// without it).
    #[napi]
    pub fn notify_list_changed(&self, kind: String) -> napi::Result<()> {
        self.server.notify_list_changed(definition_kind(&kind)?);
        Ok(())
    }

    /// Serves `method` for what is not registered with handler `handlerId` (see
    /// `JsCatalog`): a list (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`) after the registered definitions, or `tools/call`,
    /// `prompts/get`, `resources/read` of what no registered definition has.
    #[napi]
    pub fn serve_from_catalog(&self, method: String, handler_id: u32) -> napi::Result<()> {
        let handler = self.bridge.catalog(handler_id);
        let catalog = (self.server.catalog())
            .serve(&method, handler)
            .ok_or_else(|| invalid(format!("{method} is not served from a catalog")))?;
        self.server.set_catalog(catalog);
        Ok(())
    }

    /// Starts, with handler `handlerId`, the catalog's tools as tasks it keeps itself (a
    /// 2025-11-25 call that asks for a task): it gets `{ name, arguments, task }` and
    /// settles with the `CreateTaskResult`; request handlers answer the task requests.
    #[napi]
    pub fn start_tool_tasks_from_catalog(&self, handler_id: u32) {
        let starter = self.bridge.catalog(handler_id);
        self.server.set_catalog(self.server.catalog().start_tool_tasks(starter));
    }

    /// Serves what `upstream`'s server offers too, after what is registered here and the
    /// servers proxied before: its lists, tools, prompts, resources and completions,
    /// forwarded through that client, its names under `namespaces` (the outermost first).
    #[napi]
    pub fn add_proxy(&self, upstream: &crate::client::NativeClient, namespaces: Vec<String>) {
        let proxy = Proxy::new(upstream.core().clone());
        // Within the runtime, where the proxy listens to a 2026-07-28 server's list changes.
        within_runtime_if_available(|| {
            self.server
                .add_proxy(namespaces.into_iter().rev().fold(proxy, Proxy::namespaced));
        });
    }

    /// Completes, with handler `handlerId`, the arguments no completion handler of their
    /// own serves (those of prompts and templates a catalog lists among them): it gets the
    /// request's params and settles with a completion (`{ values, total, hasMore }`) or null.
    #[napi]
    pub fn set_completer(&self, handler_id: u32) {
        self.server.set_completer(self.bridge.completer(handler_id));
    }

    /// Answers requests of `method`, one the protocol does not define, with handler
    /// `handlerId` (its params in, the result object out).
    #[napi]
    pub fn add_request_handler(&self, method: String, handler_id: u32) -> napi::Result<()> {
        let handler = self.bridge.request(handler_id);
        self.server
            .add_request_handler(method, handler)
            .map_err(definition_error)
    }

    /// Runs handler `handlerId` around every request but the handshake from now on
    /// (replacing the one before): it gets `{ method, params }` and the context, runs the
    /// method with the context's `runNext`, and settles with the result object.
    #[napi]
    pub fn set_interceptor(&self, handler_id: u32) {
        self.server.set_interceptor(self.bridge.interceptor(handler_id));
    }

    /// Acts on notifications of `method` with handler `handlerId`: one the core does not
    /// handle, or `notifications/roots/list_changed`.
    #[napi]
    pub fn add_notification_handler(&self, method: String, handler_id: u32) -> napi::Result<()> {
        let handler = self.bridge.notification(handler_id);
        self.server
            .add_notification_handler(method, handler)
            .map_err(definition_error)
    }

    /// Declares extension `id` with its `settings` in the 2026-07-28 capabilities.
    #[napi(ts_args_type = "id: string, settings: Record<string, unknown>")]
    pub fn declare_extension(&self, id: String, settings: Value) {
        self.server.declare_extension(id, settings);
    }

    /// Declares `name` with its `settings` in `capabilities.experimental` (every era).
    #[napi(ts_args_type = "name: string, settings: Record<string, unknown>")]
    pub fn declare_experimental(&self, name: String, settings: Value) {
        self.server.declare_experimental(name, settings);
    }

    /// Tells subscribers of `uri` that it changed.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.server.notify_resource_updated(&uri);
    }

    /// Serves stdin (or another stream) as the facade reads it and pushes it to the
    /// connection this returns, on Node's thread, until it ends or the server is closed;
    /// `bell` is called when the connection's tasks are to be polled: it calls its
    /// `turn()`. Answers go to stdout, or to `write` (another stream's: `false` asks to
    /// wait for `drained()`).
    #[napi(ts_args_type = "bell: () => void, write?: (chunk: Buffer) => boolean")]
    pub fn serve_stdio(
        &self,
        env: Env,
        bell: Function<'_, (), JsReturn>,
        write: Option<WriteFunction<'_>>,
    ) -> napi::Result<NativeStdio> {
        NativeStdio::serve(env, &self.server, self.stop.clone(), bell, write)
    }

    /// Binds an HTTP listener (`options.host`, default `127.0.0.1`; `options.port`,
    /// default 0: any free port) and serves the Streamable HTTP endpoint on it in the
    /// background; resolves once bound. One server may listen on any number of them.
    #[napi]
    pub async fn bind_http(&self, options: HttpOptions) -> napi::Result<NativeHttpListener> {
        let (address, config, path) = options.into_core(self.auth.clone())?;
        let handle = self.server.bind_http(address, config).await.map_err(client_error)?;
        Ok(NativeHttpListener::new(handle, &path))
    }

    /// The Streamable HTTP endpoint `options` describe (their `host` and `port` aside), for
    /// a web app that serves it: the facade's `fetch` and Node handlers.
    #[napi]
    pub async fn http_endpoint(&self, options: HttpOptions) -> napi::Result<NativeHttpEndpoint> {
        let (_, config, _) = options.into_core(self.auth.clone())?;
        let endpoint = self.server.http_endpoint(config).map_err(|e| invalid(e.to_string()))?;
        Ok(NativeHttpEndpoint::new(endpoint))
    }

    /// Stops every connection this server serves (over stdio and in process; HTTP
    /// listeners are closed on their own).
    #[napi]
    pub fn close(&self) {
        self.stop.cancel();
    }
}

/// The variable names of an RFC 6570 URI template, in order (none for a plain URI); an
/// invalid template is an error.
#[napi]
pub fn uri_template_variables(template: String) -> napi::Result<Vec<String>> {
    let template = UriTemplate::parse(&template).map_err(invalid)?;
    Ok(template.variables().map(str::to_owned).collect())
}

/// A kind of definition by the name the TypeScript layer gives it.
pub(crate) fn definition_kind(kind: &str) -> napi::Result<DefinitionKind> {
    match kind {
        "tool" => Ok(DefinitionKind::Tool),
        "resource" => Ok(DefinitionKind::Resource),
        "resourceTemplate" => Ok(DefinitionKind::ResourceTemplate),
        "prompt" => Ok(DefinitionKind::Prompt),
        other => Err(invalid(format!("no definitions of kind {other:?}"))),
    }
}
