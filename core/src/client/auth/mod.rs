//! The OAuth 2.1 client of the MCP authorization specification, for the Streamable
//! HTTP transport.
//!
//! [`OAuthProvider`] is the whole of it for most apps: plug it into
//! [`HttpClientOptions::authorizer`](crate::transport::http::client::HttpClientOptions::authorizer)
//! and it answers the server's `401`s and `403 insufficient_scope`s. The pieces it is
//! made of are public for apps that run a step themselves:
//!
//! - [`challenge`]: the `WWW-Authenticate: Bearer` challenge;
//! - discovery: [`protected_resource_metadata_urls`], [`authorization_server_metadata_urls`]
//!   and the metadata documents (RFC 9728, RFC 8414, OpenID Connect Discovery);
//! - registration: [`ClientCredentials`], [`ClientMetadata`] (dynamic registration,
//!   client ID metadata documents, pre-registration);
//! - [`Pkce`] and [`AuthorizationRequest`]: the authorization code request and the
//!   checks of its response (`state`, `iss`);
//! - [`Tokens`] and [`TokenStore`]: the grants' results and where they are kept (in memory,
//!   in a file with [`FileTokenStore`], or wherever the app keeps secrets with
//!   [`TextTokenStore`]);
//! - [`LoopbackRedirect`]: the redirect of a desktop app, received on 127.0.0.1;
//! - [`AssertionTarget`] and [`request_id_jag`]: the JWT bearer grant's assertions
//!   (workload identity federation, enterprise-managed authorization).
//!
//! ```no_run
//! use oxmcp::client::auth::{ClientMetadata, OAuthProvider};
//! use oxmcp::client::{Client, ClientOptions};
//! use oxmcp::transport::http::client::{connect, HttpClientOptions};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! let metadata = ClientMetadata::new("My app", "http://127.0.0.1:33418/callback");
//! let provider = OAuthProvider::authorization_code(metadata, |url| async move {
//!     println!("Open {url} to authorize, then paste the address you land on:");
//!     let mut callback = String::new();
//!     std::io::stdin().read_line(&mut callback)?;
//!     Ok::<_, std::io::Error>(callback.trim().to_owned())
//! });
//! let transport = connect(HttpClientOptions::new("https://mcp.example.com/mcp").authorizer(provider))?;
//! let client = Client::connect(transport, ClientOptions::new("app", "1.0")).await?;
//! # drop(client); Ok(()) }
//! ```

mod assertion;
mod authorize;
pub mod challenge;
mod discovery;
mod dpop;
mod file_store;
mod jwt;
#[cfg(feature = "http-server")]
mod loopback;
mod pkce;
mod provider;
mod registration;
mod text_store;
mod token;

pub use crate::oauth::AuthError;
pub use assertion::{request_id_jag, AssertionSource, AssertionTarget};
pub use authorize::AuthorizationRequest;
pub use challenge::BearerChallenge;
pub use discovery::{
    authorization_server_metadata_urls, protected_resource_metadata_urls, resource_covers, AuthorizationServerMetadata,
    ProtectedResourceMetadata,
};
pub use file_store::FileTokenStore;
pub use jwt::SigningKey;
#[cfg(feature = "http-server")]
pub use loopback::{LoopbackRedirect, LOOPBACK_WAIT};
pub use pkce::Pkce;
pub use provider::{OAuthProvider, RedirectHandler};
pub use registration::{ClientCredentials, ClientMetadata, TokenEndpointAuthMethod};
pub use text_store::TextTokenStore;
pub use token::{MemoryTokenStore, TokenStore, Tokens};
