//! [`TokenVerifier`]: the one thing a resource server must be told, how to check a token.

use std::future::Future;
use std::time::Duration;

use super::AccessToken;
use crate::BoxFuture;

/// Checks an access token and says who it stands for.
///
/// [`JwtVerifier`](super::JwtVerifier) and [`IntrospectionVerifier`](super::IntrospectionVerifier)
/// are the usual ones; a closure `Fn(String) -> impl Future<Output = Result<AccessToken,
/// VerifyError>>` is one too. The endpoint checks the audience and the scopes itself (see
/// [`ResourceServer`](super::ResourceServer)); a verifier checks that the token is
/// genuine, current, and from an issuer it trusts.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The token's caller, or why the token is refused.
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>>;

    /// The issuer whose tokens this verifier accepts, when it knows one: the default
    /// authorization server the protected resource metadata names.
    fn issuer(&self) -> Option<&str> {
        None
    }

    /// How long a token this verifier accepted may be taken for accepted again without
    /// asking it: a protected endpoint keeps the caller it admitted that long, and not past
    /// the token's expiry. Zero, the default, asks the verifier on every request (a
    /// verifier that checks revocation itself).
    fn reuse_for(&self) -> Duration {
        Duration::ZERO
    }
}

impl<F, Fut> TokenVerifier for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AccessToken, VerifyError>> + Send + 'static,
{
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
        Box::pin(self(token))
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The token is not good (forged, expired, not for this resource, revoked…): the
    /// client gets `401 invalid_token` with this description, and should get a new token.
    #[error("{0}")]
    Invalid(String),
    /// The token could not be checked now (the authorization server did not answer): the
    /// client gets `503` and may retry; the detail is logged, not sent.
    #[error("the token could not be checked: {0}")]
    Unavailable(String),
}

/// An authorization server's endpoint that a verifier asks (https, or plain http on a
/// loopback host), and the HTTP client it asks through, made once and reused: a new client
/// per request would open a new connection (and TLS session) for every token checked.
#[cfg(feature = "http-server")]
pub(super) fn endpoint(url: &str, what: &str) -> Result<(reqwest::Url, reqwest::Client), VerifyError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| VerifyError::invalid(format!("the {what} URL {url:?}: {e}")))?;
    crate::oauth::http::require_https(&parsed).map_err(|e| VerifyError::invalid(e.to_string()))?;
    let http = crate::oauth::http::client().map_err(|e| VerifyError::invalid(e.to_string()))?;
    Ok((parsed, http))
}

impl VerifyError {
    /// A refused token, with a description for the client.
    pub fn invalid(description: impl Into<String>) -> Self {
        VerifyError::Invalid(description.into())
    }

    /// A check that could not be done, with the detail for the log.
    pub fn unavailable(detail: impl Into<String>) -> Self {
        VerifyError::Unavailable(detail.into())
    }
}
