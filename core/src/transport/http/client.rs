//! The Streamable HTTP client transport, in both protocol eras, with a fallback to the
//! deprecated HTTP+SSE transport (2024-11-05).
//!
//! [`connect`] gives a [`Transport`], so the [`Client`](crate::client::Client) drives it
//! like any other: each outgoing message becomes one HTTP POST, and every message the
//! server sends back (a JSON body, or the events of an SSE response stream, or of the
//! legacy GET stream) becomes one incoming frame.
//!
//! ```no_run
//! use oxmcp::client::{Client, ClientOptions};
//! use oxmcp::transport::http::client::{connect, HttpClientOptions};
//!
//! # async fn run() -> oxmcp::Result<()> {
//! let transport = connect(HttpClientOptions::new("http://127.0.0.1:8000/mcp").bearer_token(|| async {
//!     Some("secret".to_owned())
//! }))?;
//! let client = Client::connect(transport, ClientOptions::new("app", "1.0")).await?;
//! let tools = client.list_all_tools().await?;
//! client.close().await?;
//! # Ok(()) }
//! ```
//!
//! What the transport does on the wire, beyond POSTing:
//!
//! - Modern era (a request whose `_meta` names a protocol version): `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of the tool's `x-mcp-header`
//!   parameters (the transport remembers the tools of every `tools/list` answer). When a
//!   `tools/call` is refused with HeaderMismatch (-32020) it lists the tools again and
//!   retries the call once. A `notifications/cancelled` closes the request's response
//!   stream instead of being sent.
//! - Legacy era: `Mcp-Session-Id` from the `initialize` answer and the negotiated
//!   `MCP-Protocol-Version` on every later request; the GET stream once initialized; a
//!   broken SSE stream resumed with `Last-Event-ID`, honouring `retry:` and a bounded
//!   exponential back-off; HTTP 404 for the session ends it (errors for the request, and
//!   the next `initialize` starts a new one); DELETE of the session on close.
//! - The first request decides the transport: when the server refuses it with 400, 404 or
//!   405 and a body that is no modern JSON-RPC error, a GET of the same URL that opens an
//!   SSE stream starting with an `endpoint` event switches to HTTP+SSE.
//! - A request never hangs on the transport: an HTTP error, a connection failure or a
//!   stream that ends early becomes a JSON-RPC error response for that request's id.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::{Sink, StreamExt};
use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
pub use reqwest::header::{HeaderName, HeaderValue};
use reqwest::{Method, Response, StatusCode, Url};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::{CancellationToken, PollSender, WaitForCancellationFutureOwned};

mod legacy_sse;
mod message;

use self::message::{body_headers, classify, error_of, result_of, Classified, FinalResponse, Outgoing};
use super::sse::{SseItem, SseParser};
use crate::protocol::headers::{header_params, names, HeaderParam};
use crate::protocol::jsonrpc;
use crate::protocol::{code, methods, ErrorObject, RequestId};
use crate::transport::{Frame, Transport, DEFAULT_MAX_MESSAGE_SIZE};
use crate::{BoxError, BoxFuture};

/// How many messages may wait in each direction.
const CHANNEL_CAPACITY: usize = 1024;
/// The most of an HTTP error body that is read to explain the error.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How long a POST of a notification or response, and the DELETE on close, may take
/// when no request timeout is set.
const ONE_WAY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the first request may wait for the answer's headers when no request
/// timeout is set (later messages queue behind it).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the DELETE of a session may take on close.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);
/// The shortest wait before reconnecting a stream, whatever `retry:` says.
const MIN_RECONNECT_DELAY: Duration = Duration::from_millis(50);
/// How many pages of `tools/list` a HeaderMismatch refresh reads at most.
const MAX_REFRESH_PAGES: usize = 32;
/// How long messages after `notifications/initialized` wait for the GET stream to open.
const GET_STREAM_WAIT: Duration = Duration::from_secs(5);
/// How many times a refused POST is sent again after its authorizer acted: once for
/// new tokens, once more for what the new tokens may need (a DPoP nonce, a step-up).
const AUTHORIZATION_RETRIES: u32 = 2;
const JSON_AND_SSE: &str = "application/json, text/event-stream";
const EVENT_STREAM: &str = "text/event-stream";

/// Produces the bearer token of each request (or none), e.g. from an OAuth token cache.
pub type TokenSource = Arc<dyn Fn() -> BoxFuture<'static, Option<String>> + Send + Sync>;

/// Authorizes the transport's HTTP requests and answers the server's refusals; the
/// OAuth client [`OAuthProvider`](crate::client::auth::OAuthProvider) is one.
pub trait HttpAuthorizer: Send + Sync {
    /// The authorization headers of the next request to `url` with `method`: its
    /// `Authorization` header, if any, and any header that goes with it (a DPoP proof).
    fn authorization<'a>(&'a self, method: &'a Method, url: &'a Url) -> BoxFuture<'a, HeaderMap>;

    /// The server refused a request to `url` with `status` (401 or 403) and `headers`
    /// (its `WWW-Authenticate` challenge), when the request carried `sent`. `Ok(true)`:
    /// authorized anew (or ready with what the server asked for), the transport sends
    /// the request again, at most twice in all; `Ok(false)`: the refusal stands; an
    /// error fails the request with its message.
    fn refused<'a>(
        &'a self,
        url: &'a Url,
        status: StatusCode,
        headers: &'a HeaderMap,
        sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool, BoxError>>;
}

