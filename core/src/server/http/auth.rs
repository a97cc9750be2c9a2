//! The endpoint as an OAuth resource server, when its config has a
//! [`ResourceServer`](crate::server::auth::ResourceServer): the protected resource
//! metadata, the token every request must carry, and the scopes a call needs.

use std::borrow::Cow;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderMap, HeaderValue, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::endpoint::Endpoint;
use super::header_names;
use super::response::{header_str, json_body};
use crate::protocol::headers::decode_header_value;
use crate::protocol::jsonrpc::{Message, Request};
use crate::server::auth::challenge::{challenge, ChallengeError, Scheme};
use crate::server::auth::dpop::ProofError;
use crate::server::auth::{AccessToken, Caller, Protection, VerifyError};

/// The header of a DPoP proof, and of the server's nonce (RFC 9449 §4.1, §8).
const DPOP: &str = "dpop";
const DPOP_NONCE: &str = "dpop-nonce";

/// The verified caller of a request; `None` on an endpoint that requires no token.
pub(super) type Admitted = Option<Arc<Caller>>;

/// The request an authentication is for: its method and path, which a DPoP proof must name,
/// and the caller its host vouched for, if any.
pub(super) struct Target<'a> {
    pub(super) method: &'a str,
    pub(super) path: &'a str,
    pub(super) vouched: Option<&'a HostCaller>,
}

/// The caller a host authenticated itself, before handing the request to a mounted
/// endpoint ([`RequestHead::caller`](super::RequestHead::caller)): an open endpoint admits
/// it as the request's caller. It travels in the request's extensions, which only the
/// host sets (nothing a client sends can make one).
#[derive(Clone)]
pub(super) struct HostCaller(pub(super) Arc<AccessToken>);

/// A refusal being made: how the client presented its token, and the challenge.
struct Refusal<'a> {
    protection: &'a Protection,
    scheme: Scheme,
}

impl Endpoint {
    /// The caller of a request to `target`, when its token is good for this resource (with
    /// a good DPoP proof when it is key-bound) and grants the server's required scopes;
    /// otherwise the answer that refuses it (400, 401, 403, or 503 when the token could not
    /// be checked). On an open endpoint, the caller the host vouched for, if any.
    pub(super) async fn authenticate(&self, headers: &HeaderMap, target: Target<'_>) -> Result<Admitted, Response> {
        let Some(protection) = &self.protection else {
            return Ok(target.vouched.map(|host| Arc::new(Caller::vouched_for(&host.0))));
        };
        let bearer = Refusal {
            protection,
            scheme: Scheme::Bearer,
        };
        let (scheme, token) = match presented_token(headers) {
            Ok(Some(presented)) => presented,
            Ok(None) => {
                let required = as_strs(protection.required_scopes());
                return Err(bearer.refuse(ChallengeError::Missing, "an access token is required", &required));
            }
            Err(reason) => return Err(bearer.refuse(ChallengeError::InvalidRequest, reason, &[])),
        };
        let refusal = Refusal { protection, scheme };
        // A caller admitted lately needs only its proof of possession checked again (its
        // token was well formed: only the very same text is found).
        if let Some(caller) = protection.admitted.get(token) {
            return match refusal.binding_refusal(headers, caller.token(), &target) {
                Some(refused) => Err(refused),
                None => Ok(Some(caller)),
            };
        }
        if !is_b64token(token) {
            return Err(bearer.refuse(ChallengeError::InvalidRequest, "the access token is malformed", &[]));
        }
        let token = match protection.verifier().verify(token.to_owned()).await {
            Ok(token) => token,
            Err(VerifyError::Invalid(reason)) => {
                return Err(refusal.refuse(ChallengeError::InvalidToken, &reason, &[]))
            }
            Err(VerifyError::Unavailable(detail)) => {
                tracing::warn!(%detail, "an access token could not be checked");
                return Err(json_body(
                    StatusCode::SERVICE_UNAVAILABLE,
                    json!({"error": "temporarily_unavailable", "error_description": "the token could not be checked; try again"})
                        .to_string(),
                ));
            }
        };
        if !protection.meant_for_us(&token) {
            let reason = "the token is meant for another resource";
            return Err(refusal.refuse(ChallengeError::InvalidToken, reason, &[]));
        }
        if let Some(refused) = refusal.binding_refusal(headers, &token, &target) {
            return Err(refused);
        }
        let caller = protection.caller(token);
        let required = protection.required_scopes();
        if !caller.missing(required).is_empty() {
            let reason = "the token lacks the scopes this server requires";
            return Err(refusal.refuse(ChallengeError::InsufficientScope, reason, &as_strs(required)));
        }
        let caller = Arc::new(caller);
        protection.admitted.keep(&caller, protection.verifier());
        Ok(Some(caller))
    }

