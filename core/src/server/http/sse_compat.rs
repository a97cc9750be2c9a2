//! The deprecated HTTP+SSE transport of 2024-11-05: a GET `/sse` stream whose first event
//! names where to POST, and `/messages?sessionId=…` for the client's messages.

use std::sync::{Arc, Weak};

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::auth::Target;
use super::endpoint::Endpoint;
use super::response::{rpc_error, sse_response, STREAM_CAPACITY};
use super::sessions::silent_transport;
use crate::connection::Connection;
use crate::lock;
use crate::protocol::jsonrpc::{self, Incoming};
use crate::protocol::ErrorObject;
use crate::server::limits::Admission;
use crate::server::random_id;
use crate::server::session::Session;
use crate::transport::TransportKind;

#[derive(Deserialize)]
pub(super) struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: String,
}

/// HTTP+SSE (2024-11-05): the stream whose first event names where to POST.
pub(super) async fn handle_sse_open(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> Response {
    let opener = match endpoint
        .admit(
            &headers,
            Target {
                method: "GET",
                path: "/sse",
            },
        )
        .await
    {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let slot = match endpoint.session_slot() {
        Ok(slot) => slot,
        Err(refused) => return refused.into_response(),
    };
    let id = match random_id() {
        Ok(id) => id,
        Err(e) => return rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, ErrorObject::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<String>(STREAM_CAPACITY);
    let sink =
        tokio_util::sync::PollSender::new(tx).sink_map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe));
    let (connection, _) = Connection::start(silent_transport(sink, TransportKind::Sse));
    let owner = opener.as_deref().map(|opener| opener.token().principal());
    let session = Session::owned(endpoint.server.clone(), connection, owner);
    let forwarder = session.forward_events();
    lock(&endpoint.sse_sessions).insert(id.clone(), session);
    let guard = SseSessionGuard {
        endpoint: Arc::downgrade(&endpoint),
        id: id.clone(),
        forwarder,
        _slot: slot,
    };
    let endpoint_event = Bytes::from(format!("event: endpoint\ndata: /messages?sessionId={id}\n\n"));
    let messages = tokio_stream::wrappers::ReceiverStream::new(rx).map(move |text| {
        let _ = &guard;
        Bytes::from(format!("event: message\ndata: {text}\n\n"))
    });
    // The session lives as long as its stream, which ends when the server shuts down.
    let events = futures::stream::once(async move { endpoint_event }).chain(messages);
    sse_response(events.take_until(endpoint.closing.clone().cancelled_owned()))
}

/// Ends an HTTP+SSE session when its stream closes.
struct SseSessionGuard {
    endpoint: Weak<Endpoint>,
    id: String,
    forwarder: tokio::task::JoinHandle<()>,
    /// The session's place among the endpoint's `max_sessions`.
    _slot: Admission,
}

impl Drop for SseSessionGuard {
    fn drop(&mut self) {
        self.forwarder.abort();
        if let Some(endpoint) = self.endpoint.upgrade() {
            if let Some(session) = lock(&endpoint.sse_sessions).remove(&self.id) {
                session.end();
            }
        }
    }
}

/// HTTP+SSE (2024-11-05): a message from the client; answers go on its stream.
pub(super) async fn handle_sse_message(
    State(endpoint): State<Arc<Endpoint>>,
    Query(query): Query<SessionQuery>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let caller = match endpoint
        .admit(
            &headers,
            Target {
                method: "POST",
                path: "/messages",
            },
        )
        .await
    {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let body = match endpoint.read_body(body).await {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let session = lock(&endpoint.sse_sessions)
        .get(&query.session_id)
        .filter(|session| session.serves(caller.as_deref()))
        .cloned();
    let Some(session) = session else {
        return rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown session"),
        );
    };
    match jsonrpc::parse(&body) {
        Ok(Incoming::Single(message)) => {
            if let Some(refused) = endpoint.scope_refusal(caller.as_deref(), &message) {
                return refused;
            }
            session.accept(message, caller);
            StatusCode::ACCEPTED.into_response()
        }
        Ok(Incoming::Batch(_)) => rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request("no batches"),
        ),
        Err(invalid) => rpc_error(StatusCode::BAD_REQUEST, invalid.id(), ErrorObject::from(&invalid)),
    }
}