/// Where and how to connect.
///
/// ```
/// use std::time::Duration;
/// use oxmcp::transport::http::client::{HeaderName, HeaderValue, HttpClientOptions};
///
/// let options = HttpClientOptions::new("https://example.com/mcp")
///     .header(HeaderName::from_static("x-tenant"), HeaderValue::from_static("acme"))
///     .request_timeout(Some(Duration::from_secs(30)))
///     .reconnect(Duration::from_millis(200), Duration::from_secs(10), 5);
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpClientOptions {
    url: String,
    headers: HeaderMap,
    bearer_token: Option<TokenSource>,
    authorizer: Option<Arc<dyn HttpAuthorizer>>,
    request_timeout: Option<Duration>,
    connect_timeout: Duration,
    max_message_size: usize,
    reconnect: Backoff,
    legacy_sse_fallback: bool,
}

/// The reconnection policy of broken SSE streams.
#[derive(Debug, Clone, Copy)]
struct Backoff {
    initial: Duration,
    max: Duration,
    attempts: u32,
}

impl Backoff {
    /// The wait before reconnection attempt `attempt` (from 1): the server's `retry:` for
    /// the first, then doubling from `initial` up to `max`, never below `retry:`.
    fn delay(&self, attempt: u32, retry: Option<Duration>) -> Duration {
        let doubled = self
            .initial
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
            .min(self.max);
        let delay = match retry {
            Some(retry) if attempt <= 1 => retry,
            Some(retry) => doubled.max(retry),
            None => doubled,
        };
        delay.max(MIN_RECONNECT_DELAY)
    }
}

impl std::fmt::Debug for HttpClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClientOptions")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("bearer_token", &self.bearer_token.is_some())
            .field("authorizer", &self.authorizer.is_some())
            .field("request_timeout", &self.request_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_size", &self.max_message_size)
            .field("reconnect", &self.reconnect)
            .field("legacy_sse_fallback", &self.legacy_sse_fallback)
            .finish()
    }
}

impl HttpClientOptions {
    /// Options for the MCP endpoint at `url` (e.g. `http://127.0.0.1:8000/mcp`): no
    /// extra headers, no token, no request timeout (the client's per-request timeout
    /// applies), a 10 s connect timeout, 4 MiB messages, reconnection after 250 ms
    /// doubling up to 5 s for at most 4 attempts, and the HTTP+SSE fallback on.
    pub fn new(url: impl Into<String>) -> Self {
        HttpClientOptions {
            url: url.into(),
            headers: HeaderMap::new(),
            bearer_token: None,
            authorizer: None,
            request_timeout: None,
            connect_timeout: Duration::from_secs(10),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            reconnect: Backoff {
                initial: Duration::from_millis(250),
                max: Duration::from_secs(5),
                attempts: 4,
            },
            legacy_sse_fallback: true,
        }
    }

    /// Adds a header to every HTTP request (replacing an earlier one of the same name).
    /// The protocol's own headers (`Mcp-*`, `Accept`, `Content-Type`) take precedence.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Asks `source` for a token before every HTTP request and sends it as
    /// `Authorization: Bearer {token}` (nothing when it returns `None`).
    pub fn bearer_token<F, Fut>(mut self, source: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<String>> + Send + 'static,
    {
        self.bearer_token = Some(Arc::new(move || Box::pin(source())));
        self
    }

    /// Lets `authorizer` (e.g. an [`OAuthProvider`](crate::client::auth::OAuthProvider))
    /// authorize every request, in place of a [`bearer_token`](Self::bearer_token):
    /// a POST refused with 401 (or 403 `insufficient_scope`) is sent again after it
    /// authorized anew, at most twice.
    pub fn authorizer(mut self, authorizer: impl HttpAuthorizer + 'static) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Limits how long a POST may take until its answer is complete, for JSON answers
    /// and until the headers of an SSE answer (a stream itself may last as long as the
    /// request). `None` (the default) leaves the limit to the client's request timeout.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Limits how long opening a TCP (and TLS) connection may take.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The largest message accepted from the server; a larger answer to a request becomes
    /// an error for that request, a larger SSE event an oversized frame.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How a broken SSE stream is reconnected (legacy era): wait `initial` (or the
    /// server's `retry:`), doubling up to `max`, for at most `attempts` tries in a row.
    pub fn reconnect(mut self, initial: Duration, max: Duration, attempts: u32) -> Self {
        self.reconnect = Backoff {
            initial,
            max: max.max(initial),
            attempts,
        };
        self
    }

    /// Whether a server that refuses the first POST may be tried as an HTTP+SSE
    /// (2024-11-05) server. On by default.
    pub fn legacy_sse_fallback(mut self, enabled: bool) -> Self {
        self.legacy_sse_fallback = enabled;
        self
    }
}

/// Connects to the MCP endpoint in `options`: returns at once (nothing is sent until the
/// first message), and must be called inside a Tokio runtime.
///
/// ```no_run
/// # async fn run() -> oxmcp::Result<()> {
/// use oxmcp::client::{Client, ClientOptions};
/// use oxmcp::transport::http::client::{connect, HttpClientOptions};
///
/// let transport = connect(HttpClientOptions::new("http://127.0.0.1:8000/mcp"))?;
/// let client = Client::connect(transport, ClientOptions::new("app", "1.0")).await?;
/// # drop(client); Ok(()) }
/// ```
pub fn connect(options: HttpClientOptions) -> io::Result<Transport> {
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| io::Error::other("the HTTP transport needs a Tokio runtime"))?;
    let url = Url::parse(&options.url).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid MCP endpoint {:?}: {e}", options.url),
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the MCP endpoint must be an http or https URL, not {url}"),
        ));
    }
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .connect_timeout(options.connect_timeout)
        .pool_idle_timeout(Duration::from_secs(90))
        .build()
        .map_err(io::Error::other)?;
    let (frames, incoming) = mpsc::channel(CHANNEL_CAPACITY);
    let (outgoing, queue) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    let shared = Arc::new(Shared {
        http,
        url,
        options,
        frames,
        state: Mutex::new(State::default()),
        closing: CancellationToken::new(),
        next_internal_id: AtomicU64::new(0),
    });
    let closed = CancellationToken::new();
    runtime.spawn(drive(shared, queue, closed.clone()));
    let incoming = ReceiverStream::new(incoming);
    let outgoing = OutgoingSink {
        queue: PollSender::new(outgoing),
        closed: Box::pin(closed.cancelled_owned()),
    };
    Ok(Transport::new(incoming, outgoing))
}

