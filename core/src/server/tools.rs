//! Tool definitions: metadata, the handler, and the compiled argument and output
//! validators.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use serde_json::value::RawValue;

use super::catalog::{self, TaskStarter, ToolCaller};
use super::context::Context;
use super::dispatch::{finish, Outcome};
use super::handler::HandlerError;
use super::mrtr::{binding, input_round, run_handler, Handled};
use super::returned::{Returned, ToolOutput};
use super::schema::{output_schema_for, schema_for, DefinitionError, LazySchema, Rejection};
use super::stamp::Stamp;
use super::tasks::{self, NewTask, TaskRun, TaskSupport};
use super::Server;
use crate::protocol::headers::{header_params, HeaderParam};
use crate::protocol::meta::SentRequestMeta;
use crate::protocol::{
    methods, CallToolResult, ContentBlock, Era, ErrorObject, Icon, InputResponses, ListToolsResult, Meta, Tool,
    ToolAnnotations, ToolExecution,
};
use crate::BoxFuture;

/// Runs a tool. Implemented for closures by [`ToolDef::handler`] and [`ToolDef::typed`];
/// bindings implement it to call into their host language.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs the tool with arguments that already passed the input schema.
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>>;
}

/// Values a tool handler may return.
pub trait IntoToolResult {
    /// Converts into the result sent to the client.
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::success(vec![ContentBlock::text(self)]))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        self.to_owned().into_tool_result()
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::success(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Ok(CallToolResult::success(Vec::new()))
    }
}

/// A value as content, by the rules every binding shares (see [`Returned`]).
impl IntoToolResult for Returned {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Returned::into_tool_result(self, ToolOutput::Content)
    }
}

/// Structured output: the value becomes `structuredContent` (as `{"result": value}`
/// unless it is an object), and its JSON text the content, so that clients without
/// structured output still see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        Returned::Data(serde_json::to_value(self.0)?).into_tool_result(ToolOutput::Inferred)
    }
}

impl<T: IntoToolResult, E: Into<HandlerError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, HandlerError> {
        self.map_err(Into::into)?.into_tool_result()
    }
}

struct FnToolHandler<F>(F);

impl<F, Fut, R> ToolHandler for FnToolHandler<F>
where
    F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult,
{
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        let future = (self.0)(arguments, ctx);
        Box::pin(async move { future.await.into_tool_result() })
    }
}

/// A tool to register: its metadata and its handler.
///
/// ```
/// use oxmcp::server::{Context, ToolDef};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let add = ToolDef::new("add")
///     .description("Add two numbers")
///     .typed(|args: Add, _ctx: Context| async move { (args.a + args.b).to_string() });
/// ```
#[derive(Clone)]
pub struct ToolDef {
    pub(crate) tool: Tool,
    pub(crate) handler: Option<Arc<dyn ToolHandler>>,
    pub(crate) scopes: Vec<String>,
    pub(crate) task_support: TaskSupport,
    pub(crate) asks_before_task: bool,
    pub(crate) handler_checks_arguments: bool,
}

