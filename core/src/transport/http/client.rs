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
//! - The transport never reads what it sends: the connection hands it each message's
//!   [`Envelope`](crate::transport::Envelope) (request, notification, cancellation or
//!   response; the protocol version; the MCP headers computed by
//!   [`request_headers`](crate::protocol::headers::request_headers), which the server
//!   checks with the same function). A message without one is POSTed as is, one way.
//! - Modern era (a message sent under a 2026-07-28 version): `MCP-Protocol-Version`,
//!   `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of the tool's `x-mcp-header`
//!   parameters as the client last listed them (it re-lists the tools and retries a call
//!   refused with HeaderMismatch). A `notifications/cancelled` closes the request's
//!   response stream instead of being sent.
//! - Legacy era: `Mcp-Session-Id` from the `initialize` answer and the negotiated
//!   `MCP-Protocol-Version` (from the envelopes) on every later request; the GET stream
//!   once initialized; a broken SSE stream resumed with `Last-Event-ID`, honouring
//!   `retry:` and a bounded exponential back-off; HTTP 404 for the session ends it
//!   (errors for the request, and the next `initialize` starts a new one); DELETE of the
//!   session on close.
//! - The first request decides the transport: when the server refuses it with 400, 404 or
//!   405 and a body that is no modern JSON-RPC error, a GET of the same URL that opens an
//!   SSE stream starting with an `endpoint` event switches to HTTP+SSE.
//! - A request never hangs on the transport: an HTTP error, a connection failure or a
//!   stream that ends early becomes a JSON-RPC error response for that request's id.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::Sink;
pub use reqwest::header::{HeaderName, HeaderValue};
pub use reqwest::Certificate;
use reqwest::Url;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::{CancellationToken, PollSender, WaitForCancellationFutureOwned};

mod authorization;
mod body;
mod error;
mod get_stream;
mod legacy_sse;
mod message;
mod options;
mod post;
mod reconnect;
mod session;

pub use self::authorization::{HttpAuthorizer, TokenSource};
pub use self::error::HTTP_STATUS_KEY;
pub use self::options::HttpClientOptions;
use self::options::TlsTrust;

use self::error::closed_error;
use self::message::Outgoing;
use crate::protocol::jsonrpc;
use crate::protocol::{code, methods, ErrorObject, RequestId};
use crate::transport::{Frame, MessageKind, OutgoingMessage, Transport};

/// How many messages may wait in each direction.
const CHANNEL_CAPACITY: usize = 1024;
/// How long a POST of a notification or response, and the DELETE on close, may take
/// when no request timeout is set.
const ONE_WAY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long messages after `notifications/initialized` wait for the GET stream to open.
const GET_STREAM_WAIT: Duration = Duration::from_secs(5);
const EVENT_STREAM: &str = "text/event-stream";

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
    let trusting = match &options.tls {
        TlsTrust::Platform(extra) => super::tls::client_builder().tls_certs_merge(extra.iter().cloned()),
        TlsTrust::Only(roots) => reqwest::Client::builder().tls_certs_only(roots.iter().cloned()),
        TlsTrust::Anything => reqwest::Client::builder().tls_danger_accept_invalid_certs(true),
    };
    let http = trusting
        .tcp_nodelay(true)
        .connect_timeout(options.connect_timeout)
        .pool_idle_timeout(Duration::from_secs(90))
        .build()
        .map_err(io::Error::other)?;
    let (frames, incoming) = mpsc::channel(CHANNEL_CAPACITY);
    let (outgoing, queue) = mpsc::channel::<OutgoingMessage>(CHANNEL_CAPACITY);
    let shared = Arc::new(Shared {
        http,
        url,
        options,
        frames,
        state: Mutex::new(State::default()),
        closing: CancellationToken::new(),
    });
    let closed = CancellationToken::new();
    runtime.spawn(drive(shared, queue, closed.clone()));
    let incoming = ReceiverStream::new(incoming);
    let outgoing = OutgoingSink {
        queue: PollSender::new(outgoing),
        closed: Box::pin(closed.cancelled_owned()),
    };
    Ok(Transport::with_message_sink(incoming, outgoing))
}

