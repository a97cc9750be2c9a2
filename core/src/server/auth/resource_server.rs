//! [`ResourceServer`]: how an HTTP endpoint protects itself, and what it resolves to once
//! it knows its URL ([`Protection`]).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde_json::{json, Value};
use url::Url;

use super::dpop::ProofChecker;
use super::{AccessToken, Admitted, Caller, TokenVerifier};

/// Where RFC 9728 puts protected resource metadata.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The resource-server side of the MCP authorization spec, for
/// [`HttpConfig::auth`](crate::server::http::HttpConfig::auth): every request needs a
/// token the verifier accepts, meant for this resource, with the required scopes.
///
/// - Protected resource metadata (RFC 9728) is served at
///   `/.well-known/oauth-protected-resource` followed by the endpoint's path, and at the
///   root: the resource URL, the authorization servers, the scopes.
/// - No token: `401` with `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope`
///   when scopes are required). A token the verifier refuses, or one whose audience is not
///   this resource: `401` with `error="invalid_token"`. A token without the required
///   scopes, the server's or those of the tool, resource or prompt called: `403` with
///   `error="insufficient_scope"` and the scopes needed.
///
/// ```
/// use oxmcp::server::auth::{JwtVerifier, ResourceServer};
/// use oxmcp::server::http::HttpConfig;
///
/// let verifier = JwtVerifier::new("https://auth.example.com/jwks", "https://auth.example.com").unwrap();
/// let config = HttpConfig::default().auth(
///     ResourceServer::new(verifier)
///         .resource_url("https://notes.example.com/mcp")
///         .required_scopes(["notes:read"]),
/// );
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    pub(crate) verifier: Arc<dyn TokenVerifier>,
    resource_url: Option<String>,
    authorization_servers: Vec<String>,
    required_scopes: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    audiences: Vec<String>,
    check_audience: bool,
    implied_scopes: Vec<(String, Vec<String>)>,
    dpop_nonces: bool,
    list_only_permitted: bool,
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource_url", &self.resource_url)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("check_audience", &self.check_audience)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// Tokens checked by `verifier`; the other settings default as their setters say.
    pub fn new(verifier: impl TokenVerifier) -> Self {
        Self::with_verifier(Arc::new(verifier))
    }

    /// [`new`](Self::new) with a verifier already shared.
    pub fn with_verifier(verifier: Arc<dyn TokenVerifier>) -> Self {
        ResourceServer {
            verifier,
            resource_url: None,
            authorization_servers: Vec::new(),
            required_scopes: Vec::new(),
            scopes_supported: None,
            audiences: Vec::new(),
            check_audience: true,
            implied_scopes: Vec::new(),
            dpop_nonces: false,
            list_only_permitted: false,
        }
    }

    /// The endpoint's public URL, its resource identifier (RFC 8707): what clients ask
    /// tokens for and what the tokens' audience must name. Its path must be the
    /// endpoint's. Default: the URL the bundled listener is bound to; an endpoint mounted
    /// in an app of its own must be told.
    pub fn resource_url(mut self, url: impl Into<String>) -> Self {
        self.resource_url = Some(url.into());
        self
    }

    /// The issuers of the authorization servers clients are sent to (default: the
    /// verifier's issuer).
    pub fn authorization_servers<I: IntoIterator<Item = S>, S: Into<String>>(mut self, issuers: I) -> Self {
        self.authorization_servers = issuers.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes every request needs (default none).
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes the metadata lists (default: the required scopes and those of every
    /// tool, resource and prompt).
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// More audiences a token may name instead of the resource URL (e.g. the URL of the
    /// same service under another name).
    pub fn accept_audiences<I: IntoIterator<Item = S>, S: Into<String>>(mut self, audiences: I) -> Self {
        self.audiences = audiences.into_iter().map(Into::into).collect();
        self
    }

    /// Whether a token's audience must name this resource (default on, as the MCP spec
    /// requires). Turn it off only for a verifier that checks the audience itself.
    pub fn check_audience(mut self, on: bool) -> Self {
        self.check_audience = on;
        self
    }

    /// Declares that a token granted `broader` holds `narrower` too (the spec's scope
    /// hierarchies), e.g. `notes` implies `notes:read` and `notes:write`.
    pub fn scope_implies<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: I,
    ) -> Self {
        self.implied_scopes
            .push((broader.into(), narrower.into_iter().map(Into::into).collect()));
        self
    }

    /// Whether DPoP proofs must carry a nonce the server hands out (RFC 9449 §9; default
    /// off): a proof without the current one is refused with `use_dpop_nonce` and the
    /// nonce, which rotates every 5 minutes. Nonces bound how long a stolen proof could be
    /// prepared ahead; proofs are single-use and at most a minute old either way.
    pub fn dpop_nonces(mut self, on: bool) -> Self {
        self.dpop_nonces = on;
        self
    }

    /// Whether `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`
    /// show a caller only what its token's scopes permit (default off: everything is
    /// listed, and a call without a scope it needs is refused with `insufficient_scope`,
    /// naming the scopes, so that the client can step up). Such lists differ from one
    /// caller to the next: modern results say so with `cacheScope: "private"`.
    pub fn list_only_permitted(mut self, on: bool) -> Self {
        self.list_only_permitted = on;
        self
    }

    /// The settings applied to an endpoint at `path` whose listener is bound at `origin`
    /// (`http://host:port`), when there is one.
    pub(crate) fn resolve(self, path: &str, origin: Option<&str>) -> Result<Protection, String> {
        let resource = match (&self.resource_url, origin) {
            (Some(url), _) => url.clone(),
            (None, Some(origin)) => format!("{origin}{path}"),
            (None, None) => {
                return Err(
                    "an endpoint protected by a ResourceServer outside the bundled listener needs its resource_url"
                        .into(),
                )
            }
        };
        let url = Url::parse(&resource).map_err(|e| format!("the resource URL {resource:?}: {e}"))?;
        crate::oauth::http::require_https(&url).map_err(|e| e.to_string())?;
        if url.fragment().is_some() || url.query().is_some() {
            return Err(format!(
                "the resource URL {resource:?} must have no query and no fragment"
            ));
        }
        if url.path() != path {
            return Err(format!(
                "the resource URL's path {:?} is not the endpoint's {path:?}: clients would look for its metadata where it is not",
                url.path()
            ));
        }
        let authorization_servers = if self.authorization_servers.is_empty() {
            let issuer = self
                .verifier
                .issuer()
                .ok_or("the verifier names no issuer: give the ResourceServer its authorization_servers")?;
            vec![issuer.to_owned()]
        } else {
            self.authorization_servers.clone()
        };
        let origin = url.origin().ascii_serialization();
        let metadata_path = format!("{WELL_KNOWN}{path}");
        let metadata_url = format!("{origin}{metadata_path}");
        Ok(Protection {
            proofs: ProofChecker::new(self.dpop_nonces)?,
            origin,
            settings: self,
            resource,
            metadata_path,
            metadata_url,
            authorization_servers,
            admitted: Admitted::default(),
        })
    }
}

