//! The endpoint: the state every request shares, its router, and the POST that decides
//! each request's era.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Extension, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http::{HeaderMap, StatusCode};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::auth::{handle_metadata, Admitted, HostCaller, Target};
use super::cors::{apply_cors, handle_preflight};
use super::legacy::{post_batch, post_legacy};
use super::modern::{is_modern, post_modern, post_modern_call, post_modern_notification, read_modern_call};
use super::request::Posted;
use super::response::{is_json, respond, rpc_error, Rejection, STREAM_CAPACITY};
use super::sessions::{follow_relay, reap_idle_sessions, HttpSession};
use super::sse_compat::{handle_sse_message, handle_sse_open};
use super::standalone::{handle_delete, handle_get};
use super::{ConfigError, HttpConfig, HttpRequest};
use crate::lock;
use crate::protocol::jsonrpc::{self, Incoming, Message, Request};
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::auth::Protection;
use crate::server::dispatch::{Dispatcher, ReadAhead, Scope, Sender};
use crate::server::limits::Quota;
use crate::server::reply::Reply;
use crate::server::session::Session;
use crate::server::Server;
use crate::state::LogLimits;

impl Server {
    /// The HTTP endpoint as an axum [`Router`] (a `tower::Service`), to serve alone or
    /// merge into an existing app. Must be called inside a tokio runtime.
    ///
    /// Connection-level limits (header-read timeout, connection cap, shutdown) are the
    /// listener's: [`bind_http`](Server::bind_http) applies them, an app that mounts the
    /// router applies its own.
    ///
    /// Fails when the config contradicts itself, e.g. a path that does not start with `/`,
    /// or [`auth`](HttpConfig::auth) without the resource URL the router cannot know.
    pub fn http_router(&self, config: HttpConfig) -> Result<Router, ConfigError> {
        Ok(Endpoint::new(self.clone(), config, None)?.router())
    }
}

/// The state every request of the endpoint shares.
pub(super) struct Endpoint {
    pub(super) config: HttpConfig,
    /// Serves modern requests, and legacy ones in stateless mode.
    pub(super) stateless: Arc<Dispatcher>,
    pub(super) sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    pub(super) sse_sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// Counts the sessions of both tables against `max_sessions`.
    pub(super) session_quota: Arc<Quota>,
    /// The bounds of the sessions' in-memory event logs, one byte budget for all.
    pub(super) log_limits: LogLimits,
    /// Cancelled when the endpoint shuts down: streams that only wait for events end.
    pub(super) closing: CancellationToken,
    /// What every request must show, when the endpoint is a resource server.
    pub(super) protection: Option<Protection>,
    pub(super) server: Server,
}

impl Endpoint {
    /// The endpoint of `server`; `origin` (`http://host:port`) is where the bundled
    /// listener is bound, the default origin of its resource URL.
    pub(super) fn new(server: Server, mut config: HttpConfig, origin: Option<&str>) -> Result<Arc<Self>, ConfigError> {
        if !config.path.starts_with('/') {
            return Err(ConfigError(format!(
                "the path must start with '/', not {:?}",
                config.path
            )));
        }
        // The server's event store, unless this endpoint has one of its own.
        if config.event_store.is_none() {
            config.event_store = server.event_store().cloned();
        }
        let protection = match config.auth.clone() {
            Some(auth) => Some(auth.resolve(&config.path, origin).map_err(ConfigError)?),
            None => None,
        };
        let endpoint = Arc::new(Endpoint {
            stateless: Dispatcher::shared(server.clone(), config.max_in_flight),
            sessions: Mutex::new(HashMap::new()),
            sse_sessions: Mutex::new(HashMap::new()),
            session_quota: Quota::new(config.max_sessions),
            log_limits: LogLimits::new(
                config.events_kept,
                config.event_bytes_per_session,
                config.event_bytes_total,
            ),
            closing: CancellationToken::new(),
            protection,
            server,
            config,
        });
        tokio::spawn(reap_idle_sessions(Arc::downgrade(&endpoint)));
        if let Some(store) = endpoint.server.session_store() {
            tokio::spawn(follow_relay(Arc::downgrade(&endpoint), store.relayed()));
        }
        Ok(endpoint)
    }

