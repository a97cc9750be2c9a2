//! The traits Kotlin and Swift implement ("foreign traits"), and the adapters that plug them
//! into the core's handler traits.
//!
//! Client side: [`ElicitationHandler`], [`SamplingHandler`], [`RootsHandler`] answer the
//! server's requests (in both eras: the core turns a modern `input_required` round into a call
//! of the same handler); [`ProgressListener`] and [`NotificationListener`] receive what the
//! server reports. Server side: [`ToolHandler`], [`ResourceHandler`], [`PromptHandler`] run a
//! tool, read a resource, render a prompt; [`CompletionHandler`] suggests argument values.
//!
//! The async methods are `suspend` functions in Kotlin and `async` in Swift. When the core
//! drops a handler's future (the client cancelled the request, the connection ended), UniFFI
//! cancels the Kotlin coroutine that runs the handler.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use oxmcp::protocol as core;
use oxmcp::server::{HandlerError, ToolOutput};
use oxmcp::BoxFuture;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::convert::{
    json_text, try_map, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, GetPromptResult,
    ProgressUpdate, ReadResourceResult, Returned, Root, ServerNotification,
};
use crate::error::McpError;

/// Answers the server's elicitation requests: shows the user the question, returns what
/// they did.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ElicitationHandler: Send + Sync {
    /// Asks the user. Throw `McpException.Remote` to answer with a specific JSON-RPC error.
    async fn elicit(&self, request: ElicitRequest) -> Result<ElicitResult, McpError>;
}

/// Answers the server's sampling requests with the app's LLM.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait SamplingHandler: Send + Sync {
    /// Produces a completion (throw `McpException.Remote` with code -1 when the user
    /// rejected the request).
    async fn create_message(&self, request: CreateMessageRequest) -> Result<CreateMessageResult, McpError>;
}

/// Answers the server's roots requests.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait RootsHandler: Send + Sync {
    /// Lists the directories and files the client exposes.
    async fn list_roots(&self) -> Result<Vec<Root>, McpError>;
}

/// Receives the progress reports of one request. Called on a runtime thread: return
/// quickly (hand the value to your UI thread).
#[uniffi::export(foreign)]
pub trait ProgressListener: Send + Sync {
    /// One report.
    fn on_progress(&self, update: ProgressUpdate);
}

/// Receives every notification of a connection (list changes, resource updates, log
/// messages, progress). Called on a runtime thread, in order: return quickly.
#[uniffi::export(foreign)]
pub trait NotificationListener: Send + Sync {
    /// One notification.
    fn on_notification(&self, notification: ServerNotification);
}

/// Supplies the bearer token of an HTTP connection, asked before every HTTP request (so it
/// may refresh it). Returning `None` sends no `Authorization` header; an exception is logged
/// and counts as `None`.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait TokenProvider: Send + Sync {
    /// The current token.
    async fn token(&self) -> Result<Option<String>, McpError>;
}

/// Runs a tool of a [`crate::server::Server`].
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ToolHandler: Send + Sync {
    /// Runs the tool. `arguments_json` is the arguments object as JSON text, already checked
    /// against the tool's input schema. What it returns becomes the result by the rules
    /// every language shares ([`Returned`]). Throwing `McpException.Handler` (or any
    /// exception) makes a tool execution error the model can read; `McpException.Remote`
    /// answers with that JSON-RPC error instead.
    async fn call(&self, arguments_json: String, context: Arc<Context>) -> Result<Returned, McpError>;
}

/// Reads a resource (or any resource of a template) of a [`crate::server::Server`].
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait ResourceHandler: Send + Sync {
    /// Reads `uri`; `variables` holds the template's values (empty for a plain resource).
    /// Gives the contents and, when it has one, the result's `_meta`.
    async fn read(
        &self,
        uri: String,
        variables: HashMap<String, String>,
        context: Arc<Context>,
    ) -> Result<ReadResourceResult, McpError>;
}

/// Renders a prompt of a [`crate::server::Server`].
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait PromptHandler: Send + Sync {
    /// Renders the prompt from its arguments (required ones are checked before).
    async fn get(&self, arguments: HashMap<String, String>, context: Arc<Context>)
        -> Result<GetPromptResult, McpError>;
}

