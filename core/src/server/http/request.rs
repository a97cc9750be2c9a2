//! What a handler may read of the HTTP request that carried its MCP request.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use http::request::Parts;
use http::{HeaderMap, Uri};

/// The HTTP POST that carried an MCP request: its target, its headers and the address it
/// came from ([`Context::http_request`](crate::server::Context::http_request)).
#[derive(Debug)]
pub struct HttpRequest {
    uri: Uri,
    headers: HeaderMap,
    peer: Option<SocketAddr>,
}

impl HttpRequest {
    pub(crate) fn new(uri: Uri, headers: HeaderMap, peer: Option<SocketAddr>) -> Self {
        HttpRequest { uri, headers, peer }
    }

    /// The target as the endpoint received it: its path and query (without the prefix of
    /// a host that mounted the endpoint under one).
    pub fn uri(&self) -> &Uri {
        &self.uri
    }

    /// The headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The address of the peer: the client, or the proxy in front of the server. `None`
    /// where the host did not say (a web-standard `fetch` handler, an axum app served
    /// without [`ConnectInfo`](axum::extract::ConnectInfo)).
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// The headers, given back when no handler holds the request any more.
    pub(crate) fn into_headers(self) -> HeaderMap {
        self.headers
    }
}

/// The [`HttpRequest`] of a POST, as an extractor: its target and headers are moved out
/// of the request's parts, which later extractors (the body) do not read.
pub(super) struct Posted(pub(super) HttpRequest);

impl<S: Send + Sync> FromRequestParts<S> for Posted {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0);
        let uri = std::mem::take(&mut parts.uri);
        Ok(Posted(HttpRequest::new(uri, std::mem::take(&mut parts.headers), peer)))
    }
}
