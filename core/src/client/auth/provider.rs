//! [`OAuthProvider`]: authorizes the requests of the HTTP client transport, running
//! discovery, registration and a grant whenever the server refuses a request.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use reqwest::Url;

mod authorizer;
mod grant;
mod refresh;
mod scope;

use super::assertion::{AssertionSource, AssertionTarget};
use super::challenge::BearerChallenge;
use super::discovery::{AuthorizationServerMetadata, Discovered};
use super::dpop::Dpop;
use super::jwt::SigningKey;
use super::registration::{ClientCredentials, ClientMetadata};
use super::token::{MemoryTokenStore, TokenStore, Tokens};
use super::AuthError;
use crate::oauth::http;
use crate::{BoxError, BoxFuture};

/// Shows the user the authorization URL (opens a browser) and resolves to the URL the
/// authorization server redirected back to (the callback with `code`, `state`, `iss`).
pub type RedirectHandler = Arc<dyn Fn(Url) -> BoxFuture<'static, Result<String, BoxError>> + Send + Sync>;

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

/// What the clones of a provider share.
struct Inner {
    config: Config,
    /// One authorization at a time; what it learned for the next.
    session: tokio::sync::Mutex<Session>,
}

/// How the provider authorizes, as configured.
#[derive(Clone)]
struct Config {
    http: reqwest::Client,
    grant: GrantKind,
    metadata_document_url: Option<String>,
    /// Pre-registered credentials by the issuer they were registered with; when there
    /// are some, the provider works with these issuers only.
    pre_registered: HashMap<String, ClientCredentials>,
    store: Arc<dyn TokenStore>,
    dpop: Option<Arc<Dpop>>,
}

/// The grant the provider runs.
#[derive(Clone)]
enum GrantKind {
    AuthorizationCode {
        metadata: ClientMetadata,
        redirect: RedirectHandler,
    },
    ClientCredentials,
    JwtBearer(AssertionSource),
}

/// What authorizations learn, for the next ones.
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
        OAuthProvider::new(GrantKind::AuthorizationCode { metadata, redirect })
    }

    /// A provider for a desktop or command-line app that signs its user in through the
    /// system browser: the authorization code grant, registered as `client_name` with the
    /// `redirect` listener's URI. `open` shows the user the authorization URL (opens the
    /// browser); the provider then waits, up to [`LOOPBACK_WAIT`](super::LOOPBACK_WAIT),
    /// for the browser to come back to the listener.
    ///
    /// ```no_run
    /// use oxmcp::client::auth::{LoopbackRedirect, OAuthProvider};
    ///
    /// # fn run() -> std::io::Result<()> {
    /// let provider = OAuthProvider::loopback("My app", LoopbackRedirect::bind(0)?, |url| async move {
    ///     std::process::Command::new("xdg-open").arg(url.as_str()).status().map(drop)
    /// });
    /// # drop(provider); Ok(()) }
    /// ```
    #[cfg(feature = "http-server")]
    pub fn loopback<F, Fut, E>(
        client_name: impl Into<String>,
        redirect: super::LoopbackRedirect,
        open: F,
    ) -> OAuthProvider
    where
        F: Fn(Url) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<BoxError>,
    {
        let redirect = Arc::new(redirect);
        let metadata = ClientMetadata::new(client_name, redirect.redirect_uri());
        OAuthProvider::authorization_code(metadata, move |url| {
            let redirect = Arc::clone(&redirect);
            let opened = open(url);
            async move {
                // Listening while `open` runs: it may return only once the browser is back.
                let received = redirect.receive(super::LOOPBACK_WAIT);
                tokio::pin!(received);
                tokio::select! {
                    received = &mut received => return received.map_err(BoxError::from),
                    opened = opened => opened.map_err(Into::into)?,
                }
                received.await.map_err(BoxError::from)
            }
        })
    }

    /// A provider for a machine client: the client credentials grant with these
    /// credentials, pre-registered with the authorization server `issuer` (its issuer
    /// identifier, compared as a plain string). They are only ever sent to that server:
    /// an MCP server that names another one is refused with
    /// [`AuthError::UnregisteredIssuer`]; add more with
    /// [`pre_registered`](Self::pre_registered).
    ///
    /// ```
    /// use oxmcp::client::auth::{ClientCredentials, OAuthProvider};
    ///
    /// let credentials = ClientCredentials::new("reporting-bot").secret("s3cret");
    /// let provider = OAuthProvider::client_credentials("https://auth.example.com", credentials);
    /// # drop(provider);
    /// ```
    pub fn client_credentials(issuer: impl Into<String>, credentials: ClientCredentials) -> OAuthProvider {
        OAuthProvider::new(GrantKind::ClientCredentials).pre_registered(issuer, credentials)
    }

    /// A provider for a workload or an enterprise-managed app: the JWT bearer grant
    /// (RFC 7523) with these credentials, pre-registered with the authorization server
    /// `issuer`, presenting the assertion that `assertion` produces for each
    /// authorization (a workload identity token, or an ID-JAG from
    /// [`request_id_jag`](super::request_id_jag)). As with
    /// [`client_credentials`](Self::client_credentials), neither the credentials nor an
    /// assertion is ever made for or sent to another authorization server.
    ///
    /// ```
    /// use oxmcp::client::auth::{ClientCredentials, OAuthProvider};
    ///
    /// let credentials = ClientCredentials::new("workload");
    /// let provider = OAuthProvider::jwt_bearer("https://auth.example.com", credentials, |_target| async {
    ///     std::fs::read_to_string("/var/run/secrets/tokens/mcp")
    /// });
    /// # drop(provider);
    /// ```
    pub fn jwt_bearer<F, Fut, E>(
        issuer: impl Into<String>,
        credentials: ClientCredentials,
        assertion: F,
    ) -> OAuthProvider
    where
        F: Fn(AssertionTarget) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        OAuthProvider::new(GrantKind::JwtBearer(boxed(assertion))).pre_registered(issuer, credentials)
    }

    fn new(grant: GrantKind) -> OAuthProvider {
        let config = Config {
            http: http::client().unwrap_or_default(),
            grant,
            metadata_document_url: None,
            pre_registered: HashMap::new(),
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

    /// Uses these credentials, registered beforehand with the authorization server
    /// `issuer` (its issuer identifier, compared as a plain string), instead of
    /// registering. Call it once per authorization server the app is registered with.
    /// Once some are configured, the provider works with these authorization servers
    /// only: an MCP server that names another one is refused with
    /// [`AuthError::UnregisteredIssuer`] before anything is sent to it.
    pub fn pre_registered(self, issuer: impl Into<String>, credentials: ClientCredentials) -> OAuthProvider {
        let issuer = issuer.into();
        self.configure(|c| {
            c.pre_registered.insert(issuer, credentials);
        })
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
