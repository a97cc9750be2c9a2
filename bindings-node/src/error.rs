//! Errors as JavaScript sees them.
//!
//! A failed call rejects with an `Error` whose message is a JSON object
//! `{ kind, message, code?, data?, resourceNotFound? }`; the facade (`ts/errors.ts`) turns
//! it into an `McpError` (a `ResourceNotFoundError` when `resourceNotFound` names the URI). `kind` says what happened: `remote` (the peer answered with a JSON-RPC
//! error: `code`, `data`), `handler` (`ctx.elicit` and friends failed; `code` when the
//! failure is a JSON-RPC error the handler should pass on), `timeout`, `cancelled`,
//! `closed`, `invalid_response`, `protocol`, `unsupported`, `verification` (a skill's file
//! does not match its entry), `io` or `definition`.

use serde_json::{json, Value};

use oxmcp::protocol::{Era, ErrorObject};
use oxmcp::server::{DefinitionError, HandlerError};
use oxmcp::Error;

/// A client error as a rejected JavaScript call.
pub(crate) fn client_error(error: Error) -> napi::Error {
    let kind = match &error {
        Error::Remote(remote) => return rpc_rejection("remote", remote),
        Error::ConnectionClosed => "closed",
        Error::Timeout(_) => "timeout",
        Error::Cancelled => "cancelled",
        Error::InvalidResponse(_) => "invalid_response",
        Error::Protocol(_) => "protocol",
        Error::Unsupported(_) => "unsupported",
        Error::Verification(_) => "verification",
        Error::Io(_) => "io",
    };
    rejection(json!({ "kind": kind, "message": error.to_string() }))
}

/// A definition the core refused (bad schema, bad tool name, bad URI template).
pub(crate) fn definition_error(error: DefinitionError) -> napi::Error {
    rejection(json!({ "kind": "definition", "message": error.to_string() }))
}

/// A failure of `ctx.elicit` / `ctx.sample` / `ctx.listRoots` as a rejected call.
pub(crate) fn handler_error(error: HandlerError) -> napi::Error {
    match error {
        HandlerError::Message(message) => rejection(json!({ "kind": "handler", "message": message })),
        HandlerError::Rpc(error) => rpc_rejection("handler", &error),
        HandlerError::InputRequired(_) => {
            rejection(json!({ "kind": "handler", "message": "the client must answer first" }))
        }
        HandlerError::ResourceNotFound(uri) => {
            rpc_rejection("handler", &ErrorObject::resource_not_found(&uri, Era::Modern))
        }
    }
}

/// The JSON-RPC error a method answered with, as a rejected call.
pub(crate) fn remote_error(error: &ErrorObject) -> napi::Error {
    rpc_rejection("remote", error)
}

/// A value the binding cannot use as given (e.g. a definition that is not valid JSON of
/// its type).
pub(crate) fn invalid(message: impl std::fmt::Display) -> napi::Error {
    rejection(json!({ "kind": "definition", "message": message.to_string() }))
}

fn rpc_rejection(kind: &str, error: &ErrorObject) -> napi::Error {
    let mut details = json!({ "kind": kind, "message": error.message, "code": error.code, "data": error.data });
    if let Some(uri) = error.missing_resource() {
        details["resourceNotFound"] = uri.into();
    }
    rejection(details)
}

fn rejection(details: Value) -> napi::Error {
    napi::Error::from_reason(details.to_string())
}

/// The JSON-RPC and MCP error codes by name (`PARSE_ERROR`, …), from the core's table;
/// the facade exports them as `ErrorCode`.
#[napi_derive::napi]
pub fn error_codes() -> std::collections::HashMap<String, i64> {
    oxmcp::protocol::code::NAMED
        .iter()
        .map(|(name, code)| ((*name).to_owned(), *code))
        .collect()
}
