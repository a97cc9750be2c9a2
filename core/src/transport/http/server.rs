//! The Streamable HTTP server: one endpoint (default `/mcp`) that serves both protocol
//! eras, decided per request. A `tower::Service` (an axum [`Router`]) for mounting in an
//! existing app, and a bundled listener.
//!
//! - Modern (2026-07-28): POST only; headers checked against the body; each request
//!   answered with one JSON object, or an SSE stream when notifications precede the
//!   answer; closing that stream cancels the request.
//! - Legacy (2025-03-26 to 2025-11-25): sessions by `Mcp-Session-Id`, a standalone GET
//!   stream, DELETE, and resumable SSE streams (`Last-Event-ID`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures::{SinkExt, Stream, StreamExt};
use http::{HeaderMap, HeaderValue, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

pub use super::event_store::{EventStore, InMemoryEventStore, StoredEvent};
use super::security::Guard;
use super::streams::{parse_event_id, Attached, Event, StreamHub, STANDALONE};
use crate::connection::Connection;
use crate::protocol::headers::{decode_header_value, header_params, header_text, value_at};
use crate::protocol::jsonrpc::{self, Incoming, Message, Request};
use crate::protocol::{code, methods, Era, ErrorObject, ProtocolVersion, RequestMeta};
use crate::server::reply::{Outgoing, Reply};
use crate::server::session::{Scope, Session};
use crate::server::Server;
use crate::transport::{Frame, Transport};

/// How many messages of one request may wait for a slow HTTP client.
const STREAM_CAPACITY: usize = 256;

/// Request and response header names.
mod header {
    pub(super) const SESSION_ID: &str = "mcp-session-id";
    pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    pub(super) const METHOD: &str = "mcp-method";
    pub(super) const NAME: &str = "mcp-name";
    pub(super) const PARAM_PREFIX: &str = "mcp-param-";
    pub(super) const LAST_EVENT_ID: &str = "last-event-id";
}

/// Settings of the HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    path: String,
    guard: Guard,
    body_limit: usize,
    json_response: bool,
    stateless: bool,
    session_idle_timeout: Duration,
    max_sessions: usize,
    legacy_sse: bool,
    events_kept: usize,
    event_store: Option<Arc<dyn EventStore>>,
    retry: Duration,
    keep_alive: Duration,
    cors_origins: Vec<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            guard: Guard::default(),
            body_limit: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            json_response: false,
            stateless: false,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            legacy_sse: false,
            events_kept: 1024,
            event_store: None,
            retry: Duration::from_secs(1),
            keep_alive: Duration::from_secs(15),
            cors_origins: Vec::new(),
        }
    }
}

impl HttpConfig {
    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The `Origin` values allowed to call (default: pages served from loopback hosts).
    /// Requests without `Origin` (not from a browser) always pass this check.
    pub fn allowed_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.guard.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The `Host` names accepted (default: `localhost`, `127.0.0.1`, `[::1]`, against DNS
    /// rebinding). An empty list accepts any host: only for servers behind a proxy that
    /// checks it.
    pub fn allowed_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> Self {
        self.guard.hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The largest request body accepted (default 4 MiB; larger gets 413).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Always answer with one JSON object, never SSE (notifications are then dropped).
    pub fn json_response(mut self, on: bool) -> Self {
        self.json_response = on;
        self
    }

    /// Legacy era without sessions: no `Mcp-Session-Id`, no GET stream.
    pub fn stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// How long an idle legacy session lives (default 30 minutes).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The most legacy sessions at once (default 10,000; past it `initialize` gets 503).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// Also serve the deprecated HTTP+SSE transport of 2024-11-05 at `/sse` and
    /// `/messages` (default off).
    pub fn legacy_sse(mut self, on: bool) -> Self {
        self.legacy_sse = on;
        self
    }

    /// How many events each legacy SSE stream keeps for resumption (default 1024). A
    /// store set with [`event_store`](Self::event_store) keeps what it decides instead.
    pub fn events_kept(mut self, events: usize) -> Self {
        self.events_kept = events;
        self
    }

    /// Where legacy SSE streams log their events for resumption with `Last-Event-ID`
    /// (default: each session in its own memory, bounded by
    /// [`events_kept`](Self::events_kept)). A store shared by several endpoints, or kept
    /// outside the process, is set here.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oxmcp::transport::http::server::{HttpConfig, InMemoryEventStore};
    ///
    /// let config = HttpConfig::default().event_store(Arc::new(InMemoryEventStore::new(256)));
    /// ```
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(store);
        self
    }

    /// The reconnection delay suggested to clients in legacy SSE streams (default 1 s).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Origins allowed by CORS; responses to them expose `Mcp-Session-Id`.
    pub fn cors_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.cors_origins = origins.into_iter().map(Into::into).collect();
        self
    }
}