impl ToolDef {
    /// A tool with this name, taking no arguments, with no handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        let mut input_schema = Map::new();
        input_schema.insert("type".into(), "object".into());
        ToolDef {
            tool: Tool {
                name: name.into(),
                title: None,
                description: None,
                icons: None,
                input_schema,
                output_schema: None,
                annotations: None,
                execution: None,
                meta: None,
            },
            handler: None,
            scopes: Vec::new(),
            task_support: TaskSupport::Forbidden,
            asks_before_task: false,
            handler_checks_arguments: false,
        }
    }

    /// A tool from a complete protocol definition (its `execution.taskSupport` included).
    pub fn from_tool(tool: Tool) -> Self {
        let task_support = declared_task_support(tool.execution.as_ref());
        ToolDef {
            tool,
            handler: None,
            scopes: Vec::new(),
            task_support,
            asks_before_task: false,
            handler_checks_arguments: false,
        }
    }

    /// The display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.tool.icons = Some(icons);
        self
    }

    /// Execution settings (its `taskSupport` as [`task_support`](Self::task_support) sets it).
    pub fn execution(mut self, execution: ToolExecution) -> Self {
        self.task_support = declared_task_support(Some(&execution));
        self.tool.execution = Some(execution);
        self
    }

    /// Metadata.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// The JSON Schema of the arguments. It must be an object schema. Schemas are compiled
    /// at the tool's first call; one that does not compile fails that call (and every later
    /// one) with an internal error that names the problem.
    pub fn input_schema(mut self, schema: Map<String, Value>) -> Self {
        self.tool.input_schema = schema;
        self
    }

    /// The JSON Schema of the structured output.
    pub fn output_schema(mut self, schema: Map<String, Value>) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// The output schema generated from `T` (as `{"result": T}` unless `T` is an object
    /// type); return [`Json<T>`] from the handler.
    pub fn structured_output<T: JsonSchema>(self) -> Self {
        self.output_schema(output_schema_for::<T>())
    }

    /// The handler, taking the raw arguments.
    pub fn handler<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.handler = Some(Arc::new(FnToolHandler(handler)));
        self
    }

    /// The handler, taking arguments deserialized into `A`; the input schema is generated
    /// from `A`.
    pub fn typed<A, F, Fut, R>(mut self, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        self.tool.input_schema = schema_for::<A>();
        let handler = Arc::new(handler);
        self.handler = Some(Arc::new(FnToolHandler(
            move |arguments: Map<String, Value>, ctx: Context| {
                let handler = Arc::clone(&handler);
                async move {
                    let args: A = serde_json::from_value(Value::Object(arguments))
                        .map_err(|e| HandlerError::message(format!("invalid arguments: {e}")))?;
                    handler(args, ctx).await.into_tool_result()
                }
            },
        )));
        self
    }

    /// A handler implemented elsewhere (e.g. by a language binding).
    pub fn handler_object(mut self, handler: Arc<dyn ToolHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// The scopes a caller's token must grant to call it over an HTTP endpoint protected by
    /// a [`ResourceServer`](crate::server::auth::ResourceServer) (default none); a call
    /// without them gets `403 insufficient_scope` naming them.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the tool runs as a task (default never), listed as its
    /// `execution.taskSupport`. Then a 2025-11-25 call that asks for a task and any
    /// 2026-07-28 call from a client that declares the tasks extension get a task to poll,
    /// and the same handler runs in the background. A tool that requires it refuses other
    /// calls (-32601 in 2025-11-25, -32021 in 2026-07-28); earlier revisions run it in place.
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        // Absent means forbidden: such a tool lists no `execution`, as the official SDKs'
        // tools do.
        self.tool.execution = (support != TaskSupport::Forbidden).then(|| ToolExecution {
            task_support: Some(support.as_str().to_owned()),
        });
        self
    }

    /// The handler asks its questions before the call becomes a task: a 2026-07-28 call
    /// runs in place (its questions answered in `input_required` rounds) until the handler
    /// calls [`Context::begin_task`]; the task then runs the handler again with those
    /// answers, so keep what comes before free of side effects. In 2025-11-25 the task
    /// starts at once and the questions are the task's.
    pub fn asks_before_task(mut self) -> Self {
        self.asks_before_task = true;
        self
    }

    /// The handler checks the call's arguments itself, converting what it can (FastMCP's
    /// default, pydantic's lax validation: `"5"` for an integer is 5): the server does not
    /// check them against the input schema, and the handler's refusal is the call's
    /// error. Keep the input schema for clients to read.
    pub fn handler_checks_arguments(mut self) -> Self {
        self.handler_checks_arguments = true;
        self
    }

    /// The protocol definition as `tools/list` shows it.
    pub fn definition(&self) -> &Tool {
        &self.tool
    }
}

/// The task support an `execution` declares: forbidden unless it names another.
fn declared_task_support(execution: Option<&ToolExecution>) -> TaskSupport {
    execution
        .and_then(|execution| execution.task_support.as_deref())
        .and_then(|name| name.parse().ok())
        .unwrap_or_default()
}

/// A tool ready to serve: the validators of its schemas are compiled once, at its first call.
pub(crate) struct RegisteredTool {
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) scopes: Vec<String>,
    pub(crate) task_support: TaskSupport,
    pub(crate) asks_before_task: bool,
    handler_checks_arguments: bool,
    /// The parameters its `x-mcp-header` annotations mirror into `Mcp-Param-*` headers,
    /// checked against the spec's rules when the tool was registered.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) header_params: Vec<HeaderParam>,
    input: LazySchema,
    output: LazySchema,
}

