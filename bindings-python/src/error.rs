//! Errors across the boundary, both ways.
//!
//! Python sees the facade's classes (`oxmcp.McpError`, `oxmcp.ProtocolError`) and the
//! builtins (`TimeoutError`, `ConnectionError`, `OSError`, `asyncio.CancelledError`); the
//! core sees [`HandlerError`] and [`ErrorObject`].

use pyo3::exceptions::asyncio::CancelledError;
use pyo3::exceptions::{PyBaseException, PyConnectionError, PyOSError, PyRuntimeError, PyTimeoutError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use oxmcp::protocol::ErrorObject;
use oxmcp::server::HandlerError;

use crate::{convert, runtime};

pyo3::create_exception!(
    _native,
    InputRequired,
    PyBaseException,
    "Ends this run of a handler so that the client can supply input (multi round-trip, \
     2026-07-28). Raised by Context methods; let it propagate."
);

/// The core's answer carried by an [`InputRequired`] through the handler's Python frames.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct PendingInput(HandlerError);

static MCP_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RESOURCE_NOT_FOUND_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PROTOCOL_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn mcp_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    MCP_ERROR.import(py, "oxmcp._errors", "McpError")
}

fn resource_not_found_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    RESOURCE_NOT_FOUND_ERROR.import(py, "oxmcp._errors", "ResourceNotFoundError")
}

fn protocol_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PROTOCOL_ERROR.import(py, "oxmcp._errors", "ProtocolError")
}

/// `oxmcp.McpError` for a JSON-RPC error; `oxmcp.ResourceNotFoundError` for a resource
/// not found, in either era's words.
pub fn mcp_error(py: Python<'_>, error: &ErrorObject) -> PyErr {
    let build = || -> PyResult<PyErr> {
        if let Some(uri) = error.missing_resource() {
            let value = resource_not_found_type(py)?.call1((uri, error.message.as_str(), error.code))?;
            return Ok(PyErr::from_value(value));
        }
        let data = match &error.data {
            Some(data) => convert::from_json(py, data)?,
            None => py.None().into_bound(py),
        };
        let value = mcp_error_type(py)?.call1((error.code, error.message.as_str(), data))?;
        Ok(PyErr::from_value(value))
    };
    build().unwrap_or_else(|e| e)
}

/// `oxmcp.ProtocolError` with this message.
pub fn protocol_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    match protocol_error_type(py) {
        Ok(class) => PyErr::from_type(class.clone(), message.into()),
        Err(e) => e,
    }
}

/// The Python exception for a failed client request.
pub fn client_error(py: Python<'_>, error: oxmcp::Error) -> PyErr {
    match error {
        oxmcp::Error::Remote(error) => mcp_error(py, &error),
        oxmcp::Error::ConnectionClosed => PyConnectionError::new_err("the connection to the server is closed"),
        oxmcp::Error::Timeout(after) => PyTimeoutError::new_err(format!("no answer within {after:?}")),
        oxmcp::Error::Cancelled => CancelledError::new_err("the request was cancelled"),
        oxmcp::Error::Io(error) => PyOSError::new_err(error.to_string()),
        other => protocol_error(py, other.to_string()),
    }
}

/// The Python exception of a failed client request, attaching to the interpreter to build it.
pub fn raise(error: oxmcp::Error) -> PyErr {
    runtime::attach(|py| client_error(py, error)).unwrap_or_else(exiting)
}

/// What a call into Python fails with once the interpreter exits.
const EXITING: &str = "the Python interpreter is exiting";

/// The exception of a call that cannot finish because the interpreter exits (built
/// lazily: no need to attach to the interpreter).
pub fn exiting() -> PyErr {
    PyRuntimeError::new_err(EXITING)
}

/// The failure of a handler that cannot run because the interpreter exits.
pub fn exiting_handler() -> HandlerError {
    HandlerError::message(EXITING)
}

/// The Python exception a handler sees when a [`Context`](oxmcp::server::Context) call fails.
pub fn handler_error_to_py(py: Python<'_>, error: HandlerError) -> PyErr {
    match error {
        HandlerError::Message(message) => protocol_error(py, message),
        HandlerError::Rpc(error) => mcp_error(py, &error),
        HandlerError::ResourceNotFound(uri) => resource_not_found(py, &uri),
        other => match Py::new(py, PendingInput(other)) {
            Ok(pending) => InputRequired::new_err((pending,)),
            Err(e) => e,
        },
    }
}

/// What a Python handler's exception means to the core: the answer an `InputRequired`
/// carries, the JSON-RPC error of an `oxmcp.McpError`, or else a message.
pub fn handler_error_from_py(py: Python<'_>, error: &PyErr) -> HandlerError {
    let value = error.value(py);
    if value.is_instance_of::<InputRequired>() {
        let pending = value
            .getattr("args")
            .and_then(|args| args.get_item(0))
            .and_then(|first| first.cast_into::<PendingInput>().map_err(PyErr::from));
        if let Ok(pending) = pending {
            return pending.get().0.clone();
        }
    }
    if let Some(uri) = resource_not_found_uri(py, error) {
        return HandlerError::ResourceNotFound(uri);
    }
    if let Some(error) = error_object_of(py, error) {
        return HandlerError::Rpc(error);
    }
    HandlerError::Message(describe(value))
}

/// `oxmcp.ResourceNotFoundError(uri)`, which the core words for the request's era.
fn resource_not_found(py: Python<'_>, uri: &str) -> PyErr {
    match resource_not_found_type(py).and_then(|class| class.call1((uri,))) {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// The URI of an `oxmcp.ResourceNotFoundError`.
fn resource_not_found_uri(py: Python<'_>, error: &PyErr) -> Option<String> {
    let value = error.value(py);
    if !value.is_instance(resource_not_found_type(py).ok()?).ok()? {
        return None;
    }
    value.getattr("uri").and_then(|uri| uri.extract()).ok()
}

fn error_object_of(py: Python<'_>, error: &PyErr) -> Option<ErrorObject> {
    let value = error.value(py);
    let class = mcp_error_type(py).ok()?;
    if !value.is_instance(class).ok()? {
        return None;
    }
    let code: i64 = value.getattr("code").and_then(|c| c.extract()).ok()?;
    let message: String = value.getattr("message").and_then(|m| m.extract()).ok()?;
    let data = value
        .getattr("data")
        .ok()
        .filter(|d| !d.is_none())
        .and_then(|d| convert::to_json(&d).ok());
    Some(ErrorObject { code, message, data })
}

/// `str(exception)`, or its class name when that is empty.
fn describe(value: &Bound<'_, PyBaseException>) -> String {
    match value.str() {
        Ok(text) if !text.to_string_lossy().is_empty() => text.to_string_lossy().into_owned(),
        _ => value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "error".into()),
    }
}
