//! The Streamable HTTP client transport (with the HTTP+SSE fallback of 2024-11-05). The
//! server side is [`server::http`](crate::server::http).

pub mod client;
pub(crate) mod sse;
pub(crate) mod tls;
