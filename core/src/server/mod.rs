//! The MCP server: registries of tools, resources, templates and prompts, served over any
//! transport in both protocol eras.
//!
//! ```no_run
//! use oxmcp::server::{Context, Server, ToolDef};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Echo { text: String }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("echo", "1.0.0")
//!     .tool(ToolDef::new("echo").typed(|args: Echo, _ctx: Context| async move { args.text }))
//!     .build()?;
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::broadcast;

pub mod auth;
mod capabilities;
mod catalog;
mod completion;
mod context;
mod custom;
pub(crate) mod dispatch;
mod handler;
#[cfg(feature = "http-server")]
pub mod http;
mod interceptor;
pub(crate) mod limits;
mod mrtr;
pub mod namespace;
mod pagination;
mod prompts;
mod proxy;
mod registry;
pub(crate) mod reply;
mod resources;
pub mod returned;
mod schema;
pub(crate) mod session;
mod skills;
mod stamp;
mod subscriptions;
pub mod tasks;
mod tools;
mod unknown;
pub mod uri_template;

pub use capabilities::Capability;
pub use catalog::{Catalog, Lister, PromptGetter, TaskStarter, ToolCaller};
pub use completion::{Completer, CompletionHandler};
pub use context::Context;
pub use custom::{NotificationHandler, RequestHandler};
pub use handler::HandlerError;
pub use interceptor::{Intercepted, Interceptor, Next, NotificationNext};
pub use prompts::{IntoPromptResult, PromptDef, PromptHandler};
pub use proxy::Proxy;
pub use registry::DefinitionKind;
pub use resources::{IntoReadResult, ResourceDef, ResourceHandler, ResourceTemplateDef};
pub use returned::{Returned, ToolOutput};
pub use schema::{schema_for, DefinitionError};
pub use skills::{skill_entry, SkillListing};
pub use tasks::{TaskLimits, TaskSupport};
pub use tools::{IntoToolResult, Json, ToolDef, ToolHandler};

use crate::connection::Connection;
use crate::protocol::skills::{self as skills_protocol, SkillsCapability};
use crate::protocol::{
    methods, CacheScope, CacheableResult, Era, Implementation, Meta, ProtocolVersion, ServerCapabilities,
};
use crate::state::{
    EventStore, InMemorySubscriptionBus, InMemoryTaskStore, KeyRing, ServerEvent, SessionStore, SharedState,
    SubscriptionBus, TaskStore, REQUEST_STATE_KEYS_ENV, STORE_ENV,
};
use crate::transport::{self, AbortOnDrop, Transport};
use capabilities::Offered;
use custom::CustomMethods;
use limits::SessionLimits;
use mrtr::InputPolicy;
use prompts::RegisteredPrompt;
use registry::{Edit, Registry};
use resources::{RegisteredResource, RegisteredTemplate};
use session::Session;
use skills::{SharedSkills, SkillFiles, Skills};
use stamp::Stamp;
use tools::RegisteredTool;
use unknown::UnknownNames;

/// An MCP server. Cheap to clone: clones share registries, so one value serves any number
/// of connections, and tools added at runtime appear on all of them.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    info: Arc<Implementation>,
    /// `info` as every modern result carries it.
    stamp: Stamp,
    instructions: Option<String>,
    registry: RwLock<Arc<Registry>>,
    bus: Arc<dyn SubscriptionBus>,
    custom: CustomMethods,
    page_size: Option<usize>,
    cache_ttl_ms: u64,
    /// The scope set with `cache_hints`; `None`: lists public, reads private.
    cache_scope: Option<CacheScope>,
    /// Hints of one list, set with `list_cache_hints`.
    list_cache_hints: HashMap<DefinitionKind, (u64, CacheScope)>,
    max_message_size: usize,
    input_policy: InputPolicy,
    limits: SessionLimits,
    mask_error_details: bool,
    /// How requests that name an unknown tool, resource or prompt are answered.
    unknown: UnknownNames,
    tasks: tasks::Tasks,
    session_store: Option<Arc<dyn SessionStore>>,
    event_store: Option<Arc<dyn EventStore>>,
    /// Completes what no argument's own handler does.
    completer: RwLock<Option<Arc<dyn Completer>>>,
    /// What runs around every request, if anything does.
    interceptor: RwLock<Option<Arc<dyn Interceptor>>>,
    /// Lists and serves what is not registered up front.
    catalog: RwLock<Catalog>,
    /// The proxies served, in order (`serve_proxies` and `add_proxy` make their catalog).
    proxies: Mutex<Vec<Proxy>>,
    /// Tells the clients of the lists of the proxies' servers that changed, while held.
    proxy_follower: Mutex<Option<proxy::ListChanges>>,
    skills: SharedSkills,
    /// How the skills are listed among the resources.
    skill_listing: SkillListing,
    /// The `_meta` of each resource that lists a skill's file.
    skill_meta: Option<Meta>,
    /// Reads the skills' files (those listed are registered resources; the others are
    /// read through it too).
    skill_files: Arc<dyn ResourceHandler>,
    /// Capabilities declared whether or not anything is registered for them.
    declared: Vec<Capability>,
}

