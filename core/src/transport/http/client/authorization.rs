//! How each HTTP request is authorized: a [`TokenSource`] for a plain bearer token, or
//! an [`HttpAuthorizer`] (e.g. OAuth) that also answers the server's refusals.

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use reqwest::{Method, StatusCode, Url};

use super::Shared;
use crate::{BoxError, BoxFuture};

/// Produces the bearer token of each request (or none), e.g. from an OAuth token cache.
pub type TokenSource = Arc<dyn Fn() -> BoxFuture<'static, Option<String>> + Send + Sync>;

/// Authorizes the transport's HTTP requests and answers the server's refusals; the
/// OAuth client [`OAuthProvider`](crate::client::auth::OAuthProvider) is one.
pub trait HttpAuthorizer: Send + Sync {
    /// The authorization headers of the next request to `url` with `method`: its
    /// `Authorization` header, if any, and any header that goes with it (a DPoP proof).
    fn authorization<'a>(&'a self, method: &'a Method, url: &'a Url) -> BoxFuture<'a, HeaderMap>;

    /// The server refused a request to `url` with `status` (401 or 403) and `headers`
    /// (its `WWW-Authenticate` challenge), when the request carried `sent`. `Ok(true)`:
    /// authorized anew (or ready with what the server asked for), the transport sends
    /// the request again, at most twice in all; `Ok(false)`: the refusal stands; an
    /// error fails the request with its message.
    fn refused<'a>(
        &'a self,
        url: &'a Url,
        status: StatusCode,
        headers: &'a HeaderMap,
        sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool, BoxError>>;
}

impl Shared {
    /// The headers of one HTTP request: the configured ones, then `protocol` (which
    /// replace configured ones of the same name), then the authorization of a request to
    /// `url` with `method`, if any.
    pub(super) async fn headers(
        &self,
        method: &Method,
        url: &Url,
        protocol: Vec<(HeaderName, HeaderValue)>,
    ) -> HeaderMap {
        let mut headers = self.options.headers.clone();
        for (name, value) in protocol {
            headers.insert(name, value);
        }
        if let Some(authorizer) = &self.options.authorizer {
            headers.extend(authorizer.authorization(method, url).await);
        } else if let Some(source) = &self.options.bearer_token {
            let token = source().await;
            match token.map(|token| HeaderValue::try_from(format!("Bearer {token}"))) {
                Some(Ok(mut value)) => {
                    value.set_sensitive(true);
                    headers.insert(AUTHORIZATION, value);
                }
                Some(Err(_)) => tracing::warn!("the bearer token is not a valid header value; sent none"),
                None => {}
            }
        }
        headers
    }
}
