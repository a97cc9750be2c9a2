//! Streamable HTTP: the server endpoint (both eras, plus the deprecated HTTP+SSE
//! transport of 2024-11-05) and the client transport.

pub mod client;
mod event_store;
mod security;
pub mod server;
pub(crate) mod sse;
mod streams;