/// The outgoing side: a queue to the driver. Closing it resolves once the transport has
/// shut down (the legacy session deleted), so a caller that awaits the close knows the
/// server was told.
struct OutgoingSink {
    queue: PollSender<OutgoingMessage>,
    closed: Pin<Box<WaitForCancellationFutureOwned>>,
}

impl Sink<OutgoingMessage> for OutgoingSink {
    type Error = io::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.queue.poll_reserve(cx).map_err(|_| closed_error())
    }

    fn start_send(mut self: Pin<&mut Self>, message: OutgoingMessage) -> io::Result<()> {
        self.queue.send_item(message).map_err(|_| closed_error())
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.queue.close();
        self.closed.as_mut().poll(cx).map(Ok)
    }
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

/// What the transport remembers between messages.
#[derive(Default)]
struct State {
    mode: Mode,
    /// The legacy session, from the `initialize` answer.
    session_id: Option<HeaderValue>,
    /// Whether the server said it no longer knows the session (404): until the next
    /// `initialize`, requests fail as that request did, unsent.
    session_lost: bool,
    /// The session's legacy version, from the envelope of `notifications/initialized`:
    /// the GET stream and the DELETE carry it too.
    session_version: Option<HeaderValue>,
    /// Requests awaiting their answer, by id.
    in_flight: HashMap<RequestId, InFlight>,
    /// Stops the legacy GET stream.
    listener: Option<CancellationToken>,
}

/// A request awaiting its answer: what stops it, and its era.
struct InFlight {
    cancel: CancellationToken,
    modern: bool,
}

/// What the driver and the tasks of one transport share.
struct Shared {
    http: reqwest::Client,
    url: Url,
    options: HttpClientOptions,
    /// Incoming frames, to the connection.
    frames: mpsc::Sender<io::Result<Frame>>,
    state: Mutex<State>,
    /// Fires when the transport closes: every task stops.
    closing: CancellationToken,
}

/// Sends queued messages until the connection closes the sink, then shuts the
/// transport down and fires `closed`.
async fn drive(shared: Arc<Shared>, mut queue: mpsc::Receiver<OutgoingMessage>, closed: CancellationToken) {
    let _closed = closed.drop_guard();
    while let Some(message) = queue.recv().await {
        shared.dispatch(Outgoing::from(message)).await;
    }
    shared.close().await;
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state holds no invariant a panic could break.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends one outgoing message the way the settled mode and the message's kind want.
    async fn dispatch(self: &Arc<Self>, message: Outgoing) {
        let mode = self.state().mode.clone();
        if let Mode::LegacySse { endpoint } = mode {
            return self.send_legacy_sse(message, endpoint).await;
        }
        match &message.envelope.kind {
            MessageKind::Request { .. } if matches!(mode, Mode::Probing) => self.probe(message).await,
            MessageKind::Request { .. } => {
                let message = Arc::new(message);
                let cancel = self.register(&message);
                self.spawn_exchange(message, None, cancel);
            }
            MessageKind::Cancellation { request } => {
                let request = request.clone();
                self.cancel(&request, message).await;
            }
            _ => {
                self.post_one_way(&message).await;
                if message.method() == methods::INITIALIZED {
                    if let Some(opened) = self.start_listener(message.envelope.version) {
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
        if let Some(id) = message.envelope.request_id() {
            let entry = InFlight {
                cancel: cancel.clone(),
                modern: message.envelope.is_modern(),
            };
            self.state().in_flight.insert(id.clone(), entry);
        }
        cancel
    }

    /// Forgets a request that is answered or stopped.
    fn unregister(&self, id: &RequestId) {
        self.state().in_flight.remove(id);
    }

    /// Bounds `future` by the configured request timeout, when there is one.
    async fn within_request_timeout<T>(&self, future: impl Future<Output = T>) -> Result<T, ErrorObject> {
        match self.options.request_timeout {
            Some(limit) => tokio::time::timeout(limit, future)
                .await
                .map_err(|_| ErrorObject::new(code::INTERNAL_ERROR, format!("HTTP request timed out after {limit:?}"))),
            None => Ok(future.await),
        }
    }

    /// The frame that stands for a message over the size limit.
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

#[cfg(test)]
mod tests {
    use super::*;

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
