//! Tokens: the token endpoint's grants (authorization code, refresh, client
//! credentials) with the client's authentication, and where tokens are kept.

use std::borrow::Cow;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::discovery::AuthorizationServerMetadata;
use super::dpop::{Audience, Dpop, DPOP, USE_DPOP_NONCE};
use super::registration::{ClientCredentials, TokenEndpointAuthMethod};
use super::AuthError;
use crate::oauth::http::{basic_authorization, post_form, FormAnswer};
use crate::BoxFuture;

/// How long before its expiry a token is treated as expired, so it is not refused in
/// flight.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// The longest lifetime taken from an `expires_in`: a server's larger value (up to
/// `u64::MAX` seconds, past what `SystemTime` can hold) counts as this.
const MAX_LIFETIME: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The tokens of one authorization, and the issuer that granted them (tokens and
/// refresh tokens are only ever sent back to it).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Tokens {
    /// The access token sent to the MCP server.
    pub access_token: String,
    /// The token type, `Bearer`.
    pub token_type: String,
    /// The refresh token, if the server issued one.
    pub refresh_token: Option<String>,
    /// The scopes granted, space-separated (the requested ones when the server did not say).
    pub scope: Option<String>,
    /// When the access token expires, if the server said.
    pub expires_at: Option<SystemTime>,
    /// The issuer of the authorization server that granted the tokens.
    pub issuer: String,
    /// The client the tokens were granted to, when the provider registered it itself
    /// (dynamically, or by its metadata document URL): kept with the tokens, so that a
    /// later run of the app refreshes them as the same client instead of signing in again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientCredentials>,
}

impl Tokens {
    /// Whether the access token is bound to the client's DPoP key (RFC 9449 §5).
    pub fn dpop_bound(&self) -> bool {
        self.token_type.eq_ignore_ascii_case("dpop")
    }

    /// Whether the access token has expired (or is about to).
    pub fn expired(&self) -> bool {
        self.expires_at
            .is_some_and(|at| SystemTime::now() + EXPIRY_MARGIN >= at)
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.is_some())
            .field("scope", &self.scope)
            .field("expires_at", &self.expires_at)
            .field("issuer", &self.issuer)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// Where a provider keeps its tokens: in memory by default ([`MemoryTokenStore`]); an
/// app implements this to keep them in the OS keychain or an encrypted file.
///
/// ```
/// use oxmcp::client::auth::{MemoryTokenStore, TokenStore};
///
/// # async fn run() {
/// let store = MemoryTokenStore::default();
/// assert!(store.load().await.unwrap().is_none());
/// # }
/// ```
pub trait TokenStore: Send + Sync {
    /// The stored tokens, if any.
    fn load(&self) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>>;
    /// Replaces the stored tokens (`None` forgets them).
    fn save(&self, tokens: Option<Tokens>) -> BoxFuture<'_, Result<(), AuthError>>;
}

/// Tokens kept in memory for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<Option<Tokens>>,
}

impl MemoryTokenStore {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Tokens>> {
        // A plain value: a panic elsewhere cannot leave it half-written.
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        let tokens = self.slot().clone();
        Box::pin(async move { Ok(tokens) })
    }

    fn save(&self, tokens: Option<Tokens>) -> BoxFuture<'_, Result<(), AuthError>> {
        *self.slot() = tokens;
        Box::pin(async { Ok(()) })
    }
}

/// A grant presented at the token endpoint.
pub(crate) enum Grant<'a> {
    AuthorizationCode {
        code: &'a str,
        redirect_uri: &'a str,
        verifier: &'a str,
    },
    RefreshToken(&'a str),
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1) with this assertion.
    JwtBearer(&'a str),
}

/// The client assertion type of `private_key_jwt` (RFC 7523 §2.2).
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The grant type of the JWT bearer grant (RFC 7523 §2.1).
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Asks `server`'s token endpoint for tokens for `resource`.
pub(crate) async fn request_tokens(
    http: &reqwest::Client,
    server: &AuthorizationServerMetadata,
    client: &ClientCredentials,
    grant: Grant<'_>,
    resource: &str,
    scope: Option<&str>,
    dpop: Option<&Dpop>,
) -> Result<Tokens, AuthError> {
    #[derive(Deserialize)]
    struct Answer {
        access_token: String,
        token_type: Option<String>,
        refresh_token: Option<String>,
        scope: Option<String>,
        expires_in: Option<u64>,
    }
    let endpoint = &server.token_endpoint;
    let url = Url::parse(endpoint).map_err(|e| AuthError::invalid_url(endpoint, e))?;
    let pairs: Vec<(&str, &str)> = match &grant {
        Grant::AuthorizationCode {
            code,
            redirect_uri,
            verifier,
        } => vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ],
        Grant::RefreshToken(token) => vec![("grant_type", "refresh_token"), ("refresh_token", token)],
        Grant::ClientCredentials => vec![("grant_type", "client_credentials")],
        Grant::JwtBearer(assertion) => vec![("grant_type", JWT_BEARER), ("assertion", assertion)],
    };
    let mut form: Form = pairs.into_iter().map(|(k, v)| (k, Cow::Borrowed(v))).collect();
    form.push(("resource", Cow::Borrowed(resource)));
    if let Some(scope) = scope {
        form.push(("scope", Cow::Borrowed(scope)));
    }
    let mut headers = HeaderMap::new();
    authenticate(
        client,
        client.method_for(server),
        &server.issuer,
        &mut form,
        &mut headers,
    )?;
    let answer: Answer = match dpop {
        None => post_form(http, &url, headers, &form).await?.answer?,
        Some(dpop) => with_proof(http, &url, headers, &form, dpop).await?,
    };
    Ok(Tokens {
        access_token: answer.access_token,
        token_type: answer.token_type.unwrap_or_else(|| "Bearer".to_owned()),
        refresh_token: answer.refresh_token,
        scope: answer.scope.or_else(|| scope.map(str::to_owned)),
        expires_at: answer.expires_in.map(expiry),
        issuer: server.issuer.clone(),
        client: None,
    })
}

