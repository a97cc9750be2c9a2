//! The one error type of the binding, [`McpError`] (`McpException` in Kotlin, `McpError` in
//! Swift), mapped from the core's errors, and back into the core's handler errors when a
//! Kotlin or Swift handler throws it.
//!
//! No variant has a field named `message`: Kotlin exceptions already have one.

use oxmcp::protocol::{Era, ErrorObject};
use oxmcp::server::{DefinitionError, HandlerError};

/// What can go wrong: the peer's JSON-RPC error, a closed connection, a timeout, a
/// cancellation, a broken answer, bad input from this side, or a failed handler.
#[derive(Debug, Clone, PartialEq, thiserror::Error, uniffi::Error)]
pub enum McpError {
    /// The peer answered with a JSON-RPC error (or, thrown by a handler: answer with it).
    #[error("the peer returned an error: {detail} ({code})")]
    Remote {
        /// The JSON-RPC error code, e.g. -32602.
        code: i64,
        /// The error's text.
        detail: String,
        /// The error's `data` as JSON text, when it had some.
        data_json: Option<String>,
    },
    /// The connection closed (or the server process exited) before the answer came.
    #[error("the connection is closed")]
    ConnectionClosed,
    /// No answer within the request's timeout; the request was cancelled.
    #[error("no answer within {after_ms} ms")]
    Timeout {
        /// The timeout that ran out, in milliseconds.
        after_ms: i64,
    },
    /// The request was cancelled (by a cancellation handle, or the server).
    #[error("the request was cancelled")]
    Cancelled,
    /// The peer's answer could not be read as the expected type.
    #[error("invalid answer from the peer: {detail}")]
    InvalidResponse {
        /// What was wrong.
        detail: String,
    },
    /// The peer broke the protocol, or the two sides share no protocol version.
    #[error("protocol error: {detail}")]
    Protocol {
        /// What was wrong.
        detail: String,
    },
    /// Something this side lacks (a capability, a handler, an era).
    #[error("not supported: {detail}")]
    Unsupported {
        /// What is missing.
        detail: String,
    },
    /// Starting or talking to a process or socket failed.
    #[error("I/O error: {detail}")]
    Io {
        /// The operating system's description.
        detail: String,
    },
    /// A value given to the binding is unusable (e.g. JSON text that does not parse, or a
    /// schema that is not an object).
    #[error("invalid input: {detail}")]
    InvalidInput {
        /// What was wrong.
        detail: String,
    },
    /// A handler failed. Thrown by a tool handler, it becomes a tool execution error
    /// (`isError: true`) whose text is `detail`; elsewhere a JSON-RPC internal error.
    #[error("{detail}")]
    Handler {
        /// What went wrong, for the model or user.
        detail: String,
    },
}

impl McpError {
    pub(crate) fn invalid_input(detail: impl std::fmt::Display) -> Self {
        McpError::InvalidInput {
            detail: detail.to_string(),
        }
    }
}

impl From<oxmcp::Error> for McpError {
    fn from(error: oxmcp::Error) -> Self {
        match error {
            oxmcp::Error::Remote(e) => e.into(),
            oxmcp::Error::ConnectionClosed => McpError::ConnectionClosed,
            oxmcp::Error::Timeout(after) => McpError::Timeout {
                after_ms: i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
            },
            oxmcp::Error::Cancelled => McpError::Cancelled,
            oxmcp::Error::InvalidResponse(detail) => McpError::InvalidResponse { detail },
            oxmcp::Error::Protocol(detail) => McpError::Protocol { detail },
            oxmcp::Error::Unsupported(detail) => McpError::Unsupported { detail },
            verification @ oxmcp::Error::Verification(_) => McpError::InvalidResponse {
                detail: verification.to_string(),
            },
            oxmcp::Error::Io(e) => McpError::Io { detail: e.to_string() },
        }
    }
}

impl From<ErrorObject> for McpError {
    fn from(error: ErrorObject) -> Self {
        McpError::Remote {
            code: error.code,
            detail: error.message,
            data_json: error.data.map(|d| d.to_string()),
        }
    }
}

impl From<DefinitionError> for McpError {
    fn from(error: DefinitionError) -> Self {
        McpError::invalid_input(error)
    }
}

