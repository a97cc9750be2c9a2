//! The OAuth client of the HTTP client (`HttpSettings.auth`): the core's provider, with
//! the user's trip through the browser ([`Authorizer`]) and the place tokens are kept
//! ([`TokenStorage`]) left to the app.

use std::sync::Arc;

use oxmcp::client::auth::{
    AssertionTarget, ClientCredentials, ClientMetadata, FileTokenStore, LoopbackRedirect, OAuthProvider, SigningKey,
    TextTokenStore,
};

use crate::error::McpError;

/// Takes the user to the authorization server and back: on iOS an
/// `ASWebAuthenticationSession`, on Android a Custom Tab, with the app's custom scheme or
/// app link as the redirect URI.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync {
    /// Shows the user `url` and returns the URL the browser came back to (with `code`,
    /// `state` and `iss`, or `error`).
    async fn authorize(&self, url: String) -> Result<String, McpError>;
}

/// Opens the system browser at a URL (a desktop app: `java.awt.Desktop`, `open`,
/// `xdg-open`); the browser then comes back to the loopback listener of [`OAuth::loopback`].
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait BrowserOpener: Send + Sync {
    /// Opens `url`.
    async fn open(&self, url: String) -> Result<(), McpError>;
}

/// Makes the assertion of each JWT bearer grant (RFC 7523): a workload identity token, or
/// an ID-JAG ([`request_id_jag`]) for enterprise-managed authorization.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait AssertionProvider: Send + Sync {
    /// The assertion for the authorization server `issuer`, for a token to `resource` with
    /// `scope`.
    async fn assertion(&self, issuer: String, resource: String, scope: Option<String>) -> Result<String, McpError>;
}

/// Where the app keeps the tokens (the Keychain, the Android Keystore): an opaque text,
/// saved whole and loaded whole.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait TokenStorage: Send + Sync {
    /// The text the last `save` kept, if any.
    async fn load(&self) -> Result<Option<String>, McpError>;
    /// Keeps `tokens` (`None`: forget them).
    async fn save(&self, tokens: Option<String>) -> Result<(), McpError>;
}

/// How an [`OAuth`] keeps tokens and identifies itself; every field has a default.
#[derive(uniffi::Record, Default)]
pub struct OAuthOptions {
    /// Where tokens are kept (default: in memory, or `tokenFile`).
    #[uniffi(default = None)]
    pub storage: Option<Arc<dyn TokenStorage>>,
    /// A file that keeps tokens (mode 0600), for desktop apps.
    #[uniffi(default = None)]
    pub token_file: Option<String>,
    /// A client pre-registered with an authorization server, instead of registering.
    #[uniffi(default = None)]
    pub pre_registered: Option<PreRegisteredClient>,
    /// The HTTPS URL of the client's ID metadata document.
    #[uniffi(default = None)]
    pub client_metadata_url: Option<String>,
    /// Bind tokens to a fresh DPoP key (RFC 9449) where the authorization server supports it.
    #[uniffi(default = false)]
    pub dpop: bool,
}

/// A client registered beforehand with the authorization server `issuer`; its credentials
/// are sent to no other.
#[derive(uniffi::Record, Clone)]
pub struct PreRegisteredClient {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// The client id.
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[uniffi(default = None)]
    pub client_secret: Option<String>,
    /// Or the private key (PKCS#8 PEM) the client authenticates with (`private_key_jwt`).
    #[uniffi(default = None)]
    pub private_key_pem: Option<String>,
}

impl PreRegisteredClient {
    fn credentials(&self) -> Result<ClientCredentials, McpError> {
        ClientCredentials::from_settings(
            &self.client_id,
            self.client_secret.clone(),
            self.private_key_pem.as_deref(),
        )
        .map_err(McpError::invalid_input)
    }
}

/// An OAuth 2.1 client for one MCP server, for [`HttpSettings::auth`](crate::http::HttpSettings):
/// it answers the server's `401` and `403 insufficient_scope` by discovery, registration
/// and a grant, keeps the tokens and refreshes them. Every client connected with it shares
/// its tokens.
#[derive(uniffi::Object)]
pub struct OAuth {
    provider: OAuthProvider,
    redirect_uri: Option<String>,
}

#[uniffi::export]
impl OAuth {
    /// A user-facing app: the authorization code grant with PKCE, registered as
    /// `client_name` with `redirect_uri`; `authorizer` takes the user through.
    #[uniffi::constructor(default(options = None))]
    pub fn authorization_code(
        client_name: String,
        redirect_uri: String,
        authorizer: Arc<dyn Authorizer>,
        options: Option<OAuthOptions>,
    ) -> Result<Arc<Self>, McpError> {
        let metadata = ClientMetadata::new(client_name, &redirect_uri);
        let provider = OAuthProvider::authorization_code(metadata, move |url| {
            let authorizer = Arc::clone(&authorizer);
            async move { authorizer.authorize(url.to_string()).await }
        });
        OAuth::configured(provider, Some(redirect_uri), options.unwrap_or_default())
    }

