//! Resource definitions: static resources by URI, and templates matched by RFC 6570.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use super::completion::{CompletionHandler, CompletionHandlers};
use super::stamp::Stamp;
use serde_json::value::RawValue;

use super::catalog;
use super::context::Context;
use super::dispatch::{finish, parse_params, Outcome};
use super::handler::HandlerError;
use super::mrtr::{binding, input_round, run_handler, Handled};
use super::registry::ResourceMatch;
use super::returned::Returned;
use super::schema::DefinitionError;
use super::uri_template::UriTemplate;
use super::Server;
use crate::protocol::{
    methods, Annotations, CacheScope, Era, ErrorObject, Icon, ListResourceTemplatesResult, ListResourcesResult, Meta,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use crate::BoxFuture;

/// Reads a resource. `variables` holds the template's values (empty for a static
/// resource).
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads `uri`.
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>>;
}

/// Values a resource handler may return. `mime_type` is the definition's MIME type.
pub trait IntoReadResult {
    /// Converts into the result for `uri`.
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError>;
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        Ok(self)
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        Ok(ReadResourceResult {
            contents: self,
            ..Default::default()
        })
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        vec![self].into_read_result(uri, mime_type)
    }
}

/// Values by the rules every binding shares (see [`Returned`]).
impl IntoReadResult for Returned {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        Returned::into_read_result(self, uri, mime_type)
    }
}

/// Text contents, `text/plain` unless the definition declares a MIME type.
impl IntoReadResult for String {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        Returned::Text(self).into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl<T: IntoReadResult, E: Into<HandlerError>> IntoReadResult for Result<T, E> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        self.map_err(Into::into)?.into_read_result(uri, mime_type)
    }
}

/// A closure as a [`ResourceHandler`]; what it returns is read as of `mime_type`.
pub(super) struct FnResourceHandler<F> {
    pub(super) handler: F,
    pub(super) mime_type: Option<String>,
}

impl<F, Fut, R> ResourceHandler for FnResourceHandler<F>
where
    F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoReadResult,
{
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let future = (self.handler)(uri.clone(), variables, ctx);
        let mime_type = self.mime_type.clone();
        Box::pin(async move { future.await.into_read_result(&uri, mime_type.as_deref()) })
    }
}

/// A static resource to register.
///
/// ```
/// use oxmcp::server::ResourceDef;
///
/// let readme = ResourceDef::new("file:///readme.md", "readme")
///     .mime_type("text/markdown")
///     .handler(|_uri, _vars, _ctx| async { "# Hello" });
/// ```
#[derive(Clone)]
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) scopes: Vec<String>,
}

impl ResourceDef {
    /// A resource at `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceDef {
            resource: Resource::new(uri, name),
            handler: None,
            scopes: Vec::new(),
        }
    }

    /// A resource from a complete protocol definition.
    pub fn from_resource(resource: Resource) -> Self {
        ResourceDef {
            resource,
            handler: None,
            scopes: Vec::new(),
        }
    }

    /// The display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// What it is.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// Its MIME type; text returned by the handler is labelled with it.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    /// Usage hints.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.resource.annotations = Some(annotations);
        self
    }

    /// Size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.resource.size = Some(size);
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.resource.icons = Some(icons);
        self
    }

    /// Metadata.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.resource.meta = Some(meta);
        self
    }

    /// The handler.
    pub fn handler<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        self.handler = Some(Arc::new(FnResourceHandler {
            handler,
            mime_type: self.resource.mime_type.clone(),
        }));
        self
    }

    /// A handler implemented elsewhere (e.g. by a language binding).
    pub fn handler_object(mut self, handler: Arc<dyn ResourceHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// The scopes a caller's token must grant to read it over an HTTP endpoint
    /// protected by a [`ResourceServer`](crate::server::auth::ResourceServer) (default
    /// none); a read without them gets `403 insufficient_scope` naming them.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
}

/// A resource template to register: every URI it matches is readable.
///
/// ```
/// use oxmcp::server::ResourceTemplateDef;
///
/// let greeting = ResourceTemplateDef::new("greeting://{name}", "greeting")
///     .handler(|_uri, vars, _ctx| async move { format!("Hello, {}!", vars["name"]) });
/// ```
#[derive(Clone)]
pub struct ResourceTemplateDef {
    pub(crate) template: ResourceTemplate,
    pub(crate) handler: Option<Arc<dyn ResourceHandler>>,
    pub(crate) completions: CompletionHandlers,
    pub(crate) scopes: Vec<String>,
}

impl ResourceTemplateDef {
    /// A template with this RFC 6570 URI template and name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplateDef {
            template: ResourceTemplate {
                uri_template: uri_template.into(),
                name: name.into(),
                title: None,
                description: None,
                mime_type: None,
                annotations: None,
                icons: None,
                meta: None,
            },
            handler: None,
            completions: CompletionHandlers::default(),
            scopes: Vec::new(),
        }
    }

    /// A template from a complete protocol definition (as language bindings receive it).
    pub fn from_template(template: ResourceTemplate) -> Self {
        ResourceTemplateDef {
            template,
            handler: None,
            completions: CompletionHandlers::default(),
            scopes: Vec::new(),
        }
    }

    /// The display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.template.title = Some(title.into());
        self
    }

    /// What the resources are.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// The MIME type of every matching resource.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.template.icons = Some(icons);
        self
    }

    /// Metadata.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.template.meta = Some(meta);
        self
    }

    /// The handler; it receives the matched variables.
    pub fn handler<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(String, BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        self.handler = Some(Arc::new(FnResourceHandler {
            handler,
            mime_type: self.template.mime_type.clone(),
        }));
        self
    }

    /// A handler implemented elsewhere (e.g. by a language binding).
    pub fn handler_object(mut self, handler: Arc<dyn ResourceHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// The scopes a caller's token must grant to read the resources it matches over an HTTP endpoint
    /// protected by a [`ResourceServer`](crate::server::auth::ResourceServer) (default
    /// none); a read without them gets `403 insufficient_scope` naming them.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Completes values of the template variable `variable`.
    pub fn complete(mut self, variable: impl Into<String>, handler: impl CompletionHandler) -> Self {
        self.completions.insert(variable.into(), Arc::new(handler));
        self
    }
}

