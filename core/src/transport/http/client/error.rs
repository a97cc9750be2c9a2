//! The errors of the transport: the JSON-RPC errors that stand for HTTP failures (so that
//! a request that fails on the transport gets an error response instead of hanging), and
//! the I/O error of a transport that is closed.

use std::io;

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::message::error_of;
use crate::protocol::{code, ErrorObject};
use crate::transport::SESSION_EXPIRED_KEY;

/// What sending on a closed transport gives.
pub(super) fn closed_error() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the HTTP transport is closed")
}

/// The key of the HTTP status in the `data` of an error that came with a failed HTTP
/// answer: callers tell an authorization failure (401, 403) from others by it.
pub const HTTP_STATUS_KEY: &str = "httpStatus";

/// The error for an HTTP answer with a failure `status`: the JSON-RPC error its body
/// holds, else one made of the status and body; either way with the status in its `data`
/// (under [`HTTP_STATUS_KEY`]) unless the server's `data` is not an object.
pub(super) fn failed_answer(status: StatusCode, body: &[u8]) -> ErrorObject {
    let mut error = error_of(body).unwrap_or_else(|| http_error(status, body));
    match &mut error.data {
        Some(Value::Object(data)) => {
            data.entry(HTTP_STATUS_KEY).or_insert(status.as_u16().into());
        }
        None => error.data = Some(json!({ HTTP_STATUS_KEY: status.as_u16() })),
        Some(_) => {}
    }
    error
}

/// The error for an HTTP failure whose body is no JSON-RPC error.
fn http_error(status: StatusCode, body: &[u8]) -> ErrorObject {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let text = text.trim();
    let message = if text.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {text}")
    };
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

/// The error for a request that got no HTTP answer (connection refused, timed out, ...).
pub(super) fn transport_error(error: &reqwest::Error) -> ErrorObject {
    // reqwest's Display hides the cause (e.g. "connection refused"); keep the chain.
    let mut message = format!("HTTP request failed: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

/// The error for a request whose legacy session the server ended (HTTP 404), marked with
/// [`SESSION_EXPIRED_KEY`].
pub(super) fn session_expired() -> ErrorObject {
    ErrorObject::new(
        code::INTERNAL_ERROR,
        "HTTP 404: the server ended the session; initialize again to start a new one",
    )
    .with_data(json!({ HTTP_STATUS_KEY: 404, SESSION_EXPIRED_KEY: true }))
}