/// Builds a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolDef>,
    resources: Vec<ResourceDef>,
    templates: Vec<ResourceTemplateDef>,
    prompts: Vec<PromptDef>,
    page_size: Option<usize>,
    cache_ttl_ms: u64,
    /// The scope set with `cache_hints`; `None`: lists public, reads private.
    cache_scope: Option<CacheScope>,
    list_cache_hints: HashMap<DefinitionKind, (u64, CacheScope)>,
    max_message_size: usize,
    request_state_keys: Option<KeyRing>,
    max_input_rounds: u32,
    request_state_ttl: std::time::Duration,
    bus: Option<Arc<dyn SubscriptionBus>>,
    requests: Vec<(String, Arc<dyn RequestHandler>)>,
    notifications: Vec<(String, Arc<dyn NotificationHandler>)>,
    extensions: serde_json::Map<String, serde_json::Value>,
    limits: SessionLimits,
    mask_error_details: bool,
    unknown: UnknownNames,
    task_limits: TaskLimits,
    task_store: Option<Arc<dyn TaskStore>>,
    session_store: Option<Arc<dyn SessionStore>>,
    event_store: Option<Arc<dyn EventStore>>,
    completer: Option<Arc<dyn Completer>>,
    catalog: Catalog,
    skills: Option<std::path::PathBuf>,
    skill_listing: SkillListing,
    skill_meta: Option<Meta>,
    declared: Vec<Capability>,
}

