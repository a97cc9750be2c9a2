//! The server: the core's registries filled with Python handlers, served over stdio,
//! Streamable HTTP or an in-memory pair.
//!
//! Every handler is a Python callable (the facade builds these wrappers) returning what the
//! user's function returned, which the core shapes into the result
//! ([`oxmcp::server::Returned`]); the adapters of [`crate::handler`] implement the core's
//! handler traits by running them on the loop in the server's [`LoopSlot`].

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyConnectionError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Map, Value};

use oxmcp::protocol::{CacheScope, Implementation, Prompt, Resource, ResourceTemplate, Tool};
use oxmcp::server::auth::TokenVerifier;
use oxmcp::server::uri_template::UriTemplate;
use oxmcp::server::{
    namespace, DefinitionError, PromptDef, Proxy, ResourceDef, ResourceTemplateDef, Server as CoreServer, SkillListing,
    TaskLimits, TaskSupport, ToolDef, ToolOutput,
};
use oxmcp::state::{KeyRing, SealingKey, SharedState, SqliteTaskStore};
use oxmcp::transport::Transport;

use crate::event_loop::LoopSlot;
use crate::handler::{
    PyCatalog, PyCompleter, PyCompletion, PyHandler, PyInterceptor, PyNotification, PyPrompt, PyRequest, PyResource,
    PyTool,
};
use crate::http::{HttpConfig, HttpServer};
use crate::mounted::HttpEndpoint;
use crate::{convert, error, runtime};

/// An MCP server whose handlers are Python callables.
#[pyclass(name = "Server", frozen, module = "oxmcp._native")]
pub struct Server {
    inner: CoreServer,
    slot: LoopSlot,
    /// What checks the tokens of HTTP requests, when the server requires them.
    auth: Option<Arc<dyn TokenVerifier>>,
}