impl RegisteredTool {
    pub(crate) fn compile(def: ToolDef) -> Result<Self, DefinitionError> {
        let name = &def.tool.name;
        check_tool_name(name)?;
        let handler = def
            .handler
            .ok_or_else(|| DefinitionError::new(format!("tool {name:?} has no handler")))?;
        if def.tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(DefinitionError::new(format!(
                "tool {name:?}: inputSchema must have \"type\": \"object\""
            )));
        }
        // Clients leave out a tool whose annotations break the rules: refuse it here.
        let header_params = header_params(&def.tool.input_schema)
            .map_err(|reason| DefinitionError::new(format!("tool {name:?}: {reason}")))?;
        Ok(RegisteredTool {
            tool: def.tool,
            handler,
            scopes: def.scopes,
            task_support: def.task_support,
            asks_before_task: def.asks_before_task,
            handler_checks_arguments: def.handler_checks_arguments,
            header_params,
            input: LazySchema::default(),
            output: LazySchema::default(),
        })
    }

    /// A tool of the catalog, for one call: it takes any arguments, returns what it returns,
    /// and never runs as a task.
    fn in_catalog(name: String, caller: Arc<dyn ToolCaller>) -> Self {
        let def = ToolDef::new(name.clone());
        RegisteredTool {
            tool: def.tool,
            handler: Arc::new(CatalogTool { name, caller }),
            scopes: def.scopes,
            task_support: def.task_support,
            asks_before_task: def.asks_before_task,
            handler_checks_arguments: def.handler_checks_arguments,
            header_params: Vec::new(),
            input: LazySchema::default(),
            output: LazySchema::default(),
        }
    }

    /// Checks call arguments against the input schema, unless the handler checks them.
    /// Arguments are an object, so a schema that asks only that is met without compiling it.
    pub(crate) fn validate_input(&self, arguments: &Value) -> Result<(), Rejection> {
        if self.handler_checks_arguments || (self.tool.input_schema.len() == 1 && arguments.is_object()) {
            return Ok(());
        }
        self.input.validate(&self.tool.input_schema, arguments)
    }

    /// Checks structured content against the output schema (anything passes without one).
    pub(crate) fn validate_output(&self, structured: &Value) -> Result<(), Rejection> {
        match &self.tool.output_schema {
            Some(schema) => self.output.validate(schema, structured),
            None => Ok(()),
        }
    }
}

/// A tool of the catalog as a handler: its name and the catalog's caller.
struct CatalogTool {
    name: String,
    caller: Arc<dyn ToolCaller>,
}

impl ToolHandler for CatalogTool {
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        self.caller.call(self.name.clone(), arguments, ctx)
    }
}

/// The spec's tool name rules: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
fn check_tool_name(name: &str) -> Result<(), DefinitionError> {
    let valid_chars = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if name.is_empty() || name.len() > 128 || !valid_chars {
        return Err(DefinitionError::new(format!(
            "tool name {name:?} must be 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"
        )));
    }
    Ok(())
}

/// `tools/list`: the registered tools, then the catalog's.
pub(super) async fn list(server: &Server, params: Option<&RawValue>, ctx: &Context, stamp: Option<&Stamp>) -> Outcome {
    catalog::list::<_, ListToolsResult>(server, params, ctx, stamp, |r| r.tools.listed(), |t| t.tool.clone()).await
}

/// `tools/call`'s params as the method reads them: [`crate::protocol::CallToolRequestParams`]
/// with only the protocol fields of its `_meta` read (with key order kept, building a
/// modern request's `_meta` cost a tenth of a call; the context reads it when a handler
/// asks). The dispatcher reads them before it knows the request's era, so that the params
/// of the hot method are read in one pass ([`CallParams::split`]).
#[derive(Deserialize)]
pub(crate) struct CallParams<'a> {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<InputResponses>,
    #[serde(rename = "requestState", default)]
    request_state: Option<String>,
    /// 2025-11-25: run as a task, kept this long.
    #[serde(default)]
    task: Option<TaskParams>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<SentRequestMeta<'a>>,
}

impl<'a> CallParams<'a> {
    /// Reads the params (absent ones read as `{}`).
    pub(crate) fn read(raw: Option<&'a RawValue>) -> Result<Self, ErrorObject> {
        serde_json::from_str(raw.map_or("{}", RawValue::get)).map_err(ErrorObject::invalid_params)
    }

    /// Whether the params have a `_meta`.
    pub(crate) fn has_meta(&self) -> bool {
        self.meta.is_some()
    }

