//! Values across the boundary: Python's JSON-shaped objects (dict, list, str, int, float,
//! bool, None) to `serde_json::Value` and back, and from there to the core's wire types.
//!
//! What handlers return is read as the core's [`Returned`] (`returned`), which decides what
//! the client sees, the same in every language: this module only says which Python values
//! are which.

use std::time::Duration;

use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Number, Value};

use oxmcp::server::{HandlerError, Returned};

/// A handler's return value as the core sees it:
///
/// | Python | is |
/// |---|---|
/// | `None`, `str`, `bytes` / `bytearray` | nothing, text, bytes |
/// | `list`, `tuple` | a list (each item read the same way) |
/// | `oxmcp.types` content, `Image`, `Audio` | a content block |
/// | `TextResourceContents`, `BlobResourceContents`, `PromptMessage` | contents, a message |
/// | `CallToolResult`, `ReadResourceResult`, `GetPromptResult` | a complete result |
/// | anything else (numbers, dicts, models, dataclasses) | data, as pydantic serialises it |
///
/// The facade's classes say which they are in a class attribute, `__mcp_kind__`, and give
/// their wire form from `to_wire()`. A value that contains itself, or is nested deeper
/// than [`MAX_DEPTH`], is refused with `RecursionError`.
pub fn returned(object: &Bound<'_, PyAny>) -> PyResult<Returned> {
    returned_in(&mut Path::default(), object)
}

/// A handler's result read as the core's [`Returned`] ([`returned`]); what cannot be sent
/// is the handler's failure.
pub fn answer(result: &Bound<'_, PyAny>) -> Result<Returned, HandlerError> {
    returned(result).map_err(|e| {
        HandlerError::message(format!(
            "the handler returned what cannot be sent: {}",
            e.value(result.py())
        ))
    })
}

fn returned_in(path: &mut Path, object: &Bound<'_, PyAny>) -> PyResult<Returned> {
    let py = object.py();
    if object.is_none() {
        return Ok(Returned::Nothing);
    }
    if let Ok(text) = object.cast::<PyString>() {
        return Ok(Returned::Text(text.to_str()?.to_owned()));
    }
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return Ok(Returned::Bytes(bytes.as_bytes().to_vec()));
    }
    if let Ok(bytes) = object.cast::<PyByteArray>() {
        return Ok(Returned::Bytes(bytes.to_vec()));
    }
    if object.is_instance_of::<PyList>() || object.is_instance_of::<PyTuple>() {
        return path.within(object, |path| {
            object
                .try_iter()?
                .map(|item| returned_in(path, &item?))
                .collect::<PyResult<_>>()
                .map(Returned::List)
        });
    }
    if let Some(kind) = object.get_type().getattr_opt(intern!(py, "__mcp_kind__"))? {
        let wire = to_json_in(path, &object.call_method0(intern!(py, "to_wire"))?)?;
        let kind = kind.extract::<String>()?;
        return match kind.as_str() {
            "content" => decode(wire, "content block").map(Returned::Content),
            "contents" => decode(wire, "resource contents").map(Returned::Contents),
            "message" => decode(wire, "prompt message").map(Returned::Message),
            "result" => Ok(Returned::Result(wire)),
            other => Err(PyValueError::new_err(format!("unknown __mcp_kind__ {other:?}"))),
        };
    }
    let plain =
        object.is_instance_of::<PyDict>() || object.is_instance_of::<PyInt>() || object.is_instance_of::<PyFloat>();
    match plain.then(|| to_json_in(path, object)) {
        Some(Ok(value)) => Ok(Returned::Data(value)),
        // Cyclic or too deep: pydantic would not do better.
        Some(Err(e)) if e.is_instance_of::<PyRecursionError>(py) => Err(e),
        // Models, dataclasses, dates, and dicts that hold them.
        _ => to_json_in(path, &jsonable(object)?).map(Returned::Data),
    }
}

/// The deepest nesting of lists and dicts read as JSON: serde_json's own limit when it
/// parses, so that what is sent can be read back, and no recursion here can overflow the
/// stack.
pub const MAX_DEPTH: usize = 128;

/// The lists and dicts being read, outermost first: bounds the nesting and finds cycles.
#[derive(Default)]
struct Path(Vec<*mut pyo3::ffi::PyObject>);