#[pymethods]
impl Server {
    /// A server describing itself with `info` (`name`, `version`, optional `title`,
    /// `description`, `icons`, `websiteUrl`). `page_size` splits list results into pages;
    /// the bounds on each client: `max_in_flight` requests at once, `max_subscriptions`
    /// resources subscribed to, `end_grace` seconds for its requests in flight to
    /// finish once its input ended, and `client_request_timeout` seconds for a request to
    /// a legacy client to be answered; `mask_error_details` sends a generic message for
    /// handler errors. `auth` (a `JwtVerifier`, an `IntrospectionVerifier`, or a callable
    /// `verify(token)` returning an awaitable of the token's claims or None) makes every
    /// HTTP request need a token it accepts. Tasks live `task_ttl` seconds, are polled
    /// every `task_poll_interval` seconds, at most `max_tasks` are kept, in memory or in the
    /// SQLite file `task_store`. `store` (or `OXMCP_STORE`), a `redis://` URL, shares tasks,
    /// events and the request-state key with the replicas on that Redis. `skills` is a
    /// directory of Agent Skills to serve (the skills extension), listed among the
    /// resources as `skill_listing` says: `"entries"` (each `SKILL.md`) or `"files"`
    /// (every file and each skill's `_manifest`, as FastMCP lists them), each with
    /// `skill_meta` as its `_meta`. `request_state_keys` (secrets of 32 bytes or more, the
    /// first sealing) seal `requestState` for servers of `request_state_audience` (default:
    /// the server's name) in place of a key of the process's or the shared store's; it
    /// stays valid `request_state_ttl` seconds. `experimental` is declared in
    /// `capabilities.experimental`.
    #[new]
    #[pyo3(signature = (
        info, instructions=None, page_size=None, max_in_flight=None, max_subscriptions=None, end_grace=None,
        client_request_timeout=None, mask_error_details=None, auth=None, task_store=None, task_ttl=None,
        task_poll_interval=None, max_tasks=None, store=None, skills=None, skill_listing="entries", skill_meta=None,
        declare=None,
        unknown_tool_error=None, unknown_resource_error=None, unknown_prompt_error=None,
        cache_ttl=None, cache_scope=None, request_state_keys=None, request_state_audience=None,
        request_state_ttl=None, experimental=None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        info: &Bound<'_, PyAny>,
        instructions: Option<String>,
        page_size: Option<usize>,
        max_in_flight: Option<usize>,
        max_subscriptions: Option<usize>,
        end_grace: Option<f64>,
        client_request_timeout: Option<f64>,
        mask_error_details: Option<bool>,
        auth: Option<&Bound<'_, PyAny>>,
        task_store: Option<PathBuf>,
        task_ttl: Option<f64>,
        task_poll_interval: Option<f64>,
        max_tasks: Option<usize>,
        store: Option<String>,
        skills: Option<PathBuf>,
        skill_listing: &str,
        skill_meta: Option<&Bound<'_, PyAny>>,
        declare: Option<Vec<String>>,
        unknown_tool_error: Option<String>,
        unknown_resource_error: Option<String>,
        unknown_prompt_error: Option<String>,
        cache_ttl: Option<f64>,
        cache_scope: Option<&str>,
        request_state_keys: Option<Vec<Vec<u8>>>,
        request_state_audience: Option<String>,
        request_state_ttl: Option<f64>,
        experimental: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let info: Implementation = convert::extract(info, "server info")?;
        let info_name = info.name.clone();
        let mut builder = CoreServer::builder(info.name.clone(), info.version.clone()).info(info);
        if let Some(instructions) = instructions {
            builder = builder.instructions(instructions);
        }
        if let Some(size) = page_size {
            builder = builder.page_size(size);
        }
        if let Some(requests) = max_in_flight {
            builder = builder.max_in_flight(requests);
        }
        if let Some(uris) = max_subscriptions {
            builder = builder.max_subscriptions(uris);
        }
        if let Some(grace) = end_grace {
            builder = builder.end_grace(convert::seconds(grace, "end_grace")?);
        }
        if let Some(timeout) = client_request_timeout {
            builder = builder.client_request_timeout(convert::seconds(timeout, "client_request_timeout")?);
        }
        if let Some(mask) = mask_error_details {
            builder = builder.mask_error_details(mask);
        }
        if let Some(template) = unknown_tool_error {
            builder = builder.unknown_tool_error(template);
        }
        if let Some(template) = unknown_resource_error {
            builder = builder.unknown_resource_error(template);
        }
        if let Some(template) = unknown_prompt_error {
            builder = builder.unknown_prompt_error(template);
        }
        if let Some((ttl, scope)) = cache_hints(cache_ttl, cache_scope)? {
            builder = builder.cache_hints(ttl, scope);
        }
        let defaults = TaskLimits::default();
        builder = builder.task_limits(TaskLimits {
            ttl: task_ttl.map_or(Ok(defaults.ttl), |t| convert::seconds(t, "task_ttl"))?,
            poll_interval: task_poll_interval.map_or(Ok(defaults.poll_interval), |t| {
                convert::seconds(t, "task_poll_interval")
            })?,
            max_tasks: max_tasks.unwrap_or(defaults.max_tasks),
        });
        // Only a server told of a shared store connects (and starts the runtime for it).
        if let Some(url) = SharedState::url(store.as_deref()) {
            if task_store.is_some() {
                return Err(PyValueError::new_err(
                    "task_store and a shared store (store=, OXMCP_STORE) exclude each other: tasks live in the shared store",
                ));
            }
            let runtime = runtime::handle().ok_or_else(error::exiting)?;
            let shared = py
                .detach(|| runtime.block_on(SharedState::connect(&url)))
                .map_err(|e| PyConnectionError::new_err(format!("the shared store: {e}")))?;
            builder = builder.shared_state(shared);
        }
        if let Some(secrets) = request_state_keys {
            let audience = request_state_audience.as_deref().unwrap_or(&info_name);
            builder = builder.request_state_keys(key_ring(&secrets, audience)?);
        }
        if let Some(ttl) = request_state_ttl {
            builder = builder.request_state_ttl(convert::seconds(ttl, "request_state_ttl")?);
        }
        if let Some(dir) = skills {
            builder = builder.skills(dir);
        }
        builder = builder.skill_listing(match skill_listing {
            "entries" => SkillListing::Entries,
            "files" => SkillListing::Files,
            other => return Err(PyValueError::new_err(format!("unknown skill listing {other:?}"))),
        });
        if let Some(meta) = skill_meta {
            builder = builder.skill_meta(convert::extract(meta, "skill meta")?);
        }
        for name in declare.unwrap_or_default() {
            builder = builder.declare(name.parse().map_err(PyValueError::new_err)?);
        }
        if let Some(path) = task_store {
            let store = SqliteTaskStore::open(&path)
                .map_err(|e| PyValueError::new_err(format!("task_store {}: {e}", path.display())))?;
            builder = builder.task_store(Arc::new(store));
        }
        let inner = builder.build().map_err(definition_error)?;
        if let Some(experimental) = experimental {
            let declared: Map<String, Value> = convert::extract(experimental, "experimental capabilities")?;
            for (name, settings) in declared {
                inner.declare_experimental(name, settings);
            }
        }
        let slot = LoopSlot::default();
        Ok(Server {
            inner,
            auth: auth.map(|verifier| crate::auth::verifier(verifier, slot.clone())),
            slot,
        })
    }

    /// Adds a tool: `definition` as `tools/list` shows it; `handler(arguments, ctx)`
    /// returns (an awaitable of) the tool's value; `output` says how the result carries it:
    /// `"content"`, `"structured"` or `"wrapped"` (see `ToolOutput`); `scopes` are those a
    /// caller's token must grant to call it over protected HTTP; `task` is `"forbidden"`,
    /// `"optional"` or `"required"` (see `TaskSupport`); `asks_before_task`: the handler's
    /// questions come before the call becomes a task (`ctx.begin_task()`);
    /// `handler_checks_arguments`: the handler checks the arguments (converting what it
    /// can), not the server against the input schema.
    #[pyo3(signature = (
        definition, handler, output="content", scopes=None, task="forbidden", asks_before_task=false,
        handler_checks_arguments=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn add_tool(
        &self,
        definition: &Bound<'_, PyAny>,
        handler: &Bound<'_, PyAny>,
        output: &str,
        scopes: Option<Vec<String>>,
        task: &str,
        asks_before_task: bool,
        handler_checks_arguments: bool,
    ) -> PyResult<()> {
        let task: TaskSupport = task.parse().map_err(PyValueError::new_err)?;
        let tool: Tool = convert::extract(definition, "tool definition")?;
        let output = match output {
            "content" => ToolOutput::Content,
            "structured" => ToolOutput::Structured,
            "wrapped" => ToolOutput::Wrapped,
            other => return Err(PyValueError::new_err(format!("unknown tool output {other:?}"))),
        };
        let handler = PyTool(self.bind_handler(handler), output);
        let mut def = ToolDef::from_tool(tool)
            .handler_object(Arc::new(handler))
            .scopes(scopes.unwrap_or_default())
            .task_support(task);
        if asks_before_task {
            def = def.asks_before_task();
        }
        if handler_checks_arguments {
            def = def.handler_checks_arguments();
        }
        self.inner.add_tool(def).map_err(definition_error)
    }

    /// Removes a tool; returns whether it existed.
    fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove_tool(name)
    }

    /// Adds a static resource; `handler(uri, variables, ctx)` returns (an awaitable of)
    /// its value; `scopes` as for tools; `contents_meta`: the `_meta` of each content read
    /// that has none of its own.
    #[pyo3(signature = (definition, handler, scopes=None, contents_meta=None))]
    fn add_resource(
        &self,
        definition: &Bound<'_, PyAny>,
        handler: &Bound<'_, PyAny>,
        scopes: Option<Vec<String>>,
        contents_meta: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let resource: Resource = convert::extract(definition, "resource definition")?;
        let contents_meta = contents_meta
            .map(|m| convert::extract(m, "contents meta"))
            .transpose()?;
        let handler = PyResource(self.bind_handler(handler), resource.mime_type.clone(), contents_meta);
        let def = ResourceDef::from_resource(resource).handler_object(Arc::new(handler));
        self.inner
            .add_resource(def.scopes(scopes.unwrap_or_default()))
            .map_err(definition_error)
    }

    /// Serves the Agent Skills under directory `dir` besides those the server has, listed
    /// as the server's `skill_listing` says; a skill it already serves keeps what it has.
    fn add_skills(&self, dir: PathBuf) -> PyResult<()> {
        self.inner.add_skills(dir).map_err(definition_error)
    }

    /// Serves the skill at `path` below `skill://` whose files are `files` (bytes by their
    /// path in the skill, `SKILL.md` among them), as `add_skills` serves one read from a
    /// directory.
    fn add_skill(&self, path: &str, files: Vec<(String, Vec<u8>)>) -> PyResult<()> {
        self.inner.add_skill(path, files).map_err(definition_error)
    }

    /// Serves the skills `other` serves now, under `namespace` if one is given, as a server
    /// that mounts `other` serves them.
    #[pyo3(signature = (other, namespace=None))]
    fn add_skills_of(&self, other: PyRef<'_, Server>, namespace: Option<&str>) -> PyResult<()> {
        self.inner
            .add_skills_of(&other.inner, namespace)
            .map_err(definition_error)
    }

    /// Removes a static resource; returns whether it existed.
    fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove_resource(uri)
    }

    /// Adds a resource template; `completions` maps variable names to
    /// `complete(value, context)` callables returning awaitables of lists of str; `scopes`
    /// and `contents_meta` as for static resources.
    #[pyo3(signature = (definition, handler, completions=None, scopes=None, contents_meta=None))]
    fn add_resource_template(
        &self,
        definition: &Bound<'_, PyAny>,
        handler: &Bound<'_, PyAny>,
        completions: Option<HashMap<String, Bound<'_, PyAny>>>,
        scopes: Option<Vec<String>>,
        contents_meta: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let template: ResourceTemplate = convert::extract(definition, "resource template definition")?;
        let contents_meta = contents_meta
            .map(|m| convert::extract(m, "contents meta"))
            .transpose()?;
        let handler = PyResource(self.bind_handler(handler), template.mime_type.clone(), contents_meta);
        let mut def = ResourceTemplateDef::from_template(template)
            .handler_object(Arc::new(handler))
            .scopes(scopes.unwrap_or_default());
        for (variable, complete) in completions.unwrap_or_default() {
            def = def.complete(variable, PyCompletion(self.bind_handler(&complete)));
        }
        self.inner.add_resource_template(def).map_err(definition_error)
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.inner.remove_resource_template(uri_template)
    }

    /// Adds a prompt; `handler(arguments, ctx)` returns (an awaitable of) its messages;
    /// `completions` as for templates, by argument name; `scopes` as for tools.
    #[pyo3(signature = (definition, handler, completions=None, scopes=None))]
    fn add_prompt(
        &self,
        definition: &Bound<'_, PyAny>,
        handler: &Bound<'_, PyAny>,
        completions: Option<HashMap<String, Bound<'_, PyAny>>>,
        scopes: Option<Vec<String>>,
    ) -> PyResult<()> {
        let prompt: Prompt = convert::extract(definition, "prompt definition")?;
        let mut def = PromptDef::from_prompt(prompt)
            .handler_object(Arc::new(PyPrompt(self.bind_handler(handler))))
            .scopes(scopes.unwrap_or_default());
        for (argument, complete) in completions.unwrap_or_default() {
            def = def.complete(argument, PyCompletion(self.bind_handler(&complete)));
        }
        self.inner.add_prompt(def).map_err(definition_error)
    }

    /// Removes a prompt; returns whether it existed.
    fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove_prompt(name)
    }

    /// Tells every client that the list of `kind` ("tools", "resources" or "prompts")
    /// changed.
    fn notify_list_changed(&self, kind: &str) -> PyResult<()> {
        self.inner.notify_list_changed(crate::context::list_kind(kind)?);
        Ok(())
    }

    /// Tells subscribers of `uri` that it changed.
    fn notify_resource_updated(&self, uri: &str) {
        self.inner.notify_resource_updated(uri);
    }

    /// Listens on `host`:`port` (port 0: any free port) and serves the Streamable HTTP
    /// endpoint `config` describes in the background; handlers run on the running asyncio
    /// loop. Resolves to the running [`HttpServer`] once the port is bound.
    fn start_http<'py>(
        &self,
        py: Python<'py>,
        host: String,
        port: u16,
        config: &Bound<'py, HttpConfig>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.slot.set(py, runtime::current_locals(py)?)?;
        let server = self.inner.clone();
        let config = config.get();
        let (core, path) = (
            config.core(py, self.auth.clone(), &self.slot)?,
            config.path().to_owned(),
        );
        runtime::future_into_py(py, async move {
            let handle = server
                .bind_http((host.as_str(), port), core)
                .await
                .map_err(crate::error::raise)?;
            Ok(HttpServer::new(handle, &path))
        })
    }

    /// Sets the server's completion handler: `complete(params)`, called with the params of a
    /// `completion/complete` request for an argument no completer of its own serves,
    /// returns (an awaitable of) a completion or None.
    fn set_completer(&self, complete: &Bound<'_, PyAny>) {
        self.inner.set_completer(PyCompleter(self.bind_handler(complete)));
    }

    /// Serves `method` for what is not registered, with `handler` (see `PyCatalog`): a list
    /// (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) after
    /// the registered definitions, or `tools/call`, `prompts/get`, `resources/read` of what
    /// no registered definition has. `ValueError` for another method.
    fn serve_from_catalog(&self, method: &str, handler: &Bound<'_, PyAny>) -> PyResult<()> {
        let handler = PyCatalog(self.bind_handler(handler));
        let catalog = (self.inner.catalog())
            .serve(method, handler)
            .ok_or_else(|| PyValueError::new_err(format!("{method} is not served from a catalog")))?;
        self.inner.set_catalog(catalog);
        Ok(())
    }

    /// Serves what other servers offer after what is registered here: their lists, tools,
    /// prompts, resources and completions, forwarded through `proxies`, each a client and
    /// the namespaces its names go under (the outermost first).
    fn serve_proxies(&self, proxies: Vec<(Bound<'_, crate::client::Client>, Vec<String>)>) -> PyResult<()> {
        // Within the runtime, where the proxies listen to 2026-07-28 servers' list changes.
        let _runtime = runtime::handle().ok_or_else(error::exiting)?.enter();
        self.inner
            .serve_proxies(proxies.into_iter().map(|(upstream, namespaces)| {
                let proxy = Proxy::new(upstream.get().core().clone());
                namespaces.into_iter().rev().fold(proxy, Proxy::namespaced)
            }));
        Ok(())
    }

    /// Answers requests of `method`, one the protocol does not define:
    /// `handler(params, ctx)` returns (an awaitable of) the result, a dict.
    fn add_request_handler(&self, method: String, handler: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner
            .add_request_handler(method, PyRequest(self.bind_handler(handler)))
            .map_err(definition_error)
    }

    /// Runs `interceptor(method, params, ctx, call_next)` around every request but
    /// `initialize` from now on (replacing the one before): it returns (an awaitable of)
    /// the result, a dict; `await call_next(params=None)` runs the method, with the params
    /// as sent or `params`, and gives its result or raises the `McpError` it answered with.
    /// `notified(method, params, ctx, handler)`, when given, runs around every
    /// notification but a cancellation: `await handler.run()` runs its handler. With
    /// `initialize`, the legacy handshake goes through `interceptor` too.
    #[pyo3(signature = (interceptor, notified=None, initialize=false))]
    fn set_interceptor(&self, interceptor: &Bound<'_, PyAny>, notified: Option<&Bound<'_, PyAny>>, initialize: bool) {
        self.inner.set_interceptor(PyInterceptor {
            requests: self.bind_handler(interceptor),
            notifications: notified.map(|notified| self.bind_handler(notified)),
            initialize,
        });
    }

    /// Acts on notifications of `method`, one the core does not handle, with
    /// `handler(params, ctx)`; `notifications/roots/list_changed` is one it may take.
    fn add_notification_handler(&self, method: String, handler: &Bound<'_, PyAny>) -> PyResult<()> {
        let handler = PyNotification(self.bind_handler(handler));
        self.inner
            .add_notification_handler(method, handler)
            .map_err(definition_error)
    }

    /// Declares extension `id` with its `settings` (a dict) in the 2026-07-28 capabilities.
    fn declare_extension(&self, id: String, settings: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.declare_extension(id, convert::to_json(settings)?);
        Ok(())
    }

    /// The Streamable HTTP endpoint `config` describes, for a web app that serves it (the
    /// facade's ASGI app); handlers run on the running asyncio loop.
    fn http_endpoint(&self, py: Python<'_>, config: &Bound<'_, HttpConfig>) -> PyResult<HttpEndpoint> {
        self.slot.set(py, runtime::current_locals(py)?)?;
        let core = config.get().core(py, self.auth.clone(), &self.slot)?;
        let runtime = runtime::handle().ok_or_else(error::exiting)?;
        let _entered = runtime.enter();
        let endpoint = self
            .inner
            .http_endpoint(core)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(HttpEndpoint::new(endpoint))
    }

    /// Serves this process's stdin and stdout until stdin closes; handlers run on the
    /// running asyncio loop.
    fn serve_stdio<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.slot.set(py, runtime::current_locals(py)?)?;
        let server = self.inner.clone();
        runtime::future_into_py(
            py,
            async move { server.serve_stdio().await.map_err(crate::error::raise) },
        )
    }
}

