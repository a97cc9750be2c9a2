//! # oxmcp-node
//!
//! The Node.js binding of oxmcp: an adapter from the core's handler traits to JavaScript
//! functions, and conversions of the values that cross. Users import the TypeScript
//! facade (`bindings-node/ts/`), never this module directly.
//!
//! - `server`: `NativeServer`, the core server with JavaScript handlers.
//! - `context`: `RequestContext`, the per-request context handed to them.
//! - `client`: `NativeClient`, the core client answering server requests in JavaScript.
//! - `convert`: what JavaScript handlers return, as the core's types.
//! - `http`: Streamable HTTP settings of both sides, and the server's listener.
//! - `error`: failures as JavaScript sees them.
//! - `runtime`: calling JavaScript from tokio tasks (weak threadsafe functions).

// Outside a Node build (`cargo test`), napi-derive registers no exports, so the items only
// exports reach look unused there.
#![cfg_attr(test, allow(dead_code))]

mod client;
mod context;
mod convert;
mod error;
mod http;
mod runtime;
mod server;
