//! What handlers return when they fail, and the boxed future type handlers produce.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::protocol::ErrorObject;

/// A boxed, sendable future: what handler traits return, so that bindings can implement
/// them without naming their future types.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

    /// The JSON-RPC error for methods other than `tools/call`.
    pub(crate) fn into_error_object(self) -> ErrorObject {
        match self {
            HandlerError::Message(message) => ErrorObject::internal(message),
            HandlerError::Rpc(error) => error,
        }
    }
}

impl<E: fmt::Display> From<E> for HandlerError {
    fn from(error: E) -> Self {
        HandlerError::Message(error.to_string())
    }
}
