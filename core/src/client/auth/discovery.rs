//! Finding the authorization server of an MCP server: protected resource metadata
//! (RFC 9728), then authorization server metadata (RFC 8414, OpenID Connect Discovery),
//! with the 2025-03-26 fallbacks for servers that publish neither.

use reqwest::Url;
use serde::Deserialize;

use super::AuthError;
use crate::oauth::http::{get_json, Fetched};

const PROTECTED_RESOURCE: &str = "/.well-known/oauth-protected-resource";
const AUTHORIZATION_SERVER: &str = "/.well-known/oauth-authorization-server";
const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";

/// An MCP server's protected resource metadata (RFC 9728 §2).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: what the client names in the `resource` parameter.
    pub resource: Option<String>,
    /// The issuer identifiers of the authorization servers that protect the resource.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource understands.
    pub scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata (RFC 8414 §2), the fields the client uses.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; identical to the one the metadata was fetched for.
    pub issuer: String,
    /// Where the user authorizes the client.
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged for tokens.
    pub token_endpoint: String,
    /// Where clients register dynamically (RFC 7591).
    pub registration_endpoint: Option<String>,
    /// The scopes the server issues.
    pub scopes_supported: Option<Vec<String>>,
    /// The grant types the server accepts.
    pub grant_types_supported: Option<Vec<String>>,
    /// The PKCE methods the server accepts; absent means no PKCE.
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients may authenticate at the token endpoint.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Whether a client ID metadata document URL may serve as the client id.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// The algorithms of DPoP proofs the server accepts (RFC 9449 §5.1); absent means
    /// no DPoP.
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthorizationServerMetadata {
    /// The metadata a 2025-03-26 client assumes for a server that publishes none: the
    /// `/authorize`, `/token` and `/register` endpoints at the server's origin.
    fn fallback(origin: &str) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            issuer: origin.to_owned(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            grant_types_supported: None,
            code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
            token_endpoint_auth_methods_supported: None,
            authorization_response_iss_parameter_supported: false,
            client_id_metadata_document_supported: false,
            dpop_signing_alg_values_supported: None,
        }
    }

    /// Whether the server accepts PKCE with S256.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .iter()
            .flatten()
            .any(|m| m == "S256")
    }
}

/// What discovery found for one MCP endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The protected resource metadata, when the server publishes it.
    pub resource_metadata: Option<ProtectedResourceMetadata>,
    /// The authorization server's metadata.
    pub server: AuthorizationServerMetadata,
    /// Whether the metadata came from the server (not the 2025-03-26 defaults): only
    /// then is its issuer authentic enough to check `iss` against.
    pub published: bool,
    /// The `resource` parameter to send.
    pub resource: String,
}

/// The well-known URLs of an MCP endpoint's protected resource metadata, in the order
/// to try them: at the endpoint's path, then at the root (RFC 9728 §3.1).
pub fn protected_resource_metadata_urls(server: &Url) -> Vec<Url> {
    let origin = server.origin().ascii_serialization();
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::with_capacity(2);
    if !path.is_empty() {
        urls.extend(Url::parse(&format!("{origin}{PROTECTED_RESOURCE}{path}")).ok());
    }
    urls.extend(Url::parse(&format!("{origin}{PROTECTED_RESOURCE}")).ok());
    urls
}

/// The well-known URLs of an authorization server's metadata, in the order the MCP
/// specification sets: OAuth with path insertion, OpenID Connect with path insertion,
/// OpenID Connect with path appending (only the first two when the issuer has no path).
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER}"),
            format!("{origin}{OPENID_CONFIGURATION}"),
        ]
    } else {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER}{path}"),
            format!("{origin}{OPENID_CONFIGURATION}{path}"),
            format!("{origin}{path}{OPENID_CONFIGURATION}"),
        ]
    };
    candidates.iter().filter_map(|u| Url::parse(u).ok()).collect()
}

/// Whether a token for `resource` may be used at the MCP endpoint `server`: same
/// origin, and the resource's path is the endpoint's path or a parent of it.
pub fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.origin() != server.origin() {
        return false;
    }
    let parent = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    path == parent || path.strip_prefix(parent).is_some_and(|rest| rest.starts_with('/'))
}

/// The canonical URI of an MCP endpoint (RFC 8707 §2): no fragment, no trailing slash.
pub(crate) fn canonical_resource(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.as_str().trim_end_matches('/').to_owned()
}

