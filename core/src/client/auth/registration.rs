//! How the client gets its client id: pre-registered credentials, a client ID metadata
//! document URL, or dynamic client registration (RFC 7591).

use std::sync::Arc;

use reqwest::Url;
use serde::{Deserialize, Serialize};

use super::discovery::AuthorizationServerMetadata;
use super::jwt::SigningKey;
use super::AuthError;
use crate::oauth::http::post_json;

/// How the client authenticates at the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenEndpointAuthMethod {
    /// A public client: only `client_id` in the form.
    None,
    /// HTTP Basic with the client id and secret.
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    PrivateKeyJwt,
}

impl TokenEndpointAuthMethod {
    /// The registered name of the method.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenEndpointAuthMethod::None => "none",
            TokenEndpointAuthMethod::ClientSecretBasic => "client_secret_basic",
            TokenEndpointAuthMethod::ClientSecretPost => "client_secret_post",
            TokenEndpointAuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method to use with a server that supports `supported` (absent: RFC 8414's
    /// default, `client_secret_basic`), for a client that has a secret or not.
    ///
    /// ```
    /// use oxmcp::client::auth::TokenEndpointAuthMethod as M;
    ///
    /// let supported = ["client_secret_post".to_owned(), "none".to_owned()];
    /// assert_eq!(M::select(Some(&supported), true), M::ClientSecretPost);
    /// assert_eq!(M::select(Some(&supported), false), M::None);
    /// assert_eq!(M::select(None, true), M::ClientSecretBasic);
    /// ```
    pub fn select(supported: Option<&[String]>, has_secret: bool) -> TokenEndpointAuthMethod {
        let Some(supported) = supported else {
            return if has_secret {
                TokenEndpointAuthMethod::ClientSecretBasic
            } else {
                TokenEndpointAuthMethod::None
            };
        };
        let preference: &[TokenEndpointAuthMethod] = if has_secret {
            &[
                TokenEndpointAuthMethod::ClientSecretBasic,
                TokenEndpointAuthMethod::ClientSecretPost,
                TokenEndpointAuthMethod::None,
            ]
        } else {
            &[
                TokenEndpointAuthMethod::None,
                TokenEndpointAuthMethod::ClientSecretBasic,
                TokenEndpointAuthMethod::ClientSecretPost,
            ]
        };
        preference
            .iter()
            .copied()
            .find(|m| supported.iter().any(|s| s == m.as_str()))
            .unwrap_or(preference[0])
    }
}

/// A client's identity at one authorization server.
///
/// ```
/// use oxmcp::client::auth::ClientCredentials;
///
/// let credentials = ClientCredentials::new("my-client").secret("s3cret");
/// assert!(!format!("{credentials:?}").contains("s3cret"));
/// ```
#[derive(Clone, Serialize, Deserialize)]
pub struct ClientCredentials {
    /// The client id.
    pub client_id: String,
    /// The client secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How to authenticate at the token endpoint; chosen from the server's metadata
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<TokenEndpointAuthMethod>,
    /// The private key of `private_key_jwt` authentication.
    #[serde(skip)]
    pub signing_key: Option<Arc<SigningKey>>,
}

impl ClientCredentials {
    /// A public client with this id.
    pub fn new(client_id: impl Into<String>) -> ClientCredentials {
        ClientCredentials {
            client_id: client_id.into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            signing_key: None,
        }
    }

    /// Credentials as an app's settings give them: the id, with a secret or a private key
    /// (PKCS#8 PEM, for `private_key_jwt`) or neither, never both.
    ///
    /// ```
    /// use oxmcp::client::auth::ClientCredentials;
    ///
    /// assert!(ClientCredentials::from_settings("app", Some("s".into()), None).is_ok());
    /// assert!(ClientCredentials::from_settings("app", Some("s".into()), Some("pem")).is_err());
    /// ```
    pub fn from_settings(
        client_id: impl Into<String>,
        secret: Option<String>,
        private_key_pem: Option<&str>,
    ) -> Result<ClientCredentials, AuthError> {
        let credentials = ClientCredentials::new(client_id);
        Ok(match (secret, private_key_pem) {
            (Some(_), Some(_)) => return Err(AuthError::Key("give a client secret or a private key, not both".into())),
            (Some(secret), None) => credentials.secret(secret),
            (None, Some(pem)) => credentials.private_key(SigningKey::from_pkcs8_pem(pem)?),
            (None, None) => credentials,
        })
    }

    /// Sets the client secret.
    pub fn secret(mut self, secret: impl Into<String>) -> ClientCredentials {
        self.client_secret = Some(secret.into());
        self
    }

    /// Authenticates with `private_key_jwt`, signing with `key`.
    pub fn private_key(mut self, key: SigningKey) -> ClientCredentials {
        self.signing_key = Some(Arc::new(key));
        self.token_endpoint_auth_method = Some(TokenEndpointAuthMethod::PrivateKeyJwt);
        self
    }

    /// Sets the token endpoint authentication method.
    pub fn auth_method(mut self, method: TokenEndpointAuthMethod) -> ClientCredentials {
        self.token_endpoint_auth_method = Some(method);
        self
    }

