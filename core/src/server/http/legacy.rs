//! Legacy-era POSTs (2025-03-26 to 2025-11-25): with sessions, answered as JSON or as a
//! resumable SSE stream logged for `Last-Event-ID`; or, in stateless mode, each on its own.
//! A client that goes away before its answer has begun cancels its request.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use http::{HeaderMap, HeaderValue, StatusCode};
use tokio::sync::mpsc;

use super::auth::Admitted;
use super::endpoint::Endpoint;
use super::header_names;
use super::response::{header_str, json_body, respond, rpc_error, sse_response, STREAM_CAPACITY};
use super::streams::{Attached, Event, StreamHub};
use super::HttpRequest;
use crate::protocol::jsonrpc::{InvalidMessage, Message};
use crate::protocol::{methods, Era, ErrorObject, ProtocolVersion};
use crate::server::dispatch::Sender;
use crate::server::reply::{Outgoing, Reply};

/// The legacy version a POST speaks: its `MCP-Protocol-Version`, 2025-03-26 without one
/// (as the spec says to assume); the error of a 400 for a version that is not a legacy one.
fn legacy_version(headers: &HeaderMap) -> Result<ProtocolVersion, ErrorObject> {
    match header_str(headers, header_names::PROTOCOL_VERSION) {
        None => Ok(ProtocolVersion::V2025_03_26),
        Some(text) => ProtocolVersion::parse(text)
            .filter(|v| v.era() == Era::Legacy)
            .ok_or_else(|| ErrorObject::invalid_request(format!("unsupported MCP-Protocol-Version {text:?}"))),
    }
}

pub(super) async fn post_legacy(
    endpoint: &Arc<Endpoint>,
    posted: &Arc<HttpRequest>,
    message: Message,
    caller: Admitted,
) -> Response {
    let headers = posted.headers();
    let version = match legacy_version(headers) {
        Ok(version) => version,
        Err(error) => return rpc_error(StatusCode::BAD_REQUEST, None, error),
    };
    let initialize = matches!(&message, Message::Request(r) if r.method == methods::INITIALIZE);
    if endpoint.config.stateless {
        return post_stateless(endpoint, message, version, Sender::http(caller, Arc::clone(posted))).await;
    }
    let (session, new_id) = if initialize {
        match endpoint.new_session(caller.as_deref()) {
            Ok((id, session)) => (session, Some(id)),
            Err(refused) => return refused.into_response(),
        }
    } else {
        match endpoint.find_session(headers, caller.as_deref()).await {
            Ok(session) => (session, None),
            Err(refused) => return refused.into_response(),
        }
    };
    let dispatcher = session.session.dispatcher();
    let request = match dispatcher.receive_here(message) {
        Ok(Some(request)) => request,
        Ok(None) => return StatusCode::ACCEPTED.into_response(),
        Err(unplaced) => {
            endpoint.relay_from_client(&session, &unplaced);
            return StatusCode::ACCEPTED.into_response();
        }
    };
    let (tx, mut rx) = mpsc::channel(STREAM_CAPACITY);
    // Until the answer starts, a client that goes away has nothing to resume: its request
    // is cancelled. A resumable stream goes on without it.
    let sender = Sender::http(caller, Arc::clone(posted));
    let cancel_on_drop = dispatcher.serve(request, Reply::Stream(tx), sender).drop_guard();
    let first = rx.recv().await;
    // The session joins the table only once its `initialize` succeeded: a refused one
    // leaves nothing behind.
    let new_id = new_id.filter(|_| dispatcher.handshake_version().is_some());
    if new_id.is_some() {
        if let Err(refused) = endpoint.keep_session(Arc::clone(&session)).await {
            return refused.into_response();
        }
    }
    let mut response = match first {
        None => rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            ErrorObject::internal("the request was cancelled"),
        ),
        Some(Outgoing::Final(text)) => {
            cancel_on_drop.disarm();
            // What the request changed of the session (its log level, its subscriptions),
            // the copies on other replicas must know.
            if let Err(refused) = endpoint.save_session(&session).await {
                return refused.into_response();
            }
            json_body(StatusCode::OK, text)
        }
        Some(Outgoing::Message(_) | Outgoing::EndStream) if endpoint.config.json_response => {
            respond(rx, true, Some(cancel_on_drop), endpoint.config.keep_alive, |_| {
                StatusCode::OK
            })
            .await
        }
        Some(first) => {
            cancel_on_drop.disarm();
            resumable_stream(endpoint, &session.hub, first, rx).await
        }
    };
    if let Some(id) = new_id {
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(header_names::SESSION_ID, value);
        }
    }
    response
}