impl ServerBuilder {
    /// Lists and serves what is not registered up front (see [`Catalog`]): registered
    /// definitions are listed first, and served by their own handlers.
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = catalog;
        self
    }

    /// Serves the Agent Skills under directory `dir` (the skills extension, SEP-2640):
    /// each directory below it that holds a `SKILL.md` (YAML front matter with `name`,
    /// the directory's name, and `description`) is a skill, read into memory when the
    /// server is built. Each `SKILL.md` is listed as a resource; every file of a skill is
    /// read at `skill://<path>/<file>`; clients list the skills, with each file's digest
    /// and size, with `skills/list` and `skills/get`, and a skill's directories with
    /// `resources/directory/read`. The extension is declared to 2026-07-28 clients.
    pub fn skills(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills = Some(dir.into());
        self
    }

    /// How the skills are listed among the resources: each `SKILL.md` (the default), or
    /// every file of each skill as FastMCP lists them (see [`SkillListing`]).
    pub fn skill_listing(mut self, listing: SkillListing) -> Self {
        self.skill_listing = listing;
        self
    }

    /// The `_meta` of each resource that lists a skill's file (none by default).
    pub fn skill_meta(mut self, meta: Meta) -> Self {
        self.skill_meta = Some(meta);
        self
    }

    /// The server's description of itself (title, icons, web site…).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Guidance for the model on how to use the server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds a static resource.
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a resource template.
    pub fn resource_template(mut self, template: ResourceTemplateDef) -> Self {
        self.templates.push(template);
        self
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Splits list results into pages of at most `size` items (default: one page).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// The caching hints of modern list and read results (default: 0 ms; lists public,
    /// reads private, as what a resource holds may be its reader's own).
    pub fn cache_hints(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache_ttl_ms = ttl_ms;
        self.cache_scope = Some(scope);
        self
    }

    /// The caching hints of one list's modern results (`tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`), instead of [`cache_hints`](Self::cache_hints)'.
    /// A resource handler gives its own reads' hints by setting them in its result.
    pub fn list_cache_hints(mut self, kind: DefinitionKind, ttl_ms: u64, scope: CacheScope) -> Self {
        self.list_cache_hints.insert(kind, (ttl_ms, scope));
        self
    }

    /// What completes an argument of a prompt or resource template that has no
    /// completion handler of its own (see [`Server::set_completer`]).
    pub fn completer(mut self, completer: impl Completer) -> Self {
        self.completer = Some(Arc::new(completer));
        self
    }

    /// How long tasks live, how often clients poll them, how many are kept (see
    /// [`TaskLimits`] for the defaults).
    pub fn task_limits(mut self, limits: TaskLimits) -> Self {
        self.task_limits = limits;
        self
    }

    /// What this server shares with its replicas (see [`SharedState`]): its task store,
    /// subscription bus, request-state keys, and the session and event stores of its HTTP
    /// endpoints, at once.
    pub fn shared_state(self, shared: SharedState) -> Self {
        self.task_store(shared.task_store)
            .subscription_bus(shared.subscription_bus)
            .request_state_keys(shared.request_state_keys)
            .session_store(shared.session_store)
            .event_store(shared.event_store)
    }

    /// Where the SSE events of legacy HTTP sessions are kept for resumption, unless the
    /// endpoint's [`HttpConfig::event_store`](crate::server::http::HttpConfig::event_store)
    /// says otherwise (default: in each session's memory). With a store that replicas
    /// share, a stream resumes on any replica.
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(store);
        self
    }

    /// Where the legacy sessions of its HTTP endpoints are kept (default: on the replica
    /// that opened each). With a store that replicas share, every replica serves every
    /// session; give them the same request-state keys and subscription bus too.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Where tasks are kept (default: in memory). A
    /// [`SqliteTaskStore`](crate::state::SqliteTaskStore) keeps them across restarts.
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// The largest message accepted on stream transports (default 4 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// The most requests one client may have in flight (default 256); past it a request
    /// is answered at once with an error, rather than queued.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.limits.max_in_flight = requests;
        self
    }

    /// The most resources one legacy client may subscribe to (default 1024).
    pub fn max_subscriptions(mut self, uris: usize) -> Self {
        self.limits.max_subscriptions = uris;
        self
    }

    /// How long requests in flight may finish once a connection's input has ended (stdin
    /// closed, the peer gone; default 5 s); then they are cancelled.
    pub fn end_grace(mut self, grace: std::time::Duration) -> Self {
        self.limits.end_grace = grace;
        self
    }

    /// Sends a generic message instead of what a handler's error says (default off: a
    /// tool's error reaches the client, as in the official SDKs); the detail is logged.
    /// Errors given as a JSON-RPC error ([`HandlerError::Rpc`]) are sent as they are.
    pub fn mask_error_details(mut self, on: bool) -> Self {
        self.mask_error_details = on;
        self
    }

    /// Answers a call of a tool the server does not have with a tool error worded as
    /// `template` says (`{name}` the tool's name), as the Python SDKs do, rather than the
    /// `-32602` protocol error the spec names (the default).
    pub fn unknown_tool_error(mut self, template: impl Into<String>) -> Self {
        self.unknown.tool = Some(template.into());
        self
    }

    /// Answers a read of a resource the server does not have with a `-32602` error worded
    /// as `template` says (`{uri}` the URI), in every era, as the Python SDKs do, rather
    /// than the error each era's spec names (`-32002` before 2026-07-28, the default).
    pub fn unknown_resource_error(mut self, template: impl Into<String>) -> Self {
        self.unknown.resource = Some(template.into());
        self
    }

    /// Words the `-32602` error that answers a request for a prompt the server does not
    /// have as `template` says (`{name}` the prompt's name).
    pub fn unknown_prompt_error(mut self, template: impl Into<String>) -> Self {
        self.unknown.prompt = Some(template.into());
        self
    }

    /// How long a request to a legacy client (elicitation, sampling, roots) waits for its
    /// answer (default 5 minutes: a person may be answering); then the handler gets an
    /// error and the client a `notifications/cancelled`.
    pub fn client_request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.limits.client_request_timeout = timeout;
        self
    }

    /// The keys that seal `requestState` (default: one random key per process). Give
    /// every replica the same ring so that any of them can serve a retry.
    pub fn request_state_keys(mut self, keys: KeyRing) -> Self {
        self.request_state_keys = Some(keys);
        self
    }

    /// How many `input_required` rounds one request may take (default 8).
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// How long sealed `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Where server events go, so that every connection and subscription hears them
    /// (default: an [`InMemorySubscriptionBus`] of this process). Replicas that share a bus
    /// tell each other's clients what changed.
    pub fn subscription_bus(mut self, bus: Arc<dyn SubscriptionBus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Answers requests of `method`, one the core does not serve (an extension's). A
    /// handler of `resources/subscribe`, `resources/unsubscribe` or `logging/setLevel` is
    /// told of each such request before the core answers it (an error it returns refuses
    /// the request; its result is not used), for a server that keeps its own record. A
    /// server whose catalog keeps its own tasks ([`Catalog::start_tool_tasks`]) answers the
    /// 2025-11-25 task requests (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`)
    /// with handlers, while no registered tool runs as a task.
    pub fn request_handler(mut self, method: impl Into<String>, handler: impl RequestHandler) -> Self {
        self.requests.push((method.into(), Arc::new(handler)));
        self
    }

    /// Acts on notifications of `method`: one the core does not handle (an extension's),
    /// `notifications/roots/list_changed` (see [`on_roots_list_changed`](Self::on_roots_list_changed)),
    /// or `notifications/initialized`, which a legacy client sends once its handshake is
    /// done (the handler's context is the session's: it may ask the client for its roots).
    pub fn notification_handler(mut self, method: impl Into<String>, handler: impl NotificationHandler) -> Self {
        self.notifications.push((method.into(), Arc::new(handler)));
        self
    }

    /// Acts on `notifications/roots/list_changed`: a client of 2025-11-25 or earlier says
    /// its roots changed. The handler's context is the session's, so it can ask for the new
    /// roots with [`Context::list_roots`]. (2026-07-28 has no such notification: a handler
    /// asks for the roots when it needs them.)
    pub fn on_roots_list_changed(self, handler: impl NotificationHandler) -> Self {
        self.notification_handler(methods::ROOTS_LIST_CHANGED, handler)
    }

    /// Declares `capability` to every client even while nothing is registered for it.
    /// Without it a server declares what it has when the client asks: tools, resources or
    /// prompts when one is registered, completions when a completion handler is. Declare
    /// what the server will add while clients are connected, as a client of 2025-11-25 or
    /// earlier reads capabilities once, at its handshake.
    pub fn declare(mut self, capability: Capability) -> Self {
        self.declared.push(capability);
        self
    }

    /// Declares an extension in `capabilities.extensions` of `server/discover`
    /// (2026-07-28), with its settings (`{}` for none).
    pub fn extension(mut self, id: impl Into<String>, settings: serde_json::Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Compiles every definition (schemas, URI templates) and returns the server.
    pub fn build(self) -> Result<Server, DefinitionError> {
        let mut registry = Registry::default();
        for tool in self.tools {
            registry.add_tool(RegisteredTool::compile(tool)?)?;
        }
        for resource in self.resources {
            registry.add_resource(RegisteredResource::compile(resource)?)?;
        }
        for template in self.templates {
            registry.add_resource_template(RegisteredTemplate::compile(template)?)?;
        }
        for prompt in self.prompts {
            registry.add_prompt(RegisteredPrompt::compile(prompt)?)?;
        }
        let mut skills = Skills::default();
        if let Some(dir) = &self.skills {
            skills.load(dir)?;
        }
        let skills: SharedSkills = Arc::new(RwLock::new(Arc::new(skills)));
        let skill_files: Arc<dyn ResourceHandler> = Arc::new(SkillFiles(Arc::clone(&skills)));
        let served = skills::current(&skills);
        let listed = served.resources(&served.uris(), self.skill_listing);
        for resource in skill_resources(listed, self.skill_meta.as_ref(), &skill_files)? {
            registry.add_resource(resource)?;
        }
        let custom = CustomMethods::default();
        for (id, settings) in self.extensions {
            custom.extensions.declare(id, settings);
        }
        for (method, handler) in self.requests {
            custom.add_request(method, handler)?;
        }
        for (method, handler) in self.notifications {
            custom.add_notification(method, handler)?;
        }
        let keys = match self.request_state_keys {
            Some(keys) => keys,
            None => own_request_state_keys(self.session_store.is_some() || self.bus.is_some())?,
        };
        let bus: Arc<dyn SubscriptionBus> = self.bus.unwrap_or_else(|| Arc::new(InMemorySubscriptionBus::default()));
        Ok(Server {
            inner: Arc::new(ServerInner {
                stamp: Stamp::new(&self.info).map_err(|e| DefinitionError::new(format!("server info: {e}")))?,
                info: Arc::new(self.info),
                instructions: self.instructions,
                registry: RwLock::new(Arc::new(registry)),
                custom,
                bus: Arc::clone(&bus),
                page_size: self.page_size,
                cache_ttl_ms: self.cache_ttl_ms,
                cache_scope: self.cache_scope,
                list_cache_hints: self.list_cache_hints,
                max_message_size: self.max_message_size,
                input_policy: InputPolicy {
                    keys,
                    max_rounds: self.max_input_rounds,
                    state_ttl: self.request_state_ttl,
                },
                limits: self.limits,
                mask_error_details: self.mask_error_details,
                unknown: self.unknown,
                tasks: tasks::Tasks::new(
                    self.task_limits,
                    self.task_store.unwrap_or_else(|| Arc::new(InMemoryTaskStore::new())),
                    Arc::clone(&bus),
                ),
                session_store: self.session_store,
                event_store: self.event_store,
                completer: RwLock::new(self.completer),
                interceptor: RwLock::default(),
                catalog: RwLock::new(self.catalog),
                proxies: Mutex::default(),
                proxy_follower: Mutex::default(),
                skills,
                skill_listing: self.skill_listing,
                skill_meta: self.skill_meta,
                skill_files,
                declared: self.declared,
            }),
        })
    }
}

/// The registrations of the resources `listed` of skills, with `meta`, read by `files`.
fn skill_resources(
    listed: Vec<crate::protocol::Resource>,
    meta: Option<&Meta>,
    files: &Arc<dyn ResourceHandler>,
) -> Result<Vec<RegisteredResource>, DefinitionError> {
    listed
        .into_iter()
        .map(|resource| {
            let resource = crate::protocol::Resource {
                meta: meta.cloned(),
                ..resource
            };
            RegisteredResource::compile(ResourceDef::from_resource(resource).handler_object(Arc::clone(files)))
        })
        .collect()
}

/// The request-state keys of a server given none: those [`REQUEST_STATE_KEYS_ENV`] holds,
/// else a random one, with a warning when the server shares other state with replicas
/// (`shares`): state another replica sealed will not open here.
fn own_request_state_keys(shares: bool) -> Result<KeyRing, DefinitionError> {
    if let Some(text) = std::env::var(REQUEST_STATE_KEYS_ENV)
        .ok()
        .filter(|text| !text.trim().is_empty())
    {
        return KeyRing::parse(&text).map_err(|e| DefinitionError::new(format!("{REQUEST_STATE_KEYS_ENV}: {e}")));
    }
    if shares {
        tracing::warn!(
            "this server shares state with replicas but seals requestState with a key of its own: \
             a multi round-trip request whose rounds land on different replicas will fail; share the \
             keys with a shared store ({STORE_ENV}), {REQUEST_STATE_KEYS_ENV} or ServerBuilder::request_state_keys"
        );
    }
    KeyRing::random().map_err(|e| DefinitionError::new(format!("request state keys: {e}")))
}

impl Server {
    /// Starts building a server with this name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            page_size: None,
            cache_ttl_ms: 0,
            cache_scope: None,
            list_cache_hints: HashMap::new(),
            max_message_size: transport::DEFAULT_MAX_MESSAGE_SIZE,
            request_state_keys: None,
            max_input_rounds: 8,
            request_state_ttl: std::time::Duration::from_secs(600),
            bus: None,
            requests: Vec::new(),
            notifications: Vec::new(),
            extensions: serde_json::Map::new(),
            limits: SessionLimits::default(),
            mask_error_details: false,
            unknown: UnknownNames::default(),
            task_limits: TaskLimits::default(),
            task_store: None,
            session_store: None,
            event_store: None,
            completer: None,
            catalog: Catalog::default(),
            skills: None,
            skill_listing: SkillListing::default(),
            skill_meta: None,
            declared: Vec::new(),
        }
    }

    /// Serves one connection until its input ends and the requests in flight finish.
    /// Dropping the future stops serving it.
    pub async fn serve(&self, transport: Transport) -> crate::Result<()> {
        let (connection, incoming) = Connection::start(transport);
        let spawn = connection.spawn().clone();
        let session = Session::new(self.clone(), connection);
        // The connection is read on a task of its own, which the caller's may not be (a
        // `#[tokio::main]` body runs outside the runtime's workers): the requests it spawns
        // then start on the worker that read them, with no thread woken to take each.
        let reading = AbortOnDrop(spawn.run(session.run(incoming)));
        reading.await.map_err(|stopped| match stopped {
            Some(panic) => std::panic::resume_unwind(panic),
            None => crate::Error::ConnectionClosed,
        })
    }

    /// Serves this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(&self) -> crate::Result<()> {
        self.serve(transport::stdio::stdio(self.inner.max_message_size)).await
    }

    /// Serves the input its caller reads and hands over through the
    /// [`StdinFeed`](transport::stdio::StdinFeed), answering on `output`
    /// ([`transport::stdio::stdout`], or a stream of the caller's), with the connection's
    /// work on `spawner` (see [`transport::stdio::stdio_fed`]): the future serves until the
    /// input ends. Call it within the tokio runtime's context.
    pub fn serve_stdio_fed(
        &self,
        spawner: Arc<dyn transport::Spawner>,
        output: impl tokio::io::AsyncWrite + Send + 'static,
    ) -> (
        impl std::future::Future<Output = crate::Result<()>> + Send + 'static,
        transport::stdio::StdinFeed,
    ) {
        let (transport, feed) = transport::stdio::stdio_fed(output, self.inner.max_message_size);
        let server = self.clone();
        (async move { server.serve(transport.spawning_on(spawner)).await }, feed)
    }

    /// Adds a tool; every connection is told the list changed. A name is registered
    /// once: remove the tool first to replace it.
    pub fn add_tool(&self, tool: ToolDef) -> Result<(), DefinitionError> {
        let tool = RegisteredTool::compile(tool)?;
        self.add(DefinitionKind::Tool, |r| r.add_tool(tool))
    }

    /// Serves the Agent Skills under directory `dir` besides those the server has (see
    /// [`ServerBuilder::skills`]), listed as the builder said: their files are read now;
    /// a skill at a URI the server already serves keeps what it has. Every connection is
    /// told the resource list changed. Refused, with nothing added, when a directory is not
    /// a valid set of skills or one of their resources' URIs is another resource's.
    pub fn add_skills(&self, dir: impl AsRef<std::path::Path>) -> Result<(), DefinitionError> {
        self.change_skills(|skills| skills.load(dir.as_ref()))
    }

    /// Serves the skill at `path` below `skill://` (`ops/deploy`, its last segment the
    /// skill's name) whose files are `files`, each by its path in the skill (`SKILL.md`,
    /// `references/FORMS.md`), as [`add_skills`](Self::add_skills) serves one read from a
    /// directory.
    pub fn add_skill(
        &self,
        path: &str,
        files: impl IntoIterator<Item = (String, Vec<u8>)>,
    ) -> Result<(), DefinitionError> {
        let files = files.into_iter().collect();
        self.change_skills(|skills| skills.add_skill(path, files).map_err(DefinitionError::new))
    }

    /// Serves the skills `other` serves now, under `namespace` if one is given
    /// (`skill://weather/forecasting/SKILL.md` for `skill://forecasting/SKILL.md` under
    /// `weather`), as [`add_skill`](Self::add_skill) serves each: what a server that mounts
    /// `other` serves of its skills.
    pub fn add_skills_of(&self, other: &Server, namespace: Option<&str>) -> Result<(), DefinitionError> {
        let theirs = other.skills();
        self.change_skills(|skills| skills.add_from(&theirs, namespace).map_err(DefinitionError::new))
    }

    /// Serves the skills `add` adds to a copy of the server's: their resources are
    /// registered and the copy swapped in, or nothing changes.
    fn change_skills(
        &self,
        add: impl FnOnce(&mut Skills) -> Result<(), DefinitionError>,
    ) -> Result<(), DefinitionError> {
        let mut shared = self.inner.skills.write().unwrap_or_else(|e| e.into_inner());
        let mut next = Skills::clone(&shared);
        add(&mut next)?;
        let had = shared.uris();
        let added: Vec<String> = next.uris().into_iter().filter(|uri| !had.contains(uri)).collect();
        if added.is_empty() {
            return Ok(());
        }
        let listed = next.resources(&added, self.inner.skill_listing);
        let defs = skill_resources(listed, self.inner.skill_meta.as_ref(), &self.inner.skill_files)?;
        let previous = std::mem::replace(&mut *shared, Arc::new(next));
        let registered = self.add(DefinitionKind::Resource, |registry| {
            defs.into_iter().try_for_each(|def| registry.add_resource(def))
        });
        if registered.is_err() {
            *shared = previous;
        }
        registered
    }

    /// Removes a tool, enabled or not; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(DefinitionKind::Tool, name)
    }

    /// Adds a static resource; its URI is registered once.
    pub fn add_resource(&self, resource: ResourceDef) -> Result<(), DefinitionError> {
        let resource = RegisteredResource::compile(resource)?;
        self.add(DefinitionKind::Resource, |r| r.add_resource(resource))
    }

    /// Removes a static resource, enabled or not; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(DefinitionKind::Resource, uri)
    }

    /// Adds a resource template; its URI template is registered once.
    pub fn add_resource_template(&self, template: ResourceTemplateDef) -> Result<(), DefinitionError> {
        let template = RegisteredTemplate::compile(template)?;
        self.add(DefinitionKind::ResourceTemplate, |r| r.add_resource_template(template))
    }

    /// Removes a resource template by its URI template, enabled or not; returns whether
    /// it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.remove(DefinitionKind::ResourceTemplate, uri_template)
    }

    /// Adds a prompt; its name is registered once.
    pub fn add_prompt(&self, prompt: PromptDef) -> Result<(), DefinitionError> {
        let prompt = RegisteredPrompt::compile(prompt)?;
        self.add(DefinitionKind::Prompt, |r| r.add_prompt(prompt))
    }

    /// Removes a prompt, enabled or not; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(DefinitionKind::Prompt, name)
    }

    /// Disables a registration (`enabled: false`): it leaves its list and is served no
    /// more (a call answers as for an unknown name), but its key stays registered until it
    /// is removed. Enabling it brings it back, at the end of its list. Connections are told
    /// the list changed; returns whether anything changed (false for an unknown key, or
    /// one already as asked).
    pub fn set_enabled(&self, kind: DefinitionKind, key: &str, enabled: bool) -> bool {
        self.change(kind, |r| r.set_enabled(kind, key, enabled)) != Edit::Nothing
    }

    /// Sets the server's [`Completer`]: what completes an argument of a prompt or resource
    /// template that has no completion handler of its own (replacing any set before).
    pub fn set_completer(&self, completer: impl Completer) {
        *crate::write(&self.inner.completer) = Some(Arc::new(completer));
    }

    /// Serves what the `proxies`' servers offer besides what is registered here: their
    /// lists after this server's, one after another, their tools, prompts and resources,
    /// and their completions (see [`Proxy`]). It replaces the server's [`Catalog`] and
    /// completer, and the proxies served before; clients are told the lists changed (as
    /// [`set_catalog`](Self::set_catalog) tells them).
    pub fn serve_proxies(&self, proxies: impl IntoIterator<Item = Proxy>) {
        let mut served = crate::lock(&self.inner.proxies);
        *served = proxies.into_iter().collect();
        self.offer_proxies(&served);
    }

    /// Serves what `proxy`'s server offers too, after what is registered here and the
    /// proxies served before (see [`serve_proxies`](Self::serve_proxies)).
    pub fn add_proxy(&self, proxy: Proxy) {
        let mut served = crate::lock(&self.inner.proxies);
        served.push(proxy);
        self.offer_proxies(&served);
    }

    fn offer_proxies(&self, proxies: &[Proxy]) {
        let proxies = proxy::Proxies::new(proxies.iter().cloned());
        // The follower of the proxies before goes with this one's arrival.
        let follower = proxies.follow_list_changes(Arc::clone(&self.inner.bus));
        *crate::lock(&self.inner.proxy_follower) = Some(follower);
        self.set_catalog(proxies.catalog());
        self.set_completer(proxies);
    }

    /// Runs `interceptor` around every request from now on (replacing the one before);
    /// see [`Interceptor`].
    pub fn set_interceptor(&self, interceptor: impl Interceptor) {
        *crate::write(&self.inner.interceptor) = Some(Arc::new(interceptor));
    }

    pub(crate) fn interceptor(&self) -> Option<Arc<dyn Interceptor>> {
        crate::read(&self.inner.interceptor).clone()
    }

    pub(crate) fn completer(&self) -> Option<Arc<dyn Completer>> {
        crate::read(&self.inner.completer).clone()
    }

    /// The server's [`Catalog`] (empty unless set), to change and set again.
    pub fn catalog(&self) -> Catalog {
        crate::read(&self.inner.catalog).clone()
    }

    /// Sets the server's [`Catalog`] (replacing the one before); clients are told the lists
    /// of what either offers changed.
    pub fn set_catalog(&self, catalog: Catalog) {
        let before = std::mem::replace(&mut *crate::write(&self.inner.catalog), catalog.clone());
        for kind in [DefinitionKind::Tool, DefinitionKind::Prompt, DefinitionKind::Resource] {
            if before.offers(kind) || catalog.offers(kind) {
                self.notify_list_changed(kind);
            }
        }
    }

    /// One function of the catalog, read without cloning the rest.
    pub(crate) fn catalog_part<T: ?Sized>(&self, part: impl FnOnce(&Catalog) -> &Option<Arc<T>>) -> Option<Arc<T>> {
        part(&crate::read(&self.inner.catalog)).clone()
    }

    /// Answers requests of `method` from now on, one the core does not serve (as
    /// [`ServerBuilder::request_handler`], which says which of the protocol's requests a
    /// handler may be told of). Fails for another method of the protocol or one already
    /// handled.
    pub fn add_request_handler(
        &self,
        method: impl Into<String>,
        handler: impl RequestHandler,
    ) -> Result<(), DefinitionError> {
        self.inner.custom.add_request(method.into(), Arc::new(handler))
    }

    /// Acts on notifications of `method` from now on, as [`ServerBuilder::notification_handler`]
    /// says.
    pub fn add_notification_handler(
        &self,
        method: impl Into<String>,
        handler: impl NotificationHandler,
    ) -> Result<(), DefinitionError> {
        self.inner.custom.add_notification(method.into(), Arc::new(handler))
    }

    /// Declares extension `id` with its `settings` to clients that connect from now on
    /// (as [`ServerBuilder::extension`]).
    pub fn declare_extension(&self, id: impl Into<String>, settings: serde_json::Value) {
        self.inner.custom.extensions.declare(id.into(), settings);
    }

    /// Declares `name` with its `settings` in `capabilities.experimental` (every era), to
    /// clients that connect from now on: what is not in the protocol yet, as the official
    /// SDKs' `experimental_capabilities` declare it.
    pub fn declare_experimental(&self, name: impl Into<String>, settings: serde_json::Value) {
        self.inner.custom.experimental.declare(name.into(), settings);
    }

    /// Tells every client that the list of `kind` changed, for lists the registry does not
    /// hold (changes to registrations are told without it).
    pub fn notify_list_changed(&self, kind: DefinitionKind) {
        self.inner.bus.publish(list_changed_event(kind));
    }

    /// Tells subscribers of `uri` that it changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.inner.bus.publish(ServerEvent::ResourceUpdated(uri.into()));
    }

    /// The server's name and version.
    pub fn server_info(&self) -> Arc<Implementation> {
        Arc::clone(&self.inner.info)
    }

    /// [`server_info`](Self::server_info) as every modern result carries it.
    pub(crate) fn stamp(&self) -> &Stamp {
        &self.inner.stamp
    }

    /// Removes a registration; connections are told when it was listed.
    fn remove(&self, kind: DefinitionKind, key: &str) -> bool {
        self.change(kind, |r| r.remove(kind, key)) != Edit::Nothing
    }

    /// Applies `edit` to a copy of the registry and swaps it in when `edit` changed it;
    /// tells connections the list of `kind` changed when the change shows in it.
    fn change(&self, kind: DefinitionKind, edit: impl FnOnce(&mut Registry) -> Edit) -> Edit {
        let outcome = {
            let mut guard = self.inner.registry.write().unwrap_or_else(|e| e.into_inner());
            let mut next = Registry::clone(&guard);
            let outcome = edit(&mut next);
            if outcome != Edit::Nothing {
                *guard = Arc::new(next);
            }
            outcome
        };
        if outcome == Edit::Listed {
            self.inner.bus.publish(list_changed_event(kind));
        }
        outcome
    }

    /// Applies `insert`, a registration of `kind` that may be refused, and tells
    /// connections when it was not.
    fn add(
        &self,
        kind: DefinitionKind,
        insert: impl FnOnce(&mut Registry) -> Result<(), DefinitionError>,
    ) -> Result<(), DefinitionError> {
        let mut outcome = Ok(());
        self.change(kind, |r| {
            outcome = insert(r);
            match outcome {
                Ok(()) => Edit::Listed,
                Err(_) => Edit::Nothing,
            }
        });
        outcome
    }

    pub(crate) fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.inner.registry.read().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn subscribe_events(&self) -> broadcast::Receiver<ServerEvent> {
        self.inner.bus.subscribe()
    }

    pub(crate) fn custom(&self) -> &CustomMethods {
        &self.inner.custom
    }

    pub(crate) fn instructions(&self) -> Option<String> {
        self.inner.instructions.clone()
    }

    pub(crate) fn input_policy(&self) -> &InputPolicy {
        &self.inner.input_policy
    }

    pub(crate) fn limits(&self) -> &SessionLimits {
        &self.inner.limits
    }

    /// What the client may learn of a handler's error: all of it, or, when the server masks
    /// error details, a generic message (the detail goes to the log).
    pub(crate) fn disclose(&self, error: HandlerError) -> HandlerError {
        match error {
            HandlerError::Message(detail) if self.inner.mask_error_details => {
                tracing::warn!(detail, "a handler failed (masked from the client)");
                HandlerError::Message("the request failed".to_owned())
            }
            error => self.inner.unknown.reworded(error),
        }
    }

    pub(crate) fn tasks(&self) -> &tasks::Tasks {
        &self.inner.tasks
    }

    /// How requests that name an unknown tool, resource or prompt are answered (see
    /// [`ServerBuilder::unknown_tool_error`] and its siblings).
    pub(crate) fn unknown(&self) -> &UnknownNames {
        &self.inner.unknown
    }

    /// Where legacy HTTP sessions are kept, when replicas share them.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn session_store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.inner.session_store.as_ref()
    }

    /// Where the events of legacy HTTP sessions are kept, when the builder set a store.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn event_store(&self) -> Option<&Arc<dyn EventStore>> {
        self.inner.event_store.as_ref()
    }

    /// The skills the server serves now (none unless the builder named a directory or
    /// [`add_skills`](Self::add_skills) added some).
    pub(crate) fn skills(&self) -> Arc<Skills> {
        skills::current(&self.inner.skills)
    }

    /// What reads the skills' files.
    pub(crate) fn skill_files(&self) -> Arc<dyn ResourceHandler> {
        Arc::clone(&self.inner.skill_files)
    }

    pub(crate) fn page_size(&self) -> Option<usize> {
        self.inner.page_size
    }

    /// Stamps a modern result with the server's cache hints: private for a result made for
    /// its caller alone (`private`), whatever the server's scope; else the server's scope, or
    /// `default` when it set none.
    pub(crate) fn stamp_cache_hints(&self, result: &mut impl CacheableResult, private: bool, default: CacheScope) {
        let scope = if private {
            CacheScope::Private
        } else {
            self.inner.cache_scope.unwrap_or(default)
        };
        result.set_cache_hints(self.inner.cache_ttl_ms, scope);
    }

    /// Stamps a modern list result of `kind` with the hints set for that list, else the
    /// server's (lists are public unless `private`: made for their caller alone).
    pub(crate) fn stamp_list_cache_hints(
        &self,
        result: &mut impl CacheableResult,
        kind: DefinitionKind,
        private: bool,
    ) {
        match self.inner.list_cache_hints.get(&kind) {
            Some(&(ttl_ms, scope)) => result.set_cache_hints(ttl_ms, if private { CacheScope::Private } else { scope }),
            None => self.stamp_cache_hints(result, private, CacheScope::Public),
        }
    }

    /// Whether a listed tool may run as a task.
    pub(crate) fn has_task_tools(&self) -> bool {
        self.registry().has_task_tools()
    }

    /// What the server offers now: what is registered or in the catalog (a completer
    /// completes), and what the builder declared.
    pub(crate) fn offered(&self) -> Offered {
        let mut offered = self.registry().offered().with_declared(&self.inner.declared);
        {
            let catalog = crate::read(&self.inner.catalog);
            offered.tools |= catalog.offers(DefinitionKind::Tool);
            offered.prompts |= catalog.offers(DefinitionKind::Prompt);
            offered.resources |= catalog.offers(DefinitionKind::Resource);
        }
        offered.completions |= crate::read(&self.inner.completer).is_some();
        offered
    }

    /// What [`offered`](Self::offered) says, and `logging`, which every handler may use.
    /// Extensions are a 2026-07-28 capability, declared to that era only. While a tool may
    /// run as a task, 2025-11-25 is told of `tasks` and 2026-07-28 of the tasks extension.
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> ServerCapabilities {
        let era = version.era();
        let mut extensions = self.inner.custom.extensions.all();
        let experimental = self.inner.custom.experimental.all();
        if !self.skills().is_empty() {
            let settings = SkillsCapability {
                directory_read: Some(true),
            };
            extensions.insert(
                skills_protocol::EXTENSION.to_owned(),
                serde_json::to_value(settings).unwrap_or_default(),
            );
        }
        let task_tools = self.has_task_tools();
        if task_tools {
            extensions.insert(
                tasks::EXTENSION.to_owned(),
                serde_json::Value::Object(Default::default()),
            );
        }
        let tasks = match (task_tools, version.has_tasks()) {
            (_, false) => None,
            (true, true) => Some(serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})),
            (false, true) => self.kept_tasks(),
        }
        .and_then(|tasks| tasks.as_object().cloned());
        let mut capabilities = ServerCapabilities {
            logging: Some(Default::default()),
            extensions: (era == Era::Modern && !extensions.is_empty()).then_some(extensions),
            experimental: (!experimental.is_empty()).then_some(experimental),
            tasks,
            ..Default::default()
        };
        self.offered().declare(&mut capabilities);
        capabilities
    }

    /// The `tasks` capability of a server whose catalog keeps its own tasks: calls of its
    /// tools, and `tasks/list` and `tasks/cancel` where a handler answers them.
    fn kept_tasks(&self) -> Option<serde_json::Value> {
        self.catalog_part(|catalog| &catalog.task_starter)?;
        let mut tasks = serde_json::json!({"requests": {"tools": {"call": {}}}});
        for (method, name) in [(methods::TASKS_LIST, "list"), (methods::TASKS_CANCEL, "cancel")] {
            if self.inner.custom.request_handler(method).is_some() {
                tasks[name] = serde_json::json!({});
            }
        }
        Some(tasks)
    }
}