    /// The method to authenticate with at `server`'s token endpoint.
    pub(crate) fn method_for(&self, server: &AuthorizationServerMetadata) -> TokenEndpointAuthMethod {
        self.token_endpoint_auth_method.unwrap_or_else(|| {
            TokenEndpointAuthMethod::select(
                server.token_endpoint_auth_methods_supported.as_deref(),
                self.client_secret.is_some(),
            )
        })
    }
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("signing_key", &self.signing_key)
            .finish()
    }
}

/// Credentials are the same when their id, secret and method are, and they hold the same
/// signing key (the same one, not an equal one: keys are not compared).
impl PartialEq for ClientCredentials {
    fn eq(&self, other: &Self) -> bool {
        let same_key = match (&self.signing_key, &other.signing_key) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.client_id == other.client_id
            && self.client_secret == other.client_secret
            && self.token_endpoint_auth_method == other.token_endpoint_auth_method
            && same_key
    }
}

impl Eq for ClientCredentials {}

/// What the client says about itself when it registers (RFC 7591 §2), and what its
/// client ID metadata document holds.
///
/// ```
/// use oxmcp::client::auth::ClientMetadata;
///
/// let metadata = ClientMetadata::new("My MCP app", "http://127.0.0.1:33418/callback");
/// assert_eq!(metadata.application_type, "native");
/// assert!(metadata.grant_types.iter().any(|g| g == "refresh_token"));
/// ```
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientMetadata {
    /// The name shown to the user.
    pub client_name: String,
    /// Where the authorization server sends the user back.
    pub redirect_uris: Vec<String>,
    /// `native` (desktop, CLI, mobile: the default) or `web`.
    pub application_type: String,
    /// The grant types the client uses.
    pub grant_types: Vec<String>,
    /// The response types the client uses.
    pub response_types: Vec<String>,
}

impl ClientMetadata {
    /// A native client with one redirect URI, using codes and refresh tokens.
    pub fn new(client_name: impl Into<String>, redirect_uri: impl Into<String>) -> ClientMetadata {
        ClientMetadata {
            client_name: client_name.into(),
            redirect_uris: vec![redirect_uri.into()],
            application_type: "native".to_owned(),
            grant_types: vec!["authorization_code".to_owned(), "refresh_token".to_owned()],
            response_types: vec!["code".to_owned()],
        }
    }

    /// Sets the application type (`native` or `web`).
    pub fn application_type(mut self, application_type: impl Into<String>) -> ClientMetadata {
        self.application_type = application_type.into();
        self
    }
}

/// Registers the client at `endpoint` (RFC 7591 §3), asking for the authentication
/// method the server's metadata suggests for a public client.
pub(crate) async fn register(
    http: &reqwest::Client,
    endpoint: &str,
    metadata: &ClientMetadata,
    server: &AuthorizationServerMetadata,
) -> Result<ClientCredentials, AuthError> {
    #[derive(Serialize)]
    struct Request<'a> {
        #[serde(flatten)]
        metadata: &'a ClientMetadata,
        token_endpoint_auth_method: TokenEndpointAuthMethod,
    }
    let url = Url::parse(endpoint).map_err(|e| AuthError::invalid_url(endpoint, e))?;
    let method = TokenEndpointAuthMethod::select(server.token_endpoint_auth_methods_supported.as_deref(), false);
    let request = Request {
        metadata,
        token_endpoint_auth_method: method,
    };
    let mut registered: ClientCredentials = post_json(http, &url, &request).await?;
    if registered.token_endpoint_auth_method.is_none() {
        // The server kept what was asked, or gave a secret to use the default way.
        registered.token_endpoint_auth_method = Some(if registered.client_secret.is_some() {
            TokenEndpointAuthMethod::select(server.token_endpoint_auth_methods_supported.as_deref(), true)
        } else {
            method
        });
    }
    Ok(registered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn methods(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn selects_what_the_server_supports() {
        use TokenEndpointAuthMethod as M;
        assert_eq!(
            M::select(Some(&methods(&["client_secret_basic"])), true),
            M::ClientSecretBasic
        );
        assert_eq!(
            M::select(Some(&methods(&["client_secret_post"])), true),
            M::ClientSecretPost
        );
        assert_eq!(M::select(Some(&methods(&["none"])), true), M::None);
        assert_eq!(
            M::select(Some(&methods(&["client_secret_basic"])), false),
            M::ClientSecretBasic
        );
        assert_eq!(M::select(Some(&methods(&["private_key_jwt"])), false), M::None);
        assert_eq!(M::select(None, false), M::None);
    }

    #[test]
    fn registration_answer_with_unknown_method_is_an_error() {
        let answer = r#"{"client_id":"x","token_endpoint_auth_method":"tls_client_auth"}"#;
        assert!(serde_json::from_str::<ClientCredentials>(answer).is_err());
        let answer = r#"{"client_id":"x","client_secret":"y","client_name":"n"}"#;
        let credentials: ClientCredentials = serde_json::from_str(answer).unwrap();
        assert_eq!(credentials.client_secret.as_deref(), Some("y"));
    }
}