/// The outgoing side: a queue to the driver. Closing it resolves once the transport has
/// shut down (the legacy session deleted), so a caller that awaits the close knows the
/// server was told.
struct OutgoingSink {
    queue: PollSender<String>,
    closed: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl Sink<String> for OutgoingSink {
    type Error = io::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.queue.poll_reserve(cx).map_err(|_| closed_error())
    }

    fn start_send(mut self: Pin<&mut Self>, text: String) -> io::Result<()> {
        self.queue.send_item(text).map_err(|_| closed_error())
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.queue.close();
        self.closed.as_mut().poll(cx).map(Ok)
    }
}

fn closed_error() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the HTTP transport is closed")
}

/// Which wire the server speaks; settled by the first request.
#[derive(Debug, Clone, Default)]
enum Mode {
    /// No request answered yet.
    #[default]
    Probing,
    /// Streamable HTTP (either era).
    Streamable,
    /// The deprecated HTTP+SSE transport: POST to `endpoint`, read from one SSE stream.
    LegacySse { endpoint: Url },
}

#[derive(Default)]
struct State {
    mode: Mode,
    /// The legacy session, from the `initialize` answer.
    session_id: Option<HeaderValue>,
    /// The legacy version the `initialize` answer settled on.
    negotiated_version: Option<HeaderValue>,
    /// Requests awaiting their answer, by id.
    in_flight: HashMap<RequestId, InFlight>,
    /// The `x-mcp-header` parameters of every listed tool.
    tool_headers: HashMap<String, Vec<HeaderParam>>,
    /// Stops the legacy GET stream.
    listener: Option<CancellationToken>,
}

struct InFlight {
    cancel: CancellationToken,
    modern: bool,
}

struct Shared {
    http: reqwest::Client,
    url: Url,
    options: HttpClientOptions,
    /// Incoming frames, to the connection.
    frames: mpsc::Sender<io::Result<Frame>>,
    state: Mutex<State>,
    /// Fires when the transport closes: every task stops.
    closing: CancellationToken,
    next_internal_id: AtomicU64,
}

/// An HTTP answer and the session id its request carried.
struct Sent {
    response: Response,
    session: Option<HeaderValue>,
}

/// Why a GET stream could not be (re)opened.
enum GetFailure {
    /// Worth another try later (connection failure, 5xx).
    Retry(String),
    /// Not worth another try (405, 4xx, session gone).
    Fatal(ErrorObject),
}

