//! Calling Python handlers from tokio tasks, as the core's handler traits.
//!
//! A handler's coroutine runs as an asyncio task on the user's loop ([`crate::event_loop`]),
//! its result comes back as the core's `Returned`, and dropping the Rust future (the client
//! cancelled, or the connection ended) cancels the task. A plain function runs on one of
//! the binding's threads instead ([`workers`]), never touching the loop. [`PyTool`],
//! [`PyResource`], [`PyPrompt`], [`PyCompletion`] and [`PyCompleter`] are the core's
//! server-side handlers over a [`PyHandler`]; [`PySampling`], [`PyElicitation`] and
//! [`PyRoots`] answer the server's requests.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use oxmcp::client::{ElicitationHandler, RootsHandler, SamplingHandler};
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ErrorObject, GetPromptResult, ListRootsResult, Meta, ReadResourceResult,
};
use oxmcp::server::{
    Completer, CompletionHandler, Context as CoreContext, HandlerError, Intercepted, Interceptor, Lister, Next,
    NotificationHandler, NotificationNext, PromptGetter, PromptHandler, RequestHandler, ResourceHandler, Returned,
    ToolCaller, ToolHandler, ToolOutput,
};
use oxmcp::BoxFuture;

use crate::context::Context;
use crate::event_loop::{self, LoopSlot, MakeCoroutine};
use crate::{convert, error, workers};

/// A Python handler: a callable returning an awaitable (run on the loop), or a plain
/// function (run on one of the binding's threads, off the loop), and the loop it runs on.
#[derive(Clone)]
pub struct PyHandler {
    callable: Arc<Py<PyAny>>,
    slot: LoopSlot,
    runs: Runs,
}

/// Where a handler runs.
#[derive(Clone, Copy)]
enum Runs {
    /// A plain function: on one of the binding's threads.
    Threaded,
    /// A coroutine function: as a task on the loop.
    AsATask,
    /// A coroutine function that never waits: on the loop, its coroutine ending in the
    /// step that starts it.
    InOneStep,
}

impl PyHandler {
    /// `callable` run on the loop in `slot` when it is a coroutine function, else on a
    /// thread of the binding's.
    pub fn new(callable: &Bound<'_, PyAny>, slot: LoopSlot) -> Self {
        let is_async = callable
            .py()
            .import("inspect")
            .and_then(|inspect| inspect.call_method1("iscoroutinefunction", (callable,)))
            .and_then(|answer| answer.is_truthy())
            .unwrap_or(false);
        let runs = match is_async {
            false => Runs::Threaded,
            true if event_loop::runs_in_one_step(callable) => Runs::InOneStep,
            true => Runs::AsATask,
        };
        PyHandler {
            callable: Arc::new(callable.clone().unbind()),
            slot,
            runs,
        }
    }

    /// Calls the handler with the arguments `args` builds and decodes its answer as `T`
    /// (`what` names it in the error).
    pub fn call<T: DeserializeOwned>(
        &self,
        what: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, HandlerError>> {
        let answer = self.answer(args);
        Box::pin(async move {
            serde_json::from_value(answer.await?.into_json())
                .map_err(|e| HandlerError::message(format!("invalid {what}: {e}")))
        })
    }

    /// Calls the handler with the arguments `args` builds and returns what it returned.
    pub fn answer(
        &self,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> + Send + 'static,
    ) -> BoxFuture<'static, Result<Returned, HandlerError>> {
        let handler = self.clone();
        Box::pin(async move {
            let callable = Arc::clone(&handler.callable);
            if let Runs::Threaded = handler.runs {
                return workers::run(move |py| call_here(py, &callable, args))
                    .await
                    .unwrap_or_else(|| Err(error::exiting_handler()));
            }
            let make: MakeCoroutine = Box::new(move |py| {
                let args = PyTuple::new(py, args(py)?)?;
                callable.bind(py).call1(args)
            });
            let in_one_step = matches!(handler.runs, Runs::InOneStep);
            handler.slot.run(make, in_one_step).await
        })
    }
}

/// Calls a plain function on this thread and reads its result.
fn call_here(
    py: Python<'_>,
    callable: &Py<PyAny>,
    args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>>,
) -> Result<Returned, HandlerError> {
    let outcome = args(py)
        .and_then(|args| PyTuple::new(py, args))
        .and_then(|args| callable.bind(py).call1(args));
    match outcome {
        Ok(result) => convert::answer(&result),
        Err(e) => Err(error::handler_error_from_py(py, &e)),
    }
}

// ---------------------------------------------------------------------------------------
// Adapters: Python handlers as the core's server-side handlers
// ---------------------------------------------------------------------------------------

/// A tool's handler, and how its results carry their value.
pub struct PyTool(pub PyHandler, pub ToolOutput);

impl ToolHandler for PyTool {
    fn call(
        &self,
        arguments: Map<String, Value>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        let output = self.1;
        let answer = self.0.answer(move |py| {
            Ok(vec![
                convert::from_json(py, &Value::Object(arguments))?,
                Bound::new(py, Context::new(ctx))?.into_any(),
            ])
        });
        Box::pin(async move { answer.await?.into_tool_result(output) })
    }
}