impl Server {
    /// Serves one in-memory connection in the background, handlers running on the loop
    /// of `py`'s running task.
    pub fn serve_in_background(&self, py: Python<'_>, transport: Transport) -> PyResult<()> {
        self.slot.set(py, runtime::current_locals(py)?)?;
        let server = self.inner.clone();
        drop(runtime::spawn(async move {
            if let Err(error) = server.serve(transport).await {
                eprintln!("oxmcp: an in-memory connection failed: {error}");
            }
        }));
        Ok(())
    }

    fn bind_handler(&self, callable: &Bound<'_, PyAny>) -> PyHandler {
        PyHandler::new(callable, self.slot.clone())
    }
}

/// The skills extension's entry (a dict) of the skill whose files are `files` (bytes by
/// their path in it), once they are checked as a served skill is; `ValueError` if not.
#[pyfunction]
pub fn skill_entry<'py>(py: Python<'py>, files: Vec<(String, Vec<u8>)>) -> PyResult<Bound<'py, PyAny>> {
    let entry = oxmcp::server::skill_entry(files).map_err(definition_error)?;
    convert::to_python(py, &entry)
}

/// The variable names of an RFC 6570 URI template, in order (none for a plain URI);
/// `ValueError` for an invalid template.
#[pyfunction]
pub fn uri_template_variables(template: &str) -> PyResult<Vec<String>> {
    let template = UriTemplate::parse(template).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(template.variables().map(str::to_owned).collect())
}