    /// The refusal (403) of a request to a tool, prompt or resource that requires scopes
    /// the caller lacks; `None` lets it through.
    pub(super) fn scope_refusal(&self, caller: Option<&Caller>, message: &Message) -> Option<Response> {
        let Message::Request(request) = message else {
            return None;
        };
        // The params are read for a target only for the methods that have one.
        self.scope_refusal_of(caller, &request.method, || target_of(request))
    }

    /// [`scope_refusal`](Self::scope_refusal) from a modern request's `Mcp-Method` and
    /// `Mcp-Name` headers, before its body is read. The body is checked as well once read
    /// (it must match the headers, and the headers may be missing).
    pub(super) fn early_scope_refusal(&self, caller: Option<&Caller>, headers: &HeaderMap) -> Option<Response> {
        let method = header_str(headers, header_names::METHOD)?;
        self.scope_refusal_of(caller, method, || {
            header_str(headers, header_names::NAME)
                .and_then(decode_header_value)
                .map(Cow::into_owned)
        })
    }

    /// The refusal of a `method` request naming `target`, when that tool, prompt or
    /// resource requires scopes the caller lacks. The challenge names every scope the
    /// call needs, the server's ones too, so that one new authorization is enough.
    pub(super) fn scope_refusal_of(
        &self,
        caller: Option<&Caller>,
        method: &str,
        target: impl FnOnce() -> Option<String>,
    ) -> Option<Response> {
        let (Some(protection), Some(caller)) = (&self.protection, caller) else {
            return None;
        };
        let (target, needed) = self.server.registry().scopes_for(method, target)?;
        if caller.missing(&needed).is_empty() {
            return None;
        }
        let mut scopes = as_strs(protection.required_scopes());
        for scope in &needed {
            if !scopes.contains(&scope.as_str()) {
                scopes.push(scope);
            }
        }
        // A key-bound token came as DPoP (`binding_refusal` let nothing else through).
        let scheme = if caller.token().bound_key_thumbprint().is_some() {
            Scheme::Dpop
        } else {
            Scheme::Bearer
        };
        let reason = format!("{method} {target:?} needs more scopes");
        Some(Refusal { protection, scheme }.refuse(ChallengeError::InsufficientScope, &reason, &scopes))
    }
}

