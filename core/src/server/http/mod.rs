//! Streamable HTTP hosting: one endpoint (default `/mcp`) that serves both protocol eras,
//! decided per request. A `tower::Service` (an axum [`Router`](axum::Router)) for mounting
//! in an existing app, an [`HttpEndpoint`] for hosts with their own HTTP server (the
//! bindings' ASGI and `fetch` apps), and a bundled listener.
//!
//! - Modern (2026-07-28): POST only; headers checked against the body; each request
//!   answered with one JSON object, or an SSE stream when notifications precede the
//!   answer; closing that stream cancels the request.
//! - Legacy (2025-03-26 to 2025-11-25): sessions by `Mcp-Session-Id`, a standalone GET
//!   stream, DELETE, and resumable SSE streams (`Last-Event-ID`).
//! - 2024-11-05: the deprecated HTTP+SSE transport at `/sse` and `/messages`, when enabled;
//!   a host that routes it itself may name its sessions ([`HostedSse`]).
//!
//! ```no_run
//! use oxmcp::server::http::HttpConfig;
//! use oxmcp::server::Server;
//!
//! # async fn run(server: Server) -> oxmcp::Result<()> {
//! let handle = server.bind_http("127.0.0.1:8000", HttpConfig::default()).await?;
//! println!("serving {}", handle.url("/mcp"));
//! handle.wait().await?;
//! # Ok(()) }
//! ```

mod auth;
mod config;
mod cors;
mod endpoint;
mod guard;
mod header_names;
mod legacy;
mod listener;
mod modern;
mod mounted;
mod request;
mod response;
mod sessions;
mod sse_compat;
mod standalone;
mod streams;

pub use config::HttpConfig;
pub use listener::HttpServerHandle;
pub use mounted::{HttpEndpoint, HttpExchange, RequestHead, ResponseHead};
pub use request::HttpRequest;
pub use sse_compat::HostedSse;

/// An [`HttpConfig`] that cannot be served as it is; the text says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid HTTP config: {0}")]
pub struct ConfigError(pub(crate) String);

impl From<ConfigError> for crate::Error {
    fn from(error: ConfigError) -> Self {
        crate::Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, error))
    }
}