/// A running HTTP listener.
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServerHandle {
    /// The address the listener is bound to (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL on this address.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.local_addr)
    }

    /// Stops accepting connections and waits for the listener to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)))
    }

    /// Waits until the listener ends.
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)))
    }
}

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

    /// Binds `addr` (use `127.0.0.1`: local servers must not listen on every interface)
    /// and serves the endpoint in the background. Sockets get `TCP_NODELAY`.
    pub async fn bind_http(
        &self,
        addr: impl tokio::net::ToSocketAddrs,
        config: HttpConfig,
    ) -> crate::Result<HttpServerHandle> {
        use axum::serve::ListenerExt;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let router = self.http_router(config);
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
        });
        Ok(HttpServerHandle {
            local_addr,
            shutdown,
            task,
        })
    }

    /// Serves the endpoint on `addr` until the process ends.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs, config: HttpConfig) -> crate::Result<()> {
        Ok(self.bind_http(addr, config).await?.wait().await?)
    }
}

/// The state every request of the endpoint shares.
struct Endpoint {
    config: HttpConfig,
    /// Serves modern requests, and legacy ones in stateless mode.
    stateless: Arc<Session>,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    sse_sessions: Mutex<HashMap<String, Arc<Session>>>,
    server: Server,
}

/// One legacy session.
struct HttpSession {
    session: Arc<Session>,
    hub: Arc<StreamHub>,
    last_seen: Mutex<Instant>,
    forwarder: tokio::task::JoinHandle<()>,
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.forwarder.abort();
        self.session.end();
    }
}

impl Endpoint {
    fn new(server: Server, config: HttpConfig) -> Arc<Self> {
        let (connection, _) = Connection::start(silent_transport(futures::sink::drain().sink_map_err(|e| match e {})));
        let endpoint = Arc::new(Endpoint {
            stateless: Session::shared(server.clone(), connection),
            sessions: Mutex::new(HashMap::new()),
            sse_sessions: Mutex::new(HashMap::new()),
            server,
            config,
        });
        tokio::spawn(reap_idle_sessions(Arc::downgrade(&endpoint)));
        endpoint
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new legacy session whose connection writes to its standalone stream.
    fn open_session(&self) -> Result<(String, Arc<HttpSession>), Rejection> {
        if self.sessions().len() >= self.config.max_sessions {
            return Err(Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorObject::internal("too many sessions"),
            ));
        }
        let id =
            random_id().map_err(|e| Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorObject::internal(e)))?;
        let hub = Arc::new(match &self.config.event_store {
            Some(store) => StreamHub::with_store(Arc::clone(store), id.clone()),
            None => StreamHub::new(self.config.events_kept),
        });
        let standalone = Arc::clone(&hub);
        let sink = futures::sink::unfold(standalone, |hub, text: String| async move {
            hub.push(STANDALONE, text, false).await;
            Ok::<_, std::io::Error>(hub)
        });
        let (connection, _) = Connection::start(silent_transport(sink));
        let session = Session::new(self.server.clone(), connection);
        let http_session = Arc::new(HttpSession {
            forwarder: session.forward_events(),
            session,
            hub,
            last_seen: Mutex::new(Instant::now()),
        });
        self.sessions().insert(id.clone(), Arc::clone(&http_session));
        Ok((id, http_session))
    }

    /// The session a legacy request names: 400 without the header, 404 when unknown.
    fn find_session(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Rejection> {
        let id = header_str(headers, header::SESSION_ID).ok_or_else(|| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("the Mcp-Session-Id header is missing"),
            )
        })?;
        let session = self.sessions().get(id).cloned().ok_or_else(|| {
            Rejection::new(
                StatusCode::NOT_FOUND,
                ErrorObject::invalid_request("unknown or ended session"),
            )
        })?;
        *session.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(session)
    }
}