    /// The protocol fields of the `_meta`, and the params without them (which the method
    /// takes once the params have moved into the request's context).
    pub(crate) fn split(self) -> (SentRequestMeta<'a>, CallParams<'static>) {
        let CallParams {
            name,
            arguments,
            input_responses,
            request_state,
            task,
            meta,
        } = self;
        let params = CallParams {
            name,
            arguments,
            input_responses,
            request_state,
            task,
            meta: None,
        };
        (meta.unwrap_or_default(), params)
    }
}

/// What the modern HTTP header checks read of a call.
#[cfg(any(test, feature = "http-server"))]
impl CallParams<'_> {
    /// The tool called.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The arguments given, if any.
    pub(crate) fn arguments(&self) -> Option<&Map<String, Value>> {
        self.arguments.as_ref()
    }
}

/// `params.task` of a 2025-11-25 call (`TaskMetadata`).
#[derive(Deserialize, Serialize)]
struct TaskParams {
    /// Milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl: Option<u64>,
}

/// `tools/call`: arguments checked against the input schema, the handler run (with its
/// input rounds in the modern era), the structured output checked against the output
/// schema and kept only where the protocol version has it.
pub(super) async fn call(
    server: &Server,
    read: Option<CallParams<'static>>,
    ctx: &Context,
    stamp: Option<&Stamp>,
) -> Outcome {
    let params = match read {
        Some(params) => params,
        None => CallParams::read(ctx.params())?,
    };
    // The server's wording of an unknown tool is made only for one.
    let tool = match find(server, &params.name) {
        Ok(tool) => tool,
        Err(unknown) => match server.unknown().tool(&params.name) {
            Some(worded) => return finish(worded, stamp),
            None => return Err(unknown),
        },
    };
    if let Some(starter) = catalog_task_starter(server, ctx, &params) {
        let task = serde_json::to_value(&params.task).unwrap_or_default();
        let arguments = params.arguments.unwrap_or_default();
        let started = starter.start(params.name, arguments, task, ctx.clone()).await;
        let started = started.map_err(|error| server.disclose(error).into_error_object(ctx.era()))?;
        return serde_json::to_string(&started).map_err(ErrorObject::internal);
    }
    let arguments = match checked(&tool, params.arguments.unwrap_or_default()) {
        Ok(arguments) => arguments,
        Err(Checked::Invalid(message)) if ctx.protocol_version().reports_input_errors_as_results() => {
            return finish(CallToolResult::error(message), stamp)
        }
        Err(refused) => return Err(refused.into()),
    };
    let task = as_task(server, ctx, &tool, params.task.as_ref())?;
    // A task starts at once, unless the tool asks first: then the call runs in place until
    // its handler calls `Context::begin_task` (2026-07-28; the rounds before are MRTR's).
    let asks_first = tool.asks_before_task && ctx.era() == Era::Modern;
    let task = match task {
        Some(task) if !asks_first => {
            let run = task_run(server, ctx, &tool, arguments);
            return server.tasks().start(task, run, stamp).await;
        }
        task => task,
    };
    let bind = || binding(methods::TOOLS_CALL, ctx.params(), &ctx.principal_key());
    let round = input_round(server, ctx, bind, params.request_state, params.input_responses)?;
    if let (Some(round), Some(_)) = (&round, &task) {
        round.allow_task_start();
    }
    // The task, if one begins, needs the arguments again.
    let kept = task.as_ref().map(|_| arguments.clone());
    let called = tool.handler.call(arguments, ctx.clone());
    let outcome = match run_handler(server, round.as_deref(), called, bind).await {
        Handled::Done(outcome) => outcome,
        Handled::NeedsInput(result) => return finish(result?, stamp),
        Handled::BeginTask => {
            let (Some(round), Some(task), Some(arguments)) = (round, task, kept) else {
                return Err(ErrorObject::internal("the call cannot become a task"));
            };
            let task = NewTask {
                answers: round.answers().clone(),
                ..task
            };
            let run = task_run(server, ctx, &tool, arguments);
            return server.tasks().start(task, run, stamp).await;
        }
    };
    finish(shape(server, ctx, &tool, outcome)?, stamp)
}

/// The catalog's starter of tasks, for a 2025-11-25 call that asks for a task of a tool the
/// catalog serves, on a server without task tools of its own (see [`TaskStarter`]).
fn catalog_task_starter(server: &Server, ctx: &Context, params: &CallParams<'_>) -> Option<Arc<dyn TaskStarter>> {
    let asks = params.task.is_some() && ctx.era() == Era::Legacy && ctx.protocol_version().has_tasks();
    if !asks || server.has_task_tools() || server.registry().tools.get(&params.name).is_some() {
        return None;
    }
    server.catalog_part(|catalog| &catalog.task_starter)
}