/// When a token that lives `expires_in` seconds from now expires, at most
/// [`MAX_LIFETIME`] from now.
fn expiry(expires_in: u64) -> SystemTime {
    let now = SystemTime::now();
    let lifetime = Duration::from_secs(expires_in).min(MAX_LIFETIME);
    now.checked_add(lifetime).unwrap_or(now)
}

/// POSTs a token request with a DPoP proof; a server that answers `use_dpop_nonce`
/// gets the request once more, with a proof carrying its nonce (RFC 9449 §8).
async fn with_proof<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &Url,
    headers: HeaderMap,
    form: &Form<'_>,
    dpop: &Dpop,
) -> Result<T, AuthError> {
    let mut retried = false;
    loop {
        let mut headers = headers.clone();
        let proof = dpop.proof(&Method::POST, url, None, Audience::AuthorizationServer)?;
        headers.insert(DPOP, proof);
        let FormAnswer { answer, dpop_nonce } = post_form(http, url, headers, form).await?;
        let fresh_nonce = dpop_nonce.is_some();
        if let Some(nonce) = dpop_nonce {
            dpop.set_nonce(Audience::AuthorizationServer, nonce);
        }
        match answer {
            Err(AuthError::Refused { error, .. }) if error == USE_DPOP_NONCE && fresh_nonce && !retried => {
                retried = true
            }
            answer => return answer,
        }
    }
}

/// The fields of a form POST.
pub(crate) type Form<'a> = Vec<(&'static str, Cow<'a, str>)>;

/// Adds the client's authentication to a token endpoint request (RFC 6749 §2.3); a
/// `private_key_jwt` assertion is for the authorization server `issuer`.
pub(crate) fn authenticate<'a>(
    client: &'a ClientCredentials,
    method: TokenEndpointAuthMethod,
    issuer: &str,
    form: &mut Form<'a>,
    headers: &mut HeaderMap,
) -> Result<(), AuthError> {
    let id = Cow::Borrowed(client.client_id.as_str());
    match method {
        TokenEndpointAuthMethod::None => form.push(("client_id", id)),
        TokenEndpointAuthMethod::ClientSecretPost => {
            let secret = secret_of(client, method)?;
            form.push(("client_id", id));
            form.push(("client_secret", Cow::Borrowed(secret)));
        }
        TokenEndpointAuthMethod::ClientSecretBasic => {
            let secret = secret_of(client, method)?;
            headers.insert(AUTHORIZATION, basic_authorization(&client.client_id, secret)?);
        }
        TokenEndpointAuthMethod::PrivateKeyJwt => {
            let key = client.signing_key.as_ref().ok_or(AuthError::MissingSecret {
                method: method.as_str().to_owned(),
            })?;
            form.push(("client_id", id));
            form.push(("client_assertion_type", Cow::Borrowed(CLIENT_ASSERTION_TYPE)));
            form.push((
                "client_assertion",
                Cow::Owned(key.client_assertion(&client.client_id, issuer)?),
            ));
        }
    }
    Ok(())
}

fn secret_of(client: &ClientCredentials, method: TokenEndpointAuthMethod) -> Result<&str, AuthError> {
    client.client_secret.as_deref().ok_or(AuthError::MissingSecret {
        method: method.as_str().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_has_a_margin() {
        let mut tokens = Tokens {
            access_token: "SECRET-AT".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            scope: None,
            expires_at: None,
            issuer: "https://as".into(),
            client: None,
        };
        assert!(!tokens.expired());
        tokens.expires_at = Some(SystemTime::now() + Duration::from_secs(5));
        assert!(tokens.expired());
        tokens.expires_at = Some(SystemTime::now() + Duration::from_secs(3600));
        assert!(!tokens.expired());
        assert!(!format!("{tokens:?}").contains("SECRET-AT"));
    }

    #[test]
    fn a_huge_expires_in_is_capped() {
        let before = SystemTime::now();
        let capped = expiry(u64::MAX);
        assert!(before + MAX_LIFETIME <= capped && capped <= SystemTime::now() + MAX_LIFETIME);
        assert!(expiry(60) <= SystemTime::now() + Duration::from_secs(60));
    }
}