/// A [`ResourceServer`] applied to one endpoint.
pub(crate) struct Protection {
    settings: ResourceServer,
    resource: String,
    /// Where the metadata is served, besides [`WELL_KNOWN`] itself.
    pub(crate) metadata_path: String,
    /// The metadata's URL, which every challenge names.
    pub(crate) metadata_url: String,
    /// The resource URL's origin: where clients send the requests their DPoP proofs name.
    pub(crate) origin: String,
    /// The DPoP proofs seen, and the nonces.
    pub(crate) proofs: ProofChecker,
    authorization_servers: Vec<String>,
    /// The callers admitted lately, reused while the verifier allows.
    pub(crate) admitted: Admitted,
}

impl Protection {
    /// Where RFC 9728 puts metadata at the root.
    pub(crate) const ROOT_METADATA_PATH: &'static str = WELL_KNOWN;

    pub(crate) fn verifier(&self) -> &dyn TokenVerifier {
        self.settings.verifier.as_ref()
    }

    /// The scopes every request needs.
    pub(crate) fn required_scopes(&self) -> &[String] {
        &self.settings.required_scopes
    }

    /// Whether the token is meant for this resource (or the check is off).
    pub(crate) fn meant_for_us(&self, token: &AccessToken) -> bool {
        !self.settings.check_audience
            || token
                .audience
                .iter()
                .any(|audience| *audience == self.resource || self.settings.audiences.contains(audience))
    }

