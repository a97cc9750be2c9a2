//! How the endpoint answers: JSON bodies, SSE streams, and refusals as JSON-RPC errors.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use http::header::AsHeaderName;
use http::{HeaderMap, HeaderValue, StatusCode};
use tokio::sync::mpsc;
use tokio_util::sync::DropGuard;

use crate::protocol::jsonrpc;
use crate::protocol::ErrorObject;
use crate::server::reply::Outgoing;

/// How many messages of one request may wait for a slow HTTP client.
pub(super) const STREAM_CAPACITY: usize = 256;

/// Answers from a request's messages: one JSON object when the answer comes first (or
/// `json_only`), else an SSE stream of everything. `cancel_on_drop` cancels the request
/// if the client goes away before the answer.
pub(super) async fn respond(
    mut rx: mpsc::Receiver<Outgoing>,
    json_only: bool,
    cancel_on_drop: Option<DropGuard>,
    keep_alive: Duration,
    status_of: fn(&str) -> StatusCode,
) -> Response {
    loop {
        match rx.recv().await {
            None => {
                let error = ErrorObject::internal("the request ended without an answer");
                return rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, error);
            }
            Some(Outgoing::Final(text)) => {
                if let Some(guard) = cancel_on_drop {
                    guard.disarm();
                }
                return json_body(status_of(&text), text);
            }
            // Only a logged stream can be resumed: this one stays open.
            Some(Outgoing::EndStream) => continue,
            Some(Outgoing::Message(_)) if json_only => continue,
            Some(Outgoing::Message(first)) => return sse_response(live_events(first, rx, cancel_on_drop, keep_alive)),
        }
    }
}

/// The SSE events of one request, ending with its answer; comments keep quiet streams
/// (subscriptions) alive.
fn live_events(
    first: String,
    rx: mpsc::Receiver<Outgoing>,
    cancel_on_drop: Option<DropGuard>,
    keep_alive: Duration,
) -> impl Stream<Item = Bytes> + Send {
    let first = futures::stream::once(async move { data_event(&first) });
    let rest = futures::stream::unfold((rx, cancel_on_drop, false), move |(mut rx, guard, done)| async move {
        if done {
            return None;
        }
        loop {
            let next = tokio::select! {
                next = rx.recv() => next,
                _ = tokio::time::sleep(keep_alive) => return Some((Bytes::from_static(b":\n\n"), (rx, guard, false))),
            };
            return match next? {
                Outgoing::Message(text) => Some((data_event(&text), (rx, guard, false))),
                Outgoing::Final(text) => {
                    if let Some(guard) = guard {
                        guard.disarm();
                    }
                    Some((data_event(&text), (rx, None, true)))
                }
                // Nothing could resume this stream: it stays open.
                Outgoing::EndStream => continue,
            };
        }
    });
    first.chain(rest)
}

pub(super) fn data_event(text: &str) -> Bytes {
    Bytes::from(format!("data: {text}\n\n"))
}

pub(super) fn sse_response(events: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    let body = Body::from_stream(events.map(Ok::<_, Infallible>));
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(http::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

pub(super) fn json_body(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A request refused before it reached the server: an HTTP status and the JSON-RPC error
/// for the body.
pub(super) struct Rejection {
    status: StatusCode,
    error: ErrorObject,
}

impl Rejection {
    pub(super) fn new(status: StatusCode, error: ErrorObject) -> Self {
        Rejection { status, error }
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        rpc_error(self.status, None, self.error)
    }
}

/// A JSON-RPC error as an HTTP response.
pub(super) fn rpc_error(status: StatusCode, id: Option<&crate::protocol::RequestId>, error: ErrorObject) -> Response {
    json_body(status, jsonrpc::error_text(id, &error))
}

/// A header's value, when it is visible ASCII.
pub(super) fn header_str(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub(super) fn is_json(headers: &HeaderMap) -> bool {
    header_str(headers, http::header::CONTENT_TYPE).is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}