/// A transport whose input never comes (requests arrive as HTTP requests instead).
fn silent_transport(sink: impl futures::Sink<String, Error = std::io::Error> + Send + 'static) -> Transport {
    Transport::new(futures::stream::pending::<std::io::Result<Frame>>(), sink)
}

async fn reap_idle_sessions(endpoint: Weak<Endpoint>) {
    loop {
        let Some(period) = endpoint
            .upgrade()
            .map(|e| (e.config.session_idle_timeout / 4).max(Duration::from_millis(50)))
        else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let timeout = endpoint.config.session_idle_timeout;
        let idle: Vec<Arc<HttpSession>> = {
            let mut sessions = endpoint.sessions();
            let expired: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.last_seen.lock().unwrap_or_else(|e| e.into_inner()).elapsed() > timeout)
                .map(|(id, _)| id.clone())
                .collect();
            expired.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        if !idle.is_empty() {
            tracing::debug!(count = idle.len(), "reaped idle sessions");
        }
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
fn precheck(endpoint: &Endpoint, headers: &HeaderMap) -> Result<(), Rejection> {
    endpoint
        .config
        .guard
        .check(headers)
        .map_err(|reason| Rejection::new(StatusCode::FORBIDDEN, ErrorObject::invalid_request(reason)))
}

/// Whether a request is of the modern era: its `_meta` or its version header says so.
fn is_modern(headers: &HeaderMap, request: &Request) -> bool {
    let header_modern = header_str(headers, header::PROTOCOL_VERSION)
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| v.era() == Era::Modern);
    header_modern || request_meta(request).is_some_and(|m| m.protocol_version.is_some())
}

fn request_meta(request: &Request) -> Option<RequestMeta> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "_meta", default)]
        meta: Option<RequestMeta>,
    }
    let params = request.params.as_deref()?;
    serde_json::from_str::<Head>(params.get()).ok()?.meta
}

async fn post_modern(endpoint: &Arc<Endpoint>, headers: &HeaderMap, request: Request) -> Response {
    let meta = match check_modern_headers(endpoint, headers, &request) {
        Ok(meta) => meta,
        Err(error) => return rpc_error(StatusCode::BAD_REQUEST, Some(&request.id), error),
    };
    let cancellation = CancellationToken::new();
    let cancel_on_drop = cancellation.clone().drop_guard();
    let (tx, rx) = mpsc::channel(STREAM_CAPACITY);
    let session = Arc::clone(&endpoint.stateless);
    tokio::spawn(async move {
        let reply = Reply::Stream(tx);
        let scope = Scope {
            meta: Some(meta),
            ..Scope::new(reply.clone(), cancellation)
        };
        if let Some(text) = session.answer(request, scope).await {
            reply.finish(text).await;
        }
    });
    respond(
        rx,
        endpoint.config.json_response,
        Some(cancel_on_drop),
        endpoint.config.keep_alive,
        status_for_modern,
    )
    .await
}