/// The tool `name`: a registered one, else the catalog's caller's; an unknown tool is an
/// invalid-params error.
fn find(server: &Server, name: &str) -> Result<Arc<RegisteredTool>, ErrorObject> {
    let registered = server.registry().tools.get(name).cloned();
    match (registered, server.catalog_part(|c| &c.tool_caller)) {
        (Some(tool), _) => Ok(tool),
        (None, Some(caller)) => Ok(Arc::new(RegisteredTool::in_catalog(name.to_owned(), caller))),
        (None, None) => Err(ErrorObject::invalid_params(format!("unknown tool: {name}"))),
    }
}

/// Why a tool's arguments were not taken.
enum Checked {
    /// Its input schema refuses them: what to say.
    Invalid(String),
    /// Its input schema does not compile.
    BadSchema(ErrorObject),
}

impl From<Checked> for ErrorObject {
    fn from(refused: Checked) -> Self {
        match refused {
            Checked::Invalid(message) => ErrorObject::invalid_params(message),
            Checked::BadSchema(error) => error,
        }
    }
}

/// `arguments` once `tool`'s input schema takes them.
fn checked(tool: &RegisteredTool, arguments: Map<String, Value>) -> Result<Map<String, Value>, Checked> {
    let name = &tool.tool.name;
    let arguments = Value::Object(arguments);
    match tool.validate_input(&arguments) {
        Ok(()) => {}
        Err(Rejection::BadSchema(problem)) => {
            return Err(Checked::BadSchema(ErrorObject::internal(format!(
                "tool {name} has an input schema that does not compile: {problem}"
            ))))
        }
        Err(Rejection::Invalid(problems)) => {
            return Err(Checked::Invalid(format!(
                "invalid arguments for tool {name}: {problems}"
            )))
        }
    }
    let Value::Object(arguments) = arguments else {
        unreachable!("built from an object above")
    };
    Ok(arguments)
}

impl Context {
    /// Calls a tool of this server as a client's call runs it in place, its handler run
    /// with this request's context: its arguments checked against its input schema and
    /// its result against its output schema; for a tool built on the server's own tools
    /// (FastMCP's search transforms' `call_tool`). A failure of the tool is its error
    /// result; an unknown tool, or arguments its schema refuses, an invalid-params error.
    pub async fn call_tool(&self, name: &str, arguments: Map<String, Value>) -> Result<CallToolResult, HandlerError> {
        let server = self.dispatcher().server();
        let tool = find(server, name).map_err(HandlerError::Rpc)?;
        let arguments = checked(&tool, arguments).map_err(|refused| HandlerError::Rpc(refused.into()))?;
        let outcome = tool.handler.call(arguments, self.clone()).await;
        shape(server, self, &tool, outcome).map_err(HandlerError::Rpc)
    }
}

/// Whether the call runs as a task, and what task: 2026-07-28 makes one whenever the client
/// declares the extension (-32021 for a tool that requires one, when it does not);
/// 2025-11-25 when the call asks (-32601 for a call that does not fit the tool, once the
/// server declared tasks). Earlier revisions have no tasks: every call runs in place.
fn as_task(
    server: &Server,
    ctx: &Context,
    tool: &RegisteredTool,
    asked: Option<&TaskParams>,
) -> Result<Option<NewTask>, ErrorObject> {
    let support = tool.task_support;
    let task = |owner, ttl: Option<u64>| NewTask {
        owner,
        era: ctx.era(),
        ttl: ttl.map(Duration::from_millis),
        channel: None,
        bound_to: None,
        answers: Default::default(),
    };
    match ctx.era() {
        Era::Modern if support == TaskSupport::Forbidden => Ok(None),
        Era::Modern if tasks::requested(ctx.client_capabilities()) => Ok(Some(task(ctx.principal_key(), None))),
        Era::Modern if support == TaskSupport::Required => Err(tasks::extension_required()),
        Era::Modern => Ok(None),
        Era::Legacy if !ctx.protocol_version().has_tasks() || !server.has_task_tools() => Ok(None),
        Era::Legacy => match (asked, support) {
            (Some(_), TaskSupport::Forbidden) | (None, TaskSupport::Required) => {
                Err(tasks::unsupported(&tool.tool.name, support))
            }
            (None, _) => Ok(None),
            (Some(asked), _) => {
                let dispatcher = ctx.dispatcher();
                // A task of the session ends with it; a principal's outlives it.
                let (owner, per_session) = dispatcher.task_owner(ctx);
                Ok(Some(NewTask {
                    channel: dispatcher.session_channel().cloned(),
                    bound_to: per_session.then(|| dispatcher.ended().clone()),
                    ..task(owner, asked.ttl)
                }))
            }
        },
    }
}

