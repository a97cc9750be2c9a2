//! Authorization for servers: which verifier checks the tokens of HTTP requests (the
//! core's JWT or introspection verifier, or one written in Kotlin or Swift), and the
//! caller's token as handlers see it.

use std::sync::Arc;

use oxmcp::server::auth::{
    AccessToken as CoreAccessToken, IntrospectionVerifier, JwtVerifier, TokenVerifier as CoreTokenVerifier, VerifyError,
};
use oxmcp::BoxFuture;

use crate::convert::{duration_ms, json_text, parse_object};
use crate::error::McpError;

/// Checks the tokens of a server's HTTP requests (set in `ServerOptions.auth`).
#[derive(uniffi::Enum)]
pub enum Verifier {
    /// JWT access tokens of `issuer` signed by a key of `jwks_uri` (RS256, PS256, ES256,
    /// EdDSA); `audience` adds a check of `aud` (the endpoint checks its resource URL
    /// anyway); `leeway_ms` tolerates clock skew (default 30 000).
    Jwt {
        jwks_uri: String,
        issuer: String,
        audience: Vec<String>,
        leeway_ms: Option<i64>,
    },
    /// Tokens checked at the authorization server's introspection `endpoint` (RFC 7662),
    /// as the client `client_id` with `client_secret` (HTTP Basic, or in the form with
    /// `client_secret_post`); answers reused for `cache_for_ms` at most (default 300 000).
    Introspection {
        endpoint: String,
        client_id: String,
        client_secret: String,
        issuer: Option<String>,
        client_secret_post: bool,
        cache_for_ms: Option<i64>,
    },
    /// A verifier of your own.
    Custom { verifier: Arc<dyn TokenVerifier> },
}

/// A token verifier written in Kotlin or Swift.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait TokenVerifier: Send + Sync {
    /// The caller's token, or `None` to refuse it (the client gets `401 invalid_token`).
    /// An exception means the token could not be checked now (the client gets `503`).
    async fn verify(&self, token: String) -> Result<Option<AccessToken>, McpError>;
}

/// A verified access token: who the caller is, what it may do, whom it is for.
#[derive(Debug, Clone, uniffi::Record)]
pub struct AccessToken {
    /// The token as the client sent it.
    pub token: String,
    /// Who issued it (`iss`).
    #[uniffi(default = None)]
    pub issuer: Option<String>,
    /// The user, or the client acting for itself (`sub`).
    #[uniffi(default = None)]
    pub subject: Option<String>,
    /// The client it was issued to (`client_id`).
    #[uniffi(default = None)]
    pub client_id: Option<String>,
    /// What it grants.
    #[uniffi(default)]
    pub scopes: Vec<String>,
    /// The resources it is meant for (`aud`).
    #[uniffi(default)]
    pub audience: Vec<String>,
    /// When it expires, in seconds since the Unix epoch (`exp`).
    #[uniffi(default = None)]
    pub expires_at: Option<i64>,
    /// Every claim, as a JSON object's text.
    #[uniffi(default = "{}")]
    pub claims_json: String,
}

impl From<&CoreAccessToken> for AccessToken {
    fn from(token: &CoreAccessToken) -> Self {
        AccessToken {
            token: token.token.clone(),
            issuer: token.issuer.clone(),
            subject: token.subject.clone(),
            client_id: token.client_id.clone(),
            scopes: token.scopes.clone(),
            audience: token.audience.clone(),
            expires_at: token.expires_at.and_then(|seconds| i64::try_from(seconds).ok()),
            claims_json: json_text(&token.claims),
        }
    }
}

impl AccessToken {
    fn into_core(self) -> Result<CoreAccessToken, McpError> {
        let mut token = CoreAccessToken::new(self.token)
            .scopes(self.scopes)
            .audience(self.audience);
        token.claims = parse_object(&self.claims_json, "claimsJson")?;
        token.issuer = self.issuer;
        token.subject = self.subject;
        token.client_id = self.client_id;
        token.expires_at = self.expires_at.and_then(|seconds| u64::try_from(seconds).ok());
        Ok(token)
    }
}

impl Verifier {
    /// The core's verifier.
    pub(crate) fn into_core(self) -> Result<Arc<dyn CoreTokenVerifier>, McpError> {
        let refused = |e: VerifyError| McpError::invalid_input(e.to_string());
        Ok(match self {
            Verifier::Jwt {
                jwks_uri,
                issuer,
                audience,
                leeway_ms,
            } => {
                let mut verifier = JwtVerifier::new(&jwks_uri, issuer).map_err(refused)?;
                if !audience.is_empty() {
                    verifier = verifier.audience(audience);
                }
                if let Some(ms) = leeway_ms {
                    verifier = verifier.leeway(duration_ms(ms, "leewayMs")?);
                }
                Arc::new(verifier)
            }
            Verifier::Introspection {
                endpoint,
                client_id,
                client_secret,
                issuer,
                client_secret_post,
                cache_for_ms,
            } => {
                let mut verifier = IntrospectionVerifier::new(&endpoint, client_id, client_secret).map_err(refused)?;
                if let Some(issuer) = issuer {
                    verifier = verifier.issuer(issuer);
                }
                if client_secret_post {
                    verifier = verifier.client_secret_post();
                }
                if let Some(ms) = cache_for_ms {
                    verifier = verifier.cache_for(duration_ms(ms, "cacheForMs")?);
                }
                Arc::new(verifier)
            }
            Verifier::Custom { verifier } => Arc::new(Foreign(verifier)),
        })
    }
}

/// A foreign [`TokenVerifier`] as the core's.
struct Foreign(Arc<dyn TokenVerifier>);

impl CoreTokenVerifier for Foreign {
    fn verify(&self, token: String) -> BoxFuture<'static, Result<CoreAccessToken, VerifyError>> {
        let verifier = Arc::clone(&self.0);
        Box::pin(async move {
            match verifier.verify(token).await {
                Ok(Some(accepted)) => accepted
                    .into_core()
                    .map_err(|e| VerifyError::unavailable(e.to_string())),
                Ok(None) => Err(VerifyError::invalid("the token is not valid")),
                Err(error) => Err(VerifyError::unavailable(format!("the verifier failed: {error}"))),
            }
        })
    }
}