/// The event that tells connections the list of `kind` changed.
pub(crate) fn list_changed_event(kind: DefinitionKind) -> ServerEvent {
    match kind {
        DefinitionKind::Tool => ServerEvent::ToolsListChanged,
        DefinitionKind::Resource | DefinitionKind::ResourceTemplate => ServerEvent::ResourcesListChanged,
        DefinitionKind::Prompt => ServerEvent::PromptsListChanged,
    }
}

/// A random identifier: 128 bits from the system's CSPRNG as hex (visible ASCII, as the
/// spec asks of session ids): session ids, DPoP nonces, task ids.
pub(crate) fn random_id() -> Result<String, String> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness: {e}"))?;
    let mut id = String::with_capacity(32);
    for byte in bytes {
        id.push(DIGITS[usize::from(byte >> 4)].into());
        id.push(DIGITS[usize::from(byte & 0xf)].into());
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What `build` logs, as text.
    fn logged_building(builder: ServerBuilder) -> String {
        let logged = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&logged);
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || Log(Arc::clone(&sink)))
            .finish();
        tracing::subscriber::with_default(subscriber, || builder.build().unwrap());
        let text = String::from_utf8_lossy(&crate::lock(&logged)).into_owned();
        text
    }

    struct Log(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            crate::lock(&self.0).extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_server_that_shares_state_but_not_its_keys_warns_at_start() {
        let bus = || Arc::new(InMemorySubscriptionBus::default());
        let warned = logged_building(Server::builder("a", "1").subscription_bus(bus()));
        assert!(warned.contains("seals requestState with a key of its own"), "{warned}");
        let keys = KeyRing::random().unwrap();
        let shared = logged_building(
            Server::builder("a", "1")
                .subscription_bus(bus())
                .request_state_keys(keys),
        );
        assert!(shared.is_empty(), "{shared}");
        assert!(
            logged_building(Server::builder("a", "1")).is_empty(),
            "alone, nothing to share"
        );
    }
}
