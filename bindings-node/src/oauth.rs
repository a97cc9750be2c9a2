//! `NativeOAuth`: the OAuth client of the HTTP client (`Client.connectHttp(url, { auth })`),
//! the core's provider with the user's trip through the browser left to JavaScript.
//!
//! The facade hands each one a callback, `(kind, payload) => outcome`: `open` opens the
//! system browser at the URL (the redirect comes back to the core's loopback listener);
//! `authorize` takes the user to the URL and answers the URL the browser came back to;
//! with the app's own storage, `load` answers the text `save` was given; for the JWT
//! bearer grant, `assertion` answers the assertion for a target (`{ issuer, resource,
//! scope }`).

use std::sync::Arc;

use napi::bindgen_prelude::FnArgs;
use napi_derive::napi;
use serde_json::{json, Value};

use oxmcp::client::auth::{
    AssertionTarget, ClientCredentials, ClientMetadata, FileTokenStore, LoopbackRedirect, OAuthProvider, SigningKey,
    TextTokenStore,
};

use crate::client::{self, ClientCallback, ClientConfig, NativeClient};
use crate::convert::{self, Failure};
use crate::error::{client_error, invalid};
use crate::http::HttpSettings;
use crate::runtime::{self, Callback};

/// `(kind, payload) => outcome | Promise<outcome>`.
pub(crate) type OAuthCallback = Callback<FnArgs<(String, Value)>>;

/// How an OAuth client signs in.
#[napi(object)]
pub struct OAuthOptions {
    /// `authorizationCode`, `clientCredentials` or `jwtBearer`.
    pub grant: String,
    /// The name the client registers with (code grant).
    pub client_name: Option<String>,
    /// Ask the callback (`authorize`) to take the user there and back to `redirectUri`,
    /// instead of opening the browser (`open`) with a loopback listener.
    pub authorize: Option<bool>,
    /// Where the browser comes back to, with `authorize`.
    pub redirect_uri: Option<String>,
    /// The loopback listener's port (default 0: any free port).
    pub loopback_port: Option<u32>,
    /// The authorization server a pre-registered client is registered with.
    pub issuer: Option<String>,
    /// A pre-registered client's id.
    pub client_id: Option<String>,
    /// A pre-registered client's secret.
    pub client_secret: Option<String>,
    /// A pre-registered client's private key (PKCS#8 PEM), for `private_key_jwt`.
    pub private_key_pem: Option<String>,
    /// The HTTPS URL of the client's ID metadata document.
    pub client_metadata_url: Option<String>,
    /// A file that keeps the tokens across runs.
    pub token_file: Option<String>,
    /// Keep the tokens with the callback (`load`, `save`), wherever the app keeps secrets.
    pub storage: Option<bool>,
    /// Bind tokens to a fresh DPoP key.
    pub dpop: Option<bool>,
}

/// An OAuth client for one MCP server: every client connected with it shares its tokens
/// and registrations.
#[napi]
pub struct NativeOAuth {
    provider: OAuthProvider,
    redirect_uri: Option<String>,
}

#[napi]
impl NativeOAuth {
    /// Made from `options`; `callback` opens the browser or takes the user through.
    #[napi(
        constructor,
        ts_args_type = "options: OAuthOptions, callback: (kind: string, payload: unknown) => unknown"
    )]
    pub fn new(options: OAuthOptions, callback: OAuthCallback) -> napi::Result<Self> {
        let callback = Arc::new(callback);
        let pre_registered = match (options.issuer, options.client_id) {
            (Some(issuer), Some(id)) => {
                Some((issuer, credentials(id, options.client_secret, options.private_key_pem)?))
            }
            (None, None) if options.client_secret.is_none() && options.private_key_pem.is_none() => None,
            _ => return Err(invalid("a pre-registered client needs issuer and clientId")),
        };
        let client_name = options.client_name.unwrap_or_else(|| "oxmcp".to_owned());
        let (mut provider, redirect_uri) = match (options.grant.as_str(), options.authorize == Some(true)) {
            ("clientCredentials", _) => {
                let (issuer, credentials) = pre_registered
                    .clone()
                    .ok_or_else(|| invalid("client credentials need issuer and clientId"))?;
                (OAuthProvider::client_credentials(issuer, credentials), None)
            }
            ("jwtBearer", _) => {
                let (issuer, credentials) = pre_registered
                    .clone()
                    .ok_or_else(|| invalid("the JWT bearer grant needs issuer and clientId"))?;
                let asker = Arc::clone(&callback);
                let provider = OAuthProvider::jwt_bearer(issuer, credentials, move |target| {
                    let callback = Arc::clone(&asker);
                    async move {
                        let target =
                            json!({"issuer": target.issuer, "resource": target.resource, "scope": target.scope});
                        match ask(&callback, "assertion", target).await? {
                            Value::String(assertion) => Ok(assertion),
                            _ => Err("assertion must answer the assertion, a string".to_owned()),
                        }
                    }
                });
                (provider, None)
            }
            ("authorizationCode", true) => {
                let redirect_uri = options
                    .redirect_uri
                    .ok_or_else(|| invalid("authorize needs the redirectUri it comes back to"))?;
                let metadata = ClientMetadata::new(client_name, &redirect_uri);
                let asker = Arc::clone(&callback);
                let provider = OAuthProvider::authorization_code(metadata, move |url| {
                    let callback = Arc::clone(&asker);
                    async move {
                        match ask(&callback, "authorize", url.as_str().into()).await? {
                            Value::String(came_back) => Ok(came_back),
                            _ => Err("authorize must answer the URL the browser came back to".to_owned()),
                        }
                    }
                });
                (provider, Some(redirect_uri))
            }
            ("authorizationCode", false) => {
                let port = u16::try_from(options.loopback_port.unwrap_or(0))
                    .map_err(|_| invalid("the loopback port must be below 65536"))?;
                let redirect = LoopbackRedirect::bind(port)
                    .map_err(|e| invalid(format!("no loopback listener on port {port}: {e}")))?;
                let redirect_uri = redirect.redirect_uri().to_owned();
                let opener = Arc::clone(&callback);
                let provider = OAuthProvider::loopback(client_name, redirect, move |url| {
                    let callback = Arc::clone(&opener);
                    async move { ask(&callback, "open", url.as_str().into()).await.map(drop) }
                });
                (provider, Some(redirect_uri))
            }
            (other, _) => return Err(invalid(format!("unknown grant {other:?}"))),
        };
        if let Some((issuer, credentials)) = pre_registered {
            provider = provider.pre_registered(issuer, credentials);
        }
        if let Some(url) = options.client_metadata_url {
            provider = provider.client_metadata_url(url);
        }
        provider = match (options.token_file, options.storage == Some(true)) {
            (Some(_), true) => return Err(invalid("give tokenFile or storage, not both")),
            (Some(path), false) => provider.token_store(FileTokenStore::new(path)),
            (None, true) => provider.token_store(text_store(&callback)),
            (None, false) => provider,
        };
        if options.dpop == Some(true) {
            provider = provider.dpop(SigningKey::generate().map_err(|e| invalid(e.to_string()))?);
        }
        Ok(NativeOAuth { provider, redirect_uri })
    }

    /// Where the browser comes back to (the loopback listener's URI by default).
    #[napi(getter)]
    pub fn redirect_uri(&self) -> Option<String> {
        self.redirect_uri.clone()
    }
}