    /// The caller a verified `token` stands for: its scopes widened by the declared
    /// hierarchies.
    pub(crate) fn caller(&self, token: AccessToken) -> Caller {
        let mut granted: BTreeSet<String> = token.scopes.iter().cloned().collect();
        // Until nothing new is implied: hierarchies may nest.
        loop {
            let before = granted.len();
            for (broader, narrower) in &self.settings.implied_scopes {
                if granted.contains(broader) {
                    granted.extend(narrower.iter().cloned());
                }
            }
            if granted.len() == before {
                break;
            }
        }
        Caller::new(token, granted, self.settings.list_only_permitted)
    }

    /// The protected resource metadata (RFC 9728 §2); `scopes` are those of the
    /// server's tools, resources and prompts, listed unless the settings name the scopes.
    pub(crate) fn metadata(&self, scopes: impl IntoIterator<Item = String>) -> Value {
        let scopes_supported: Vec<String> = match &self.settings.scopes_supported {
            Some(listed) => listed.clone(),
            None => {
                let all: BTreeSet<String> = self.settings.required_scopes.iter().cloned().chain(scopes).collect();
                all.into_iter().collect()
            }
        };
        json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": scopes_supported,
            "bearer_methods_supported": ["header"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::auth::VerifyError;

    fn settings() -> ResourceServer {
        ResourceServer::new(|_token: String| async { Err::<AccessToken, _>(VerifyError::invalid("no")) })
            .authorization_servers(["https://as.example"])
    }

    #[test]
    fn the_resource_url_defaults_to_the_listener_and_must_agree_with_the_path() {
        let bound = settings().resolve("/mcp", Some("http://127.0.0.1:8000")).unwrap();
        assert_eq!(bound.resource, "http://127.0.0.1:8000/mcp");
        assert_eq!(
            bound.metadata_url,
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
        );
        let public = settings()
            .resource_url("https://notes.example/mcp")
            .resolve("/mcp", Some("http://127.0.0.1:1"));
        assert_eq!(
            public.unwrap().metadata_url,
            "https://notes.example/.well-known/oauth-protected-resource/mcp"
        );
        let refused = |settings: ResourceServer, origin| settings.resolve("/mcp", origin).err().unwrap();
        assert!(refused(settings(), None).contains("needs its resource_url"));
        assert!(refused(settings().resource_url("https://notes.example/api/mcp"), None).contains("not the endpoint's"));
        assert!(refused(settings().resource_url("http://notes.example/mcp"), None).contains("https"));
        assert!(refused(settings().resource_url("https://notes.example/mcp?x=1"), None).contains("no query"));
        let no_issuer =
            ResourceServer::new(|_token: String| async { Err::<AccessToken, _>(VerifyError::invalid("no")) });
        assert!(refused(no_issuer, Some("http://127.0.0.1:1")).contains("authorization_servers"));
    }

    #[test]
    fn audiences_and_scope_hierarchies() {
        let protection = settings()
            .accept_audiences(["https://alias.example/mcp"])
            .scope_implies("notes", ["notes:read", "notes:write"])
            .scope_implies("admin", ["notes"])
            .resolve("/mcp", Some("http://127.0.0.1:8000"))
            .unwrap();
        let token = |audience: &str, scopes: &[&str]| {
            AccessToken::new("t")
                .audience([audience])
                .scopes(scopes.iter().copied())
        };
        assert!(protection.meant_for_us(&token("http://127.0.0.1:8000/mcp", &[])));
        assert!(protection.meant_for_us(&token("https://alias.example/mcp", &[])));
        assert!(!protection.meant_for_us(&token("http://127.0.0.1:8000/other", &[])));
        let needed = ["notes:write".to_owned(), "billing".to_owned()];
        assert_eq!(protection.caller(token("", &["admin"])).missing(&needed), ["billing"]);
        assert_eq!(
            protection.caller(token("", &["notes:read"])).missing(&needed),
            ["notes:write", "billing"]
        );
    }

    #[test]
    fn metadata_lists_every_scope_unless_told() {
        let protection = settings()
            .required_scopes(["mcp"])
            .resolve("/mcp", Some("http://127.0.0.1:8000"))
            .unwrap();
        let document = protection.metadata(["notes:write".to_owned(), "mcp".to_owned()]);
        assert_eq!(document["scopes_supported"], json!(["mcp", "notes:write"]));
        assert_eq!(document["authorization_servers"], json!(["https://as.example"]));
        assert_eq!(document["resource"], "http://127.0.0.1:8000/mcp");
    }
}