/// The values of the variables of the RFC 6570 URI template `template` that `uri` gives
/// them, or `None` when it does not match; `ValueError` for an invalid template.
#[pyfunction]
pub fn uri_template_match(template: &str, uri: &str) -> PyResult<Option<BTreeMap<String, String>>> {
    let template = UriTemplate::parse(template).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(template.matches(uri))
}

/// `name`, a tool's or a prompt's, under `namespace`, as a mounted server's names are.
#[pyfunction]
pub fn name_in(namespace: &str, name: &str) -> String {
    namespace::name_in(namespace, name)
}

/// `uri`, a resource's or a template's, under `namespace`, as a mounted server's URIs are.
#[pyfunction]
pub fn uri_in(namespace: &str, uri: &str) -> String {
    namespace::uri_in(namespace, uri)
}

/// The name a tool or prompt served as `name` had before `namespace` was put on it, or
/// `None` when `name` is not under it.
#[pyfunction]
pub fn name_from(namespace: &str, name: &str) -> Option<String> {
    namespace::name_from(namespace, name)
}

/// The URI a resource or template served at `uri` had before `namespace` was put on it,
/// or `None` when `uri` is not under it.
#[pyfunction]
pub fn uri_from(namespace: &str, uri: &str) -> Option<String> {
    namespace::uri_from(namespace, uri)
}