impl Path {
    /// `read(self)` with `container` entered; `RecursionError` when `container` is one of
    /// its own ancestors (the value contains itself) or lies deeper than [`MAX_DEPTH`].
    fn within<T>(&mut self, container: &Bound<'_, PyAny>, read: impl FnOnce(&mut Self) -> PyResult<T>) -> PyResult<T> {
        let id = container.as_ptr();
        if self.0.contains(&id) {
            return Err(PyRecursionError::new_err("a value that contains itself"));
        }
        if self.0.len() == MAX_DEPTH {
            return Err(PyRecursionError::new_err(format!(
                "a value nested more than {MAX_DEPTH} levels deep"
            )));
        }
        self.0.push(id);
        let value = read(self);
        self.0.pop();
        value
    }
}

/// Plain JSON data of any value pydantic can serialise, as the official Python SDK makes
/// it (by alias; what pydantic cannot serialise becomes its `str`).
fn jsonable<'py>(object: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static TO_JSONABLE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = object.py();
    let to_jsonable = TO_JSONABLE.import(py, "pydantic_core", "to_jsonable_python")?;
    let options = PyDict::new(py);
    options.set_item("by_alias", true)?;
    options.set_item("fallback", py.get_type::<PyString>())?;
    to_jsonable.call((object,), Some(&options))
}

fn decode<T: DeserializeOwned>(value: Value, what: &str) -> PyResult<T> {
    serde_json::from_value(value).map_err(|e| PyValueError::new_err(format!("invalid {what}: {e}")))
}

/// Reads a JSON-shaped Python object (`RecursionError` when it contains itself or is
/// nested deeper than [`MAX_DEPTH`]).
pub fn to_json(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_json_in(&mut Path::default(), object)
}

fn to_json_in(path: &mut Path, object: &Bound<'_, PyAny>) -> PyResult<Value> {
    if object.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(text) = object.cast::<PyString>() {
        return Ok(Value::String(text.to_str()?.to_owned()));
    }
    // `bool` is a subclass of `int`: test it first.
    if let Ok(flag) = object.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if object.is_instance_of::<PyInt>() {
        if let Ok(int) = object.extract::<i64>() {
            return Ok(Value::from(int));
        }
        if let Ok(int) = object.extract::<u64>() {
            return Ok(Value::from(int));
        }
        return Err(PyValueError::new_err(
            "integer out of the 64-bit range JSON carries here",
        ));
    }
    if let Ok(float) = object.cast::<PyFloat>() {
        let value = float.value();
        return Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{value} is not a JSON number")));
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        return path.within(object, |path| {
            let mut map = Map::with_capacity(dict.len());
            for (key, value) in dict.iter() {
                let key = key
                    .cast::<PyString>()
                    .map_err(|_| PyTypeError::new_err("JSON object keys must be str"))?;
                map.insert(key.to_str()?.to_owned(), to_json_in(path, &value)?);
            }
            Ok(Value::Object(map))
        });
    }
    if let Ok(list) = object.cast::<PyList>() {
        return path.within(object, |path| {
            list.iter()
                .map(|item| to_json_in(path, &item))
                .collect::<PyResult<_>>()
                .map(Value::Array)
        });
    }
    if let Ok(tuple) = object.cast::<PyTuple>() {
        return path.within(object, |path| {
            tuple
                .iter()
                .map(|item| to_json_in(path, &item))
                .collect::<PyResult<_>>()
                .map(Value::Array)
        });
    }
    let type_name = object.get_type().name()?;
    Err(PyTypeError::new_err(format!("cannot send a {type_name} as JSON")))
}

/// Builds the Python object of a JSON value.
pub fn from_json<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(int), _) => int.into_pyobject(py)?.into_any(),
            (None, Some(int)) => int.into_pyobject(py)?.into_any(),
            _ => number.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(from_json(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, from_json(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Reads a wire type from a JSON-shaped Python object; `what` names it in the error.
pub fn extract<T: DeserializeOwned>(object: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    serde_json::from_value(to_json(object)?).map_err(|e| PyValueError::new_err(format!("invalid {what}: {e}")))
}

/// Builds the Python object of a wire type.
pub fn to_python<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    from_json(py, &value)
}

/// A duration given in seconds (a timeout); `what` names it in the error.
pub fn seconds(value: f64, what: &str) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{what} must be a finite, non-negative number of seconds, not {value}"
        ))
    })
}