    /// A desktop app that signs its user in through the system browser: the authorization
    /// code grant with PKCE, registered as `client_name`; `opener` opens the browser, which
    /// comes back to a listener on 127.0.0.1:`port` (0: any free port).
    #[uniffi::constructor(default(port = 0, options = None))]
    pub fn loopback(
        client_name: String,
        opener: Arc<dyn BrowserOpener>,
        port: u16,
        options: Option<OAuthOptions>,
    ) -> Result<Arc<Self>, McpError> {
        let redirect = LoopbackRedirect::bind(port)?;
        let redirect_uri = redirect.redirect_uri().to_owned();
        let provider = OAuthProvider::loopback(client_name, redirect, move |url| {
            let opener = Arc::clone(&opener);
            async move { opener.open(url.to_string()).await }
        });
        OAuth::configured(provider, Some(redirect_uri), options.unwrap_or_default())
    }

    /// Where the browser comes back to: the loopback listener's URI, or the redirect URI
    /// given; `None` for a machine client.
    pub fn redirect_uri(&self) -> Option<String> {
        self.redirect_uri.clone()
    }

    /// A machine client: the client credentials grant of `client`.
    #[uniffi::constructor(default(options = None))]
    pub fn client_credentials(
        client: PreRegisteredClient,
        options: Option<OAuthOptions>,
    ) -> Result<Arc<Self>, McpError> {
        let provider = OAuthProvider::client_credentials(&client.issuer, client.credentials()?);
        OAuth::configured(provider, None, options.unwrap_or_default())
    }

    /// A workload or an enterprise-managed app: the JWT bearer grant of `client`, presenting
    /// the assertions `assertion` makes.
    #[uniffi::constructor(default(options = None))]
    pub fn jwt_bearer(
        client: PreRegisteredClient,
        assertion: Arc<dyn AssertionProvider>,
        options: Option<OAuthOptions>,
    ) -> Result<Arc<Self>, McpError> {
        let provider = OAuthProvider::jwt_bearer(&client.issuer, client.credentials()?, move |target| {
            let assertion = Arc::clone(&assertion);
            async move { assertion.assertion(target.issuer, target.resource, target.scope).await }
        });
        OAuth::configured(provider, None, options.unwrap_or_default())
    }
}

/// Asks the identity provider's token endpoint for an ID-JAG (token exchange of the user's
/// `id_token`, as the IdP's client `idp_client`): the assertion of enterprise-managed
/// authorization, for [`OAuth::jwt_bearer`].
#[uniffi::export]
pub async fn request_id_jag(
    token_endpoint: String,
    idp_client: PreRegisteredClient,
    id_token: String,
    issuer: String,
    resource: String,
    scope: Option<String>,
) -> Result<String, McpError> {
    let target = AssertionTarget::new(issuer, resource, scope);
    oxmcp::client::auth::request_id_jag(&token_endpoint, &idp_client.credentials()?, &id_token, &target)
        .await
        .map_err(|e| McpError::Protocol { detail: e.to_string() })
}

impl OAuth {
    fn configured(
        mut provider: OAuthProvider,
        redirect_uri: Option<String>,
        options: OAuthOptions,
    ) -> Result<Arc<Self>, McpError> {
        if let Some(client) = &options.pre_registered {
            provider = provider.pre_registered(&client.issuer, client.credentials()?);
        }
        if let Some(url) = options.client_metadata_url {
            provider = provider.client_metadata_url(url);
        }
        provider = match (options.storage, options.token_file) {
            (Some(_), Some(_)) => return Err(McpError::invalid_input("give storage or tokenFile, not both")),
            (Some(storage), None) => provider.token_store(text_store(storage)),
            (None, Some(path)) => provider.token_store(FileTokenStore::new(path)),
            (None, None) => provider,
        };
        if options.dpop {
            provider = provider.dpop(SigningKey::generate().map_err(McpError::invalid_input)?);
        }
        Ok(Arc::new(OAuth { provider, redirect_uri }))
    }

    /// The core's provider, shared by every client connected with it.
    pub(crate) fn provider(&self) -> OAuthProvider {
        self.provider.clone()
    }
}

/// The app's [`TokenStorage`] as the core's token store.
fn text_store(storage: Arc<dyn TokenStorage>) -> TextTokenStore {
    let saver = Arc::clone(&storage);
    TextTokenStore::new(
        move || {
            let storage = Arc::clone(&storage);
            async move { storage.load().await }
        },
        move |text| {
            let storage = Arc::clone(&saver);
            async move { storage.save(text).await }
        },
    )
}
