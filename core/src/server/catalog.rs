//! Definitions a server does not register up front: a [`Catalog`] of functions that list
//! tools, prompts, resources and resource templates page by page, and serve the calls,
//! prompts and reads of names and URIs no registered definition has. It is what the
//! official SDKs' low-level servers are made of (`tools/list` and `tools/call` answered by
//! two functions), and what a server whose tools come from elsewhere (a proxy, a database)
//! needs.
//!
//! Registered definitions come first: a list gives them all on its first page, then the
//! lister's pages (its cursors passed through as they are); a registered name is served by
//! its own handler. What the catalog serves is not checked against a schema: its lister
//! may list anything, and the function gets the arguments as they came.
//!
//! ```
//! use oxmcp::protocol::{CallToolResult, ContentBlock, ListToolsResult, Tool};
//! use oxmcp::server::{Catalog, Context, HandlerError, Server};
//! use serde_json::{json, Map, Value};
//!
//! let catalog = Catalog::new()
//!     .list_tools(|_cursor: Option<String>, _ctx: Context| async {
//!         let tool: Tool = serde_json::from_value(json!({"name": "echo", "inputSchema": {"type": "object"}}))?;
//!         Ok::<_, HandlerError>(ListToolsResult { tools: vec![tool], ..Default::default() })
//!     })
//!     .call_tool(|name: String, arguments: Map<String, Value>, _ctx: Context| async move {
//!         let text = format!("{name}: {}", Value::Object(arguments));
//!         Ok::<_, HandlerError>(CallToolResult::success(vec![ContentBlock::text(text)]))
//!     });
//! let server = Server::builder("low-level", "1.0.0").catalog(catalog).build().unwrap();
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::context::Context;
use super::dispatch::{finish, parse_params, CursorParams, Outcome};
use super::handler::HandlerError;
use super::pagination;
use super::registry::{DefinitionKind, Registry, Scoped};
use super::resources::{FnResourceHandler, IntoReadResult, ResourceHandler};
use super::stamp::Stamp;
use super::Server;
use crate::protocol::{
    methods, CacheableResult, CallToolResult, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult,
};
use crate::BoxFuture;

/// Lists one kind of definition page by page: a `tools/list`, `prompts/list`,
/// `resources/list` or `resources/templates/list` result.
pub trait Lister<R>: Send + Sync + 'static {
    /// One page: the first for `cursor` `None`, else the page after the `next_cursor` this
    /// lister gave before (opaque to clients).
    fn list(&self, cursor: Option<String>, ctx: Context) -> BoxFuture<'static, Result<R, HandlerError>>;
}

impl<F, Fut, R> Lister<R> for F
where
    F: Fn(Option<String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
{
    fn list(&self, cursor: Option<String>, ctx: Context) -> BoxFuture<'static, Result<R, HandlerError>> {
        Box::pin(self(cursor, ctx))
    }
}

/// Runs the tools no registered definition has.
pub trait ToolCaller: Send + Sync + 'static {
    /// Runs tool `name` with `arguments` as the client sent them.
    fn call(
        &self,
        name: String,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>>;
}