#[napi]
impl NativeOAuth {
    /// Connects to the Streamable HTTP endpoint at `url` as [`client::connect_http`] does, signing
    /// in with this client's tokens.
    #[napi(
        ts_args_type = "url: string, http: HttpSettings, config: ClientConfig, callback: (kind: string, payload: unknown) => unknown",
        ts_return_type = "Promise<NativeClient>"
    )]
    pub async fn connect_http(
        &self,
        url: String,
        http: HttpSettings,
        config: ClientConfig,
        callback: ClientCallback,
    ) -> napi::Result<NativeClient> {
        client::connect_http_with(url, http, config, callback, Some(self.provider.clone())).await
    }
}

/// A pre-registered client's credentials: its id, with a secret or a private key.
fn credentials(id: String, secret: Option<String>, private_key_pem: Option<String>) -> napi::Result<ClientCredentials> {
    ClientCredentials::from_settings(id, secret, private_key_pem.as_deref()).map_err(|e| invalid(e.to_string()))
}

/// What [`request_id_jag`] asks for.
#[napi(object)]
pub struct IdJagRequest {
    /// The identity provider's token endpoint.
    pub token_endpoint: String,
    /// The app's client id at the identity provider.
    pub client_id: String,
    /// Its client secret, if it has one.
    pub client_secret: Option<String>,
    /// The user's ID token.
    pub id_token: String,
    /// The authorization server the ID-JAG is for (its issuer).
    pub issuer: String,
    /// The MCP server's resource identifier.
    pub resource: String,
    /// The scopes asked for.
    pub scope: Option<String>,
}

/// Asks the identity provider for an ID-JAG (the identity assertion of enterprise-managed
/// authorization, for the JWT bearer grant).
#[napi]
pub async fn request_id_jag(request: IdJagRequest) -> napi::Result<String> {
    let client = credentials(request.client_id, request.client_secret, None)?;
    let target = AssertionTarget::new(request.issuer, request.resource, request.scope);
    oxmcp::client::auth::request_id_jag(&request.token_endpoint, &client, &request.id_token, &target)
        .await
        .map_err(|e| client_error(oxmcp::Error::Protocol(e.to_string())))
}

/// The app's storage, through the callback, as the core's token store.
fn text_store(callback: &Arc<OAuthCallback>) -> TextTokenStore {
    let (loader, saver) = (Arc::clone(callback), Arc::clone(callback));
    TextTokenStore::new(
        move || {
            let callback = Arc::clone(&loader);
            async move {
                match ask(&callback, "load", Value::Null).await? {
                    Value::String(text) => Ok(Some(text)),
                    Value::Null => Ok(None),
                    _ => Err("storage.load must answer a string or null".to_owned()),
                }
            }
        },
        move |text| {
            let callback = Arc::clone(&saver);
            async move {
                ask(&callback, "save", text.map_or(Value::Null, Value::String))
                    .await
                    .map(drop)
            }
        },
    )
}

/// What the callback answers to `kind` with `payload`.
async fn ask(callback: &OAuthCallback, kind: &str, payload: Value) -> Result<Value, String> {
    runtime::call(callback, FnArgs::from((kind.to_owned(), payload)))
        .await
        .map_err(Failure::from)
        .and_then(convert::outcome)
        .map_err(|failure| format!("{kind} failed: {}", failure.into_rpc_error().message))
}
