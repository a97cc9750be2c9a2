//! The endpoint without a listener, for hosts that bring their own HTTP server: an ASGI
//! app in Python, a `fetch`-style handler in Node, an axum app in Rust. The host hands
//! each request to an [`HttpExchange`] (head first, then its body as it arrives) and
//! streams the answer back chunk by chunk; everything between is the endpoint's.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::Router;
use futures::FutureExt;
use http::{HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::service::Service;
use hyper_util::service::TowerToHyperService;
use tokio::sync::{mpsc, Mutex};
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tokio_util::task::{task_tracker::TaskTrackerToken, AbortOnDropHandle, TaskTracker};

use super::auth::HostCaller;
use super::endpoint::Endpoint;
use super::{ConfigError, HostedSse, HttpConfig};
use crate::server::auth::AccessToken;
use crate::server::Server;

/// How many chunks of a request body wait for the endpoint to read them; past that the
/// host waits too, so that a large body is never held whole in memory before its limit
/// is checked.
const BODY_CHUNKS_QUEUED: usize = 4;

impl Server {
    /// The HTTP endpoint for a host that brings its own HTTP server. Must be called inside
    /// a tokio runtime. Connection limits are the host's; the body limit and timeout, the
    /// Origin/Host checks, sessions and everything else are the endpoint's, as under
    /// [`bind_http`](Server::bind_http).
    ///
    /// A resource server ([`HttpConfig::auth`]) needs its resource URL set: the endpoint
    /// cannot know where the host serves it.
    pub fn http_endpoint(&self, config: HttpConfig) -> Result<HttpEndpoint, ConfigError> {
        let endpoint = Endpoint::new(self.clone(), config, None)?;
        Ok(HttpEndpoint {
            router: Arc::clone(&endpoint).router(),
            endpoint,
            exchanges: TaskTracker::new(),
            aborting: CancellationToken::new(),
        })
    }
}

/// The endpoint served by a host: each request is an [`HttpExchange`]; [`shutdown`](Self::shutdown)
/// ends it. Clones share the endpoint.
#[derive(Clone)]
pub struct HttpEndpoint {
    endpoint: Arc<Endpoint>,
    router: Router,
    /// The exchanges not yet answered in full, which shutdown lets finish.
    exchanges: TaskTracker,
    /// Cancelled past the shutdown deadline: every exchange ends.
    aborting: CancellationToken,
}

/// A request's method, path (with its query) and headers, as the host received them.
#[derive(Debug, Clone)]
pub struct RequestHead {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path within the endpoint's host (a host mounting it under a prefix strips the
    /// prefix), with `?query` when there is one.
    pub path_and_query: String,
    /// The headers, in order, names in any case.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The caller, when the host authenticated the request itself (the bearer middleware
    /// of an Express or Starlette app, say): on an open endpoint, handlers see it as the
    /// request's verified token ([`Context::access_token`](crate::server::Context::access_token)),
    /// and a legacy session opened this way serves only the same principal. An endpoint
    /// with a resource server of its own ([`HttpConfig::auth`]) checks the request's token
    /// itself and does not take the host's word.
    pub caller: Option<AccessToken>,
    /// The client's address, when the host knows it (handlers read it as
    /// [`HttpRequest::peer`](super::HttpRequest::peer)).
    pub peer: Option<SocketAddr>,
}

/// The status and headers of an answer, with the start of its body already there: a
/// host sends a JSON answer whole without asking for chunks, and an SSE stream's first
/// events with its head.
#[derive(Debug, Clone)]
pub struct ResponseHead {
    /// The HTTP status.
    pub status: u16,
    /// The headers, in order, names lower-case.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The chunks of body ready when the head was.
    pub ready: Vec<Bytes>,
    /// Whether `ready` is the whole body ([`HttpExchange::next_chunk`] then gives nothing).
    pub ended: bool,
}

impl HttpEndpoint {
    /// The endpoint's routes, to merge into an axum app. Requests served this way are not
    /// counted by [`shutdown`](Self::shutdown), which still ends their sessions.
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    /// Starts answering one request. The endpoint reads its body from what
    /// [`HttpExchange::send_body`] gives, until [`HttpExchange::end_body`]. A head that is
    /// not a valid HTTP request (an unknown method, a malformed header) is answered 400
    /// without reaching the endpoint.
    pub fn exchange(&self, head: RequestHead) -> HttpExchange {
        self.start(head, |request| request)
    }

    /// Opens the stream of an HTTP+SSE session the host named ([`HostedSse`]), with the
    /// headers of `head` (its method and path are not read: this is the session's GET
    /// `/sse`). The endpoint must serve HTTP+SSE ([`HttpConfig::legacy_sse`]; 404
    /// otherwise); 409 when the id is taken. The session ends with the stream: cancel the
    /// exchange to end it.
    pub fn open_hosted_sse(&self, head: RequestHead, hosted: HostedSse) -> HttpExchange {
        let head = RequestHead {
            method: "GET".to_owned(),
            path_and_query: "/sse".to_owned(),
            ..head
        };
        self.start(head, |mut request| {
            request.extensions_mut().insert(hosted);
            request
        })
    }

    /// Starts answering the request `head` describes, as `prepare` leaves it.
    fn start(&self, head: RequestHead, prepare: impl FnOnce(Request<Body>) -> Request<Body>) -> HttpExchange {
        let (body, chunks) = mpsc::channel(BODY_CHUNKS_QUEUED);
        let cancelled = self.aborting.child_token();
        let answer = match request(head, chunks) {
            Ok(request) => {
                let request = prepare(request);
                let service = TowerToHyperService::new(self.router.clone());
                let cancelled = cancelled.clone();
                let answer = tokio::spawn(async move {
                    tokio::select! {
                        answer = service.call(request) => match answer {
                            Ok(response) => Some(response),
                            Err(never) => match never {},
                        },
                        () = cancelled.cancelled() => None,
                    }
                });
                Answer::Pending(AbortOnDropHandle::new(answer))
            }
            Err(_) => Answer::Ready(bad_request()),
        };
        HttpExchange {
            body: std::sync::Mutex::new(Some(body)),
            answer: Mutex::new(answer),
            cancelled,
            in_flight: std::sync::Mutex::new(Some(self.exchanges.token())),
        }
    }

    /// Stops serving: streams that only wait for events end, exchanges in flight may finish
    /// until the config's [`shutdown_timeout`](HttpConfig::shutdown_timeout), then every
    /// session ends and every request still running is cancelled.
    pub async fn shutdown(&self) {
        self.endpoint.begin_close();
        self.exchanges.close();
        let deadline = self.endpoint.config.shutdown_timeout;
        if tokio::time::timeout(deadline, self.exchanges.wait()).await.is_err() {
            tracing::debug!("shutdown deadline reached: cancelling the requests still in flight");
        }
        self.endpoint.end_all();
        self.aborting.cancel();
    }
}

/// One request on its way through the endpoint. Every method takes `&self`, so that the
/// host may feed the body, wait for the answer and cancel from different tasks.
pub struct HttpExchange {
    body: std::sync::Mutex<Option<mpsc::Sender<io::Result<Bytes>>>>,
    answer: Mutex<Answer>,
    /// The client went away, or the endpoint shut down: the answer is dropped, which
    /// cancels its request.
    cancelled: CancellationToken,
    /// Held until the answer ends, for [`HttpEndpoint::shutdown`].
    in_flight: std::sync::Mutex<Option<TaskTrackerToken>>,
}

/// Where the answer of an exchange is.
enum Answer {
    /// The endpoint is still deciding it (`None` once cancelled).
    Pending(AbortOnDropHandle<Option<Response<Body>>>),
    /// Decided; its head not yet taken.
    Ready(Response<Body>),
    /// Its head taken: the body is streaming.
    Streaming(Body),
    /// Over (or cancelled).
    Done,
}

impl HttpExchange {
    /// Gives the endpoint the next chunk of the request body. False when it reads no more
    /// (it answered already, e.g. 413 past the body limit): the host may stop reading.
    pub async fn send_body(&self, chunk: Bytes) -> bool {
        let sender = crate::lock(&self.body).clone();
        match sender {
            Some(sender) => sender.send(Ok(chunk)).await.is_ok(),
            None => false,
        }
    }

    /// The request body is complete.
    pub fn end_body(&self) {
        crate::lock(&self.body).take();
    }

    /// The answer's status and headers, once the endpoint decided them; `None` if the
    /// exchange was cancelled first.
    pub async fn response(&self) -> Option<ResponseHead> {
        let mut answer = self.answer.lock().await;
        if let Answer::Pending(pending) = &mut *answer {
            *answer = match pending.await {
                Ok(Some(response)) => Answer::Ready(response),
                Ok(None) => Answer::Done,
                // A panic while answering is the endpoint's bug; the client gets a plain 500.
                Err(_) => Answer::Ready(internal_error()),
            };
        }
        match std::mem::replace(&mut *answer, Answer::Done) {
            Answer::Ready(response) => {
                let (parts, mut body) = response.into_parts();
                let (ready, ended) = ready_chunks(&mut body);
                if ended {
                    crate::lock(&self.in_flight).take();
                } else {
                    *answer = Answer::Streaming(body);
                }
                let headers = parts
                    .headers
                    .iter()
                    .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                    .collect();
                Some(ResponseHead {
                    status: parts.status.as_u16(),
                    headers,
                    ready,
                    ended,
                })
            }
            _ => None,
        }
    }

    /// The answer's next chunk of body, after [`response`](Self::response); `None` once it
    /// ended or the exchange was cancelled.
    pub async fn next_chunk(&self) -> Option<Bytes> {
        let mut answer = self.answer.lock().await;
        loop {
            let Answer::Streaming(body) = &mut *answer else {
                return None;
            };
            let frame = tokio::select! {
                frame = body.frame() => frame,
                () = self.cancelled.cancelled() => None,
            };
            match frame {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if !data.is_empty() => return Some(data),
                    // Trailers and empty chunks carry nothing a host sends.
                    _ => continue,
                },
                _ => {
                    *answer = Answer::Done;
                    crate::lock(&self.in_flight).take();
                    return None;
                }
            }
        }
    }

    /// Gives the endpoint the whole request body at once, as the first and only chunk: taken
    /// without waiting, as there is room for one chunk before any is read.
    pub fn send_whole_body(&self, body: Bytes) {
        if let Some(sender) = crate::lock(&self.body).take() {
            // Full is impossible for a first chunk; closed means the endpoint answered already.
            let _ = sender.try_send(Ok(body));
        }
    }

    /// The client went away: the answer is dropped, which cancels a request it was
    /// waiting for, and pending calls return at once.
    pub fn cancel(&self) {
        self.cancelled.cancel();
        self.end_body();
        // Dropped here unless a call holds it, which then sees the cancellation and drops it.
        if let Ok(mut answer) = self.answer.try_lock() {
            *answer = Answer::Done;
        }
        crate::lock(&self.in_flight).take();
    }
}

