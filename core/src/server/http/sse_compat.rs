//! The deprecated HTTP+SSE transport of 2024-11-05: a GET `/sse` stream whose first event
//! names where to POST, and `/messages?sessionId=…` for the client's messages. A host that
//! routes these requests itself may name the session and where its client POSTs
//! ([`HostedSse`]).

use std::collections::hash_map::Entry;
use std::sync::{Arc, Weak};

use axum::body::{Body, Bytes};
use axum::extract::{Extension, Query, State};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::auth::{HostCaller, Target};
use super::endpoint::Endpoint;
use super::request::Posted;
use super::response::{rpc_error, sse_response, STREAM_CAPACITY};
use super::sessions::silent_transport;
use super::ConfigError;
use crate::connection::Connection;
use crate::lock;
use crate::protocol::jsonrpc::{self, Incoming};
use crate::protocol::ErrorObject;
use crate::server::dispatch::Sender;
use crate::server::limits::Admission;
use crate::server::random_id;
use crate::server::session::Session;
use crate::transport::TransportKind;

#[derive(Deserialize)]
pub(super) struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: String,
}

/// An HTTP+SSE session a host names before its stream opens, as the official TypeScript
/// SDK's `SSEServerTransport` does (its id is known before a server connects to it): the
/// host opens the stream with [`HttpEndpoint::open_hosted_sse`](super::HttpEndpoint::open_hosted_sse)
/// and hands the messages its app routes to the session to the endpoint at
/// `/messages?sessionId=…`.
#[derive(Debug, Clone)]
pub struct HostedSse {
    session_id: String,
    /// The endpoint event's text: where the client POSTs, with the session's id.
    endpoint_event: Bytes,
}

/// The longest session id a host may choose.
const MAX_HOSTED_ID: usize = 128;

impl HostedSse {
    /// A session `session_id`, whose client is told to POST to `messages_path` (a path,
    /// with a query of its own if need be; `sessionId` is set in it). The host makes the
    /// id from a CSPRNG (`crypto.randomUUID()`): who knows it may post as the session's
    /// client. Refused unless it is 1 to 128 letters, digits, `-`, `_`, `.` or `~`.
    pub fn new(session_id: &str, messages_path: &str) -> Result<Self, ConfigError> {
        let unreserved = |c: char| c.is_ascii_alphanumeric() || "-_.~".contains(c);
        if session_id.is_empty() || session_id.len() > MAX_HOSTED_ID || !session_id.chars().all(unreserved) {
            return Err(ConfigError(format!(
                "a session id is 1 to {MAX_HOSTED_ID} letters, digits, '-', '_', '.' or '~'"
            )));
        }
        let base = url::Url::parse("http://localhost/").expect("a valid base URL");
        let mut target = base
            .join(messages_path)
            .map_err(|e| ConfigError(format!("the messages path {messages_path:?}: {e}")))?;
        let kept: Vec<(String, String)> = target
            .query_pairs()
            .filter(|(name, _)| name != "sessionId")
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
        target
            .query_pairs_mut()
            .clear()
            .extend_pairs(kept)
            .append_pair("sessionId", session_id);
        let fragment = target.fragment().map(|f| format!("#{f}")).unwrap_or_default();
        let query = target.query().unwrap_or_default();
        let endpoint_event = format!("event: endpoint\ndata: {}?{query}{fragment}\n\n", target.path());
        Ok(HostedSse {
            session_id: session_id.to_owned(),
            endpoint_event: Bytes::from(endpoint_event),
        })
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }
}

/// HTTP+SSE (2024-11-05): the stream whose first event names where to POST.
pub(super) async fn handle_sse_open(
    State(endpoint): State<Arc<Endpoint>>,
    hosted: Option<Extension<HostedSse>>,
    vouched: Option<Extension<HostCaller>>,
    headers: HeaderMap,
) -> Response {
    let opener = match endpoint
        .admit(
            &headers,
            Target {
                method: "GET",
                path: "/sse",
                vouched: vouched.as_deref(),
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
    let hosted = match hosted {
        Some(Extension(hosted)) => Ok(hosted),
        None => random_id().and_then(|id| HostedSse::new(&id, "/messages").map_err(|e| e.to_string())),
    };
    let HostedSse {
        session_id: id,
        endpoint_event,
    } = match hosted {
        Ok(hosted) => hosted,
        Err(e) => return rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, ErrorObject::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<String>(STREAM_CAPACITY);
    let sink =
        tokio_util::sync::PollSender::new(tx).sink_map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe));
    let (connection, _) = Connection::start(silent_transport(sink, TransportKind::Sse));
    let owner = opener.as_deref().map(|opener| opener.token().principal());
    let session = Session::owned(endpoint.server.clone(), connection, owner);
    if let Entry::Vacant(slot) = lock(&endpoint.sse_sessions).entry(id.clone()) {
        slot.insert(Arc::clone(&session));
    } else {
        // Only a host choosing an id twice gets here.
        session.end();
        return rpc_error(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("the session id is taken"),
        );
    }
    let forwarder = session.forward_events();
    let guard = SseSessionGuard {
        endpoint: Arc::downgrade(&endpoint),
        id: id.clone(),
        forwarder,
        _slot: slot,
    };
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
    vouched: Option<Extension<HostCaller>>,
    Posted(posted): Posted,
    body: Body,
) -> Response {
    let caller = match endpoint
        .admit(
            posted.headers(),
            Target {
                method: "POST",
                path: "/messages",
                vouched: vouched.as_deref(),
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
            session.accept(message, Sender::http(caller, Arc::new(posted)));
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
