//! The HTTP endpoint inside a JavaScript web app: the core's [`HttpEndpoint`], which the
//! facade's `fetch` and Node handlers hand each request to. JavaScript reads the request
//! from the framework and writes the answer back; the core does everything between.

use std::net::SocketAddr;
use std::sync::Arc;

use napi::bindgen_prelude::{within_runtime_if_available, Buffer};
use napi_derive::napi;

use oxmcp::server::http::{HostedSse, HttpEndpoint, HttpExchange, RequestHead};

use crate::auth::HostCaller;
use crate::error::invalid;

/// The endpoint of one server, served by the web app that mounts it.
#[napi]
pub struct NativeHttpEndpoint {
    core: HttpEndpoint,
}

impl NativeHttpEndpoint {
    /// Wraps the core's endpoint.
    pub fn new(core: HttpEndpoint) -> Self {
        NativeHttpEndpoint { core }
    }
}

/// An answer's status and headers, with the start of its body already there.
#[napi(object)]
pub struct ResponseHead {
    /// The HTTP status.
    pub status: u32,
    /// The headers as `[name, value]` pairs, in order.
    pub headers: Vec<Vec<String>>,
    /// The chunks of body ready when the head was.
    pub ready: Vec<Buffer>,
    /// Whether `ready` is the whole body.
    pub ended: bool,
}

#[napi]
impl NativeHttpEndpoint {
    /// Starts answering one request: its `method`, `path` within the app (with `?query`),
    /// `headers` as `[name, value]` pairs, its `caller` when the app authenticated it, and
    /// the `peer` it came from when the server knows it. Its body follows through the
    /// exchange.
    #[napi]
    pub fn exchange(
        &self,
        method: String,
        path: String,
        headers: Vec<Vec<String>>,
        caller: Option<HostCaller>,
        peer: Option<Peer>,
    ) -> NativeHttpExchange {
        let head = RequestHead {
            method,
            path_and_query: path,
            headers: header_pairs(headers),
            caller: caller.map(HostCaller::into_token),
            peer: peer.and_then(Peer::address),
        };
        let core = within_runtime_if_available(|| self.core.exchange(head));
        NativeHttpExchange { core: Arc::new(core) }
    }

    /// Opens the stream of the HTTP+SSE session `sessionId` (made by the caller from a
    /// CSPRNG), whose client POSTs to `messagesPath`; `headers` are those of the GET the app
    /// routed to it, `caller` its caller when the app authenticated it. The session's
    /// messages go to `exchange` at `/messages?sessionId=…`.
    #[napi]
    pub fn open_hosted_sse(
        &self,
        headers: Vec<Vec<String>>,
        session_id: String,
        messages_path: String,
        caller: Option<HostCaller>,
    ) -> napi::Result<NativeHttpExchange> {
        let hosted = HostedSse::new(&session_id, &messages_path).map_err(invalid)?;
        let head = RequestHead {
            method: "GET".to_owned(),
            path_and_query: "/sse".to_owned(),
            headers: header_pairs(headers),
            caller: caller.map(HostCaller::into_token),
            peer: None,
        };
        let core = within_runtime_if_available(|| self.core.open_hosted_sse(head, hosted));
        Ok(NativeHttpExchange { core: Arc::new(core) })
    }

    /// Stops serving: streams that only wait for events end, requests in flight may finish
    /// until `shutdownTimeout`, then every session ends and whatever still runs is
    /// cancelled.
    #[napi]
    pub async fn shutdown(&self) {
        self.core.shutdown().await;
    }
}

/// Where a request came from (Node's `req.socket.remoteAddress` and `remotePort`).
#[napi(object)]
pub struct Peer {
    /// The IP address.
    pub address: String,
    /// The port.
    pub port: u32,
}

impl Peer {
    /// The socket address; none for an address that is not an IP address's text.
    fn address(self) -> Option<SocketAddr> {
        let ip = self.address.parse().ok()?;
        Some(SocketAddr::new(ip, u16::try_from(self.port).ok()?))
    }
}

/// One request on its way through the endpoint.
#[napi]
pub struct NativeHttpExchange {
    core: Arc<HttpExchange>,
}

#[napi]
impl NativeHttpExchange {
    /// Gives the endpoint the next chunk of the request body; resolves to false when it
    /// reads no more (it answered already).
    #[napi]
    pub async fn send_body(&self, chunk: Buffer) -> bool {
        self.core.send_body(Vec::from(chunk).into()).await
    }

    /// Gives the endpoint the whole request body at once, without waiting (before any other
    /// chunk).
    #[napi]
    pub fn send_whole_body(&self, body: Buffer) {
        self.core.send_whole_body(Vec::from(body).into());
    }

    /// The request body is complete.
    #[napi]
    pub fn end_body(&self) {
        self.core.end_body();
    }

    /// Resolves to the answer's status and headers, and the body there already; null when
    /// the exchange was cancelled first.
    #[napi]
    pub async fn response(&self) -> Option<ResponseHead> {
        let head = self.core.response().await?;
        let headers = head
            .headers
            .into_iter()
            .map(|(name, value)| vec![name, String::from_utf8_lossy(&value).into_owned()])
            .collect();
        Some(ResponseHead {
            status: u32::from(head.status),
            headers,
            ready: head.ready.iter().map(|chunk| Buffer::from(chunk.to_vec())).collect(),
            ended: head.ended,
        })
    }

    /// Resolves to the answer's next chunk of body; null once it ended.
    #[napi]
    pub async fn next_chunk(&self) -> Option<Buffer> {
        let chunk = self.core.next_chunk().await?;
        Some(Buffer::from(chunk.to_vec()))
    }

    /// The client went away: the answer is dropped, which cancels the request it answers.
    #[napi]
    pub fn cancel(&self) {
        self.core.cancel();
    }
}

/// Headers given as `[name, value]` pairs, as the core takes them (other shapes dropped).
fn header_pairs(headers: Vec<Vec<String>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    headers
        .into_iter()
        .filter_map(|pair| match <[String; 2]>::try_from(pair) {
            Ok([name, value]) => Some((name.into_bytes(), value.into_bytes())),
            Err(_) => None,
        })
        .collect()
}