/// The header rules of 2026-07-28: version, method, name and parameter headers must match
/// the body; `_meta` must carry the required fields. Gives the `_meta` it read.
fn check_modern_headers(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    request: &Request,
) -> Result<RequestMeta, ErrorObject> {
    // One pass reads both; when it fails, each is read on its own, so that a flaw in one
    // does not hide the other (a broken target must not read as a missing `_meta`).
    let (meta, target) = match Head::<RequestMeta>::read(request) {
        Some(mut head) => (head.meta.take().unwrap_or_default(), head.into_target()),
        None => (
            request_meta(request).unwrap_or_default(),
            Target::read(request).unwrap_or_default(),
        ),
    };
    let Some(body_version) = meta.protocol_version.as_deref() else {
        return Err(ErrorObject::invalid_params(
            "_meta[\"io.modelcontextprotocol/protocolVersion\"] is missing",
        ));
    };
    match header_str(headers, header::PROTOCOL_VERSION) {
        None => {
            return Err(ErrorObject::header_mismatch(
                "the MCP-Protocol-Version header is missing",
            ))
        }
        Some(header) if header != body_version => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header {header:?} does not match the body's {body_version:?}"
            )))
        }
        Some(_) => {}
    }
    if ProtocolVersion::parse(body_version)
        .filter(|v| v.era() == Era::Modern)
        .is_none()
    {
        return Err(ErrorObject::unsupported_protocol_version(
            body_version,
            &ProtocolVersion::all_strs(),
        ));
    }
    if meta.client_capabilities.is_none() {
        return Err(ErrorObject::invalid_params(
            "_meta[\"io.modelcontextprotocol/clientCapabilities\"] is missing",
        ));
    }
    expect_header(headers, header::METHOD, Some(&request.method), "Mcp-Method")?;
    if matches!(
        request.method.as_str(),
        methods::TOOLS_CALL | methods::RESOURCES_READ | methods::PROMPTS_GET
    ) {
        expect_header(headers, header::NAME, target.name.as_deref(), "Mcp-Name")?;
    }
    if request.method == methods::TOOLS_CALL {
        check_param_headers(endpoint, headers, &target)?;
    }
    Ok(meta)
}

/// What the modern header checks read from a request's params: `_meta` (as `M`) and the
/// name or URI and arguments. The arguments stay raw until a tool with `x-mcp-header`
/// parameters needs them: most tools have none, and building a map of every argument cost
/// more than the rest of the checks.
#[derive(Deserialize, Default)]
#[serde(bound = "M: Deserialize<'de>")]
struct Head<M> {
    #[serde(rename = "_meta", default)]
    meta: Option<M>,
    #[serde(default, alias = "uri")]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
}

/// The name or URI and arguments of a request, whatever its `_meta`.
type Target = Head<serde::de::IgnoredAny>;

impl<M> Head<M> {
    /// The params of `request` (all fields absent when it has none); `None` when they do
    /// not parse or the arguments are not an object, as a typed read of them would fail.
    fn read(request: &Request) -> Option<Self>
    where
        M: for<'de> Deserialize<'de> + Default,
    {
        let Some(params) = request.params.as_deref() else {
            return Some(Head::default());
        };
        let head: Self = serde_json::from_str(params.get()).ok()?;
        let arguments_are_object = head
            .arguments
            .as_deref()
            .is_none_or(|raw| raw.get().trim_start().starts_with('{'));
        arguments_are_object.then_some(head)
    }

    /// The arguments as an object (none when absent).
    fn arguments(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        serde_json::from_str(self.arguments.as_deref()?.get()).ok()
    }

    fn into_target(self) -> Target {
        Head {
            meta: None,
            name: self.name,
            arguments: self.arguments,
        }
    }
}

/// Checks that header `name` is present, decodes, and equals `expected`.
fn expect_header(headers: &HeaderMap, name: &str, expected: Option<&str>, label: &str) -> Result<(), ErrorObject> {
    let Some(raw) = headers.get(name) else {
        return Err(ErrorObject::header_mismatch(format!("the {label} header is missing")));
    };
    let value = raw
        .to_str()
        .map_err(|_| ErrorObject::header_mismatch(format!("the {label} header has invalid characters")))
        .and_then(|v| {
            decode_header_value(v)
                .ok_or_else(|| ErrorObject::header_mismatch(format!("the {label} header is not valid base64")))
        })?;
    match expected {
        Some(expected) if expected == value => Ok(()),
        _ => Err(ErrorObject::header_mismatch(format!(
            "{label} header value {value:?} does not match the body value {expected:?}"
        ))),
    }
}

/// `Mcp-Param-*` headers must mirror the tool's `x-mcp-header` arguments.
fn check_param_headers(endpoint: &Endpoint, headers: &HeaderMap, target: &Target) -> Result<(), ErrorObject> {
    let Some(tool) = target
        .name
        .as_ref()
        .and_then(|name| endpoint.server.registry().tools.get(name).cloned())
    else {
        return Ok(());
    };
    let Ok(params) = header_params(&tool.tool.input_schema) else {
        return Ok(());
    };
    if params.is_empty() {
        return Ok(());
    }
    let arguments = target.arguments().unwrap_or_default();
    for param in params {
        let header_name = format!("{}{}", header::PARAM_PREFIX, param.name.to_ascii_lowercase());
        let label = format!("Mcp-Param-{}", param.name);
        let body = value_at(&arguments, &param.path).filter(|v| !v.is_null());
        match (body, headers.get(&header_name)) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "{label} is sent but the argument is absent"
                )))
            }
            (Some(value), _) => {
                let expected = header_text(value);
                if !numeric_match(headers, &header_name, value) {
                    expect_header(headers, &header_name, expected.as_deref(), &label)?;
                }
            }
        }
    }
    Ok(())
}