/// Sends queued messages until the connection closes the sink, then shuts the
/// transport down and fires `closed`.
async fn drive(shared: Arc<Shared>, mut queue: mpsc::Receiver<String>, closed: CancellationToken) {
    let _closed = closed.drop_guard();
    while let Some(text) = queue.recv().await {
        shared.dispatch(Outgoing::parse(text)).await;
    }
    shared.close().await;
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state holds no invariant a panic could break.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn dispatch(self: &Arc<Self>, message: Outgoing) {
        let mode = self.state().mode.clone();
        match (mode, message.is_request()) {
            (Mode::LegacySse { endpoint }, _) => self.send_legacy_sse(message, endpoint).await,
            (Mode::Probing, true) => self.probe(message).await,
            (Mode::Streamable, true) => {
                let message = Arc::new(message);
                let cancel = self.register(&message);
                self.spawn_exchange(message, None, cancel);
            }
            (_, false) if message.method() == methods::CANCELLED => self.cancel(message).await,
            (_, false) => {
                self.post_one_way(&message).await;
                if message.method() == methods::INITIALIZED {
                    if let Some(opened) = self.start_listener() {
                        // What the server sends on the standalone stream before it is
                        // open is lost: let later messages wait (briefly) until it is.
                        let _ = tokio::time::timeout(GET_STREAM_WAIT, opened).await;
                    }
                }
            }
        }
    }

    /// Records a request as in flight; the token aborts it.
    fn register(&self, message: &Outgoing) -> CancellationToken {
        let cancel = self.closing.child_token();
        if let Some(id) = &message.id {
            let entry = InFlight {
                cancel: cancel.clone(),
                modern: message.is_modern(),
            };
            self.state().in_flight.insert(id.clone(), entry);
        }
        cancel
    }

    fn unregister(&self, id: &RequestId) {
        self.state().in_flight.remove(id);
    }

    /// The first request: Streamable HTTP, or the HTTP+SSE fallback when the server
    /// refuses the POST the way an old server does.
    async fn probe(self: &Arc<Self>, message: Outgoing) {
        let Some(id) = message.id.clone() else { return };
        let cancel = self.register(&message);
        // Later messages wait for this answer's headers: bound the wait.
        let limit = self.options.request_timeout.unwrap_or(PROBE_TIMEOUT);
        let sent = tokio::select! {
            sent = tokio::time::timeout(limit, self.send_post(&message)) => sent.unwrap_or_else(|_| {
                Err(ErrorObject::new(code::INTERNAL_ERROR, format!("no answer from the server within {limit:?}")))
            }),
            _ = cancel.cancelled() => return self.unregister(&id),
        };
        let sent = match sent {
            Ok(sent) => sent,
            Err(error) => {
                // Nothing learned: the next request probes again.
                self.unregister(&id);
                return self.deliver_error(&id, error).await;
            }
        };
        let status = sent.response.status();
        let refused = matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        );
        if !(refused && self.options.legacy_sse_fallback) {
            self.state().mode = Mode::Streamable;
            return self.spawn_exchange(Arc::new(message), Some(sent), cancel);
        }
        let body = self.read_error_body(sent.response).await;
        let body_error = error_of(&body);
        let modern = body_error.as_ref().is_some_and(|e| {
            matches!(
                e.code,
                code::HEADER_MISMATCH
                    | code::MISSING_REQUIRED_CLIENT_CAPABILITY
                    | code::UNSUPPORTED_PROTOCOL_VERSION
                    | code::METHOD_NOT_FOUND
            )
        });
        if !modern {
            if let Some(endpoint) = self.open_legacy_sse().await {
                tracing::debug!(%endpoint, "the server speaks the HTTP+SSE transport (2024-11-05)");
                self.unregister(&id);
                self.state().mode = Mode::LegacySse {
                    endpoint: endpoint.clone(),
                };
                return self.send_legacy_sse(message, endpoint).await;
            }
        }
        self.state().mode = Mode::Streamable;
        self.unregister(&id);
        let error = body_error.unwrap_or_else(|| http_error(status, &body));
        self.deliver_error(&id, error).await;
    }

    /// Runs a request until its answer is delivered, it is cancelled, or the transport
    /// closes; a request that fails gets an error response.
    fn spawn_exchange(self: &Arc<Self>, message: Arc<Outgoing>, first: Option<Sent>, cancel: CancellationToken) {
        let shared = Arc::clone(self);
        let Some(id) = message.id.clone() else { return };
        tokio::spawn(async move {
            let outcome = tokio::select! {
                outcome = shared.exchange(&message, first) => Some(outcome),
                _ = cancel.cancelled() => None,
            };
            shared.unregister(&id);
            if let Some(Err(error)) = outcome {
                shared.deliver_error(&id, error).await;
            }
        });
    }

    /// POSTs a request and delivers what comes back, up to its final response. A modern
    /// `tools/call` refused with HeaderMismatch is retried once after a tool refresh.
    async fn exchange(&self, message: &Outgoing, mut first: Option<Sent>) -> Result<(), ErrorObject> {
        let mut refreshed = false;
        loop {
            let sent = match first.take() {
                Some(sent) => sent,
                None => self.send_post(message).await?,
            };
            let outcome = self.read_reply(message, sent, true).await;
            let mismatch = match &outcome {
                Ok(reply) => reply.error.as_ref().is_some_and(|e| e.code == code::HEADER_MISMATCH),
                Err(error) => error.code == code::HEADER_MISMATCH,
            };
            if mismatch && !refreshed && message.is_modern() && message.method() == methods::TOOLS_CALL {
                refreshed = true;
                if self.refresh_tools(message).await {
                    tracing::debug!(tool = ?message.name, "retrying a tools/call after a tool refresh");
                    continue;
                }
            }
            let reply = outcome?;
            self.learn_from(message, &reply);
            self.deliver(Frame::Message(reply.text)).await;
            return Ok(());
        }
    }

    /// Bookkeeping on a final response: the negotiated legacy version, tool schemas.
    fn learn_from(&self, message: &Outgoing, reply: &FinalResponse) {
        if reply.error.is_some() {
            return;
        }
        match message.method() {
            methods::INITIALIZE => {
                #[derive(Deserialize)]
                struct Initialized {
                    #[serde(rename = "protocolVersion")]
                    protocol_version: String,
                }
                if let Some(result) = result_of::<Initialized>(&reply.text) {
                    self.state().negotiated_version = HeaderValue::from_str(&result.protocol_version).ok();
                }
            }
            methods::TOOLS_LIST => {
                if let Some(page) = result_of::<ToolsPage>(&reply.text) {
                    self.remember_tools(page.tools);
                }
            }
            _ => {}
        }
    }

    fn remember_tools(&self, tools: Vec<ListedTool>) {
        let mut state = self.state();
        for tool in tools {
            match header_params(&tool.input_schema) {
                Ok(params) => {
                    state.tool_headers.insert(tool.name, params);
                }
                Err(_) => {
                    state.tool_headers.remove(&tool.name);
                }
            }
        }
    }

    /// Lists the tools again on behalf of `call` (with its `_meta`), without delivering
    /// anything. True when the whole list was read.
    async fn refresh_tools(&self, call: &Outgoing) -> bool {
        let meta = call.meta_for_follow_up();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_REFRESH_PAGES {
            let n = self.next_internal_id.fetch_add(1, Ordering::Relaxed);
            let id = RequestId::String(format!("oxmcp-http-tools-refresh-{n}").into());
            let mut params = Map::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), Value::String(cursor));
            }
            params.insert("_meta".into(), Value::Object(meta.clone()));
            let list = Outgoing::parse(jsonrpc::request_text(&id, methods::TOOLS_LIST, Some(&params)));
            let reply = match self.send_post(&list).await {
                Ok(sent) => self.read_reply(&list, sent, false).await,
                Err(error) => Err(error),
            };
            let page = match reply {
                Ok(FinalResponse { error: None, text }) => result_of::<ToolsPage>(&text),
                _ => None,
            };
            let Some(page) = page else { return false };
            self.remember_tools(page.tools);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return true,
            }
        }
        false
    }

    /// Builds and sends the POST of a message; resolves when the answer's headers arrive.
    async fn send_post(&self, message: &Outgoing) -> Result<Sent, ErrorObject> {
        let (headers, session) = {
            let state = self.state();
            let mut headers = body_headers(message, &state.tool_headers);
            let mut session = None;
            if !message.is_modern() && message.method() != methods::INITIALIZE {
                if let Some(id) = &state.session_id {
                    headers.push((HeaderName::from_static(names::SESSION_ID), id.clone()));
                    session = Some(id.clone());
                }
                if let Some(version) = &state.negotiated_version {
                    headers.push((HeaderName::from_static(names::PROTOCOL_VERSION), version.clone()));
                }
            }
            (headers, session)
        };
        let mut protocol = vec![
            (ACCEPT, HeaderValue::from_static(JSON_AND_SSE)),
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        ];
        protocol.extend(headers);
        let mut retries = 0;
        loop {
            let headers = self.headers(&Method::POST, &self.url, protocol.clone()).await;
            let request = self
                .http
                .post(self.url.clone())
                .headers(headers.clone())
                .body(message.body.clone());
            let response = self
                .within_request_timeout(request.send())
                .await?
                .map_err(|e| transport_error(&e))?;
            let status = response.status();
            let refused = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
            match &self.options.authorizer {
                Some(authorizer) if refused && retries < AUTHORIZATION_RETRIES => {
                    let sent = headers.get(AUTHORIZATION);
                    match authorizer.refused(&self.url, status, response.headers(), sent).await {
                        Ok(true) => retries += 1,
                        Ok(false) => return Ok(Sent { response, session }),
                        Err(e) => {
                            return Err(ErrorObject::new(
                                code::INTERNAL_ERROR,
                                format!("HTTP {status}: authorization failed: {e}"),
                            ))
                        }
                    }
                }
                _ => return Ok(Sent { response, session }),
            }
        }
    }

    /// Reads the answer of a request up to its final response, which it returns without
    /// delivering; what comes before it is delivered when `forward` is set.
    async fn read_reply(&self, message: &Outgoing, sent: Sent, forward: bool) -> Result<FinalResponse, ErrorObject> {
        let Sent { response, session } = sent;
        let Some(id) = message.id.as_ref() else {
            return Err(ErrorObject::internal("not a request"));
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && session.is_some() {
            self.session_gone(session.as_ref());
            return Err(session_expired());
        }
        if !status.is_success() {
            let body = self.read_error_body(response).await;
            return Err(error_of(&body).unwrap_or_else(|| http_error(status, &body)));
        }
        if message.method() == methods::INITIALIZE {
            self.start_session(response.headers().get(names::SESSION_ID).cloned());
        }
        if is_event_stream(&response) {
            return self.read_event_stream(message, response, forward).await;
        }
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                format!("HTTP {status}: the server accepted the request but sent no response"),
            ));
        }
        let body = self.read_body(response).await?;
        match classify(id, body) {
            Classified::Final(reply) => Ok(reply),
            Classified::StrayError(error, _) => Err(error),
            Classified::Other(text) => {
                if forward && !text.trim_ascii().is_empty() {
                    self.deliver(Frame::Message(text)).await;
                }
                Err(ErrorObject::new(
                    code::INTERNAL_ERROR,
                    "the server's JSON answer held no response to the request",
                ))
            }
        }
    }

    /// Reads an SSE answer up to the request's final response; in the legacy era a
    /// stream that breaks first is resumed with `Last-Event-ID`.
    async fn read_event_stream(
        &self,
        message: &Outgoing,
        response: Response,
        forward: bool,
    ) -> Result<FinalResponse, ErrorObject> {
        let Some(id) = message.id.as_ref() else {
            return Err(ErrorObject::internal("not a request"));
        };
        let mut parser = SseParser::new(self.options.max_message_size);
        let mut items = Vec::new();
        let mut response = response;
        let mut failures = 0u32;
        loop {
            let mut body = response.bytes_stream();
            let ended = loop {
                let chunk = match body.next().await {
                    Some(Ok(chunk)) => chunk,
                    Some(Err(e)) => break format!("the response stream broke: {e}"),
                    None => break "the server ended the response stream before the response".to_owned(),
                };
                parser.feed(&chunk, &mut items);
                for item in items.drain(..) {
                    failures = 0;
                    let data = match item {
                        SseItem::Event(event) if event.event == "message" && !event.data.is_empty() => event.data,
                        SseItem::Event(_) => continue,
                        SseItem::Oversized => {
                            if forward {
                                self.deliver(self.oversized()).await;
                            }
                            continue;
                        }
                    };
                    match classify(id, data) {
                        Classified::Final(reply) => return Ok(reply),
                        Classified::StrayError(_, text) | Classified::Other(text) if forward => {
                            self.deliver(Frame::Message(text)).await
                        }
                        Classified::StrayError(..) | Classified::Other(_) => {}
                    }
                }
            };
            let resumable = !message.is_modern() && matches!(self.state().mode, Mode::Streamable);
            let last_event_id = match parser.last_event_id() {
                Some(last) if resumable => last.to_owned(),
                _ => return Err(ErrorObject::new(code::INTERNAL_ERROR, ended)),
            };
            tracing::debug!(%last_event_id, reason = %ended, "resuming a response stream");
            response = loop {
                failures += 1;
                if failures > self.options.reconnect.attempts {
                    return Err(ErrorObject::new(
                        code::INTERNAL_ERROR,
                        format!("{ended}; resuming it failed {} times", failures - 1),
                    ));
                }
                tokio::time::sleep(self.options.reconnect.delay(failures, parser.retry())).await;
                match self.open_get_stream(Some(&last_event_id)).await {
                    Ok(response) => break response,
                    Err(GetFailure::Fatal(error)) => return Err(error),
                    Err(GetFailure::Retry(reason)) => tracing::debug!(%reason, "resuming failed"),
                }
            };
            parser.reconnected();
        }
    }

    /// A GET of the MCP endpoint for an SSE stream (legacy era): the standalone stream,
    /// or the resumption of a broken one after `last_event_id`.
    async fn open_get_stream(&self, last_event_id: Option<&str>) -> Result<Response, GetFailure> {
        let (session, version) = {
            let state = self.state();
            (state.session_id.clone(), state.negotiated_version.clone())
        };
        let mut protocol = vec![(ACCEPT, HeaderValue::from_static(EVENT_STREAM))];
        if let Some(session) = &session {
            protocol.push((HeaderName::from_static(names::SESSION_ID), session.clone()));
        }
        if let Some(version) = version {
            protocol.push((HeaderName::from_static(names::PROTOCOL_VERSION), version));
        }
        if let Some(last) = last_event_id.and_then(|last| HeaderValue::from_str(last).ok()) {
            protocol.push((HeaderName::from_static(names::LAST_EVENT_ID), last));
        }
        let request = self
            .http
            .get(self.url.clone())
            .headers(self.headers(&Method::GET, &self.url, protocol).await);
        let response = match self.within_request_timeout(request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Err(GetFailure::Retry(e.to_string())),
            Err(error) => return Err(GetFailure::Retry(error.message)),
        };
        let status = response.status();
        if status.is_success() && is_event_stream(&response) {
            return Ok(response);
        }
        if status == StatusCode::NOT_FOUND && session.is_some() {
            self.session_gone(session.as_ref());
            return Err(GetFailure::Fatal(session_expired()));
        }
        let body = self.read_error_body(response).await;
        let error = error_of(&body).unwrap_or_else(|| http_error(status, &body));
        // 409: the server still holds the previous connection of the stream.
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::CONFLICT {
            Err(GetFailure::Retry(error.message))
        } else {
            Err(GetFailure::Fatal(error))
        }
    }

    /// Opens the legacy GET stream once the session is initialized (a server without
    /// one answers 405, which ends the attempt).
    /// The receiver resolves once the first GET is answered (or failed).
    fn start_listener(self: &Arc<Self>) -> Option<oneshot::Receiver<()>> {
        let token = {
            let mut state = self.state();
            if !matches!(state.mode, Mode::Streamable) || state.negotiated_version.is_none() {
                return None;
            }
            let token = self.closing.child_token();
            if let Some(old) = state.listener.replace(token.clone()) {
                old.cancel();
            }
            token
        };
        let shared = Arc::clone(self);
        let (opened, opened_rx) = oneshot::channel();
        tokio::spawn(async move {
            tokio::select! {
                _ = shared.listen(opened) => {}
                _ = token.cancelled() => {}
            }
        });
        Some(opened_rx)
    }

    /// Reads the GET stream, reconnecting with `Last-Event-ID` when it breaks; gives up
    /// after the configured number of attempts without an event in between.
    async fn listen(&self, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut parser = SseParser::new(self.options.max_message_size);
        let mut items = Vec::new();
        let mut failures = 0u32;
        loop {
            let last = parser.last_event_id().map(str::to_owned);
            let attempt = self.open_get_stream(last.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match attempt {
                Ok(response) => {
                    parser.reconnected();
                    let mut body = response.bytes_stream();
                    while let Some(Ok(chunk)) = body.next().await {
                        parser.feed(&chunk, &mut items);
                        for item in items.drain(..) {
                            failures = 0;
                            match item {
                                SseItem::Event(event) if event.event == "message" && !event.data.is_empty() => {
                                    self.deliver(Frame::Message(event.data)).await;
                                }
                                SseItem::Event(_) => {}
                                SseItem::Oversized => self.deliver(self.oversized()).await,
                            }
                        }
                    }
                }
                Err(GetFailure::Fatal(error)) => {
                    tracing::debug!(%error, "no GET stream");
                    return;
                }
                Err(GetFailure::Retry(reason)) => tracing::debug!(%reason, "the GET stream failed"),
            }
            failures += 1;
            if failures > self.options.reconnect.attempts {
                tracing::warn!("gave up reconnecting the GET stream");
                return;
            }
            tokio::time::sleep(self.options.reconnect.delay(failures, parser.retry())).await;
        }
    }

    /// A new legacy session begins (an `initialize` was answered).
    fn start_session(&self, id: Option<HeaderValue>) {
        let mut state = self.state();
        state.session_id = id;
        state.negotiated_version = None;
        if let Some(listener) = state.listener.take() {
            listener.cancel();
        }
    }

    /// The server said the session is over (404): forget it, unless a newer one began.
    fn session_gone(&self, sent: Option<&HeaderValue>) {
        let mut state = self.state();
        if state.session_id.as_ref() == sent {
            tracing::debug!("the server ended the session");
            state.session_id = None;
            if let Some(listener) = state.listener.take() {
                listener.cancel();
            }
        }
    }

    /// `notifications/cancelled`: the modern era closes the request's stream (that is
    /// the cancellation); the legacy era sends the notification, then stops reading.
    async fn cancel(&self, message: Outgoing) {
        let target = message.cancel_target.as_ref().and_then(|id| {
            let state = self.state();
            state
                .in_flight
                .get(id)
                .map(|entry| (entry.cancel.clone(), entry.modern))
        });
        match target {
            Some((cancel, true)) => cancel.cancel(),
            Some((cancel, false)) => {
                self.post_one_way(&message).await;
                cancel.cancel();
            }
            // Already answered: nothing to stop.
            None => {}
        }
    }

    /// POSTs a notification or response; the server answers 202.
    async fn post_one_way(&self, message: &Outgoing) {
        let outcome = tokio::time::timeout(self.options.request_timeout.unwrap_or(ONE_WAY_TIMEOUT), async {
            let Sent { response, session } = self.send_post(message).await?;
            let status = response.status();
            if status == StatusCode::NOT_FOUND && session.is_some() {
                self.session_gone(session.as_ref());
                return Err(session_expired());
            }
            let body = self.read_error_body(response).await;
            if status.is_success() {
                Ok(())
            } else {
                Err(error_of(&body).unwrap_or_else(|| http_error(status, &body)))
            }
        })
        .await;
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(method = message.method(), %error, "the server refused a message"),
            Err(_) => tracing::warn!(method = message.method(), "sending a message timed out"),
        }
    }

    /// Ends the transport: stops every stream and request, and ends the legacy session.
    async fn close(&self) {
        self.closing.cancel();
        let (session, version, mode) = {
            let mut state = self.state();
            (
                state.session_id.take(),
                state.negotiated_version.clone(),
                state.mode.clone(),
            )
        };
        let Some(session) = session.filter(|_| matches!(mode, Mode::Streamable)) else {
            return;
        };
        let mut protocol = vec![(HeaderName::from_static(names::SESSION_ID), session)];
        if let Some(version) = version {
            protocol.push((HeaderName::from_static(names::PROTOCOL_VERSION), version));
        }
        let request = self
            .http
            .delete(self.url.clone())
            .headers(self.headers(&Method::DELETE, &self.url, protocol).await);
        match tokio::time::timeout(DELETE_TIMEOUT, request.send()).await {
            Ok(Ok(response)) => tracing::debug!(status = %response.status(), "ended the session"),
            Ok(Err(e)) => tracing::debug!(error = %e, "ending the session failed"),
            Err(_) => tracing::debug!("ending the session timed out"),
        }
    }

    /// The headers of one HTTP request: the configured ones, then `protocol` (which
    /// replace configured ones of the same name), then the authorization of a request to
    /// `url` with `method`, if any.
    async fn headers(&self, method: &Method, url: &Url, protocol: Vec<(HeaderName, HeaderValue)>) -> HeaderMap {
        let mut headers = self.options.headers.clone();
        for (name, value) in protocol {
            headers.insert(name, value);
        }
        if let Some(authorizer) = &self.options.authorizer {
            headers.extend(authorizer.authorization(method, url).await);
        } else if let Some(source) = &self.options.bearer_token {
            let token = source().await;
            match token.map(|token| HeaderValue::try_from(format!("Bearer {token}"))) {
                Some(Ok(mut value)) => {
                    value.set_sensitive(true);
                    headers.insert(AUTHORIZATION, value);
                }
                Some(Err(_)) => tracing::warn!("the bearer token is not a valid header value; sent none"),
                None => {}
            }
        }
        headers
    }

    async fn within_request_timeout<T>(&self, future: impl Future<Output = T>) -> Result<T, ErrorObject> {
        match self.options.request_timeout {
            Some(limit) => tokio::time::timeout(limit, future)
                .await
                .map_err(|_| ErrorObject::new(code::INTERNAL_ERROR, format!("HTTP request timed out after {limit:?}"))),
            None => Ok(future.await),
        }
    }

    /// Reads a JSON answer, at most `max_message_size` bytes of it.
    async fn read_body(&self, response: Response) -> Result<Bytes, ErrorObject> {
        let limit = self.options.max_message_size;
        match self.within_request_timeout(read_limited(response, limit)).await? {
            Ok(Some(body)) => Ok(body),
            Ok(None) => Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                format!("the server's answer is larger than the {limit}-byte limit"),
            )),
            Err(e) => Err(transport_error(&e)),
        }
    }

    /// Reads (the start of) an error body; empty when it cannot be read.
    async fn read_error_body(&self, response: Response) -> Bytes {
        let read = tokio::time::timeout(
            self.options.request_timeout.unwrap_or(ONE_WAY_TIMEOUT),
            read_limited(response, ERROR_BODY_LIMIT),
        );
        match read.await {
            Ok(Ok(Some(body))) => body,
            _ => Bytes::new(),
        }
    }

    fn oversized(&self) -> Frame {
        Frame::Oversized {
            limit: self.options.max_message_size,
        }
    }

    /// Hands a frame to the connection (dropped when the connection is gone).
    async fn deliver(&self, frame: Frame) {
        let _ = self.frames.send(Ok(frame)).await;
    }

    /// Answers a request with an error response, so that its caller never hangs.
    async fn deliver_error(&self, id: &RequestId, error: ErrorObject) {
        tracing::debug!(%id, %error, "a request failed on the HTTP transport");
        let text = jsonrpc::error_text(Some(id), &error);
        self.deliver(Frame::Message(Bytes::from(text))).await;
    }
}