impl Refusal<'_> {
    /// The refusal of a key-bound token (`cnf.jkt`) that did not come as `DPoP` with a
    /// good proof for `target`, or of an unbound one that came as `DPoP`; `None` when the
    /// token came as it should.
    fn binding_refusal(&self, headers: &HeaderMap, token: &AccessToken, target: &Target<'_>) -> Option<Response> {
        let thumbprint = match (self.scheme, token.bound_key_thumbprint()) {
            (Scheme::Bearer, None) => return None,
            (Scheme::Bearer, Some(_)) => {
                let reason = "the token is bound to a DPoP key: present it as DPoP, with a proof";
                return Some(self.refuse(ChallengeError::InvalidToken, reason, &[]));
            }
            (Scheme::Dpop, None) => {
                let reason = "the token is not bound to a DPoP key";
                return Some(self.refuse(ChallengeError::InvalidToken, reason, &[]));
            }
            (Scheme::Dpop, Some(thumbprint)) => thumbprint,
        };
        let mut proofs = headers.get_all(DPOP).iter();
        let (Some(proof), None) = (proofs.next(), proofs.next()) else {
            return Some(self.refuse(ChallengeError::InvalidProof, "send one DPoP proof", &[]));
        };
        let proof = proof.to_str().unwrap_or_default();
        let url = format!("{}{}", self.protection.origin, target.path);
        match self
            .protection
            .proofs
            .check(proof, target.method, &url, &token.token, thumbprint)
        {
            Ok(()) => None,
            Err(ProofError::Invalid(reason)) => Some(self.refuse(ChallengeError::InvalidProof, &reason, &[])),
            Err(ProofError::UseNonce(nonce)) => {
                let reason = "the DPoP proof needs the server's nonce";
                let mut refused = self.refuse(ChallengeError::UseNonce, reason, &[]);
                if let Ok(nonce) = HeaderValue::from_str(&nonce) {
                    refused.headers_mut().insert(DPOP_NONCE, nonce);
                }
                Some(refused)
            }
        }
    }

    /// A refusal: the status of `error`, its challenge, and an OAuth error body.
    fn refuse(&self, error: ChallengeError, description: &str, scopes: &[&str]) -> Response {
        let status = match error {
            ChallengeError::InsufficientScope => StatusCode::FORBIDDEN,
            ChallengeError::InvalidRequest => StatusCode::BAD_REQUEST,
            _ => StatusCode::UNAUTHORIZED,
        };
        let shown = (error != ChallengeError::Missing).then_some(description);
        let header = challenge(self.scheme, error, shown, scopes, &self.protection.metadata_url);
        let code = error.code().unwrap_or("invalid_token");
        let body = json!({"error": code, "error_description": description}).to_string();
        let mut response = json_body(status, body);
        if let Ok(value) = HeaderValue::from_str(&header) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// `GET /.well-known/oauth-protected-resource[/path]`: the protected resource metadata.
pub(super) async fn handle_metadata(State(endpoint): State<Arc<Endpoint>>) -> Response {
    let Some(protection) = &endpoint.protection else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let document = protection.metadata(endpoint.server.registry().all_scopes());
    let mut response = json_body(StatusCode::OK, document.to_string());
    // Public, and read by browser-based clients of any origin.
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    response
}

/// The token of the `Authorization` header and its scheme (`Bearer` or `DPoP`): `None`
/// without one (or with another scheme), an error for one that is not text or for several.
/// The token's characters are checked by [`is_b64token`], which a token admitted lately
/// need not go through again.
fn presented_token(headers: &HeaderMap) -> Result<Option<(Scheme, &str)>, &'static str> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("send one Authorization header");
    }
    // UTF-8 is checked at once (and quickly); the token's characters later.
    let value = std::str::from_utf8(value.as_bytes()).map_err(|_| "the Authorization header is not text")?;
    let Some((scheme, token)) = value.split_once(' ') else {
        return Ok(None);
    };
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else {
        return Ok(None);
    };
    Ok(Some((scheme, token.trim())))
}

/// Whether `token` is a b64token (RFC 6750 §2.1 and RFC 9449 §7.1).
fn is_b64token(token: &str) -> bool {
    !token.is_empty()
        && token
            .trim_end_matches('=')
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
}

/// The name (tool, prompt) or URI (resource) a request is about, if it has one.
fn target_of(request: &Request) -> Option<String> {
    #[derive(Deserialize)]
    struct Target {
        #[serde(alias = "uri")]
        name: Option<String>,
    }
    serde_json::from_str::<Target>(request.params.as_deref()?.get())
        .ok()?
        .name
}

fn as_strs(scopes: &[String]) -> Vec<&str> {
    scopes.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_read_from_one_authorization_header() {
        let headers = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::AUTHORIZATION, value.parse().unwrap());
            }
            headers
        };
        assert_eq!(presented_token(&headers(&[])), Ok(None));
        assert_eq!(
            presented_token(&headers(&["Bearer abc.DEF-_~+/=="])),
            Ok(Some((Scheme::Bearer, "abc.DEF-_~+/==")))
        );
        assert_eq!(
            presented_token(&headers(&["bearer  tok "])),
            Ok(Some((Scheme::Bearer, "tok")))
        );
        assert_eq!(
            presented_token(&headers(&["DPoP tok"])),
            Ok(Some((Scheme::Dpop, "tok")))
        );
        assert_eq!(presented_token(&headers(&["Basic dXNlcjpwdw=="])), Ok(None));
        assert!(presented_token(&headers(&["Bearer a", "Bearer b"])).is_err());
        for malformed in ["Bearer a b", "Bearer ", "Bearer a,b", "Bearer a\"b"] {
            let presented = headers(&[malformed]);
            let Ok(Some((_, token))) = presented_token(&presented) else {
                panic!("{malformed:?} is read")
            };
            assert!(!is_b64token(token), "{malformed:?} is not a b64token");
        }
        let mut not_text = HeaderMap::new();
        not_text.append(
            header::AUTHORIZATION,
            HeaderValue::from_bytes(b"Bearer caf\xe9").unwrap(),
        );
        assert!(presented_token(&not_text).is_err());
        assert!(is_b64token("abc.DEF-_~+/=="));
    }
}