/// Suggests values for one argument of a prompt or variable of a resource template.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait CompletionHandler: Send + Sync {
    /// Candidate values for the partial `value`; `context` holds the other arguments' values.
    /// More than 100 are cut (the client is told there are more).
    async fn complete(&self, value: String, context: HashMap<String, String>) -> Result<Vec<String>, McpError>;
}

// ---------------------------------------------------------------------------------------
// Adapters: foreign handlers as the core's client-side handlers
// ---------------------------------------------------------------------------------------

/// A foreign [`ElicitationHandler`] as the core's.
pub(crate) struct Elicitation(pub(crate) Arc<dyn ElicitationHandler>);

impl oxmcp::client::ElicitationHandler for Elicitation {
    fn elicit(
        &self,
        params: core::ElicitRequestParams,
    ) -> BoxFuture<'static, Result<core::ElicitResult, core::ErrorObject>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            let answer = handler.elicit(params.into()).await?;
            Ok(answer.try_into()?)
        })
    }
}

/// A foreign [`SamplingHandler`] as the core's.
pub(crate) struct Sampling(pub(crate) Arc<dyn SamplingHandler>);

impl oxmcp::client::SamplingHandler for Sampling {
    fn create_message(
        &self,
        params: core::CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<core::CreateMessageResult, core::ErrorObject>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            let answer = handler.create_message(params.into()).await?;
            Ok(answer.try_into()?)
        })
    }
}

/// A foreign [`RootsHandler`] as the core's.
pub(crate) struct Roots(pub(crate) Arc<dyn RootsHandler>);

impl oxmcp::client::RootsHandler for Roots {
    fn list_roots(&self) -> BoxFuture<'static, Result<core::ListRootsResult, core::ErrorObject>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            let roots = handler.list_roots().await?;
            Ok(core::ListRootsResult {
                roots: try_map(roots)?,
                meta: None,
            })
        })
    }
}

// ---------------------------------------------------------------------------------------
// Adapters: foreign handlers as the core's server-side handlers
// ---------------------------------------------------------------------------------------

/// A foreign [`ToolHandler`] as the core's, and how its results carry their value.
pub(crate) struct Tool(pub(crate) Arc<dyn ToolHandler>, pub(crate) ToolOutput);

impl oxmcp::server::ToolHandler for Tool {
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: oxmcp::server::Context,
    ) -> BoxFuture<'static, Result<core::CallToolResult, HandlerError>> {
        let (handler, output) = (Arc::clone(&self.0), self.1);
        Box::pin(async move {
            let arguments = json_text(&arguments);
            let value = handler
                .call(arguments, Context::new(ctx))
                .await
                .map_err(McpError::into_handler_error)?;
            value.into_tool_result(output)
        })
    }
}

/// A foreign [`ResourceHandler`] as the core's.
pub(crate) struct Resource(pub(crate) Arc<dyn ResourceHandler>);

impl oxmcp::server::ResourceHandler for Resource {
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: oxmcp::server::Context,
    ) -> BoxFuture<'static, Result<core::ReadResourceResult, HandlerError>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            let read = handler
                .read(uri, variables.into_iter().collect(), Context::new(ctx))
                .await
                .map_err(McpError::into_handler_error)?;
            read.try_into().map_err(McpError::into_handler_error)
        })
    }
}

/// A foreign [`PromptHandler`] as the core's.
pub(crate) struct Prompt(pub(crate) Arc<dyn PromptHandler>);

impl oxmcp::server::PromptHandler for Prompt {
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: oxmcp::server::Context,
    ) -> BoxFuture<'static, Result<core::GetPromptResult, HandlerError>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            let result = handler
                .get(arguments.into_iter().collect(), Context::new(ctx))
                .await
                .map_err(McpError::into_handler_error)?;
            core::GetPromptResult::try_from(result).map_err(McpError::into_handler_error)
        })
    }
}

/// A foreign [`CompletionHandler`] as the core's.
pub(crate) struct Completion(pub(crate) Arc<dyn CompletionHandler>);

impl oxmcp::server::CompletionHandler for Completion {
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let handler = Arc::clone(&self.0);
        Box::pin(async move {
            handler
                .complete(value, context.into_iter().collect())
                .await
                .map_err(McpError::into_handler_error)
        })
    }
}