/// A resource's handler, the MIME type its definition declares, and the `_meta` each
/// content it reads is given when it has none of its own (the Python SDKs give contents
/// the `meta` a resource was decorated with).
pub struct PyResource(pub PyHandler, pub Option<String>, pub Option<Meta>);

impl ResourceHandler for PyResource {
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let mime_type = self.1.clone();
        let meta = self.2.clone();
        let requested = uri.clone();
        let answer = self.0.answer(move |py| {
            let vars = PyDict::new(py);
            for (name, value) in &variables {
                vars.set_item(name, value)?;
            }
            Ok(vec![
                uri.into_pyobject(py)?.into_any(),
                vars.into_any(),
                Bound::new(py, Context::new(ctx))?.into_any(),
            ])
        });
        Box::pin(async move {
            let mut result = answer.await?.into_read_result(&requested, mime_type.as_deref())?;
            if let Some(meta) = meta {
                for contents in &mut result.contents {
                    contents.meta_mut().get_or_insert_with(|| meta.clone());
                }
            }
            Ok(result)
        })
    }
}

/// A prompt's handler.
pub struct PyPrompt(pub PyHandler);

impl PromptHandler for PyPrompt {
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let answer = self.0.answer(move |py| {
            let args = PyDict::new(py);
            for (name, value) in &arguments {
                args.set_item(name, value)?;
            }
            Ok(vec![args.into_any(), Bound::new(py, Context::new(ctx))?.into_any()])
        });
        Box::pin(async move { answer.await?.into_prompt_result() })
    }
}

/// A completion handler of one argument or variable.
pub struct PyCompletion(pub PyHandler);

impl CompletionHandler for PyCompletion {
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        self.0.call("completion values", move |py| {
            let others = PyDict::new(py);
            for (name, value) in &context {
                others.set_item(name, value)?;
            }
            Ok(vec![value.into_pyobject(py)?.into_any(), others.into_any()])
        })
    }
}

/// The server's one completion handler, for arguments without their own: it gets the
/// request's params as they came and the context, and gives a completion or None.
pub struct PyCompleter(pub PyHandler);

impl Completer for PyCompleter {
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<Option<Completion>, HandlerError>> {
        self.0.call("a completion", move |py| {
            Ok(vec![
                convert::to_python(py, &params)?,
                Bound::new(py, Context::new(ctx))?.into_any(),
            ])
        })
    }
}

/// A function of the server's catalog, for what is not registered: a lister is called with
/// the cursor (None for the first page) and the context; a tool's caller, a prompt's getter
/// and a resource's reader with the request's params (`name` and `arguments`, or `uri`) as a
/// dict and the context. It returns the method's result as a dict.
pub struct PyCatalog(pub PyHandler);

impl PyCatalog {
    fn with_params<R: DeserializeOwned + 'static>(
        &self,
        what: &'static str,
        params: Value,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<R, HandlerError>> {
        self.0.call(what, move |py| params_and_context(py, &params, ctx))
    }
}

impl<R: DeserializeOwned + 'static> Lister<R> for PyCatalog {
    fn list(&self, cursor: Option<String>, ctx: CoreContext) -> BoxFuture<'static, Result<R, HandlerError>> {
        self.0.call("a list", move |py| {
            Ok(vec![
                cursor.into_pyobject(py)?.into_any(),
                Bound::new(py, Context::new(ctx))?.into_any(),
            ])
        })
    }
}

impl ToolCaller for PyCatalog {
    fn call(
        &self,
        name: String,
        arguments: Map<String, Value>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        self.with_params("a tool result", json!({"name": name, "arguments": arguments}), ctx)
    }
}

impl PromptGetter for PyCatalog {
    fn get(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        self.with_params("a prompt", json!({"name": name, "arguments": arguments}), ctx)
    }
}

impl ResourceHandler for PyCatalog {
    fn read(
        &self,
        uri: String,
        _variables: BTreeMap<String, String>,
        ctx: CoreContext,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        self.with_params("a resource read", json!({"uri": uri}), ctx)
    }
}

/// A custom request's handler: called with the params and the context, it returns the
/// result object.
pub struct PyRequest(pub PyHandler);

impl RequestHandler for PyRequest {
    fn call(&self, params: Value, ctx: CoreContext) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let answer = self.0.answer(move |py| params_and_context(py, &params, ctx));
        Box::pin(async move { Ok(answer.await?.into_json()) })
    }
}

/// What runs around every request: called with the method, the params, the context and
/// the call that runs the method ([`NextCall`]), it returns the result, a dict. The
/// notifications go through `notifications` when it is given, called the same way with
/// the call that runs their handler ([`NotifiedCall`]). With `initialize`, the legacy
/// handshake goes through `requests` too.
pub struct PyInterceptor {
    pub requests: PyHandler,
    pub notifications: Option<PyHandler>,
    pub initialize: bool,
}