impl From<std::io::Error> for McpError {
    fn from(error: std::io::Error) -> Self {
        McpError::Io {
            detail: error.to_string(),
        }
    }
}

impl McpError {
    /// What a handler's failure becomes in the core: `Remote` answers with exactly that
    /// JSON-RPC error; everything else is a failure described by its text. (Not a `From`:
    /// the core converts every `Display` error into a message already.)
    pub(crate) fn into_handler_error(self) -> HandlerError {
        match self {
            McpError::Remote {
                code,
                detail,
                data_json,
            } => {
                let mut object = ErrorObject::new(code, detail);
                object.data = data_json.and_then(|d| serde_json::from_str(&d).ok());
                HandlerError::rpc(object)
            }
            McpError::Handler { detail } => HandlerError::message(detail),
            other => HandlerError::message(other.to_string()),
        }
    }
}

/// A handler's failure as the JSON-RPC error the client-side core sends back to the
/// server (sampling, elicitation, roots).
impl From<McpError> for ErrorObject {
    fn from(error: McpError) -> Self {
        match error.into_handler_error() {
            HandlerError::Rpc(object) => object,
            HandlerError::Message(detail) => ErrorObject::internal(detail),
            HandlerError::InputRequired(_) => ErrorObject::internal("unexpected input request"),
            HandlerError::ResourceNotFound(uri) => ErrorObject::resource_not_found(&uri, Era::Modern),
        }
    }
}

/// The core's handler errors, as Kotlin or Swift sees them when a context call fails
/// (for example `ctx.elicit` when the client cannot elicit).
impl From<HandlerError> for McpError {
    fn from(error: HandlerError) -> Self {
        match error {
            HandlerError::Message(detail) => McpError::Handler { detail },
            HandlerError::Rpc(object) => object.into(),
            HandlerError::InputRequired(_) => McpError::Protocol {
                detail: "the handler asked for input outside a multi round-trip request".into(),
            },
            HandlerError::ResourceNotFound(uri) => ErrorObject::resource_not_found(&uri, Era::Modern).into(),
        }
    }
}

/// A Kotlin or Swift handler threw something other than [`McpError`].
/// Any other exception a handler threw: its message, as Python and JavaScript handlers'
/// failures give theirs (Kotlin reports `java.lang.IllegalStateException: boom`; the
/// class is kept only when there is no message).
impl From<uniffi::UnexpectedUniFFICallbackError> for McpError {
    fn from(error: uniffi::UnexpectedUniFFICallbackError) -> Self {
        let detail = match error.reason.split_once(": ") {
            Some((class, message)) if is_class_name(class) => message.to_owned(),
            _ => error.reason,
        };
        McpError::Handler { detail }
    }
}

/// Whether `text` is a qualified class name such as `java.lang.IllegalStateException`.
fn is_class_name(text: &str) -> bool {
    text.contains('.')
        && text
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceptions_are_reported_by_their_message() {
        let detail = |reason: &str| match McpError::from(uniffi::UnexpectedUniFFICallbackError {
            reason: reason.to_owned(),
        }) {
            McpError::Handler { detail } => detail,
            other => panic!("not a handler error: {other:?}"),
        };
        assert_eq!(detail("java.lang.IllegalStateException: boom"), "boom");
        assert_eq!(detail("kotlin.NotImplementedError"), "kotlin.NotImplementedError");
        assert_eq!(detail("no class: here"), "no class: here");
    }

    #[test]
    fn errors_keep_the_remote_code_both_ways() {
        let remote = McpError::from(oxmcp::Error::Remote(ErrorObject::invalid_params("bad")));
        assert!(matches!(remote, McpError::Remote { code: -32602, .. }));
        let back = ErrorObject::from(remote);
        assert_eq!(back.code, -32602);
        let handler = McpError::Handler { detail: "nope".into() }.into_handler_error();
        assert_eq!(handler, HandlerError::message("nope"));
    }
}

/// The JSON-RPC and MCP error codes by name (`INVALID_PARAMS`, …), from the core's table.
#[uniffi::export]
pub fn error_codes() -> std::collections::HashMap<String, i64> {
    oxmcp::protocol::code::NAMED
        .iter()
        .map(|(name, code)| ((*name).to_owned(), *code))
        .collect()
}
