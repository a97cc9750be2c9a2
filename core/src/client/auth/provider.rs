//! [`OAuthProvider`]: authorizes the requests of the HTTP client transport, running
//! discovery, registration and a grant whenever the server refuses a request.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode, Url};

use super::assertion::{AssertionSource, AssertionTarget};
use super::authorize::AuthorizationRequest;
use super::challenge::BearerChallenge;
use super::discovery::{discover, AuthorizationServerMetadata, Discovered};
use super::dpop::{Audience, Dpop, DPOP, USE_DPOP_NONCE};
use super::http::DPOP_NONCE;
use super::jwt::SigningKey;
use super::registration::{register, ClientCredentials, ClientMetadata, TokenEndpointAuthMethod};
use super::token::{request_tokens, Grant, MemoryTokenStore, TokenStore, Tokens};
use super::{http, AuthError};
use crate::transport::http::client::HttpAuthorizer;
use crate::{BoxError, BoxFuture};

/// Shows the user the authorization URL (opens a browser) and resolves to the URL the
/// authorization server redirected back to (the callback with `code`, `state`, `iss`).
pub type RedirectHandler = Arc<dyn Fn(Url) -> BoxFuture<'static, Result<String, BoxError>> + Send + Sync>;

/// The scope a client asks for when the server offers to issue refresh tokens.
const OFFLINE_ACCESS: &str = "offline_access";

/// An OAuth 2.1 client for MCP servers, to plug into the HTTP client transport with
/// [`HttpClientOptions::authorizer`](crate::transport::http::client::HttpClientOptions::authorizer).
///
/// Every request carries the current access token. When the server refuses one (401, or
/// 403 with `insufficient_scope`), the provider discovers the authorization server
/// (RFC 9728, RFC 8414), gets a client id (pre-registered, a client ID metadata document,
/// or dynamic registration), runs its grant (authorization code with PKCE through the
/// redirect handler, or client credentials), keeps the tokens in its [`TokenStore`] and
/// the transport sends the request again. Expired tokens are refreshed first.
///
/// The flow runs while the refused request waits, so that request's timeouts include
/// the user's time in the browser: an interactive app calls
/// [`authorize`](Self::authorize) before it connects, or connects with timeouts long
/// enough for the user. One provider serves one MCP server (its store holds one set of
/// tokens).
///
/// ```no_run
/// use oxmcp::client::auth::{ClientMetadata, OAuthProvider};
/// use oxmcp::client::{Client, ClientOptions};
/// use oxmcp::transport::http::client::{connect, HttpClientOptions};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let redirect = "http://127.0.0.1:33418/callback";
/// let provider = OAuthProvider::authorization_code(ClientMetadata::new("My app", redirect), |url| async move {
///     // Open `url` in a browser, wait for the redirect to `redirect`, return its URL.
///     # let _ = url;
///     Ok::<_, std::io::Error>(String::from("http://127.0.0.1:33418/callback?code=..."))
/// });
/// let transport = connect(HttpClientOptions::new("https://mcp.example.com/mcp").authorizer(provider))?;
/// let client = Client::connect(transport, ClientOptions::new("app", "1.0")).await?;
/// # drop(client); Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuthProvider {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    /// One authorization at a time; what it learned for the next.
    session: tokio::sync::Mutex<Session>,
}

#[derive(Clone)]
struct Config {
    http: reqwest::Client,
    grant: GrantKind,
    metadata_document_url: Option<String>,
    pre_registered: Option<ClientCredentials>,
    store: Arc<dyn TokenStore>,
    dpop: Option<Arc<Dpop>>,
}

#[derive(Clone)]
enum GrantKind {
    AuthorizationCode {
        metadata: ClientMetadata,
        redirect: RedirectHandler,
    },
    ClientCredentials,
    JwtBearer(AssertionSource),
}

#[derive(Default)]
struct Session {
    /// The clients registered so far, by issuer: credentials never travel to another
    /// authorization server.
    clients: HashMap<String, ClientCredentials>,
    /// The last discovery, to refresh tokens without discovering again.
    discovered: Option<Discovered>,
}

