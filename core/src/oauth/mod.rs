//! What the OAuth client ([`client::auth`](crate::client::auth)) and the resource server
//! ([`server::auth`](crate::server::auth)) share: exchanges with authorization servers,
//! bounded in size and time, never following redirects, over https only (plain http to
//! loopback hosts), and their errors.

mod error;
pub(crate) mod http;

pub use error::AuthError;
