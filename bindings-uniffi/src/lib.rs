//! # oxmcp-ffi
//!
//! The Kotlin and Swift binding of oxmcp, made with UniFFI. It is an adapter and nothing
//! more: the protocol, both eras, transports and validation live in the `oxmcp` core; this
//! crate converts values at the boundary and calls Kotlin or Swift handlers.
//!
//! - [`client`]: `Client.connectHttp(url, options)` / `Client.spawn(command, options)` and a
//!   suspend / async method per request.
//! - [`server`]: a `Server` whose tools, resources and prompts are foreign handlers, served
//!   over HTTP or stdio; the `Context` handlers receive.
//! - [`handlers`]: the traits Kotlin and Swift implement; [`returned`]: what a tool returns.
//! - [`types`]: records and enums (tools, content, resources, prompts...).
//! - [`error`]: `McpError`, the one error type.
//!
//! Async exports run on a tokio runtime (UniFFI's `async_runtime = "tokio"`, multi-threaded
//! through `async-compat`). The workspace's own `uniffi-bindgen` binary generates the
//! Kotlin and Swift sources from the built library (`make test-kotlin`).

pub mod client;
pub mod error;
pub mod handlers;
pub mod returned;
pub mod server;
pub mod types;

uniffi::setup_scaffolding!();

/// The version of this library, e.g. `0.1.0`.
#[uniffi::export]
pub fn oxmcp_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
