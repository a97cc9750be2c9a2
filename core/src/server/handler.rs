//! What handlers return when they fail.

use std::fmt;

use crate::protocol::{ElicitRequestUrlParams, Era, ErrorObject, InputRequest, InputRequests, InputRequiredResult};

/// A handler's failure.
///
/// Any `Display` error converts into one with `?`. For tools it becomes a tool execution
/// error (`isError: true`) the model can read; elsewhere a JSON-RPC internal error. Use
/// [`HandlerError::rpc`] to answer with a specific JSON-RPC error instead.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerError {
    /// A failure described for the model or user.
    Message(String),
    /// A specific JSON-RPC error, sent as is.
    Rpc(ErrorObject),
    /// The explicit multi round-trip style: answer `input_required` with these requests
    /// and the handler's own state (2026-07-28; see [`HandlerError::input_required`]).
    InputRequired(Box<InputRequiredResult>),
    /// The resource at this URI does not exist: the request's era's error for it
    /// (see [`HandlerError::resource_not_found`]).
    ResourceNotFound(String),
}

impl HandlerError {
    /// A failure with this message.
    pub fn message(message: impl Into<String>) -> Self {
        HandlerError::Message(message.into())
    }

    /// Answer with exactly this JSON-RPC error.
    pub fn rpc(error: ErrorObject) -> Self {
        HandlerError::Rpc(error)
    }

    /// The resource at `uri` does not exist: -32002 to a client of 2025-11-25 or earlier,
    /// -32602 to one of 2026-07-28 (SEP-2164), with the URI in `data.uri` either way. A
    /// resource template's handler returns it for an instance that is not there.
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        HandlerError::ResourceNotFound(uri.into())
    }

    /// The request can proceed once the user completes these URL-mode elicitations
    /// (-32042, 2025-11-25): the client opens each URL, and the server sends
    /// `notifications/elicitation/complete` ([`Context::notify_elicitation_complete`](super::Context::notify_elicitation_complete))
    /// when one is done. A 2026-07-28 handler asks with `ctx.elicit(...)` instead.
    pub fn url_elicitation_required(elicitations: &[ElicitRequestUrlParams]) -> Self {
        HandlerError::Rpc(ErrorObject::url_elicitation_required(elicitations))
    }

    /// Ends the run with an `input_required` result carrying `requests` and `state`; the
    /// retry brings the answers ([`Context::input_responses`](super::Context::input_responses))
    /// and the state ([`Context::request_state`](super::Context::request_state)), which the
    /// server seals so the client cannot alter it. Most handlers call `ctx.elicit(...)`
    /// and friends instead, which do this for them.
    pub fn input_required(requests: impl IntoIterator<Item = (String, InputRequest)>, state: Option<String>) -> Self {
        let requests: InputRequests = requests.into_iter().collect();
        HandlerError::InputRequired(Box::new(InputRequiredResult {
            input_requests: (!requests.is_empty()).then_some(requests),
            request_state: state,
            result_type: None,
            meta: None,
        }))
    }

    /// The JSON-RPC error, as a client of `era` is told it, where a result cannot carry
    /// the failure.
    pub(crate) fn into_error_object(self, era: Era) -> ErrorObject {
        match self {
            HandlerError::Message(message) => ErrorObject::internal(message),
            HandlerError::Rpc(error) => error,
            HandlerError::ResourceNotFound(uri) => ErrorObject::resource_not_found(&uri, era),
            HandlerError::InputRequired(_) => ErrorObject::internal(
                "the handler asked for input where only 2026-07-28 tool calls, prompts and resource reads can",
            ),
        }
    }
}

impl<E: fmt::Display> From<E> for HandlerError {
    fn from(error: E) -> Self {
        HandlerError::Message(error.to_string())
    }
}
