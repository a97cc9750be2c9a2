//! `NativeServer`: the core's [`Server`] with handlers implemented in JavaScript.
//!
//! The facade registers each handler under a numeric id and hands the native server one
//! callback, `(handlerId, input, ctx) => outcome`, through which every tool, resource,
//! prompt and completion handler runs; and one `(callId) => void` that tells it a run was
//! cancelled (so that it can fire the run's AbortSignal).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use oxmcp::protocol::{
    CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use oxmcp::server::uri_template::UriTemplate;
use oxmcp::server::{
    CompletionHandler, Context, HandlerError, PromptDef, PromptHandler, ResourceDef, ResourceHandler, Server,
    TemplateDef, ToolDef, ToolHandler, ToolOutput,
};
use oxmcp::BoxFuture;

use crate::context::RequestContext;
use crate::convert::{self, decode_js, Failure};
use crate::error::{client_error, definition_error};
use crate::http::{HttpOptions, NativeHttpListener};
use crate::runtime::{self, Callback};

/// `(handlerId, input, ctx) => outcome | Promise<outcome>`; completion handlers get no
/// `ctx`.
type HandlerCallback = Callback<FnArgs<(u32, Value, Option<RequestContext>)>>;
/// `(callId) => void`: the run `callId` was cancelled.
type CancelCallback = Callback<u32>;

/// Server settings beyond its name and version.
#[napi(object)]
pub struct ServerOptions {
    /// Guidance for the model on how to use the server.
    pub instructions: Option<String>,
    /// Splits list results into pages of at most this many items.
    pub page_size: Option<u32>,
}

/// An MCP server whose handlers live in JavaScript. One value serves any number of
/// connections.
#[napi]
pub struct NativeServer {
    server: Server,
    bridge: Arc<Bridge>,
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
                        handler: (handlerId: number, input: unknown, ctx: RequestContext | null) => unknown, \
                        cancel: (callId: number) => void"
    )]
    pub fn new(
        info: Value,
        options: ServerOptions,
        handler: HandlerCallback,
        cancel: CancelCallback,
    ) -> napi::Result<Self> {
        let info: Implementation = decode_js(info, "server info")?;
        let mut builder = Server::builder(info.name.clone(), info.version.clone()).info(info);
        if let Some(instructions) = options.instructions {
            builder = builder.instructions(instructions);
        }
        if let Some(size) = options.page_size {
            builder = builder.page_size(size as usize);
        }
        let server = builder.build().map_err(definition_error)?;
        Ok(NativeServer {
            server,
            bridge: Arc::new(Bridge {
                handler,
                cancel,
                next_call: AtomicU32::new(0),
            }),
            stop: CancellationToken::new(),
        })
    }

    /// Adds a tool from its `Tool` definition; announces the change.
    #[napi(ts_args_type = "definition: Record<string, unknown>, handlerId: number")]
    pub fn add_tool(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        let tool: Tool = decode_js(definition, "tool definition")?;
        let handler = JsTool {
            bridge: Arc::clone(&self.bridge),
            handler_id,
            output: match tool.output_schema {
                Some(_) => ToolOutput::Inferred,
                None => ToolOutput::Content,
            },
        };
        self.server
            .add_tool(ToolDef::from_tool(tool).handler_object(Arc::new(handler)))
            .map_err(definition_error)
    }

    /// Removes a tool; returns whether it existed.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    /// Adds a static resource from its `Resource` definition.
    #[napi(ts_args_type = "definition: Record<string, unknown>, handlerId: number")]
    pub fn add_resource(&self, definition: Value, handler_id: u32) -> napi::Result<()> {
        let resource: Resource = decode_js(definition, "resource definition")?;
        let handler = JsResource {
            bridge: Arc::clone(&self.bridge),
            handler_id,
            mime_type: resource.mime_type.clone(),
        };
        self.server
            .add_resource(ResourceDef::from_resource(resource).handler_object(Arc::new(handler)))
            .map_err(definition_error)
    }

    /// Removes a static resource; returns whether it existed.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    /// Adds a resource template from its `ResourceTemplate` definition;
    /// `completions` maps variable names to completion handler ids.
    #[napi(
        ts_args_type = "definition: Record<string, unknown>, handlerId: number, completions: Record<string, number>"
    )]
    pub fn add_template(
        &self,
        definition: Value,
        handler_id: u32,
        completions: HashMap<String, u32>,
    ) -> napi::Result<()> {
        let template: ResourceTemplate = decode_js(definition, "resource template definition")?;
        let handler = JsResource {
            bridge: Arc::clone(&self.bridge),
            handler_id,
            mime_type: template.mime_type.clone(),
        };
        let mut def = TemplateDef::from_template(template).handler_object(Arc::new(handler));
        for (variable, handler_id) in completions {
            def = def.complete(variable, self.completion(handler_id));
        }
        self.server.add_template(def).map_err(definition_error)
    }

    /// Removes a resource template by its URI template; returns whether it existed.
    #[napi]
    pub fn remove_template(&self, uri_template: String) -> bool {
        self.server.remove_template(&uri_template)
    }

    /// Adds a prompt from its `Prompt` definition; `completions` maps
    /// argument names to completion handler ids.
    #[napi(
        ts_args_type = "definition: Record<string, unknown>, handlerId: number, completions: Record<string, number>"
    )]
    pub fn add_prompt(
        &self,
        definition: Value,
        handler_id: u32,
        completions: HashMap<String, u32>,
    ) -> napi::Result<()> {
        let prompt: Prompt = decode_js(definition, "prompt definition")?;
        let handler = JsPrompt {
            bridge: Arc::clone(&self.bridge),
            handler_id,
        };
        let mut def = PromptDef::from_prompt(prompt).handler_object(Arc::new(handler));
        for (argument, handler_id) in completions {
            def = def.complete(argument, self.completion(handler_id));
        }
        self.server.add_prompt(def).map_err(definition_error)
    }

    /// Removes a prompt; returns whether it existed.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.server.remove_prompt(&name)
    }

    /// Tells subscribers of `uri` that it changed.
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.server.notify_resource_updated(&uri);
    }

    /// Serves this process's stdin and stdout until stdin closes or the server is closed.
    #[napi]
    pub async fn serve_stdio(&self) -> napi::Result<()> {
        tokio::select! {
            served = self.server.serve_stdio() => served.map_err(client_error),
            _ = self.stop.cancelled() => Ok(()),
        }
    }

    /// Binds an HTTP listener (`options.host`, default `127.0.0.1`; `options.port`,
    /// default 0: any free port) and serves the Streamable HTTP endpoint on it in the
    /// background; resolves once bound. One server may listen on any number of them.
    #[napi]
    pub async fn bind_http(&self, options: HttpOptions) -> napi::Result<NativeHttpListener> {
        let (address, config, path) = options.into_core()?;
        let handle = self.server.bind_http(address, config).await.map_err(client_error)?;
        Ok(NativeHttpListener::new(handle, &path))
    }

    /// Stops every connection this server serves (over stdio and in process; HTTP
    /// listeners are closed on their own).
    #[napi]
    pub fn close(&self) {
        self.stop.cancel();
    }
}

