//! Authorization for servers: an HTTP endpoint as an OAuth 2.1 resource server (the MCP
//! authorization spec, RFC 9728, RFC 8707, RFC 6750).
//!
//! A [`ResourceServer`] set on the [`HttpConfig`](crate::server::http::HttpConfig) makes
//! every request carry a token its [`TokenVerifier`] accepts; tools, resources and prompts
//! may require scopes of their own ([`ToolDef::scopes`](crate::server::ToolDef::scopes));
//! handlers see the caller's [`AccessToken`] in their
//! [`Context`](crate::server::Context::access_token). Over stdio there are no tokens: the
//! spec gives a local server its credentials from the environment.
//!
//! ```no_run
//! use oxmcp::server::auth::{JwtVerifier, ResourceServer};
//! use oxmcp::server::http::HttpConfig;
//! use oxmcp::server::{Server, ToolDef};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("notes", "1.0.0")
//!     .tool(ToolDef::new("write_note").scopes(["notes:write"]).handler(|_args, ctx| async move {
//!         let who = ctx.access_token().and_then(|token| token.subject.clone());
//!         format!("written by {who:?}")
//!     }))
//!     .build()?;
//! let verifier = JwtVerifier::new("https://auth.example.com/jwks", "https://auth.example.com")?;
//! let auth = ResourceServer::new(verifier).resource_url("https://notes.example.com/mcp");
//! server.serve_http("127.0.0.1:8000", HttpConfig::default().auth(auth)).await?;
//! # Ok(()) }
//! ```

mod access_token;
mod caller;
#[cfg(feature = "http-server")]
pub(crate) mod challenge;
#[cfg(feature = "http-server")]
pub(crate) mod dpop;
#[cfg(feature = "http-server")]
mod introspection;
#[cfg(feature = "http-server")]
mod jwks;
#[cfg(feature = "http-server")]
mod jwt;
#[cfg(feature = "http-server")]
mod resource_server;
#[cfg(feature = "http-server")]
mod verified;
mod verifier;

pub use access_token::AccessToken;
#[cfg_attr(not(feature = "http-server"), allow(unused_imports))]
pub(crate) use access_token::Principal;
pub(crate) use caller::Caller;
#[cfg(feature = "http-server")]
pub use introspection::IntrospectionVerifier;
#[cfg(feature = "http-server")]
pub use jwt::JwtVerifier;
#[cfg(feature = "http-server")]
pub(crate) use resource_server::Protection;
#[cfg(feature = "http-server")]
pub use resource_server::ResourceServer;
#[cfg(feature = "http-server")]
pub(crate) use verified::Admitted;
pub use verifier::{TokenVerifier, VerifyError};