impl<F, Fut> ToolCaller for F
where
    F: Fn(String, Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, HandlerError>> + Send + 'static,
{
    fn call(
        &self,
        name: String,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        Box::pin(self(name, arguments, ctx))
    }
}

/// Starts the catalog's tools as tasks it keeps itself: a 2025-11-25 call that asks for a
/// task (`params.task`) of a tool no registered definition has, on a server without task
/// tools of its own. It answers with the task it made (a `CreateTaskResult`), and the
/// server's request handlers answer `tasks/get`, `tasks/result`, `tasks/list` and
/// `tasks/cancel` (what the official SDKs' low-level servers do with their own task store).
pub trait TaskStarter: Send + Sync + 'static {
    /// Starts tool `name` with `arguments` as a task; `task` is the call's `params.task`.
    fn start(
        &self,
        name: String,
        arguments: Map<String, Value>,
        task: Value,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Value, HandlerError>>;
}

impl<F, Fut> TaskStarter for F
where
    F: Fn(String, Map<String, Value>, Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, HandlerError>> + Send + 'static,
{
    fn start(
        &self,
        name: String,
        arguments: Map<String, Value>,
        task: Value,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(self(name, arguments, task, ctx))
    }
}

/// Gets the prompts no registered definition has.
pub trait PromptGetter: Send + Sync + 'static {
    /// Gets prompt `name` with `arguments` as the client sent them.
    fn get(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>>;
}

impl<F, Fut> PromptGetter for F
where
    F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, HandlerError>> + Send + 'static,
{
    fn get(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        Box::pin(self(name, arguments, ctx))
    }
}

/// The functions that list and serve what is not registered, each optional; given to
/// [`ServerBuilder::catalog`](super::ServerBuilder::catalog) or
/// [`Server::set_catalog`](super::Server::set_catalog). A server offers tools, prompts or
/// resources once its catalog lists or serves them.
#[derive(Clone, Default)]
pub struct Catalog {
    pub(crate) tools: Option<Arc<dyn Lister<ListToolsResult>>>,
    pub(crate) tool_caller: Option<Arc<dyn ToolCaller>>,
    pub(crate) task_starter: Option<Arc<dyn TaskStarter>>,
    pub(crate) prompts: Option<Arc<dyn Lister<ListPromptsResult>>>,
    pub(crate) prompt_getter: Option<Arc<dyn PromptGetter>>,
    pub(crate) resources: Option<Arc<dyn Lister<ListResourcesResult>>>,
    pub(crate) templates: Option<Arc<dyn Lister<ListResourceTemplatesResult>>>,
    pub(crate) reader: Option<Arc<dyn ResourceHandler>>,
}

impl Catalog {
    /// A catalog with nothing in it.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Lists tools after the registered ones.
    pub fn list_tools(mut self, lister: impl Lister<ListToolsResult>) -> Self {
        self.tools = Some(Arc::new(lister));
        self
    }

    /// Runs the tools that are not registered.
    pub fn call_tool(mut self, caller: impl ToolCaller) -> Self {
        self.tool_caller = Some(Arc::new(caller));
        self
    }

    /// Starts the tools that are not registered as tasks, when a 2025-11-25 call asks for
    /// one (see [`TaskStarter`]); the server then declares `tasks.requests.tools.call`.
    pub fn start_tool_tasks(mut self, starter: impl TaskStarter) -> Self {
        self.task_starter = Some(Arc::new(starter));
        self
    }

    /// Lists prompts after the registered ones.
    pub fn list_prompts(mut self, lister: impl Lister<ListPromptsResult>) -> Self {
        self.prompts = Some(Arc::new(lister));
        self
    }

    /// Gets the prompts that are not registered.
    pub fn get_prompt(mut self, getter: impl PromptGetter) -> Self {
        self.prompt_getter = Some(Arc::new(getter));
        self
    }

    /// Lists resources after the registered ones (the files of a directory, the rows of a
    /// table); a resource template, or the catalog's reader, reads what it lists.
    pub fn list_resources(mut self, lister: impl Lister<ListResourcesResult>) -> Self {
        self.resources = Some(Arc::new(lister));
        self
    }

    /// Lists resource templates after the registered ones.
    pub fn list_resource_templates(mut self, lister: impl Lister<ListResourceTemplatesResult>) -> Self {
        self.templates = Some(Arc::new(lister));
        self
    }

    /// Reads the URIs no registered resource or template matches: `reader(uri, variables,
    /// ctx)`, `variables` empty, returns what a resource handler may.
    pub fn read_resource<F, Fut, R>(self, reader: F) -> Self
    where
        F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        self.read_resource_object(Arc::new(FnResourceHandler {
            handler: reader,
            mime_type: None,
        }))
    }

    /// [`read_resource`](Self::read_resource) implemented elsewhere (e.g. by a language
    /// binding).
    pub fn read_resource_object(mut self, reader: Arc<dyn ResourceHandler>) -> Self {
        self.reader = Some(reader);
        self
    }

    /// Serves `method` with `handler`, one function that can be any of the catalog's (a
    /// language binding's handler): a list (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`), or `tools/call`, `prompts/get`, `resources/read`. `None`
    /// for another method.
    pub fn serve<H>(self, method: &str, handler: H) -> Option<Self>
    where
        H: Lister<ListToolsResult>
            + Lister<ListPromptsResult>
            + Lister<ListResourcesResult>
            + Lister<ListResourceTemplatesResult>
            + ToolCaller
            + PromptGetter
            + ResourceHandler,
    {
        Some(match method {
            methods::TOOLS_LIST => self.list_tools(handler),
            methods::TOOLS_CALL => self.call_tool(handler),
            methods::PROMPTS_LIST => self.list_prompts(handler),
            methods::PROMPTS_GET => self.get_prompt(handler),
            methods::RESOURCES_LIST => self.list_resources(handler),
            methods::RESOURCES_TEMPLATES_LIST => self.list_resource_templates(handler),
            methods::RESOURCES_READ => self.read_resource_object(Arc::new(handler)),
            _ => return None,
        })
    }

    /// Whether it lists or serves `kind`.
    pub(crate) fn offers(&self, kind: DefinitionKind) -> bool {
        match kind {
            DefinitionKind::Tool => self.tools.is_some() || self.tool_caller.is_some(),
            DefinitionKind::Prompt => self.prompts.is_some() || self.prompt_getter.is_some(),
            DefinitionKind::Resource | DefinitionKind::ResourceTemplate => {
                self.resources.is_some() || self.templates.is_some() || self.reader.is_some()
            }
        }
    }
}

/// A list result: its items and the next page's cursor, and the catalog's lister of them.
pub(crate) trait ListPage: CacheableResult + Serialize + Default + 'static {
    /// What it lists.
    type Item;
    /// The kind of definition it lists.
    const KIND: DefinitionKind;
    /// Its items and cursor.
    fn parts(&mut self) -> (&mut Vec<Self::Item>, &mut Option<String>);
    /// The lister of `catalog` that lists them.
    fn lister(catalog: &Catalog) -> &Option<Arc<dyn Lister<Self>>>;
}

