//! Why an authorization failed.

/// Why the OAuth client could not obtain a token. The messages never hold a secret: no
/// token, client secret, code or verifier.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// An HTTP request to the resource or authorization server failed.
    #[error("OAuth request to {url} failed: {reason}")]
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A document or answer was not what the protocol defines.
    #[error("invalid answer from {url}: {reason}")]
    InvalidResponse {
        /// The URL that gave the answer.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A URL (of the server, a metadata document or an endpoint) could not be used.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The protected resource metadata names a resource other than the server's (RFC 9728 §3.3).
    #[error("the protected resource metadata is for {resource}, not for {server}")]
    ResourceMismatch {
        /// The `resource` of the metadata.
        resource: String,
        /// The MCP endpoint.
        server: String,
    },
    /// The protected resource metadata names no authorization server.
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// No metadata of the authorization server was found at any well-known URL.
    #[error("no authorization server metadata found for {issuer}")]
    NoMetadata {
        /// The issuer identifier.
        issuer: String,
    },
    /// The metadata's `issuer` differs from the issuer it was fetched for (RFC 8414 §3.3).
    #[error("the authorization server metadata of {expected} claims to be of {found}")]
    IssuerMismatch {
        /// The issuer the metadata was fetched for.
        expected: String,
        /// The `issuer` in the document.
        found: String,
    },
    /// The authorization server does not advertise PKCE with S256.
    #[error("the authorization server does not support PKCE with S256")]
    PkceUnsupported,
    /// There is no way to get a client id: no pre-registered client, no client ID
    /// metadata document the server accepts, and no registration endpoint.
    #[error("no client registration is possible with {issuer}")]
    NoRegistration {
        /// The issuer.
        issuer: String,
    },
    /// The MCP server names an authorization server that none of the pre-registered
    /// credentials is for; nothing was sent to it.
    #[error(
        "the MCP server's authorization server {issuer} is not one this client is registered with ({})",
        .registered.join(", ")
    )]
    UnregisteredIssuer {
        /// The issuer the MCP server named.
        issuer: String,
        /// The issuers of the pre-registered credentials.
        registered: Vec<String>,
    },
    /// The authorization server needs a client secret the client does not have.
    #[error("the token endpoint needs {method}, which needs a client secret")]
    MissingSecret {
        /// The token endpoint authentication method.
        method: String,
    },
    /// The provider has no redirect handler, so it cannot ask the user.
    #[error("an authorization code flow is needed but no redirect handler is set")]
    NoRedirectHandler,
    /// The redirect handler failed.
    #[error("the redirect handler failed: {0}")]
    Redirect(String),
    /// The assertion source of a JWT bearer grant failed.
    #[error("no assertion for the JWT bearer grant: {0}")]
    Assertion(String),
    /// The authorization response is not for the request the client made.
    #[error("the authorization response is invalid: {0}")]
    InvalidCallback(&'static str),
    /// The authorization server refused (`error` of the authorization response or of the
    /// token endpoint).
    #[error("the authorization server refused: {error}{}", .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// The OAuth error code.
        error: String,
        /// The server's explanation, if any.
        description: Option<String>,
    },
    /// The operating system gave no random bytes (for PKCE and `state`).
    #[error("no random bytes: {0}")]
    Random(String),
    /// A signing key could not be made, read or used.
    #[error("signing key: {0}")]
    Key(String),
    /// The token store failed.
    #[error("the token store failed: {0}")]
    Store(String),
}

impl AuthError {
    pub(crate) fn http(url: impl ToString, error: impl std::fmt::Display) -> AuthError {
        AuthError::Http {
            url: url.to_string(),
            reason: error.to_string(),
        }
    }

    pub(crate) fn invalid(url: impl ToString, reason: impl ToString) -> AuthError {
        AuthError::InvalidResponse {
            url: url.to_string(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn invalid_url(url: impl ToString, reason: impl ToString) -> AuthError {
        AuthError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        }
    }
}