#[derive(Deserialize)]
struct ToolsPage {
    #[serde(default)]
    tools: Vec<ListedTool>,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct ListedTool {
    name: String,
    #[serde(default, rename = "inputSchema")]
    input_schema: Map<String, Value>,
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(EVENT_STREAM))
}

/// The whole body, or `None` when it passes `limit` bytes.
async fn read_limited(mut response: Response, limit: usize) -> reqwest::Result<Option<Bytes>> {
    let mut body = BytesMut::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body.freeze()))
}

/// The error for an HTTP failure whose body is no JSON-RPC error.
fn http_error(status: StatusCode, body: &[u8]) -> ErrorObject {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let text = text.trim();
    let message = if text.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {text}")
    };
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

fn transport_error(error: &reqwest::Error) -> ErrorObject {
    // reqwest's Display hides the cause (e.g. "connection refused"); keep the chain.
    let mut message = format!("HTTP request failed: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

fn session_expired() -> ErrorObject {
    ErrorObject::new(
        code::INTERNAL_ERROR,
        "HTTP 404: the server ended the session; initialize again to start a new one",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_honours_retry() {
        let backoff = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(500),
            attempts: 5,
        };
        let delays: Vec<u128> = (1..=5).map(|a| backoff.delay(a, None).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 500, 500]);
        let retry = Some(Duration::from_millis(300));
        let delays: Vec<u128> = (1..=4).map(|a| backoff.delay(a, retry).as_millis()).collect();
        assert_eq!(delays, [300, 300, 400, 500]);
        // Never a tight loop, even when the server asks for none.
        assert_eq!(backoff.delay(1, Some(Duration::ZERO)), MIN_RECONNECT_DELAY);
        assert_eq!(backoff.delay(u32::MAX, None), Duration::from_millis(500));
    }

    #[tokio::test]
    async fn rejects_urls_that_are_not_http() {
        for url in ["not a url", "ftp://example.com/mcp", "file:///tmp/mcp"] {
            assert_eq!(
                connect(HttpClientOptions::new(url)).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
        }
    }

    #[test]
    fn needs_a_runtime() {
        assert!(connect(HttpClientOptions::new("http://127.0.0.1:1/mcp")).is_err());
    }
}