/// Integers compare numerically (`42.0` in the header matches `42` in the body).
fn numeric_match(headers: &HeaderMap, header_name: &str, body: &serde_json::Value) -> bool {
    let (Some(body), Some(header)) = (body.as_f64(), header_str(headers, header_name)) else {
        return false;
    };
    header.parse::<f64>().is_ok_and(|h| h == body)
}

async fn post_legacy(endpoint: &Arc<Endpoint>, headers: &HeaderMap, message: Message) -> Response {
    let version = match header_str(headers, header::PROTOCOL_VERSION) {
        None => ProtocolVersion::V2025_03_26,
        Some(text) => match ProtocolVersion::parse(text).filter(|v| v.era() == Era::Legacy) {
            Some(version) => version,
            None => {
                let error = ErrorObject::invalid_request(format!("unsupported MCP-Protocol-Version {text:?}"));
                return rpc_error(StatusCode::BAD_REQUEST, None, error);
            }
        },
    };
    let initialize = matches!(&message, Message::Request(r) if r.method == methods::INITIALIZE);
    if endpoint.config.stateless {
        return post_stateless(endpoint, message, version).await;
    }
    let (session, new_id) = if initialize {
        match endpoint.open_session() {
            Ok((id, session)) => (session, Some(id)),
            Err(refused) => return refused.into_response(),
        }
    } else {
        match endpoint.find_session(headers) {
            Ok(session) => (session, None),
            Err(refused) => return refused.into_response(),
        }
    };
    let Message::Request(request) = message else {
        session
            .session
            .accept(message, Reply::Connection(Arc::clone(session.session.connection())));
        return StatusCode::ACCEPTED.into_response();
    };
    let (tx, mut rx) = mpsc::channel(STREAM_CAPACITY);
    session.session.accept(Message::Request(request), Reply::Stream(tx));
    let mut response = match rx.recv().await {
        None => rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            ErrorObject::internal("the request was cancelled"),
        ),
        Some(Outgoing::Final(text)) => json_body(StatusCode::OK, text),
        Some(Outgoing::Message(first)) if endpoint.config.json_response => {
            drop(first);
            respond(rx, true, None, endpoint.config.keep_alive, |_| StatusCode::OK).await
        }
        Some(Outgoing::Message(first)) => resumable_stream(endpoint, &session.hub, first, rx).await,
    };
    if let Some(id) = new_id {
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(header::SESSION_ID, value);
        }
    }
    response
}

/// Legacy requests without sessions: each is answered on its own, the version taken from
/// the header.
async fn post_stateless(endpoint: &Arc<Endpoint>, message: Message, version: ProtocolVersion) -> Response {
    let Message::Request(request) = message else {
        endpoint
            .stateless
            .accept(message, Reply::Connection(Arc::clone(endpoint.stateless.connection())));
        return StatusCode::ACCEPTED.into_response();
    };
    let (tx, rx) = mpsc::channel(STREAM_CAPACITY);
    let session = Arc::clone(&endpoint.stateless);
    tokio::spawn(async move {
        let reply = Reply::Stream(tx);
        let scope = Scope {
            assumed_version: Some(version),
            ..Scope::new(reply.clone(), CancellationToken::new())
        };
        if let Some(text) = session.answer(request, scope).await {
            reply.finish(text).await;
        }
    });
    respond(
        rx,
        endpoint.config.json_response,
        None,
        endpoint.config.keep_alive,
        |_| StatusCode::OK,
    )
    .await
}

