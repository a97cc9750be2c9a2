//! [`IntrospectionVerifier`]: opaque (or any) tokens checked by asking the authorization
//! server (RFC 7662).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::Url;
use serde_json::{Map, Value};

use super::{AccessToken, TokenVerifier, VerifyError};
use crate::oauth::http::{basic_authorization, post_form};
use crate::BoxFuture;

/// How long an answer is reused at most by default.
const CACHE_FOR: Duration = Duration::from_secs(5 * 60);

/// Checks tokens at the authorization server's introspection endpoint, authenticated as
/// the resource server's own client (HTTP Basic by default, or the secret in the form with
/// [`client_secret_post`](Self::client_secret_post)). A token must be `active`; a
/// protected endpoint reuses its answer, keyed by the token, until the token expires or for
/// 5 minutes at most.
///
/// ```
/// use oxmcp::server::auth::IntrospectionVerifier;
///
/// let verifier = IntrospectionVerifier::new("https://auth.example.com/introspect", "notes-api", "s3cret")
///     .unwrap()
///     .issuer("https://auth.example.com");
/// ```
#[derive(Clone)]
pub struct IntrospectionVerifier {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    endpoint: Url,
    http: reqwest::Client,
    client_id: String,
    client_secret: String,
    secret_in_form: bool,
    issuer: Option<String>,
    cache_for: Duration,
}

impl IntrospectionVerifier {
    /// Introspects at `endpoint` (https, or http on a loopback host) as the client
    /// `client_id` with `client_secret`.
    pub fn new(
        endpoint: &str,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Result<Self, VerifyError> {
        let (url, http) = super::verifier::endpoint(endpoint, "introspection")?;
        Ok(IntrospectionVerifier {
            inner: Arc::new(Inner {
                endpoint: url,
                http,
                client_id: client_id.into(),
                client_secret: client_secret.into(),
                secret_in_form: false,
                issuer: None,
                cache_for: CACHE_FOR,
            }),
        })
    }

    /// Sends the client id and secret in the form (`client_secret_post`) rather than as
    /// HTTP Basic.
    pub fn client_secret_post(self) -> Self {
        self.edit(|inner| inner.secret_in_form = true)
    }

    /// The issuer whose tokens are accepted: an answer naming another `iss` is refused.
    /// It is also the authorization server the protected resource metadata names.
    pub fn issuer(self, issuer: impl Into<String>) -> Self {
        self.edit(|inner| inner.issuer = Some(issuer.into()))
    }

    /// How long an answer is reused at most (default 5 minutes; zero: ask every time).
    /// A revoked token is accepted this long at most.
    pub fn cache_for(self, duration: Duration) -> Self {
        self.edit(|inner| inner.cache_for = duration)
    }

    fn edit(mut self, change: impl FnOnce(&mut Inner)) -> Self {
        change(Arc::make_mut(&mut self.inner));
        self
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.verify(token).await })
    }

    fn issuer(&self) -> Option<&str> {
        self.inner.issuer.as_deref()
    }

    fn reuse_for(&self) -> Duration {
        self.inner.cache_for
    }
}

impl Inner {
    async fn verify(&self, token: String) -> Result<AccessToken, VerifyError> {
        let answer = self.introspect(&token).await?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(VerifyError::invalid("the token is not active"));
        }
        let accepted = AccessToken::from_claims(token, answer);
        if let (Some(expected), Some(issuer)) = (&self.issuer, &accepted.issuer) {
            if expected != issuer {
                return Err(VerifyError::invalid("the token is from another issuer"));
            }
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if accepted.expires_at.is_some_and(|exp| exp <= now) {
            return Err(VerifyError::invalid("the token has expired"));
        }
        Ok(accepted)
    }

    async fn introspect(&self, token: &str) -> Result<Map<String, Value>, VerifyError> {
        let unavailable =
            |e: &dyn std::fmt::Display| VerifyError::unavailable(format!("introspection at {}: {e}", self.endpoint));
        let mut form: Vec<(&str, Cow<'_, str>)> =
            vec![("token", token.into()), ("token_type_hint", "access_token".into())];
        let mut headers = HeaderMap::new();
        if self.secret_in_form {
            form.push(("client_id", self.client_id.as_str().into()));
            form.push(("client_secret", self.client_secret.as_str().into()));
        } else {
            let basic = basic_authorization(&self.client_id, &self.client_secret).map_err(|e| unavailable(&e))?;
            headers.insert(AUTHORIZATION, basic);
        }
        post_form::<Map<String, Value>>(&self.http, &self.endpoint, headers, &form)
            .await
            .and_then(|answer| answer.answer)
            .map_err(|e| unavailable(&e))
    }
}
