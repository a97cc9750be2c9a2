//! # oxmcp-node
//!
//! The Node.js binding of oxmcp: an adapter from the core's handler traits to JavaScript
//! functions, and conversions of the values that cross. Users import the TypeScript
//! facade (`bindings-node/ts/`), never this module directly.
//!
//! - `cli`: the `oxmcp` command, for the package's `bin`.
//! - `server`: `NativeServer`, the core's server with JavaScript handlers, served over
//!   stdio, HTTP or in process.
//! - `context`: `NativeContext`, the per-request context handed to those handlers.
//! - `client`: `NativeClient`, the core's client; server requests answered by JavaScript
//!   handlers.
//! - `handler`: calling JavaScript handlers (through the facade's callbacks), as the core's
//!   handler traits.
//! - `convert`: values across the boundary: what JavaScript handlers return, as the core's
//!   types.
//! - `http`: Streamable HTTP settings of both sides, and the server's listener.
//! - `mounted`: the server's HTTP endpoint inside a web app (the facade's `fetch` and
//!   Node handlers).
//! - `oauth`: `NativeOAuth`, the OAuth client of the HTTP client.
//! - `error`: failures as JavaScript sees them.
//! - `runtime`: the tokio runtime, and calling JavaScript from its tasks (weak threadsafe
//!   functions).

// Outside a Node build (`cargo test`), napi-derive registers no exports, so the items only
// exports reach look unused there.
#![cfg_attr(test, allow(dead_code))]

mod auth;
mod cli;
mod client;
mod context;
mod convert;
mod error;
mod handler;
mod http;
mod js_thread;
mod mounted;
mod oauth;
mod runtime;
mod server;
mod stdio;
