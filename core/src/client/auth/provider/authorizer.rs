//! The provider as the HTTP transport's [`HttpAuthorizer`]: presenting the tokens on
//! every request, and answering the server's refusals (a new authorization, a step-up,
//! a DPoP nonce).

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode, Url};

use super::OAuthProvider;
use crate::client::auth::challenge::BearerChallenge;
use crate::client::auth::dpop::{Audience, DPOP, USE_DPOP_NONCE};
use crate::client::auth::token::Tokens;
use crate::client::auth::AuthError;
use crate::oauth::http::DPOP_NONCE;
use crate::transport::http::client::HttpAuthorizer;
use crate::{BoxError, BoxFuture};

impl OAuthProvider {
    /// The headers that present `tokens` on a request to `url` with `method`: the
    /// `Authorization` header, and a fresh proof for a DPoP-bound token.
    fn present(&self, tokens: &Tokens, method: &Method, url: &Url) -> Result<HeaderMap, AuthError> {
        let mut headers = HeaderMap::new();
        let Some(value) = authorization_value(tokens) else {
            return Ok(headers);
        };
        headers.insert(AUTHORIZATION, value);
        if let (true, Some(dpop)) = (tokens.dpop_bound(), &self.inner.config.dpop) {
            let proof = dpop.proof(method, url, Some(&tokens.access_token), Audience::Resource)?;
            headers.insert(DPOP, proof);
        }
        Ok(headers)
    }

    /// Handles a refusal: true when there are new tokens to retry with.
    async fn handle_refusal(
        &self,
        server: &Url,
        status: StatusCode,
        headers: &HeaderMap,
        sent: Option<&HeaderValue>,
    ) -> Result<bool, AuthError> {
        let challenge =
            BearerChallenge::from_headers(headers.get_all(WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()))
                .unwrap_or_default();
        let authorizable =
            status == StatusCode::UNAUTHORIZED || (status == StatusCode::FORBIDDEN && challenge.insufficient_scope());
        if !authorizable {
            return Ok(false);
        }
        if challenge.error.as_deref() == Some(USE_DPOP_NONCE) {
            // The token is fine; the proof needs the MCP server's nonce (RFC 9449 §9).
            let nonce = headers.get(DPOP_NONCE).and_then(|v| v.to_str().ok());
            return Ok(match (&self.inner.config.dpop, nonce) {
                (Some(dpop), Some(nonce)) => {
                    dpop.set_nonce(Audience::Resource, nonce.to_owned());
                    true
                }
                _ => false,
            });
        }
        let mut session = self.inner.session.lock().await;
        if status == StatusCode::UNAUTHORIZED {
            // Another request re-authorized while this one waited: retry with its token.
            let current = self
                .inner
                .config
                .store
                .load()
                .await?
                .as_ref()
                .and_then(authorization_value);
            if current.is_some() && current.as_ref() != sent {
                return Ok(true);
            }
        }
        self.run(&mut session, server, challenge, true).await?;
        Ok(true)
    }
}

impl HttpAuthorizer for OAuthProvider {
    fn authorization<'a>(&'a self, method: &'a Method, url: &'a Url) -> BoxFuture<'a, HeaderMap> {
        Box::pin(async move {
            let presented = match self.current_tokens().await {
                Ok(Some(tokens)) => self.present(&tokens, method, url),
                Ok(None) => Ok(HeaderMap::new()),
                Err(error) => Err(error),
            };
            presented.unwrap_or_else(|error| {
                tracing::warn!(%error, "no access token");
                HeaderMap::new()
            })
        })
    }

    fn refused<'a>(
        &'a self,
        url: &'a Url,
        status: StatusCode,
        headers: &'a HeaderMap,
        sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool, BoxError>> {
        Box::pin(async move { Ok(self.handle_refusal(url, status, headers, sent).await?) })
    }
}

/// `Bearer {token}` or `DPoP {token}`, marked sensitive so it is never logged.
fn authorization_value(tokens: &Tokens) -> Option<HeaderValue> {
    let scheme = if tokens.dpop_bound() { "DPoP" } else { "Bearer" };
    let mut value = HeaderValue::try_from(format!("{scheme} {}", tokens.access_token)).ok()?;
    value.set_sensitive(true);
    Some(value)
}