/// The chunks of `body` there already, and whether they are all of it.
fn ready_chunks(body: &mut Body) -> (Vec<Bytes>, bool) {
    let mut ready = Vec::new();
    loop {
        match body.frame().now_or_never() {
            Some(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    if !data.is_empty() {
                        ready.push(data);
                    }
                }
            }
            // The end, or a failure, which ends the body as well.
            Some(None | Some(Err(_))) => return (ready, true),
            None => return (ready, false),
        }
    }
}

/// The request the router serves, its body read from `chunks`.
fn request(head: RequestHead, chunks: mpsc::Receiver<io::Result<Bytes>>) -> Result<Request<Body>, http::Error> {
    let mut builder = Request::builder()
        .method(Method::from_bytes(head.method.as_bytes())?)
        .uri(head.path_and_query);
    for (name, value) in head.headers {
        builder = builder.header(HeaderName::from_bytes(&name)?, HeaderValue::from_bytes(&value)?);
    }
    if let Some(caller) = head.caller {
        builder = builder.extension(HostCaller(Arc::new(caller)));
    }
    if let Some(peer) = head.peer {
        builder = builder.extension(ConnectInfo(peer));
    }
    builder.body(Body::from_stream(ReceiverStream::new(chunks)))
}

/// The answer to a head that is not a valid HTTP request.
fn bad_request() -> Response<Body> {
    plain(StatusCode::BAD_REQUEST)
}

/// The answer when answering failed inside the endpoint.
fn internal_error() -> Response<Body> {
    plain(StatusCode::INTERNAL_SERVER_ERROR)
}

/// An answer with `status` and no body.
fn plain(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}
