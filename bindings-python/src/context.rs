//! The request context a Python handler receives: what it knows about the request, and
//! how it talks back (progress, log messages, requests to the client).

use std::collections::BTreeMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use oxmcp::protocol::{CreateMessageRequestParams, ElicitRequestParams, Era, InputRequests, LoggingLevel};
use oxmcp::server::{Context as CoreContext, DefinitionKind, HandlerError};

use crate::{convert, error, runtime};

/// One request's context; the facade's `oxmcp.Context` wraps it.
#[pyclass(name = "Context", frozen, module = "oxmcp._native")]
pub struct Context {
    inner: CoreContext,
}

impl Context {
    pub fn new(inner: CoreContext) -> Self {
        Context { inner }
    }
}

#[pymethods]
impl Context {
    /// The JSON-RPC id of the request (int or str).
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.inner.request_id())
    }

    /// A number that tells the request apart from every other one running, the same for
    /// every context of it (an interceptor's and its handler's).
    #[getter]
    fn request_key(&self) -> usize {
        self.inner.request_key()
    }

    /// The session of the request (a legacy HTTP session's id, or one for the stdio
    /// connection); None where each request stands alone.
    #[getter]
    fn session_id(&self) -> Option<&str> {
        self.inner.session_id()
    }

    /// What carries the request: "stdio", "streamable-http", "sse" (2024-11-05), "memory"
    /// (a client in this process) or "other".
    #[getter]
    fn transport(&self) -> &'static str {
        self.inner.transport().as_str()
    }

    /// The protocol version of the request, e.g. "2025-11-25".
    #[getter]
    fn protocol_version(&self) -> &'static str {
        self.inner.protocol_version().as_str()
    }

    /// "legacy" or "modern".
    #[getter]
    fn era(&self) -> &'static str {
        era_name(self.inner.era())
    }

    /// Who the client says it is (name, version, ...), when it said.
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.inner.client_info())
    }

    /// What the client declared it can do.
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, self.inner.client_capabilities())
    }

    /// The caller's verified access token as a dict (`token`, `issuer`, `subject`,
    /// `client_id`, `scopes`, `audience`, `expires_at`, `claims`), on a server with `auth`
    /// over HTTP; None otherwise.
    #[getter]
    fn access_token<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.inner.access_token())
    }

    /// The headers of the HTTP POST that carried the request, by lowercase name (a
    /// repeated header's values joined with ", "; values that are not visible ASCII left
    /// out); None over other transports.
    #[getter]
    fn http_headers(&self) -> Option<BTreeMap<String, String>> {
        self.inner.http_header_texts()
    }

    /// The target (path and `?query`) of the HTTP POST that carried the request, and the
    /// host and port it came from when known; None over other transports.
    #[getter]
    fn http_target(&self) -> Option<(String, Option<(String, u16)>)> {
        let request = self.inner.http_request()?;
        let peer = request.peer().map(|peer| (peer.ip().to_string(), peer.port()));
        Some((request.uri().to_string(), peer))
    }

    /// The request's raw `_meta`, if any.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.inner.meta())
    }

    /// The answers the client sent with this retry, by request key, as wire dicts
    /// (explicit multi round-trip style, 2026-07-28); None on a first run.
    #[getter]
    fn input_responses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &self.inner.input_responses())
    }

    /// The state the handler gave with its last `input_required` answer, checked by the
    /// server to be unaltered (explicit multi round-trip style).
    #[getter]
    fn request_state(&self) -> Option<&str> {
        self.inner.request_state()
    }

    /// The exception that ends this run with an `input_required` result: `requests` maps
    /// keys to wire input requests (`{"method": "elicitation/create", "params": {...}}`),
    /// `state` comes back sealed on the retry. Raise it.
    #[pyo3(signature = (requests, state=None))]
    fn input_required(&self, py: Python<'_>, requests: &Bound<'_, PyAny>, state: Option<String>) -> PyResult<PyErr> {
        let requests: InputRequests = convert::extract(requests, "input requests")?;
        Ok(error::handler_error_to_py(
            py,
            HandlerError::input_required(requests, state),
        ))
    }

    /// Whether the client cancelled the request.
    #[getter]
    fn cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    /// Reports progress (sent only when the client asked for it; values must increase).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn progress<'py>(
        &self,
        py: Python<'py>,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.progress(progress, total, message).await;
            Ok(())
        })
    }

    /// Ends the SSE stream this request's messages go on while it goes on; the client
    /// resumes (see `Context::close_stream`).
    fn close_stream<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.close_stream().await;
            Ok(())
        })
    }

    /// Says what the task this call runs as is doing now (its status message); nothing
    /// outside a task.
    fn task_status<'py>(&self, py: Python<'py>, message: String) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.task_status(message).await;
            Ok(())
        })
    }

    /// Where a tool that asks before it becomes a task becomes one (see
    /// `ToolDef::asks_before_task`); anywhere else it returns at once.
    fn begin_task<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.begin_task().await;
            Ok(())
        })
    }

    /// Whether this call runs as a task.
    #[getter]
    fn is_task(&self) -> bool {
        self.inner.is_task()
    }

    /// Tells every client that the list of `kind` ("tools", "resources" or "prompts")
    /// changed.
    fn notify_list_changed(&self, kind: &str) -> PyResult<()> {
        self.inner.notify_list_changed(list_kind(kind)?);
        Ok(())
    }

    /// Tells this request's client, and no other, that the list of `kind` changed (in
    /// 2026-07-28, which has no sessions, every client).
    fn notify_session_list_changed<'py>(&self, py: Python<'py>, kind: &str) -> PyResult<Bound<'py, PyAny>> {
        let kind = list_kind(kind)?;
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.notify_session_list_changed(kind).await;
            Ok(())
        })
    }

    /// Sends a log message at `level` ("debug" ... "emergency"), if the client wants it.
    #[pyo3(signature = (level, data, logger=None))]
    fn log<'py>(
        &self,
        py: Python<'py>,
        level: &str,
        data: &Bound<'py, PyAny>,
        logger: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let level: LoggingLevel = serde_json::from_value(level.into())
            .map_err(|_| PyValueError::new_err(format!("unknown log level: {level:?}")))?;
        let data = convert::to_json(data)?;
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.log(level, logger.as_deref(), data).await;
            Ok(())
        })
    }

    /// Asks the client's user for input: `params` as `elicitation/create` takes them;
    /// resolves to the result as a dict.
    fn elicit<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let params: ElicitRequestParams = convert::extract(params, "elicitation request")?;
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.elicit(params).await;
            answer(outcome)
        })
    }

    /// Asks the client's model for a completion: `params` as `sampling/createMessage`
    /// takes them; resolves to the result as a dict.
    fn sample<'py>(&self, py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let params: CreateMessageRequestParams = convert::extract(params, "sampling request")?;
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.sample(params).await;
            answer(outcome)
        })
    }

    /// Reads a resource of this server, its handler run with this context; resolves to the
    /// `resources/read` result as a dict.
    fn read_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.read_resource(&uri).await;
            answer(outcome)
        })
    }

    /// Renders a prompt of this server, its handler run with this context; resolves to the
    /// `prompts/get` result as a dict.
    #[pyo3(signature = (name, arguments=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<BTreeMap<String, String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.get_prompt(&name, arguments.unwrap_or_default()).await;
            answer(outcome)
        })
    }

    /// Tells the client the user completed URL-mode elicitation `elicitation_id`
    /// (2025-11-25), on the session; nothing in 2026-07-28.
    fn notify_elicitation_complete<'py>(&self, py: Python<'py>, elicitation_id: String) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            ctx.notify_elicitation_complete(&elicitation_id).await;
            Ok(())
        })
    }

    /// Calls a tool of this server in place, its handler run with this context; resolves
    /// to the `tools/call` result as a dict (a failure of the tool is its error result).
    #[pyo3(signature = (name, arguments=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments: serde_json::Map<String, serde_json::Value> = match arguments {
            Some(given) => convert::extract(given, "tool arguments")?,
            None => serde_json::Map::new(),
        };
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.call_tool(&name, arguments).await;
            answer(outcome)
        })
    }

    /// Pings the client on the request's session (which may outlive the request); resolves
    /// once it answers. Nothing is sent in 2026-07-28, which has no sessions.
    fn ping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.ping().await;
            answer(outcome)
        })
    }

    /// Asks the client for its roots; resolves to the `roots/list` result as a dict.
    fn list_roots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.inner.clone();
        runtime::future_into_py(py, async move {
            let outcome = ctx.list_roots().await;
            answer(outcome)
        })
    }
}

/// The Python value of a context call's outcome.
fn answer<T: serde::Serialize>(outcome: Result<T, oxmcp::server::HandlerError>) -> PyResult<Py<PyAny>> {
    runtime::attach(|py| match outcome {
        Ok(value) => convert::to_python(py, &value).map(Bound::unbind),
        Err(e) => Err(error::handler_error_to_py(py, e)),
    })
    .unwrap_or_else(|| Err(error::exiting()))
}

/// An era as Python names it: "legacy" or "modern".
pub fn era_name(era: Era) -> &'static str {
    match era {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    }
}

/// The list a binding names: "tools", "resources" or "prompts".
pub(crate) fn list_kind(kind: &str) -> PyResult<DefinitionKind> {
    match kind {
        "tools" => Ok(DefinitionKind::Tool),
        "resources" => Ok(DefinitionKind::Resource),
        "prompts" => Ok(DefinitionKind::Prompt),
        other => Err(PyValueError::new_err(format!(
            "no list of {other:?}: 'tools', 'resources' or 'prompts'"
        ))),
    }
}