fn definition_error(error: DefinitionError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// The ring of `secrets` (the first sealing) for servers of `audience`.
fn key_ring(secrets: &[Vec<u8>], audience: &str) -> PyResult<KeyRing> {
    let keys = secrets
        .iter()
        .map(|secret| SealingKey::from_secret(secret, audience))
        .collect::<Result<Vec<_>, _>>()
        .map_err(PyValueError::new_err)?;
    KeyRing::new(keys).ok_or_else(|| PyValueError::new_err("request_state_keys needs at least one key"))
}

/// The caching hints of `cache_ttl` seconds and `cache_scope` (`"private"` unless given):
/// their milliseconds and scope; none without a TTL, which a scope alone cannot stand for.
fn cache_hints(ttl: Option<f64>, scope: Option<&str>) -> PyResult<Option<(u64, CacheScope)>> {
    let Some(ttl) = ttl else {
        return match scope {
            None => Ok(None),
            Some(_) => Err(PyValueError::new_err(
                "cache_scope needs cache_ttl: a scope without a TTL does not let clients cache",
            )),
        };
    };
    let scope = match scope {
        None | Some("private") => CacheScope::Private,
        Some("public") => CacheScope::Public,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "cache_scope must be \"public\" or \"private\", not {other:?}"
            )))
        }
    };
    let ttl = convert::seconds(ttl, "cache_ttl")?;
    if ttl.is_zero() {
        return Err(PyValueError::new_err("cache_ttl must be a positive number of seconds"));
    }
    Ok(Some((u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX), scope)))
}
