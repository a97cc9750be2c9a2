//! Authorization for servers: the verifier a server's options name (the core's JWT or
//! introspection verifier, or one written in JavaScript and run through the handler
//! bridge), and the caller's token as the facade reads it.

use std::sync::Arc;

use napi_derive::napi;
use serde_json::{json, Map, Value};

use oxmcp::server::auth::{AccessToken, IntrospectionVerifier, JwtVerifier, TokenVerifier, VerifyError};

use crate::convert::duration_ms;
use crate::error::invalid;
use crate::handler::Bridge;

/// Which verifier checks the tokens of HTTP requests: exactly one of the three.
#[napi(object)]
pub struct AuthOptions {
    /// JWT access tokens checked with the issuer's JWKS.
    pub jwt: Option<JwtOptions>,
    /// Tokens checked at the authorization server's introspection endpoint.
    pub introspection: Option<IntrospectionOptions>,
    /// The handler id of a verifier written in JavaScript: `(token) => claims | null`.
    pub verifier_id: Option<u32>,
}

/// The settings of a JWT verifier.
#[napi(object)]
pub struct JwtOptions {
    /// Where the issuer's keys are.
    pub jwks_uri: String,
    /// The issuer whose tokens are accepted.
    pub issuer: String,
    /// Audiences `aud` must name one of (the endpoint checks its resource URL anyway).
    pub audience: Option<Vec<String>>,
    /// The clock skew tolerated on `exp` and `nbf`, in milliseconds (default 30 000).
    pub leeway_ms: Option<f64>,
}

/// The settings of an introspection verifier.
#[napi(object)]
pub struct IntrospectionOptions {
    /// The introspection endpoint.
    pub endpoint: String,
    /// The resource server's client id at the authorization server.
    pub client_id: String,
    /// Its client secret.
    pub client_secret: String,
    /// The issuer whose tokens are accepted.
    pub issuer: Option<String>,
    /// Send the secret in the form rather than as HTTP Basic.
    pub client_secret_post: Option<bool>,
    /// How long an answer is reused at most, in milliseconds (default 300 000).
    pub cache_for_ms: Option<f64>,
}

impl AuthOptions {
    /// The verifier these options name; a JavaScript one runs through `bridge`.
    pub(crate) fn into_verifier(self, bridge: &Arc<Bridge>) -> napi::Result<Arc<dyn TokenVerifier>> {
        let refused = |e: VerifyError| invalid(e.to_string());
        match (self.jwt, self.introspection, self.verifier_id) {
            (Some(jwt), None, None) => {
                let mut verifier = JwtVerifier::new(&jwt.jwks_uri, jwt.issuer).map_err(refused)?;
                if let Some(audience) = jwt.audience {
                    verifier = verifier.audience(audience);
                }
                if let Some(ms) = jwt.leeway_ms {
                    verifier = verifier.leeway(duration_ms(ms, "leeway")?);
                }
                Ok(Arc::new(verifier))
            }
            (None, Some(options), None) => {
                let mut verifier =
                    IntrospectionVerifier::new(&options.endpoint, options.client_id, options.client_secret)
                        .map_err(refused)?;
                if let Some(issuer) = options.issuer {
                    verifier = verifier.issuer(issuer);
                }
                if options.client_secret_post == Some(true) {
                    verifier = verifier.client_secret_post();
                }
                if let Some(ms) = options.cache_for_ms {
                    verifier = verifier.cache_for(duration_ms(ms, "cacheFor")?);
                }
                Ok(Arc::new(verifier))
            }
            (None, None, Some(id)) => Ok(Arc::new(bridge.verifier(id))),
            _ => Err(invalid(
                "auth names exactly one verifier: jwt, introspection or a verify function",
            )),
        }
    }
}

/// The caller of a request the app authenticated itself: the official SDK's `AuthInfo`
/// (`req.auth`, set by its bearer middleware).
#[napi(object)]
pub struct HostCaller {
    /// The access token.
    pub token: String,
    /// The client it was issued to.
    pub client_id: Option<String>,
    /// What it grants.
    pub scopes: Vec<String>,
    /// When it expires, in seconds since the Unix epoch.
    pub expires_at: Option<f64>,
    /// The resource it is meant for.
    pub resource: Option<String>,
    /// Whatever else the app's verifier said of it.
    pub extra: Option<Map<String, Value>>,
}

impl HostCaller {
    /// The core's token for this caller.
    pub(crate) fn into_token(self) -> AccessToken {
        let mut token = AccessToken::new(self.token).scopes(self.scopes).audience(self.resource);
        token.claims = self.extra.unwrap_or_default();
        if let Some(client_id) = self.client_id {
            token = token.client_id(client_id);
        }
        // The core keeps whole seconds (`Date.now() / 1000 + 3600` has a fraction).
        if let Some(seconds) = self.expires_at.filter(|s| s.is_finite() && *s >= 0.0) {
            token = token.expires_at(seconds.floor() as u64);
        }
        token
    }
}

/// A verified token as the facade's `AccessToken`.
pub(crate) fn token_object(token: &AccessToken) -> Value {
    json!({
        "token": token.token,
        "issuer": token.issuer,
        "subject": token.subject,
        "clientId": token.client_id,
        "scopes": token.scopes,
        "audience": token.audience,
        "expiresAt": token.expires_at,
        "claims": token.claims,
    })
}