    /// The endpoint's routes.
    pub(super) fn router(self: Arc<Self>) -> Router {
        let mut router = Router::new().route(
            &self.config.path,
            post(handle_post)
                .get(handle_get)
                .delete(handle_delete)
                .options(handle_preflight),
        );
        if self.config.legacy_sse {
            router = router
                .route("/sse", get(handle_sse_open))
                .route("/messages", post(handle_sse_message));
        }
        if let Some(protection) = &self.protection {
            router = router
                .route(&protection.metadata_path, get(handle_metadata))
                .route(Protection::ROOT_METADATA_PATH, get(handle_metadata));
        }
        router
            .layer(axum::middleware::from_fn_with_state(Arc::clone(&self), apply_cors))
            .with_state(self)
    }

    /// Starts shutting down: streams that only wait for events (GET, `/sse`) end, no new
    /// session opens, and the bundled listener's connections close once their request in
    /// flight is answered.
    pub(super) fn begin_close(&self) {
        self.closing.cancel();
    }

    /// Ends every session and cancels every request still in flight.
    pub(super) fn end_all(&self) {
        // A legacy session ends when dropped; connections may still hold one a moment.
        let sessions: Vec<Arc<HttpSession>> = self.sessions().drain().map(|(_, session)| session).collect();
        for session in &sessions {
            session.session.end();
        }
        let sse: Vec<Arc<Session>> = lock(&self.sse_sessions).drain().map(|(_, session)| session).collect();
        for session in &sse {
            session.end();
        }
        self.stateless.end();
        self.stateless.cancel_in_flight();
    }

    /// Answers a request outside any session, on the shared dispatcher: under the legacy
    /// `assumed_version` when it gives none (stateless mode), or with what the modern header
    /// checks read of it already. The client going away before the answer cancels it.
    pub(super) async fn answer_alone(
        &self,
        request: Request,
        assumed_version: Option<ProtocolVersion>,
        read: Option<ReadAhead>,
        sender: Sender,
        status_of: fn(&str) -> StatusCode,
    ) -> Response {
        let cancellation = CancellationToken::new();
        let cancel_on_drop = cancellation.clone().drop_guard();
        let (tx, rx) = mpsc::channel(STREAM_CAPACITY);
        let reply = Reply::Stream(tx);
        let scope = Scope {
            assumed_version,
            read,
            sender,
            ..Scope::new(reply.clone(), cancellation)
        };
        let answer = self.stateless.answer(request, scope);
        tokio::spawn(async move {
            if let Some(text) = answer.await {
                reply.finish(text).await;
            }
        });
        let config = &self.config;
        respond(
            rx,
            config.json_response,
            Some(cancel_on_drop),
            config.keep_alive,
            status_of,
        )
        .await
    }

    /// A request's body, read within the body timeout and size limit.
    pub(super) async fn read_body(&self, body: Body) -> Result<Bytes, Rejection> {
        let limit = self.config.body_limit;
        match tokio::time::timeout(self.config.body_read_timeout, axum::body::to_bytes(body, limit)).await {
            Ok(Ok(bytes)) => Ok(bytes),
            Ok(Err(error)) if too_large(&error) => Err(Rejection::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorObject::invalid_request(format!("the body is larger than {limit} bytes")),
            )),
            Ok(Err(_)) => Err(Rejection::new(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("the body could not be read"),
            )),
            Err(_) => Err(Rejection::new(
                StatusCode::REQUEST_TIMEOUT,
                ErrorObject::invalid_request("the body did not arrive in time"),
            )),
        }
    }
}