/// A legacy POST's SSE stream: logged in the session's hub so that the client can resume
/// it with `Last-Event-ID`; the request goes on when the client disconnects.
async fn resumable_stream(
    endpoint: &Endpoint,
    hub: &Arc<StreamHub>,
    first: String,
    mut rx: mpsc::Receiver<Outgoing>,
) -> Response {
    let stream = hub.open();
    let attached = hub.attach(stream, 0, STREAM_CAPACITY).await;
    let pump_hub = Arc::clone(hub);
    tokio::spawn(async move {
        pump_hub.push(stream, first, false).await;
        while let Some(outgoing) = rx.recv().await {
            match outgoing {
                Outgoing::Message(text) => pump_hub.push(stream, text, false).await,
                Outgoing::Final(text) => {
                    pump_hub.push(stream, text, true).await;
                    return;
                }
            }
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
fn logged_events(stream: u64, attached: Attached, retry: Duration) -> impl Stream<Item = Bytes> + Send {
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

/// Answers from a request's messages: one JSON object when the answer comes first (or
/// `json_only`), else an SSE stream of everything. `cancel_on_drop` cancels the request
/// if the client goes away before the answer.
async fn respond(
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
        let next = tokio::select! {
            next = rx.recv() => next,
            _ = tokio::time::sleep(keep_alive) => return Some((Bytes::from_static(b":\n\n"), (rx, guard, false))),
        };
        match next? {
            Outgoing::Message(text) => Some((data_event(&text), (rx, guard, false))),
            Outgoing::Final(text) => {
                if let Some(guard) = guard {
                    guard.disarm();
                }
                Some((data_event(&text), (rx, None, true)))
            }
        }
    });
    first.chain(rest)
}

fn data_event(text: &str) -> Bytes {
    Bytes::from(format!("data: {text}\n\n"))
}

fn sse_response(events: impl Stream<Item = Bytes> + Send + 'static) -> Response {
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

fn json_body(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A request refused before it reached the server: an HTTP status and the JSON-RPC error
/// for the body.
struct Rejection {
    status: StatusCode,
    error: ErrorObject,
}

impl Rejection {
    fn new(status: StatusCode, error: ErrorObject) -> Self {
        Rejection { status, error }
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        rpc_error(self.status, None, self.error)
    }
}

/// A JSON-RPC error as an HTTP response.
fn rpc_error(status: StatusCode, id: Option<&crate::protocol::RequestId>, error: ErrorObject) -> Response {
    json_body(status, jsonrpc::error_text(id, &error))
}

/// Modern errors that the transport reports with an HTTP status too.
fn status_for_modern(text: &str) -> StatusCode {
    // A result's text has its `"result":` key right after the id (`jsonrpc::raw_result_text`),
    // and that pattern cannot occur inside a JSON string (its quotes would be escaped): a
    // result is known from its first bytes, and only an error's text is read.
    if text
        .find("\"result\":")
        .is_some_and(|at| !text[..at].contains("\"error\":"))
    {
        return StatusCode::OK;
    }
    #[derive(Deserialize)]
    struct ErrorHead {
        error: Option<ErrorCode>,
    }
    #[derive(Deserialize)]
    struct ErrorCode {
        code: i64,
    }
    let code = serde_json::from_str::<ErrorHead>(text)
        .ok()
        .and_then(|h| h.error)
        .map(|e| e.code);
    match code {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(code::UNSUPPORTED_PROTOCOL_VERSION | code::MISSING_REQUIRED_CLIENT_CAPABILITY | code::HEADER_MISMATCH) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

async fn handle_get(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> Response {
    if let Err(refused) = precheck(&endpoint, &headers) {
        return refused.into_response();
    }
    if endpoint.config.stateless || header_str(&headers, header::SESSION_ID).is_none() {
        return method_not_allowed();
    }
    let accepts_sse =
        header_str(&headers, http::header::ACCEPT.as_str()).is_some_and(|a| a.contains("text/event-stream"));
    if !accepts_sse {
        let error = ErrorObject::invalid_request("GET needs Accept: text/event-stream");
        return rpc_error(StatusCode::NOT_ACCEPTABLE, None, error);
    }
    let session = match endpoint.find_session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let resume = header_str(&headers, header::LAST_EVENT_ID).and_then(parse_event_id);
    let (stream, after) = match resume {
        Some(position) => position,
        None => {
            if session.hub.is_attached(STANDALONE) {
                let error = ErrorObject::invalid_request("this session already has a GET stream");
                return rpc_error(StatusCode::CONFLICT, None, error);
            }
            (STANDALONE, u64::MAX)
        }
    };
    match session.hub.attach(stream, after, STREAM_CAPACITY).await {
        Some(attached) => sse_response(logged_events(stream, attached, endpoint.config.retry)),
        None => rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown stream"),
        ),
    }
}

async fn handle_delete(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> Response {
    if let Err(refused) = precheck(&endpoint, &headers) {
        return refused.into_response();
    }
    let Some(id) = header_str(&headers, header::SESSION_ID).filter(|_| !endpoint.config.stateless) else {
        return method_not_allowed();
    };
    match endpoint.sessions().remove(id) {
        Some(_) => StatusCode::OK.into_response(),
        None => rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown or ended session"),
        ),
    }
}

async fn handle_preflight() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

fn method_not_allowed() -> Response {
    let mut response = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorObject::invalid_request("this endpoint takes POST"),
    );
    response
        .headers_mut()
        .insert(http::header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// Adds CORS headers for configured origins, and answers preflights.
async fn apply_cors(
    State(endpoint): State<Arc<Endpoint>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let origin = request
        .headers()
        .get(http::header::ORIGIN)
        .filter(|o| {
            o.to_str()
                .is_ok_and(|o| endpoint.config.cors_origins.iter().any(|a| a == o || a == "*"))
        })
        .cloned();
    let mut response = next.run(request).await;
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.insert(http::header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("mcp-session-id"),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE"),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("*"),
        );
    }
    response
}

#[derive(Deserialize)]
struct SessionQuery {
    #[serde(rename = "sessionId")]
    session_id: String,
}

/// HTTP+SSE (2024-11-05): the stream whose first event names where to POST.
async fn handle_sse_open(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> Response {
    if let Err(refused) = precheck(&endpoint, &headers) {
        return refused.into_response();
    }
    let id = match random_id() {
        Ok(id) => id,
        Err(e) => return rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, ErrorObject::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<String>(STREAM_CAPACITY);
    let sink =
        tokio_util::sync::PollSender::new(tx).sink_map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe));
    let (connection, _) = Connection::start(silent_transport(sink));
    let session = Session::new(endpoint.server.clone(), connection);
    let forwarder = session.forward_events();
    endpoint
        .sse_sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.clone(), session);
    let closing = SseSessionGuard {
        endpoint: Arc::downgrade(&endpoint),
        id: id.clone(),
        forwarder,
    };
    let endpoint_event = Bytes::from(format!("event: endpoint\ndata: /messages?sessionId={id}\n\n"));
    let messages = tokio_stream::wrappers::ReceiverStream::new(rx).map(move |text| {
        let _ = &closing;
        Bytes::from(format!("event: message\ndata: {text}\n\n"))
    });
    sse_response(futures::stream::once(async move { endpoint_event }).chain(messages))
}

/// Ends an HTTP+SSE session when its stream closes.
struct SseSessionGuard {
    endpoint: Weak<Endpoint>,
    id: String,
    forwarder: tokio::task::JoinHandle<()>,
}

impl Drop for SseSessionGuard {
    fn drop(&mut self) {
        self.forwarder.abort();
        if let Some(endpoint) = self.endpoint.upgrade() {
            if let Some(session) = endpoint
                .sse_sessions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&self.id)
            {
                session.end();
            }
        }
    }
}

/// HTTP+SSE (2024-11-05): a message from the client; answers go on its stream.
async fn handle_sse_message(
    State(endpoint): State<Arc<Endpoint>>,
    Query(query): Query<SessionQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refused) = precheck(&endpoint, &headers) {
        return refused.into_response();
    }
    let session = endpoint
        .sse_sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&query.session_id)
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
            session.accept(message, Reply::Connection(Arc::clone(session.connection())));
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

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn is_json(headers: &HeaderMap) -> bool {
    header_str(headers, http::header::CONTENT_TYPE.as_str()).is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// A session id: 128 random bits as hex (visible ASCII, as the spec asks).
fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
