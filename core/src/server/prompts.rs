//! Prompt definitions.

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
use super::returned::Returned;
use super::schema::DefinitionError;
use super::Server;
use crate::protocol::{
    methods, ContentBlock, ErrorObject, GetPromptRequestParams, GetPromptResult, Icon, ListPromptsResult, Meta, Prompt,
    PromptArgument, PromptMessage,
};
use crate::BoxFuture;

/// Renders a prompt from its arguments (required ones are checked before it runs).
pub trait PromptHandler: Send + Sync + 'static {
    /// Renders the prompt.
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>>;
}

/// Values a prompt handler may return.
pub trait IntoPromptResult {
    /// Converts into the result sent to the client.
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Ok(GetPromptResult {
            messages: self,
            ..Default::default()
        })
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        vec![self].into_prompt_result()
    }
}

/// Values by the rules every binding shares (see [`Returned`]).
impl IntoPromptResult for Returned {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        Returned::into_prompt_result(self)
    }
}

/// Text becomes one user message.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        self.to_owned().into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Into<HandlerError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

struct FnPromptHandler<F>(F);

impl<F, Fut, R> PromptHandler for FnPromptHandler<F>
where
    F: Fn(BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult,
{
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let future = (self.0)(arguments, ctx);
        Box::pin(async move { future.await.into_prompt_result() })
    }
}

/// A prompt to register.
///
/// ```
/// use oxmcp::server::PromptDef;
///
/// let review = PromptDef::new("review")
///     .argument("code", "The code to review", true)
///     .handler(|args, _ctx| async move { format!("Please review:\n{}", args["code"]) });
/// ```
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Option<Arc<dyn PromptHandler>>,
    pub(crate) completions: CompletionHandlers,
    pub(crate) scopes: Vec<String>,
}

impl PromptDef {
    /// A prompt named `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        PromptDef {
            prompt: Prompt {
                name: name.into(),
                title: None,
                description: None,
                arguments: None,
                icons: None,
                meta: None,
            },
            handler: None,
            completions: CompletionHandlers::default(),
            scopes: Vec::new(),
        }
    }

    /// A prompt from a complete protocol definition (as language bindings receive it).
    pub fn from_prompt(prompt: Prompt) -> Self {
        PromptDef {
            prompt,
            handler: None,
            completions: CompletionHandlers::default(),
            scopes: Vec::new(),
        }
    }

    /// The display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Adds an argument.
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        self.prompt.arguments.get_or_insert_with(Vec::new).push(PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required: Some(required),
        });
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// Metadata.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.prompt.meta = Some(meta);
        self
    }

    /// The handler.
    pub fn handler<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(BTreeMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        self.handler = Some(Arc::new(FnPromptHandler(handler)));
        self
    }

    /// A handler implemented elsewhere (e.g. by a language binding).
    pub fn handler_object(mut self, handler: Arc<dyn PromptHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// The scopes a caller's token must grant to get it over an HTTP endpoint protected by
    /// a [`ResourceServer`](crate::server::auth::ResourceServer) (default none); a call
    /// without them gets `403 insufficient_scope` naming them.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Completes values of the argument `argument`.
    pub fn complete(mut self, argument: impl Into<String>, handler: impl CompletionHandler) -> Self {
        self.completions.insert(argument.into(), Arc::new(handler));
        self
    }
}

/// A prompt ready to serve.
pub(crate) struct RegisteredPrompt {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
    pub(crate) completions: CompletionHandlers,
    pub(crate) scopes: Vec<String>,
}

impl RegisteredPrompt {
    pub(crate) fn compile(def: PromptDef) -> Result<Self, DefinitionError> {
        let handler = def
            .handler
            .ok_or_else(|| DefinitionError::new(format!("prompt {:?} has no handler", def.prompt.name)))?;
        Ok(RegisteredPrompt {
            prompt: def.prompt,
            handler,
            completions: def.completions,
            scopes: def.scopes,
        })
    }

    /// The names of required arguments missing from `arguments`.
    pub(crate) fn missing_arguments(&self, arguments: &BTreeMap<String, String>) -> Vec<&str> {
        self.prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect()
    }
}

/// `prompts/list`: the registered prompts, then the catalog's.
pub(super) async fn list(server: &Server, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Stamp>) -> Outcome {
    catalog::list::<_, ListPromptsResult>(server, params, ctx, stamp, |r| r.prompts.listed(), |p| p.prompt.clone())
        .await
}

/// A prompt's rendering, begun: a registered prompt's (its required arguments checked
/// first; its description given to a result without one), else the catalog's getter's;
/// an unknown prompt is an invalid-params error.
fn renderer(
    server: &Server,
    name: String,
    arguments: BTreeMap<String, String>,
    ctx: &Context,
) -> Result<BoxFuture<'static, Result<GetPromptResult, HandlerError>>, ErrorObject> {
    let registered = server.registry().prompts.get(&name).cloned();
    match (registered, server.catalog_part(|c| &c.prompt_getter)) {
        (Some(prompt), _) => {
            let missing = prompt.missing_arguments(&arguments);
            if !missing.is_empty() {
                return Err(ErrorObject::invalid_params(format!(
                    "prompt {name} is missing required arguments: {}",
                    missing.join(", ")
                )));
            }
            let got = prompt.handler.get(arguments, ctx.clone());
            Ok(Box::pin(async move {
                let mut result = got.await?;
                if result.description.is_none() {
                    result.description = prompt.prompt.description.clone();
                }
                Ok(result)
            }))
        }
        (None, Some(getter)) => Ok(getter.get(name, arguments, ctx.clone())),
        (None, None) => Err(server.unknown().prompt(&name)),
    }
}

impl Context {
    /// Renders a prompt of this server as a client would get it, its handler run with this
    /// request's context: for a tool built on the server's own prompts (FastMCP's
    /// `PromptsAsTools`). An unknown prompt, or one missing a required argument, is an
    /// invalid-params error.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, HandlerError> {
        renderer(self.dispatcher().server(), name.to_owned(), arguments, self)
            .map_err(HandlerError::Rpc)?
            .await
    }
}

/// `prompts/get`: a registered prompt's required arguments checked, then its handler run
/// (with its input rounds in the modern era); a prompt not registered is the catalog's.
pub(super) async fn get(server: &Server, raw: Option<&RawValue>, ctx: &Context, stamp: Option<&Stamp>) -> Outcome {
    let params: GetPromptRequestParams = parse_params(raw)?;
    let got = renderer(server, params.name, params.arguments.unwrap_or_default(), ctx)?;
    let bind = || binding(methods::PROMPTS_GET, raw, &ctx.principal_key());
    let round = input_round(server, ctx, bind, params.request_state, params.input_responses)?;
    let mut result = match run_handler(server, round.as_deref(), got, bind).await {
        Handled::Done(outcome) => outcome.map_err(|error| server.disclose(error).into_error_object(ctx.era()))?,
        Handled::NeedsInput(result) => return finish(result?, stamp),
        // Only a tool's round lets its handler become a task.
        Handled::BeginTask => return Err(ErrorObject::internal("only tools run as tasks")),
    };
    let version = ctx.protocol_version();
    if !version.has_resource_links() {
        for message in &mut result.messages {
            let block = std::mem::replace(&mut message.content, ContentBlock::text(""));
            message.content = block.for_version(version);
        }
    }
    finish(result, stamp)
}
