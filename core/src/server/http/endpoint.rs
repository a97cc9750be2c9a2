//! The endpoint: the state every request shares, its router, and the POST that decides
//! each request's era.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http::{HeaderMap, StatusCode};

use super::cors::{apply_cors, handle_preflight};
use super::legacy::post_legacy;
use super::modern::{is_modern, post_modern};
use super::response::{is_json, rpc_error, Rejection};
use super::sessions::{reap_idle_sessions, HttpSession};
use super::sse_compat::{handle_sse_message, handle_sse_open};
use super::standalone::{handle_delete, handle_get};
use super::HttpConfig;
use crate::protocol::jsonrpc::{self, Incoming, Message};
use crate::protocol::ErrorObject;
use crate::server::dispatch::Dispatcher;
use crate::server::session::Session;
use crate::server::Server;

impl Server {
    /// The HTTP endpoint as an axum [`Router`] (a `tower::Service`), to serve alone or
    /// merge into an existing app. Must be called inside a tokio runtime.
    pub fn http_router(&self, config: HttpConfig) -> Router {
        let path = config.path.clone();
        let legacy_sse = config.legacy_sse;
        let body_limit = config.body_limit;
        let endpoint = Endpoint::new(self.clone(), config);
        let mut router = Router::new().route(
            &path,
            post(handle_post)
                .get(handle_get)
                .delete(handle_delete)
                .options(handle_preflight),
        );
        if legacy_sse {
            router = router
                .route("/sse", get(handle_sse_open))
                .route("/messages", post(handle_sse_message));
        }
        router
            .layer(axum::middleware::from_fn_with_state(Arc::clone(&endpoint), apply_cors))
            .layer(DefaultBodyLimit::max(body_limit))
            .with_state(endpoint)
    }
}

/// The state every request of the endpoint shares.
pub(super) struct Endpoint {
    pub(super) config: HttpConfig,
    /// Serves modern requests, and legacy ones in stateless mode.
    pub(super) stateless: Arc<Dispatcher>,
    pub(super) sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    pub(super) sse_sessions: Mutex<HashMap<String, Arc<Session>>>,
    pub(super) server: Server,
}

impl Endpoint {
    fn new(server: Server, config: HttpConfig) -> Arc<Self> {
        let endpoint = Arc::new(Endpoint {
            stateless: Dispatcher::shared(server.clone()),
            sessions: Mutex::new(HashMap::new()),
            sse_sessions: Mutex::new(HashMap::new()),
            server,
            config,
        });
        tokio::spawn(reap_idle_sessions(Arc::downgrade(&endpoint)));
        endpoint
    }
}

async fn handle_post(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(refused) = precheck(&endpoint, &headers) {
        return refused.into_response();
    }
    if !is_json(&headers) {
        let error = ErrorObject::invalid_request("Content-Type must be application/json");
        return rpc_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, error);
    }
    let message = match jsonrpc::parse(&body) {
        Ok(Incoming::Single(message)) => message,
        Ok(Incoming::Batch(_)) => {
            let error = ErrorObject::invalid_request("batches are not supported over HTTP");
            return rpc_error(StatusCode::BAD_REQUEST, None, error);
        }
        Err(invalid) => return rpc_error(StatusCode::BAD_REQUEST, invalid.id(), ErrorObject::from(&invalid)),
    };
    match message {
        Message::Request(request) if is_modern(&headers, &request) => post_modern(&endpoint, &headers, request).await,
        message => post_legacy(&endpoint, &headers, message).await,
    }
}

/// Origin, Host and Accept checks every request passes first.
pub(super) fn precheck(endpoint: &Endpoint, headers: &HeaderMap) -> Result<(), Rejection> {
    endpoint
        .config
        .guard
        .check(headers)
        .map_err(|reason| Rejection::new(StatusCode::FORBIDDEN, ErrorObject::invalid_request(reason)))
}
