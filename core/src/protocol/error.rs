//! JSON-RPC error objects and the error codes MCP assigns.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::capabilities::ClientCapabilities;
use super::elicitation::ElicitRequestUrlParams;
use super::version::Era;

/// The error codes of JSON-RPC and MCP.
pub mod code {
    /// The text is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method (or not in this era or state).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params are wrong.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Resource not found, 2025-11-25 and earlier (-32602 from 2026-07-28 on).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// A URL-mode elicitation must complete first (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// An HTTP header disagrees with the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The connection closed before the answer came (local to an SDK, never sent; the
    /// official SDKs use the same code).
    pub const CONNECTION_CLOSED: i64 = -32000;
    /// No answer came in time (local to an SDK, as [`CONNECTION_CLOSED`]).
    pub const REQUEST_TIMEOUT: i64 = -32001;

    /// Every code by its name, for the bindings to export under their own conventions.
    pub const NAMED: [(&str, i64); 12] = [
        ("PARSE_ERROR", PARSE_ERROR),
        ("INVALID_REQUEST", INVALID_REQUEST),
        ("METHOD_NOT_FOUND", METHOD_NOT_FOUND),
        ("INVALID_PARAMS", INVALID_PARAMS),
        ("INTERNAL_ERROR", INTERNAL_ERROR),
        ("RESOURCE_NOT_FOUND", RESOURCE_NOT_FOUND),
        ("URL_ELICITATION_REQUIRED", URL_ELICITATION_REQUIRED),
        ("HEADER_MISMATCH", HEADER_MISMATCH),
        ("MISSING_REQUIRED_CLIENT_CAPABILITY", MISSING_REQUIRED_CLIENT_CAPABILITY),
        ("UNSUPPORTED_PROTOCOL_VERSION", UNSUPPORTED_PROTOCOL_VERSION),
        ("CONNECTION_CLOSED", CONNECTION_CLOSED),
        ("REQUEST_TIMEOUT", REQUEST_TIMEOUT),
    ];
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct ErrorObject {
    /// The error code; see [`code`].
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Anything that helps the receiver act on the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the text is not JSON.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(code::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// -32600: not a valid JSON-RPC request.
    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// -32601: the method is not known (here, or in this era).
    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// -32602: the params are wrong; the message says how.
    pub fn invalid_params(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    /// -32603: the server failed.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INTERNAL_ERROR, format!("Internal error: {detail}"))
    }

    /// -32603: the server serves `limit` requests at once already; the client may retry.
    pub fn server_busy(limit: usize) -> Self {
        Self::new(
            code::INTERNAL_ERROR,
            format!("Server busy: too many requests in flight (at most {limit}); try again later"),
        )
    }

    /// -32022: the requested version is not one of `supported`.
    pub fn unsupported_protocol_version(requested: &str, supported: &[&str]) -> Self {
        Self::new(code::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(json!({ "supported": supported, "requested": requested }))
    }

    /// -32021: the request needs capabilities the client did not declare.
    pub fn missing_required_client_capability(required: &ClientCapabilities) -> Self {
        Self::new(
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({ "requiredCapabilities": required }))
    }

    /// -32020: an HTTP header disagrees with the body, or a required one is absent.
    pub fn header_mismatch(detail: impl std::fmt::Display) -> Self {
        Self::new(code::HEADER_MISMATCH, format!("Header mismatch: {detail}"))
    }

    /// Resource not found, as `era` says it: -32002 before 2026-07-28, -32602 from then on
    /// (SEP-2164), the URI in `data.uri` either way.
    pub fn resource_not_found(uri: &str, era: Era) -> Self {
        let code = match era {
            Era::Legacy => code::RESOURCE_NOT_FOUND,
            Era::Modern => code::INVALID_PARAMS,
        };
        Self::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
    }

    /// Whether this says a resource was not found, in either era's words: -32002, or
    /// -32602 naming the URI in `data.uri` (as SEP-2164 asks clients to accept both).
    pub fn is_resource_not_found(&self) -> bool {
        self.missing_resource().is_some()
    }

    /// The URI of the resource this says was not found (empty when a -32002 names none);
    /// `None` for any other error.
    pub fn missing_resource(&self) -> Option<&str> {
        let uri = self.data.as_ref().and_then(|data| data["uri"].as_str());
        match self.code {
            code::RESOURCE_NOT_FOUND => Some(uri.unwrap_or_default()),
            code::INVALID_PARAMS => uri,
            _ => None,
        }
    }

    /// -32042: the request can proceed once the user completes these URL-mode
    /// elicitations (2025-11-25; in 2026-07-28 a handler asks for them as input instead).
    pub fn url_elicitation_required(elicitations: &[ElicitRequestUrlParams]) -> Self {
        let message = match elicitations.len() {
            1 => "URL elicitation required",
            _ => "URL elicitations required",
        };
        Self::new(code::URL_ELICITATION_REQUIRED, message).with_data(json!({ "elicitations": elicitations }))
    }

    /// The URL-mode elicitations a -32042 error asks the user to complete; `None` for any
    /// other error.
    pub fn url_elicitations(&self) -> Option<Vec<ElicitRequestUrlParams>> {
        if self.code != code::URL_ELICITATION_REQUIRED {
            return None;
        }
        serde_json::from_value(self.data.as_ref()?.get("elicitations")?.clone()).ok()
    }
}
