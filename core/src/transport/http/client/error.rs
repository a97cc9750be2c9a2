//! The errors of the transport: the JSON-RPC errors that stand for HTTP failures (so that
//! a request that fails on the transport gets an error response instead of hanging), and
//! the I/O error of a transport that is closed.

use std::io;

use reqwest::StatusCode;

use crate::protocol::{code, ErrorObject};

/// What sending on a closed transport gives.
pub(super) fn closed_error() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the HTTP transport is closed")
}

/// The error for an HTTP failure whose body is no JSON-RPC error.
pub(super) fn http_error(status: StatusCode, body: &[u8]) -> ErrorObject {
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

/// The error for a request whose legacy session the server ended (HTTP 404).
pub(super) fn session_expired() -> ErrorObject {
    ErrorObject::new(
        code::INTERNAL_ERROR,
        "HTTP 404: the server ended the session; initialize again to start a new one",
    )
}