/// Discovers the authorization server of the MCP endpoint `server`, starting from the
/// metadata URL of its challenge when it named one.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &Url,
    metadata_url: Option<&str>,
) -> Result<Discovered, AuthError> {
    let resource_metadata = protected_resource_metadata(http, server, metadata_url).await?;
    let Some(prm) = resource_metadata else {
        // A 2025-03-26 server: its origin is the authorization server.
        let origin = server.origin().ascii_serialization();
        let (server_metadata, published) = match authorization_server_metadata(http, &origin).await {
            Ok(found) => (found, true),
            Err(AuthError::NoMetadata { .. }) => (AuthorizationServerMetadata::fallback(&origin), false),
            Err(e) => return Err(e),
        };
        return Ok(Discovered {
            resource_metadata: None,
            server: server_metadata,
            published,
            resource: canonical_resource(server),
        });
    };
    let resource = match &prm.resource {
        Some(resource) if resource_covers(resource, server) => resource.clone(),
        Some(resource) => {
            return Err(AuthError::ResourceMismatch {
                resource: resource.clone(),
                server: server.to_string(),
            })
        }
        None => canonical_resource(server),
    };
    let issuer = prm
        .authorization_servers
        .first()
        .ok_or(AuthError::NoAuthorizationServer)?;
    let server_metadata = authorization_server_metadata(http, issuer).await?;
    Ok(Discovered {
        resource_metadata: Some(prm),
        server: server_metadata,
        published: true,
        resource,
    })
}

/// The protected resource metadata: from the challenge's URL, then the well-known URLs;
/// `None` when the server publishes none. The challenge's URL must be on the server's
/// origin: a challenge never sends the client to fetch from another host.
async fn protected_resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    metadata_url: Option<&str>,
) -> Result<Option<ProtectedResourceMetadata>, AuthError> {
    let mut candidates = Vec::with_capacity(3);
    if let Some(url) = metadata_url {
        let url = Url::parse(url).map_err(|e| AuthError::invalid_url(url, e))?;
        if url.origin() != server.origin() {
            return Err(AuthError::invalid_url(
                url,
                format!(
                    "the challenge's resource_metadata is not on the MCP server's origin {}",
                    server.origin().ascii_serialization()
                ),
            ));
        }
        candidates.push(url);
    }
    candidates.extend(protected_resource_metadata_urls(server));
    for url in candidates {
        if let Fetched::Found(metadata) = get_json(http, &url).await? {
            return Ok(Some(metadata));
        }
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer`, from the first well-known URL
/// that has it. A document whose `issuer` is not exactly `issuer` is never used.
pub(crate) async fn authorization_server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let issuer_url = Url::parse(issuer).map_err(|e| AuthError::invalid_url(issuer, e))?;
    let mut mismatch = None;
    for url in authorization_server_metadata_urls(&issuer_url) {
        match get_json::<AuthorizationServerMetadata>(http, &url).await? {
            // Simple string comparison: no normalization (RFC 8414 §3.3).
            Fetched::Found(metadata) if metadata.issuer == issuer => return Ok(metadata),
            Fetched::Found(metadata) => {
                tracing::warn!(%url, "authorization server metadata names another issuer; not used");
                mismatch.get_or_insert(metadata.issuer);
            }
            Fetched::Absent => {}
        }
    }
    Err(match mismatch {
        Some(found) => AuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found,
        },
        None => AuthError::NoMetadata {
            issuer: issuer.to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn protected_resource_urls_path_first() {
        assert_eq!(
            strings(protected_resource_metadata_urls(&url("https://example.com/public/mcp"))),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            strings(protected_resource_metadata_urls(&url("http://127.0.0.1:8080/"))),
            ["http://127.0.0.1:8080/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn authorization_server_urls_with_path() {
        assert_eq!(
            strings(authorization_server_metadata_urls(&url(
                "https://auth.example.com/tenant1"
            ))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn authorization_server_urls_without_path() {
        assert_eq!(
            strings(authorization_server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn resource_covers_the_endpoint_or_a_parent() {
        let server = url("https://mcp.example.com/api/mcp");
        assert!(resource_covers("https://mcp.example.com/api/mcp", &server));
        assert!(resource_covers("https://mcp.example.com/api", &server));
        assert!(resource_covers("https://mcp.example.com", &server));
        assert!(resource_covers("https://mcp.example.com/", &server));
        assert!(!resource_covers("https://mcp.example.com/ap", &server));
        assert!(!resource_covers("https://evil.example.com/api/mcp", &server));
        assert!(!resource_covers("http://mcp.example.com/api/mcp", &server));
        assert!(!resource_covers("not a url", &server));
    }

    #[test]
    fn canonical_resource_drops_fragment_and_slash() {
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com/mcp/#x")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com")),
            "https://mcp.example.com"
        );
    }
}