impl Interceptor for PyInterceptor {
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let Intercepted { method, params, ctx } = request;
        let answer = self.requests.answer(move |py| {
            let mut args = vec![method.into_pyobject(py)?.into_any()];
            args.extend(params_and_context(py, &params, ctx)?);
            args.push(Bound::new(py, NextCall(Arc::new(next)))?.into_any());
            Ok(args)
        });
        Box::pin(async move { Ok(answer.await?.into_json()) })
    }

    fn notified(&self, notification: Intercepted, next: NotificationNext) -> BoxFuture<'static, ()> {
        let Some(notifications) = &self.notifications else {
            return Box::pin(next.run());
        };
        let Intercepted { method, params, ctx } = notification;
        let acted = notifications.answer(move |py| {
            let mut args = vec![method.into_pyobject(py)?.into_any()];
            args.extend(params_and_context(py, &params, ctx)?);
            args.push(Bound::new(py, NotifiedCall(Mutex::new(Some(next))))?.into_any());
            Ok(args)
        });
        // A notification has no answer to carry a failure; the facade reports it.
        Box::pin(async move { drop(acted.await) })
    }

    fn intercepts_initialize(&self) -> bool {
        self.initialize
    }
}

/// What the server does with an intercepted notification, as the interceptor calls it:
/// `await handler.run()`.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct NotifiedCall(Mutex<Option<NotificationNext>>);

#[pymethods]
impl NotifiedCall {
    /// Runs the notification's handler, if the server has one (once; later calls do
    /// nothing).
    fn run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let next = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        crate::runtime::future_into_py(py, async move {
            if let Some(next) = next {
                next.run().await;
            }
            crate::runtime::attach(|py| Ok(py.None())).unwrap_or_else(|| Err(error::exiting()))
        })
    }
}

/// The method of an intercepted request, as the interceptor calls it:
/// `await call_next(params=None)` runs it (with the params as sent, or `params`) and gives
/// its result, or raises the `McpError` it answered with.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct NextCall(Arc<Next>);

#[pymethods]
impl NextCall {
    #[pyo3(signature = (params = None))]
    fn __call__<'py>(&self, py: Python<'py>, params: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let params = params.map(convert::to_json).transpose()?;
        let next = Arc::clone(&self.0);
        crate::runtime::future_into_py(py, async move {
            let outcome = next.run(params).await;
            crate::runtime::attach(|py| match outcome {
                Ok(result) => convert::from_json(py, &result).map(Bound::unbind),
                Err(error) => Err(error::mcp_error(py, &error)),
            })
            .unwrap_or_else(|| Err(error::exiting()))
        })
    }
}

/// A notification's handler: called with the params and the session's context.
pub struct PyNotification(pub PyHandler);

impl NotificationHandler for PyNotification {
    fn notify(&self, params: Value, ctx: CoreContext) -> BoxFuture<'static, ()> {
        let acted = self.0.answer(move |py| params_and_context(py, &params, ctx));
        // A notification has no answer to carry a failure; the facade reports it.
        Box::pin(async move { drop(acted.await) })
    }
}

fn params_and_context<'py>(py: Python<'py>, params: &Value, ctx: CoreContext) -> PyResult<Vec<Bound<'py, PyAny>>> {
    Ok(vec![
        convert::from_json(py, params)?,
        Bound::new(py, Context::new(ctx))?.into_any(),
    ])
}

// ---------------------------------------------------------------------------------------
// Adapters: Python handlers as the core's client-side handlers
// ---------------------------------------------------------------------------------------

/// Runs a client-side handler; its failure becomes the JSON-RPC error sent back.
fn answer_server<T: DeserializeOwned + Send + 'static>(
    handler: &PyHandler,
    what: &'static str,
    args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> + Send + 'static,
) -> BoxFuture<'static, Result<T, ErrorObject>> {
    let call = handler.call::<T>(what, args);
    Box::pin(async move {
        call.await.map_err(|e| match e {
            HandlerError::Rpc(error) => error,
            HandlerError::Message(message) => ErrorObject::internal(message),
            other => ErrorObject::internal(format!("{other:?}")),
        })
    })
}

/// The client's sampling handler.
pub struct PySampling(pub PyHandler);

impl SamplingHandler for PySampling {
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        answer_server(&self.0, "sampling result", move |py| {
            Ok(vec![convert::to_python(py, &params)?])
        })
    }
}

/// The client's elicitation handler.
pub struct PyElicitation(pub PyHandler);

impl ElicitationHandler for PyElicitation {
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        answer_server(&self.0, "elicitation result", move |py| {
            Ok(vec![convert::to_python(py, &params)?])
        })
    }
}

/// The client's roots handler.
pub struct PyRoots(pub PyHandler);

impl RootsHandler for PyRoots {
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>> {
        answer_server(&self.0, "roots result", |_| Ok(Vec::new()))
    }
}