/// A static resource ready to serve.
pub(crate) struct RegisteredResource {
    pub(crate) resource: Resource,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) scopes: Vec<String>,
}

impl RegisteredResource {
    pub(crate) fn compile(def: ResourceDef) -> Result<Self, DefinitionError> {
        let handler = def
            .handler
            .ok_or_else(|| DefinitionError::new(format!("resource {:?} has no handler", def.resource.uri)))?;
        Ok(RegisteredResource {
            resource: def.resource,
            handler,
            scopes: def.scopes,
        })
    }
}

/// A template ready to serve, its URI template parsed once.
pub(crate) struct RegisteredTemplate {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) completions: CompletionHandlers,
    pub(crate) scopes: Vec<String>,
}

impl RegisteredTemplate {
    pub(crate) fn compile(def: ResourceTemplateDef) -> Result<Self, DefinitionError> {
        let uri_template = &def.template.uri_template;
        let matcher = UriTemplate::parse(uri_template)
            .map_err(|e| DefinitionError::new(format!("resource template {uri_template:?}: {e}")))?;
        let handler = def
            .handler
            .ok_or_else(|| DefinitionError::new(format!("resource template {uri_template:?} has no handler")))?;
        Ok(RegisteredTemplate {
            template: def.template,
            matcher,
            handler,
            completions: def.completions,
            scopes: def.scopes,
        })
    }
}

/// `resources/list`: the registered resources, then the catalog's.
pub(super) async fn list(server: &Server, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Stamp>) -> Outcome {
    catalog::list::<_, ListResourcesResult>(
        server,
        params,
        ctx,
        stamp,
        |r| r.resources.listed(),
        |r| r.resource.clone(),
    )
    .await
}

/// `resources/templates/list`: the registered templates, then the catalog's.
pub(super) async fn list_templates(
    server: &Server,
    params: Option<&RawValue>,
    ctx: &Context,
    stamp: Option<&Stamp>,
) -> Outcome {
    catalog::list::<_, ListResourceTemplatesResult>(
        server,
        params,
        ctx,
        stamp,
        |r| r.templates.listed(),
        |t| t.template.clone(),
    )
    .await
}

/// `resources/read`: a static resource by its URI, else the first template that matches,
/// else the catalog's reader.
pub(super) async fn read(server: &Server, raw: Option<&RawValue>, ctx: &Context, stamp: Option<&Stamp>) -> Outcome {
    let params: ReadResourceRequestParams = parse_params(raw)?;
    let (handler, variables) = reader(server, &params.uri, ctx.era())?;
    let bind = || binding(methods::RESOURCES_READ, raw, &ctx.principal_key());
    let round = input_round(server, ctx, bind, params.request_state, params.input_responses)?;
    let read = handler.read(params.uri, variables, ctx.clone());
    let mut result = match run_handler(server, round.as_deref(), read, bind).await {
        Handled::Done(outcome) => outcome.map_err(|error| server.disclose(error).into_error_object(ctx.era()))?,
        Handled::NeedsInput(result) => return finish(result?, stamp),
        // Only a tool's round lets its handler become a task.
        Handled::BeginTask => return Err(ErrorObject::internal("only tools run as tasks")),
    };
    if stamp.is_some() {
        // What the handler said of its own result wins; else what a resource holds may be
        // its reader's own: private unless the server says.
        let (ttl_ms, scope) = (result.ttl_ms, result.cache_scope);
        server.stamp_cache_hints(&mut result, false, CacheScope::Private);
        result.ttl_ms = ttl_ms.or(result.ttl_ms);
        result.cache_scope = scope.or(result.cache_scope);
    }
    finish(result, stamp)
}

/// What reads one URI: its handler, and the template's variables (none for a static
/// resource).
type Reader = (Arc<dyn ResourceHandler>, BTreeMap<String, String>);

/// The handler that reads `uri` (a static resource's, else the first matching template's,
/// else the catalog's reader) and the template's variables; the era's resource-not-found
/// error when none does.
fn reader(server: &Server, uri: &str, era: Era) -> Result<Reader, ErrorObject> {
    match server.registry().find_resource(uri) {
        Some(ResourceMatch::Static(resource)) => Ok((Arc::clone(&resource.handler), BTreeMap::new())),
        Some(ResourceMatch::Template(template, variables)) => Ok((Arc::clone(&template.handler), variables)),
        // The files of skills beside their SKILL.md, which is listed.
        None if server.skills().has_file(uri) => Ok((server.skill_files(), BTreeMap::new())),
        None => match server.catalog_part(|c| &c.reader) {
            Some(reader) => Ok((reader, BTreeMap::new())),
            None => Err(server.unknown().resource(uri, era)),
        },
    }
}

impl Context {
    /// Reads a resource of this server as a client would get it, its handler run with this
    /// request's context: for a tool built on the server's own resources (FastMCP's and the
    /// official SDK's `ctx.read_resource`). An unknown URI is the era's resource-not-found
    /// error.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, HandlerError> {
        let (handler, variables) = reader(self.dispatcher().server(), uri, self.era()).map_err(HandlerError::Rpc)?;
        handler.read(uri.to_owned(), variables, self.clone()).await
    }
}
