//! Where the messages about one request go: its response, and the notifications and
//! requests the server sends while serving it.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::connection::Connection;

/// One message about a request, as the HTTP transport needs to tell them apart.
// Only HTTP hosting answers on a request's own stream.
#[derive(Debug)]
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
pub(crate) enum Outgoing {
    /// A notification or a request to the client; more follows.
    Message(String),
    /// The response; nothing follows.
    Final(String),
    /// The server ends the HTTP stream the messages go on while the request goes on; its
    /// client resumes with `Last-Event-ID` (SEP-1699). Only a resumable stream ends.
    EndStream,
}

/// The route of one request's messages.
#[derive(Clone)]
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
pub(crate) enum Reply {
    /// The connection carries everything (stdio, in-memory).
    Connection(Arc<Connection>),
    /// The request's own stream (one HTTP response).
    Stream(mpsc::Sender<Outgoing>),
}

impl Reply {
    /// A route that takes messages and delivers none (what a 2026-07-28 task or a
    /// notification with no session says goes nowhere: no stream is open for it).
    pub(crate) fn nowhere() -> Self {
        Reply::Stream(mpsc::channel(1).0)
    }

    /// Sends a notification or request about the request. Returns false when nobody
    /// listens any more.
    pub(crate) async fn send(&self, text: String) -> bool {
        match self {
            Reply::Connection(connection) => connection.send(text).await.is_ok(),
            Reply::Stream(stream) => stream.send(Outgoing::Message(text)).await.is_ok(),
        }
    }

    /// Ends the HTTP stream the request's messages go on, if it is resumable; the request
    /// goes on, its messages kept for the client to resume.
    pub(crate) async fn end_stream(&self) {
        if let Reply::Stream(stream) = self {
            let _ = stream.send(Outgoing::EndStream).await;
        }
    }

    /// Sends the response.
    pub(crate) async fn finish(&self, text: String) {
        match self {
            Reply::Connection(connection) => {
                let _ = connection.send(text).await;
            }
            Reply::Stream(stream) => {
                let _ = stream.send(Outgoing::Final(text)).await;
            }
        }
    }
}