/// Whether reading a body failed because it was over the limit.
fn too_large(error: &axum::Error) -> bool {
    std::error::Error::source(error).is_some_and(|cause| cause.is::<http_body_util::LengthLimitError>())
}

async fn handle_post(
    State(endpoint): State<Arc<Endpoint>>,
    vouched: Option<Extension<HostCaller>>,
    Posted(posted): Posted,
    body: Body,
) -> Response {
    // Shared with the request's handlers (`Context::http_request`), then taken back.
    let posted = Arc::new(posted);
    let answer = answer_post(&endpoint, vouched.as_deref(), &posted, body).await;
    match Arc::try_unwrap(posted) {
        Ok(posted) => in_request_map(answer, posted.into_headers()),
        // A handler still runs (its answer streams): the answer keeps a map of its own.
        Err(_) => answer,
    }
}

/// `answer` with its headers moved into the request's header map, emptied. hyper reads a
/// connection's next request into the header map of the answer before it: a map with the
/// room of a request's headers is not made and grown again for every request (growing an
/// answer's to hold a 2026-07-28 request, with its `Mcp-Method` and `Mcp-Name`, cost 2 k
/// instructions a call).
fn in_request_map(mut answer: Response, mut map: HeaderMap) -> Response {
    map.clear();
    map.extend(answer.headers_mut().drain());
    *answer.headers_mut() = map;
    answer
}

async fn answer_post(
    endpoint: &Arc<Endpoint>,
    vouched: Option<&HostCaller>,
    posted: &Arc<HttpRequest>,
    body: Body,
) -> Response {
    let headers = posted.headers();
    let target = Target {
        method: "POST",
        path: &endpoint.config.path,
        vouched,
    };
    let caller = match endpoint.admit(headers, target).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    if let Some(refused) = endpoint.early_scope_refusal(caller.as_deref(), headers) {
        return refused;
    }
    if !is_json(headers) {
        let error = ErrorObject::invalid_request("Content-Type must be application/json");
        return rpc_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, error);
    }
    let body = match endpoint.read_body(body).await {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    // The hot path: a modern `tools/call` read in one pass; anything else the usual way.
    if let Some((request, read)) = read_modern_call(endpoint, headers, &body) {
        return post_modern_call(endpoint, posted, request, read, caller).await;
    }
    let message = match jsonrpc::parse(&body) {
        Ok(Incoming::Single(message)) => message,
        Ok(Incoming::Batch(entries)) => {
            let refusal = entries
                .iter()
                .flatten()
                .find_map(|message| endpoint.scope_refusal(caller.as_deref(), message));
            if let Some(refused) = refusal {
                return refused;
            }
            return post_batch(endpoint, posted, entries, caller).await;
        }
        Err(invalid) => return rpc_error(StatusCode::BAD_REQUEST, invalid.id(), ErrorObject::from(&invalid)),
    };
    if let Some(refused) = endpoint.scope_refusal(caller.as_deref(), &message) {
        return refused;
    }
    match message {
        Message::Request(request) if is_modern(headers, request.params.as_deref()) => {
            post_modern(endpoint, posted, request, caller).await
        }
        Message::Notification(notification) if is_modern(headers, notification.params.as_deref()) => {
            post_modern_notification(endpoint, notification)
        }
        message => post_legacy(endpoint, posted, message, caller).await,
    }
}

impl Endpoint {
    /// The checks every request passes first: Origin and Host (403), then the caller's
    /// token (for a request to `target`) when the endpoint is a resource server. Gives the
    /// caller.
    pub(super) async fn admit(&self, headers: &HeaderMap, target: Target<'_>) -> Result<Admitted, Response> {
        self.config.guard.check(headers).map_err(|reason| {
            Rejection::new(StatusCode::FORBIDDEN, ErrorObject::invalid_request(reason)).into_response()
        })?;
        self.authenticate(headers, target).await
    }
}
