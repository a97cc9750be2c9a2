//! # oxmcp-ffi
//!
//! The Kotlin and Swift binding of oxmcp, made with UniFFI. It is an adapter and nothing
//! more: the protocol, both eras, transports and validation live in the `oxmcp` core; this
//! crate converts values at the boundary and calls Kotlin or Swift handlers.
//!
//! - [`server`]: `Server`, the core's server with Kotlin or Swift handlers, served over
//!   stdio or HTTP.
//! - [`context`]: `Context`, the per-request context handed to those handlers.
//! - [`client`]: `Client`, the core's client (`Client.connectHttp`, `Client.spawn`, a
//!   suspend / async method per request); server requests answered by Kotlin or Swift
//!   handlers.
//! - [`handler`]: calling Kotlin or Swift handlers (the foreign traits they implement), as
//!   the core's handler traits.
//! - [`convert`]: values across the boundary: records and enums per protocol area, and what
//!   a tool returns, as the core's types.
//! - [`http`]: Streamable HTTP settings of both sides.
//! - [`oauth`]: `OAuth`, the OAuth client of the HTTP client, with the browser trip and the
//!   token storage the app's own.
//! - [`error`]: `McpError`, failures as Kotlin and Swift see them, both ways.
//! - no `runtime`: UniFFI runs the async exports on tokio itself (below).
//!
//! Async exports run on a tokio runtime (UniFFI's `async_runtime = "tokio"`, multi-threaded
//! through `async-compat`). The workspace's own `uniffi-bindgen` binary generates the
//! Kotlin and Swift sources from the built library (`make test-kotlin`).

pub mod auth;
pub mod client;
pub mod context;
pub mod convert;
pub mod error;
pub mod handler;
pub mod http;
pub mod oauth;
pub mod server;

uniffi::setup_scaffolding!();

/// The version of this library, e.g. `0.1.0`.
#[uniffi::export]
pub fn oxmcp_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