macro_rules! list_page {
    ($($result:ty => $items:ident: $item:ty, $kind:expr, $lister:ident);+ $(;)?) => {$(
        impl ListPage for $result {
            type Item = $item;
            const KIND: DefinitionKind = $kind;
            fn parts(&mut self) -> (&mut Vec<$item>, &mut Option<String>) {
                (&mut self.$items, &mut self.next_cursor)
            }
            fn lister(catalog: &Catalog) -> &Option<Arc<dyn Lister<Self>>> {
                &catalog.$lister
            }
        }
    )+};
}

list_page! {
    ListToolsResult => tools: crate::protocol::Tool, DefinitionKind::Tool, tools;
    ListPromptsResult => prompts: crate::protocol::Prompt, DefinitionKind::Prompt, prompts;
    ListResourcesResult => resources: crate::protocol::Resource, DefinitionKind::Resource, resources;
    ListResourceTemplatesResult => resource_templates: crate::protocol::ResourceTemplate,
        DefinitionKind::ResourceTemplate, templates;
}

/// Serves the list method of `R`: pages of the registered `items` (each listed as `item`
/// makes it); with a lister in the catalog, every registered item the caller may use on the
/// first page, then the lister's pages.
pub(super) async fn list<T, R>(
    server: &Server,
    params: Option<&RawValue>,
    ctx: &Context,
    stamp: Option<&Stamp>,
    items: impl FnOnce(&Registry) -> &IndexMap<String, Arc<T>>,
    item: impl Fn(&T) -> R::Item,
) -> Outcome
where
    T: Scoped,
    R: ListPage,
{
    let (kind, lister) = (R::KIND, server.catalog_part(R::lister));
    let caller = ctx.caller();
    let Some(lister) = lister else {
        return pagination::list(server, kind, params, stamp, caller, items, |page, next_cursor| {
            let mut result = R::default();
            let (listed, cursor) = result.parts();
            listed.extend(page.values().map(|t| item(t)));
            *cursor = next_cursor;
            result
        });
    };
    let cursor: CursorParams = parse_params(params)?;
    let mut registered = Vec::new();
    let filtering = caller.filter(|caller| caller.lists_only_permitted());
    if cursor.cursor.is_none() {
        let registry = server.registry();
        registered.extend(
            items(&registry)
                .values()
                .filter(|t| filtering.is_none_or(|caller| caller.may_use(t.scopes())))
                .map(|t| item(t)),
        );
    }
    let mut result = lister
        .list(cursor.cursor, ctx.clone())
        .await
        .map_err(|error| server.disclose(error).into_error_object(ctx.era()))?;
    let (listed, _) = result.parts();
    registered.append(listed);
    *listed = registered;
    if stamp.is_some() {
        server.stamp_list_cache_hints(&mut result, kind, filtering.is_some());
    }
    finish(result, stamp)
}
