//! The per-request [`Context`] a Kotlin or Swift handler receives: what it knows about the
//! request, and how it talks back (progress, log messages, cancellation, requests to the
//! client).

use std::collections::HashMap;
use std::sync::Arc;

use crate::auth::AccessToken;
use crate::convert::{
    json_text, parse_json, CallToolResult, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Era,
    GetPromptResult, Implementation, LoggingLevel, ReadResourceResult, Root,
};
use crate::error::McpError;
use crate::server::DefinitionKind;

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
    /// The request's id, as JSON text (a number or a string; `null` in a notification's
    /// handler).
    pub fn request_id_json(&self) -> String {
        json_text(&self.inner.request_id())
    }

    /// The session the request belongs to: a legacy HTTP session's `Mcp-Session-Id`, or an
    /// id that stays the same over stdio; `null` where each request stands alone (2026-07-28
    /// over HTTP, a stateless endpoint).
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id().map(str::to_owned)
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

    /// Who the client said it is (name, version, title, description, website, icons),
    /// when it said.
    pub fn client_info(&self) -> Option<Implementation> {
        self.inner.client_info().map(|info| info.clone().into())
    }

    /// What the client declared it can do (for this request, in the 2026-07-28 era), as
    /// JSON object text.
    pub fn client_capabilities_json(&self) -> String {
        json_text(self.inner.client_capabilities())
    }

    /// The caller's verified access token, on a server with `auth` over HTTP (none over
    /// stdio).
    pub fn access_token(&self) -> Option<AccessToken> {
        self.inner.access_token().map(AccessToken::from)
    }

    /// The headers of the HTTP request that carried the request, by lowercase name (a
    /// repeated header's values joined with ", "); `null` over other transports.
    pub fn http_headers(&self) -> Option<HashMap<String, String>> {
        self.inner.http_header_texts().map(|texts| texts.into_iter().collect())
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

    /// Says what the task this call runs as is doing now (its status message); a call
    /// that is not a task has no status to set.
    pub async fn task_status(&self, message: String) {
        self.inner.task_status(message).await;
    }

    /// Where a tool added with `asksBeforeTask` becomes a task: its questions so far were
    /// answered in place, and the task runs the handler again with those answers (keep what
    /// comes before free of side effects). Anywhere else it returns at once.
    pub async fn begin_task(&self) {
        self.inner.begin_task().await;
    }

    /// Whether this call runs as a task.
    pub fn is_task(&self) -> bool {
        self.inner.is_task()
    }

    /// Tells every client that the list of `kind` changed.
    pub fn notify_list_changed(&self, kind: DefinitionKind) {
        self.inner.notify_list_changed(kind.into());
    }

    /// Tells this request's client, and no other, that the list of `kind` changed (on its
    /// legacy session; every client in 2026-07-28, which has no sessions).
    pub async fn notify_session_list_changed(&self, kind: DefinitionKind) {
        self.inner.notify_session_list_changed(kind.into()).await;
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

    /// Reads a resource of this server as a client would get it, its handler run with this
    /// request's context: for a tool built on the server's own resources. An unknown URI
    /// throws the resource-not-found error.
    pub async fn read_resource(&self, uri: String) -> Result<ReadResourceResult, McpError> {
        Ok(self.inner.read_resource(&uri).await?.into())
    }

    /// Renders a prompt of this server as a client would get it, its handler run with this
    /// request's context. An unknown prompt, or one missing a required argument, throws an
    /// invalid-params error.
    pub async fn get_prompt(
        &self,
        name: String,
        arguments: HashMap<String, String>,
    ) -> Result<GetPromptResult, McpError> {
        Ok(self
            .inner
            .get_prompt(&name, arguments.into_iter().collect())
            .await?
            .into())
    }

    /// Calls a tool of this server in place with its arguments (a JSON object, as text), its
    /// handler run with this request's context: the arguments checked against its input
    /// schema, its result against its output schema. The tool's failure is its error result;
    /// an unknown tool, or arguments its schema refuses, throws an invalid-params error.
    #[uniffi::method(default(arguments_json = "{}"))]
    pub async fn call_tool(&self, name: String, arguments_json: String) -> Result<CallToolResult, McpError> {
        let arguments = serde_json::from_value(parse_json(&arguments_json, "tool arguments")?)
            .map_err(|e| McpError::invalid_input(format!("tool arguments must be a JSON object: {e}")))?;
        Ok(self.inner.call_tool(&name, arguments).await?.into())
    }

    /// Pings the client on the request's session, which may outlive the request (keep the
    /// context for it): to keep a quiet connection alive. Throws once the session is gone or
    /// the client does not answer in time; nothing is sent in 2026-07-28, which has no
    /// sessions.
    pub async fn ping(&self) -> Result<(), McpError> {
        Ok(self.inner.ping().await?)
    }
}