/// Runs of `tool`'s handler as a task, each with a context of its own.
fn task_run(server: &Server, ctx: &Context, tool: &Arc<RegisteredTool>, arguments: Map<String, Value>) -> TaskRun {
    let (server, ctx, tool) = (server.clone(), ctx.clone(), Arc::clone(tool));
    Box::new(move |task_id, round, cancellation| {
        let run = ctx.for_task(task_id, cancellation, round);
        let called = tool.handler.call(arguments.clone(), run.clone());
        let (server, tool) = (server.clone(), Arc::clone(&tool));
        Box::pin(async move { shape(&server, &run, &tool, called.await) })
    })
}

/// The result of a call from what its handler gave: a handler's message is a tool
/// execution error, other errors the request's; structured output checked against the
/// output schema and kept only where the protocol version has it.
fn shape(
    server: &Server,
    ctx: &Context,
    tool: &RegisteredTool,
    outcome: Result<CallToolResult, HandlerError>,
) -> Result<CallToolResult, ErrorObject> {
    let name = &tool.tool.name;
    let mut result = match outcome.map_err(|error| server.disclose(error)) {
        Ok(result) => result,
        Err(HandlerError::Message(message)) => CallToolResult::error(message),
        Err(other) => return Err(other.into_error_object(ctx.era())),
    };
    if result.is_error != Some(true) && tool.tool.output_schema.is_some() {
        let structured = result.structured_content.as_ref().ok_or_else(|| {
            ErrorObject::internal(format!(
                "tool {} has an output schema but returned no structured content",
                name
            ))
        })?;
        tool.validate_output(structured).map_err(|rejection| {
            ErrorObject::internal(match rejection {
                Rejection::BadSchema(problem) => {
                    format!("tool {} has an output schema that does not compile: {problem}", name)
                }
                Rejection::Invalid(problems) => {
                    format!("tool {} returned output that breaks its schema: {problems}", name)
                }
            })
        })?;
    }
    let version = ctx.protocol_version();
    if !version.has_structured_content() {
        result.structured_content = None;
    }
    if !version.has_resource_links() {
        result.content = result
            .content
            .into_iter()
            .map(|block| block.for_version(version))
            .collect();
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::CallToolRequestParams;

    #[test]
    fn tool_names_follow_the_spec() {
        assert!(check_tool_name("get_weather.v2-beta").is_ok());
        assert!(check_tool_name("").is_err());
        assert!(check_tool_name("has space").is_err());
        assert!(check_tool_name(&"x".repeat(129)).is_err());
    }

    #[test]
    fn call_params_check_meta_without_building_it() {
        let parse = |text: &str| {
            let raw = RawValue::from_string(text.to_owned()).unwrap();
            CallParams::read(Some(&raw)).map(|params| params.split().1.name)
        };
        let params = parse(r#"{"name": "t", "arguments": {"a": 1}, "_meta": {"k": [1, {"n": null}]}}"#);
        assert_eq!(params.unwrap(), "t");
        assert!(parse(r#"{"name": "t", "_meta": null}"#).is_ok());
        let error = parse(r#"{"name": "t", "_meta": [1]}"#).err().unwrap();
        let meta = serde_json::from_str::<CallToolRequestParams>(r#"{"name": "t", "_meta": [1]}"#).unwrap_err();
        assert_eq!(error, ErrorObject::invalid_params(meta), "a bad _meta reads as before");
    }

    #[test]
    fn registration_needs_a_handler_and_an_object_schema() {
        assert!(RegisteredTool::compile(ToolDef::new("t")).is_err());
        let not_object = ToolDef::new("t")
            .input_schema(serde_json::json!({"type": "string"}).as_object().unwrap().clone())
            .handler(|_, _| async { "x" });
        assert!(RegisteredTool::compile(not_object).is_err());
    }
}