impl OAuthProvider {
    /// A provider for a user-facing app: the authorization code grant with PKCE. The
    /// client registers with `metadata` (unless pre-registered or identified by a
    /// metadata document URL), and `redirect` takes the user through authorization.
    pub fn authorization_code<F, Fut, E>(metadata: ClientMetadata, redirect: F) -> OAuthProvider
    where
        F: Fn(Url) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        let redirect: RedirectHandler = boxed(redirect);
        OAuthProvider::new(GrantKind::AuthorizationCode { metadata, redirect }, None)
    }

    /// A provider for a machine client: the client credentials grant with these
    /// pre-registered credentials.
    pub fn client_credentials(credentials: ClientCredentials) -> OAuthProvider {
        OAuthProvider::new(GrantKind::ClientCredentials, Some(credentials))
    }

    /// A provider for a workload or an enterprise-managed app: the JWT bearer grant
    /// (RFC 7523) with these pre-registered credentials, presenting the assertion that
    /// `assertion` produces for each authorization (a workload identity token, or an
    /// ID-JAG from [`request_id_jag`](super::request_id_jag)).
    ///
    /// ```
    /// use oxmcp::client::auth::{ClientCredentials, OAuthProvider};
    ///
    /// let provider = OAuthProvider::jwt_bearer(ClientCredentials::new("workload"), |_target| async {
    ///     std::fs::read_to_string("/var/run/secrets/tokens/mcp")
    /// });
    /// # drop(provider);
    /// ```
    pub fn jwt_bearer<F, Fut, E>(credentials: ClientCredentials, assertion: F) -> OAuthProvider
    where
        F: Fn(AssertionTarget) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        OAuthProvider::new(GrantKind::JwtBearer(boxed(assertion)), Some(credentials))
    }

    fn new(grant: GrantKind, pre_registered: Option<ClientCredentials>) -> OAuthProvider {
        let config = Config {
            http: http::client().unwrap_or_default(),
            grant,
            metadata_document_url: None,
            pre_registered,
            store: Arc::new(MemoryTokenStore::default()),
            dpop: None,
        };
        OAuthProvider {
            inner: Arc::new(Inner {
                config,
                session: tokio::sync::Mutex::new(Session::default()),
            }),
        }
    }

    /// Changes the configuration. Configuring a clone makes it an independent provider
    /// (with its own registrations), since the others keep the configuration they had.
    fn configure(mut self, change: impl FnOnce(&mut Config)) -> OAuthProvider {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => change(&mut inner.config),
            None => {
                let mut config = self.inner.config.clone();
                change(&mut config);
                self.inner = Arc::new(Inner {
                    config,
                    session: tokio::sync::Mutex::new(Session::default()),
                });
            }
        }
        self
    }

    /// Identifies the client by the HTTPS URL of its client ID metadata document, with
    /// authorization servers that accept them (`client_id_metadata_document_supported`).
    pub fn client_metadata_url(self, url: impl Into<String>) -> OAuthProvider {
        let url = url.into();
        self.configure(|c| c.metadata_document_url = Some(url))
    }

    /// Uses these credentials, registered beforehand with the MCP server's authorization
    /// server, instead of registering (with whichever authorization server the MCP
    /// server names).
    pub fn pre_registered(self, credentials: ClientCredentials) -> OAuthProvider {
        self.configure(|c| c.pre_registered = Some(credentials))
    }

    /// Keeps tokens in `store` instead of memory.
    pub fn token_store(self, store: impl TokenStore + 'static) -> OAuthProvider {
        self.configure(|c| c.store = Arc::new(store))
    }

    /// Binds tokens to `key` with DPoP (RFC 9449) at authorization servers that support
    /// it: proofs at the token endpoint and with every request that presents the token.
    pub fn dpop(self, key: SigningKey) -> OAuthProvider {
        let dpop = Arc::new(Dpop::new(key));
        self.configure(|c| c.dpop = Some(dpop))
    }

    /// The DPoP key, when it is to be used with `server`.
    fn dpop_for(&self, server: &AuthorizationServerMetadata) -> Option<&Dpop> {
        let supported = Dpop::supported_by(server.dpop_signing_alg_values_supported.as_deref());
        self.inner.config.dpop.as_deref().filter(|_| supported)
    }

    /// The current tokens, if any.
    pub async fn tokens(&self) -> Result<Option<Tokens>, AuthError> {
        self.inner.config.store.load().await
    }

    /// Authorizes access to the MCP endpoint `server` now, as after a refusal with
    /// `challenge` (pass `None` when there was none), and keeps the tokens.
    pub async fn authorize(&self, server: &Url, challenge: Option<&BearerChallenge>) -> Result<Tokens, AuthError> {
        let mut session = self.inner.session.lock().await;
        self.run(&mut session, server, challenge.cloned().unwrap_or_default(), false)
            .await
    }

    async fn run(
        &self,
        session: &mut Session,
        server: &Url,
        challenge: BearerChallenge,
        may_refresh: bool,
    ) -> Result<Tokens, AuthError> {
        let inner = &self.inner.config;
        let discovered = discover(&inner.http, server, challenge.resource_metadata.as_deref()).await?;
        let prior = inner
            .store
            .load()
            .await?
            .filter(|t| t.issuer == discovered.server.issuer);
        if may_refresh && !challenge.insufficient_scope() {
            if let Some(prior) = &prior {
                if let Some(tokens) = self.refresh(session, &discovered, prior).await {
                    session.discovered = Some(discovered);
                    return Ok(tokens);
                }
            }
        }
        let scope = select_scope(&challenge, prior.as_ref(), &discovered);
        let client = self.client_for(session, &discovered).await?;
        let mut tokens = match &inner.grant {
            GrantKind::ClientCredentials => {
                request_tokens(
                    &inner.http,
                    &discovered.server,
                    &client,
                    Grant::ClientCredentials,
                    &discovered.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered.server),
                )
                .await?
            }
            GrantKind::JwtBearer(assertion) => {
                let target = AssertionTarget {
                    issuer: discovered.server.issuer.clone(),
                    resource: discovered.resource.clone(),
                    scope: scope.clone(),
                };
                let assertion = assertion(target)
                    .await
                    .map_err(|e| AuthError::Assertion(e.to_string()))?;
                request_tokens(
                    &inner.http,
                    &discovered.server,
                    &client,
                    Grant::JwtBearer(assertion.trim()),
                    &discovered.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered.server),
                )
                .await?
            }
            GrantKind::AuthorizationCode { metadata, redirect } => {
                let redirect_uri = metadata
                    .redirect_uris
                    .first()
                    .ok_or_else(|| AuthError::invalid_url("(client metadata)", "no redirect URI"))?;
                self.code_flow(redirect, &client, redirect_uri, &discovered, scope.as_deref())
                    .await?
            }
        };
        if tokens.scope.is_none() {
            tokens.scope = scope;
        }
        inner.store.save(Some(tokens.clone())).await?;
        session.discovered = Some(discovered);
        Ok(tokens)
    }

    /// The authorization code grant: the user authorizes through the redirect handler,
    /// the checked code is exchanged with the PKCE verifier.
    async fn code_flow(
        &self,
        redirect: &RedirectHandler,
        client: &ClientCredentials,
        redirect_uri: &str,
        discovered: &Discovered,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let server = &discovered.server;
        if discovered.published && !server.supports_s256() {
            return Err(AuthError::PkceUnsupported);
        }
        let endpoint = server
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| AuthError::invalid(&server.issuer, "the metadata names no authorization endpoint"))?;
        let request = AuthorizationRequest::new(
            endpoint,
            &client.client_id,
            redirect_uri,
            scope,
            &discovered.resource,
            discovered.published.then(|| server.issuer.clone()),
            server.authorization_response_iss_parameter_supported,
        )?;
        let callback = redirect(request.url().clone())
            .await
            .map_err(|e| AuthError::Redirect(e.to_string()))?;
        let code = request.code_from(&callback)?;
        let grant = Grant::AuthorizationCode {
            code: &code,
            redirect_uri: request.redirect_uri(),
            verifier: request.verifier(),
        };
        let dpop = self.dpop_for(server);
        request_tokens(
            &self.inner.config.http,
            server,
            client,
            grant,
            &discovered.resource,
            None,
            dpop,
        )
        .await
    }

    /// New tokens for `prior`'s refresh token, kept in the store; `None` when there is
    /// no refresh token or the server refused it.
    async fn refresh(&self, session: &mut Session, discovered: &Discovered, prior: &Tokens) -> Option<Tokens> {
        let refresh_token = prior.refresh_token.as_deref()?;
        let client = session.clients.get(&discovered.server.issuer)?.clone();
        let grant = Grant::RefreshToken(refresh_token);
        let outcome = request_tokens(
            &self.inner.config.http,
            &discovered.server,
            &client,
            grant,
            &discovered.resource,
            None,
            self.dpop_for(&discovered.server),
        )
        .await;
        match outcome {
            Ok(mut tokens) => {
                // A server that rotates nothing keeps the old refresh token valid.
                tokens.refresh_token = tokens.refresh_token.or_else(|| prior.refresh_token.clone());
                tokens.scope = tokens.scope.or_else(|| prior.scope.clone());
                self.inner.config.store.save(Some(tokens.clone())).await.ok()?;
                Some(tokens)
            }
            Err(error) => {
                tracing::debug!(%error, "refreshing the access token failed");
                None
            }
        }
    }

    /// The client id at the discovered authorization server: one registered there
    /// before, the pre-registered one, the metadata document URL, or a new registration.
    async fn client_for(&self, session: &mut Session, discovered: &Discovered) -> Result<ClientCredentials, AuthError> {
        let server = &discovered.server;
        if let Some(client) = session.clients.get(&server.issuer) {
            return Ok(client.clone());
        }
        let inner = &self.inner.config;
        let client = match (&inner.pre_registered, &inner.metadata_document_url, &inner.grant) {
            (Some(credentials), _, _) => credentials.clone(),
            (None, Some(url), _) if server.client_id_metadata_document_supported => {
                ClientCredentials::new(url.clone()).auth_method(TokenEndpointAuthMethod::None)
            }
            (None, _, GrantKind::AuthorizationCode { metadata, .. }) => {
                let endpoint = server
                    .registration_endpoint
                    .as_deref()
                    .ok_or_else(|| AuthError::NoRegistration {
                        issuer: server.issuer.clone(),
                    })?;
                register(&inner.http, endpoint, metadata, server).await?
            }
            (None, _, GrantKind::ClientCredentials | GrantKind::JwtBearer(_)) => {
                return Err(AuthError::NoRegistration {
                    issuer: server.issuer.clone(),
                })
            }
        };
        session.clients.insert(server.issuer.clone(), client.clone());
        Ok(client)
    }

    /// The current tokens, refreshed first when they have expired.
    async fn current_tokens(&self) -> Result<Option<Tokens>, AuthError> {
        let Some(tokens) = self.inner.config.store.load().await? else {
            return Ok(None);
        };
        if !tokens.expired() || tokens.refresh_token.is_none() {
            return Ok(Some(tokens));
        }
        let mut session = self.inner.session.lock().await;
        // Another request may have refreshed while this one waited.
        let tokens = match self.inner.config.store.load().await? {
            Some(current) if current != tokens => return Ok(Some(current)),
            _ => tokens,
        };
        let refreshed = match session.discovered.clone() {
            Some(discovered) => self.refresh(&mut session, &discovered, &tokens).await,
            None => None,
        };
        Ok(Some(refreshed.unwrap_or(tokens)))
    }

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