/// A JSON-RPC batch, which only 2025-03-26 allows (never with `initialize`): its
/// notifications and responses are taken, its requests answered together in one JSON
/// array; 202 when it holds no request. What the requests send the client meanwhile goes
/// on the session's GET stream (nowhere without a session).
pub(super) async fn post_batch(
    endpoint: &Arc<Endpoint>,
    posted: &Arc<HttpRequest>,
    entries: Vec<Result<Message, InvalidMessage>>,
    caller: Admitted,
) -> Response {
    let headers = posted.headers();
    let version = match legacy_version(headers) {
        Ok(version) => version,
        Err(error) => return rpc_error(StatusCode::BAD_REQUEST, None, error),
    };
    if !version.allows_batches() {
        let error = ErrorObject::invalid_request("batches are only allowed in protocol version 2025-03-26");
        return rpc_error(StatusCode::BAD_REQUEST, None, error);
    }
    if entries
        .iter()
        .any(|entry| matches!(entry, Ok(Message::Request(r)) if r.method == methods::INITIALIZE))
    {
        let error = ErrorObject::invalid_request("initialize cannot be part of a batch");
        return rpc_error(StatusCode::BAD_REQUEST, None, error);
    }
    let session = if endpoint.config.stateless {
        None
    } else {
        match endpoint.find_session(headers, caller.as_deref()).await {
            Ok(session) => Some(session),
            Err(refused) => return refused.into_response(),
        }
    };
    let dispatcher = session
        .as_ref()
        .map_or(&endpoint.stateless, |session| session.session.dispatcher());
    let reply = dispatcher.session_channel().cloned().unwrap_or_else(Reply::nowhere);
    let assumed = session.is_none().then_some(version);
    let sender = Sender::http(caller, Arc::clone(posted));
    let Some(answers) = dispatcher.answer_batch(entries, reply, sender, assumed).await else {
        return StatusCode::ACCEPTED.into_response();
    };
    if let Some(session) = &session {
        if let Err(refused) = endpoint.save_session(session).await {
            return refused.into_response();
        }
    }
    json_body(StatusCode::OK, answers)
}

/// Legacy requests without sessions: each is answered on its own, the version taken from
/// the header.
async fn post_stateless(
    endpoint: &Arc<Endpoint>,
    message: Message,
    version: ProtocolVersion,
    sender: Sender,
) -> Response {
    let Some(request) = endpoint.stateless.receive(message) else {
        return StatusCode::ACCEPTED.into_response();
    };
    endpoint
        .answer_alone(request, Some(version), None, sender, |_| StatusCode::OK)
        .await
}

/// A legacy POST's SSE stream: logged in the session's hub so that the client can resume
/// it with `Last-Event-ID`; the request goes on when the client disconnects, or when the
/// server ends the stream.
async fn resumable_stream(
    endpoint: &Endpoint,
    hub: &Arc<StreamHub>,
    first: Outgoing,
    mut rx: mpsc::Receiver<Outgoing>,
) -> Response {
    let stream = hub.open();
    let attached = hub.attach(stream, 0, STREAM_CAPACITY).await;
    let pump_hub = Arc::clone(hub);
    tokio::spawn(async move {
        let mut next = Some(first);
        while let Some(outgoing) = next {
            match outgoing {
                Outgoing::Message(text) => pump_hub.push(stream, text, false).await,
                Outgoing::EndStream => pump_hub.detach(stream),
                Outgoing::Final(text) => {
                    pump_hub.push(stream, text, true).await;
                    return;
                }
            }
            next = rx.recv().await;
        }
    });
    match attached {
        Some(attached) => sse_response(logged_events(stream, attached, endpoint.config.retry)),
        None => rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            ErrorObject::internal("the stream vanished"),
        ),
    }
}

/// The events of a logged stream: a priming event (id and retry) at the reader's position,
/// so a reconnection resumes from there, then what was missed, then live events.
pub(super) fn logged_events(stream: u64, attached: Attached, retry: Duration) -> impl Stream<Item = Bytes> + Send {
    let priming = Bytes::from(format!(
        "id: {stream}-{}\nretry: {}\ndata: \n\n",
        attached.position,
        retry.as_millis()
    ));
    let seen = attached.seen();
    let missed = futures::stream::iter(attached.missed).map(move |event| encode_event(stream, &event));
    let live = match attached.live {
        Some(rx) => tokio_stream::wrappers::ReceiverStream::new(rx)
            .filter(move |event| futures::future::ready(event.seq > seen))
            .map(move |event| encode_event(stream, &event))
            .boxed(),
        None => futures::stream::empty().boxed(),
    };
    futures::stream::once(async move { priming }).chain(missed).chain(live)
}

fn encode_event(stream: u64, event: &Event) -> Bytes {
    Bytes::from(format!("id: {stream}-{}\ndata: {}\n\n", event.seq, event.data))
}