impl NativeServer {
    fn completion(&self, handler_id: u32) -> JsCompletion {
        JsCompletion {
            bridge: Arc::clone(&self.bridge),
            handler_id,
        }
    }
}

/// The two facade callbacks, shared by every handler of one server.
struct Bridge {
    handler: HandlerCallback,
    cancel: CancelCallback,
    next_call: AtomicU32,
}

impl Bridge {
    /// Runs handler `handler_id` with `input` and returns the value it produced.
    async fn run(self: Arc<Self>, handler_id: u32, input: Value, ctx: Option<Context>) -> Result<Value, HandlerError> {
        let call_id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let mut run = Run {
            bridge: Arc::clone(&self),
            call_id,
            ended: CancellationToken::new(),
            finished: false,
        };
        let js_ctx = ctx.map(|ctx| RequestContext::new(ctx, call_id, run.ended.clone()));
        let returned = runtime::call(&self.handler, FnArgs::from((handler_id, input, js_ctx))).await;
        run.finished = true;
        returned
            .map_err(Failure::from)
            .and_then(convert::outcome)
            .map_err(Failure::into_handler_error)
    }
}

/// One handler run. Dropped unfinished, the core stopped waiting for it (the client
/// cancelled, the connection ended, or the run ended for a multi round-trip retry): the
/// facade is told, so that the handler's AbortSignal fires.
struct Run {
    bridge: Arc<Bridge>,
    call_id: u32,
    ended: CancellationToken,
    finished: bool,
}

impl Drop for Run {
    fn drop(&mut self) {
        self.ended.cancel();
        if !self.finished {
            self.bridge
                .cancel
                .call(self.call_id, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// The variable names of an RFC 6570 URI template, in order (none for a plain URI); an
/// invalid template is an error.
#[napi]
pub fn uri_template_variables(template: String) -> napi::Result<Vec<String>> {
    let template = UriTemplate::parse(&template).map_err(crate::error::invalid)?;
    Ok(template.variables().map(str::to_owned).collect())
}

struct JsTool {
    bridge: Arc<Bridge>,
    handler_id: u32,
    output: ToolOutput,
}

impl ToolHandler for JsTool {
    fn call(
        &self,
        arguments: serde_json::Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, Value::Object(arguments), Some(ctx));
        let output = self.output;
        Box::pin(async move { convert::tool_result(run.await?, output) })
    }
}

struct JsResource {
    bridge: Arc<Bridge>,
    handler_id: u32,
    mime_type: Option<String>,
}

impl ResourceHandler for JsResource {
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let input = json!({ "uri": uri, "variables": variables });
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, Some(ctx));
        let mime_type = self.mime_type.clone();
        Box::pin(async move { convert::read_result(run.await?, &uri, mime_type.as_deref()) })
    }
}

struct JsPrompt {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl PromptHandler for JsPrompt {
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let run = Arc::clone(&self.bridge).run(self.handler_id, json!(arguments), Some(ctx));
        Box::pin(async move { convert::prompt_result(run.await?) })
    }
}

struct JsCompletion {
    bridge: Arc<Bridge>,
    handler_id: u32,
}

impl CompletionHandler for JsCompletion {
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let input = json!({ "value": value, "context": context });
        let run = Arc::clone(&self.bridge).run(self.handler_id, input, None);
        Box::pin(async move { convert::completion_values(run.await?) })
    }
}