impl std::fmt::Debug for OAuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grant = match self.inner.config.grant {
            GrantKind::AuthorizationCode { .. } => "authorization_code",
            GrantKind::ClientCredentials => "client_credentials",
            GrantKind::JwtBearer(_) => "jwt_bearer",
        };
        f.debug_struct("OAuthProvider")
            .field("grant", &grant)
            .field("client_metadata_url", &self.inner.config.metadata_document_url)
            .field("pre_registered", &self.inner.config.pre_registered)
            .finish_non_exhaustive()
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

/// An app's async callback answering a string (a callback URL, an assertion), boxed.
fn boxed<A, F, Fut, E>(callback: F) -> Arc<dyn Fn(A) -> BoxFuture<'static, Result<String, BoxError>> + Send + Sync>
where
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: Into<BoxError>,
{
    Arc::new(move |argument| {
        let answer = callback(argument);
        Box::pin(async move { answer.await.map_err(Into::into) })
    })
}

/// `Bearer {token}` or `DPoP {token}`, marked sensitive so it is never logged.
fn authorization_value(tokens: &Tokens) -> Option<HeaderValue> {
    let scheme = if tokens.dpop_bound() { "DPoP" } else { "Bearer" };
    let mut value = HeaderValue::try_from(format!("{scheme} {}", tokens.access_token)).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// The scopes to ask for (MCP scope selection strategy): the challenge's, together with
/// those granted before by the same server (a step-up keeps what it had); else all the
/// resource's `scopes_supported`; else none. `offline_access` is added when the
/// authorization server offers it, so a refresh token can outlive the session.
fn select_scope(challenge: &BearerChallenge, prior: Option<&Tokens>, discovered: &Discovered) -> Option<String> {
    fn add<'a>(scopes: &mut Vec<&'a str>, scope: &'a str) {
        for s in scope.split_ascii_whitespace() {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
    }
    let mut scopes: Vec<&str> = Vec::new();
    match &challenge.scope {
        Some(challenged) => {
            if let Some(granted) = prior.and_then(|t| t.scope.as_deref()) {
                add(&mut scopes, granted);
            }
            add(&mut scopes, challenged);
        }
        None => {
            let supported = discovered
                .resource_metadata
                .as_ref()
                .and_then(|m| m.scopes_supported.as_ref());
            for scope in supported.into_iter().flatten() {
                add(&mut scopes, scope);
            }
        }
    }
    let offers_offline = discovered
        .server
        .scopes_supported
        .iter()
        .flatten()
        .any(|s| s == OFFLINE_ACCESS);
    if !scopes.is_empty() && offers_offline {
        add(&mut scopes, OFFLINE_ACCESS);
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

#[cfg(test)]
mod tests {
    use super::super::discovery::{AuthorizationServerMetadata, ProtectedResourceMetadata};
    use super::*;

    fn discovered(resource_scopes: Option<&[&str]>, server_scopes: Option<&[&str]>) -> Discovered {
        let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let prm: ProtectedResourceMetadata = serde_json::from_value(serde_json::json!({
            "resource": "https://mcp.example.com/mcp",
            "authorization_servers": ["https://as.example.com"],
            "scopes_supported": resource_scopes.map(strings),
        }))
        .unwrap();
        let server: AuthorizationServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example.com",
            "token_endpoint": "https://as.example.com/token",
            "scopes_supported": server_scopes.map(strings),
        }))
        .unwrap();
        Discovered {
            resource_metadata: Some(prm),
            server,
            published: true,
            resource: "https://mcp.example.com/mcp".into(),
        }
    }

    fn challenge(scope: Option<&str>) -> BearerChallenge {
        BearerChallenge {
            scope: scope.map(str::to_owned),
            ..BearerChallenge::default()
        }
    }

    fn granted(scope: &str) -> Tokens {
        Tokens {
            access_token: "a".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            scope: Some(scope.into()),
            expires_at: None,
            issuer: "https://as.example.com".into(),
        }
    }

    #[test]
    fn the_challenge_wins_over_scopes_supported() {
        let d = discovered(Some(&["a", "b"]), None);
        assert_eq!(select_scope(&challenge(Some("c")), None, &d).as_deref(), Some("c"));
        assert_eq!(select_scope(&challenge(None), None, &d).as_deref(), Some("a b"));
        assert_eq!(select_scope(&challenge(None), None, &discovered(None, None)), None);
    }

    #[test]
    fn step_up_keeps_granted_scopes() {
        let d = discovered(Some(&["profile"]), None);
        let prior = granted("basic");
        assert_eq!(
            select_scope(&challenge(Some("write basic")), Some(&prior), &d).as_deref(),
            Some("basic write")
        );
    }

    #[test]
    fn offline_access_when_offered() {
        let d = discovered(Some(&["basic"]), Some(&["basic", "offline_access"]));
        assert_eq!(
            select_scope(&challenge(None), None, &d).as_deref(),
            Some("basic offline_access")
        );
        let d = discovered(None, Some(&["offline_access"]));
        assert_eq!(select_scope(&challenge(None), None, &d), None);
    }
}
