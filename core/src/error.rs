//! The error type of the client API and of connections.

use std::time::Duration;

use crate::protocol::ErrorObject;

/// What can go wrong with a request this side sent, or with the connection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The peer answered with a JSON-RPC error.
    #[error("the peer returned an error: {0}")]
    Remote(ErrorObject),
    /// The connection closed (or the peer process exited) before the answer came.
    #[error("the connection is closed")]
    ConnectionClosed,
    /// No answer within the request's timeout; the request was cancelled.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The caller cancelled the request.
    #[error("the request was cancelled")]
    Cancelled,
    /// The peer's answer could not be read as the expected type.
    #[error("invalid answer from the peer: {0}")]
    InvalidResponse(String),
    /// The peer broke the protocol, or the two sides share no protocol version.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The client lacks what the server asked of it (e.g. a capability), or the server
    /// lacks what the client asked of it (e.g. an extension).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// What the server sent does not match what it said it would send (a skill's file and
    /// its listed size, digest or front matter); it must not be used.
    #[error("verification failed: {0}")]
    Verification(String),
    /// Starting or talking to a process or socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The JSON-RPC error the peer returned, if that is what this is.
    pub fn as_remote(&self) -> Option<&ErrorObject> {
        match self {
            Error::Remote(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the server said the resource does not exist, in either era's words
    /// ([`ErrorObject::is_resource_not_found`]).
    pub fn is_resource_not_found(&self) -> bool {
        self.as_remote().is_some_and(ErrorObject::is_resource_not_found)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
