//! The endpoint as an OAuth resource server, when its config has a
//! [`ResourceServer`](crate::server::auth::ResourceServer): the protected resource
//! metadata, the token every request must carry, and the scopes a call needs.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderMap, HeaderValue, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::endpoint::Endpoint;
use super::response::json_body;
use crate::protocol::jsonrpc::{Message, Request};
use crate::server::auth::challenge::{bearer_challenge, ChallengeError};
use crate::server::auth::{AccessToken, Protection, VerifyError};

/// The verified token of a request's caller; `None` on an endpoint that requires none.
pub(super) type Caller = Option<Arc<AccessToken>>;

impl Endpoint {
    /// The caller of a request, when its token is good for this resource and grants the
    /// server's required scopes; otherwise the answer that refuses it (401, 403, or 503
    /// when the token could not be checked). Always `None` on an open endpoint.
    pub(super) async fn authenticate(&self, headers: &HeaderMap) -> Result<Caller, Response> {
        let Some(protection) = &self.protection else {
            return Ok(None);
        };
        let token = match bearer_token(headers) {
            Ok(Some(token)) => token,
            Ok(None) => {
                let required = as_strs(protection.required_scopes());
                return Err(refuse(
                    protection,
                    ChallengeError::Missing,
                    "an access token is required",
                    &required,
                ));
            }
            Err(reason) => return Err(refuse(protection, ChallengeError::InvalidRequest, reason, &[])),
        };
        let token = match protection.verifier().verify(token.to_owned()).await {
            Ok(token) => token,
            Err(VerifyError::Invalid(reason)) => {
                return Err(refuse(protection, ChallengeError::InvalidToken, &reason, &[]))
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
            return Err(refuse(protection, ChallengeError::InvalidToken, reason, &[]));
        }
        if token.bound_key_thumbprint().is_some() {
            let reason = "the token is bound to a DPoP key; DPoP-bound tokens are not accepted as Bearer tokens";
            return Err(refuse(protection, ChallengeError::InvalidToken, reason, &[]));
        }
        let required = protection.required_scopes();
        if !protection.missing_scopes(&token, required).is_empty() {
            let reason = "the token lacks the scopes this server requires";
            return Err(refuse(
                protection,
                ChallengeError::InsufficientScope,
                reason,
                &as_strs(required),
            ));
        }
        Ok(Some(Arc::new(token)))
    }

    /// The refusal (403) of a call to a tool, prompt or resource that requires scopes the
    /// caller lacks; `None` lets it through. The challenge names every scope the call
    /// needs, the server's ones too, so that one new authorization is enough.
    pub(super) fn scope_refusal(&self, caller: Option<&AccessToken>, message: &Message) -> Option<Response> {
        let (Some(protection), Some(token), Message::Request(request)) = (&self.protection, caller, message) else {
            return None;
        };
        let target = target_of(request)?;
        let needed = self.server.registry().scopes_for(&request.method, &target);
        if protection.missing_scopes(token, &needed).is_empty() {
            return None;
        }
        let mut scopes = as_strs(protection.required_scopes());
        for scope in &needed {
            if !scopes.contains(&scope.as_str()) {
                scopes.push(scope);
            }
        }
        let reason = format!("{} {target:?} needs more scopes", request.method);
        Some(refuse(protection, ChallengeError::InsufficientScope, &reason, &scopes))
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

/// The token of an `Authorization: Bearer` header: `None` without one (or with another
/// scheme), an error for a malformed one or for several.
fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, &'static str> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("send one Authorization header");
    }
    let value = value.to_str().map_err(|_| "the Authorization header is not text")?;
    let Some((scheme, token)) = value.split_once(' ') else {
        return Ok(None);
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    let token = token.trim();
    // RFC 6750 §2.1: b64token.
    let b64token = !token.is_empty()
        && token
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if b64token {
        Ok(Some(token))
    } else {
        Err("the bearer token is malformed")
    }
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

/// A refusal: the status of `error`, its challenge, and an OAuth error body.
fn refuse(protection: &Protection, error: ChallengeError, description: &str, scopes: &[&str]) -> Response {
    let (status, code) = match error {
        ChallengeError::Missing => (StatusCode::UNAUTHORIZED, "invalid_token"),
        ChallengeError::InvalidToken => (StatusCode::UNAUTHORIZED, "invalid_token"),
        ChallengeError::InsufficientScope => (StatusCode::FORBIDDEN, "insufficient_scope"),
        ChallengeError::InvalidRequest => (StatusCode::BAD_REQUEST, "invalid_request"),
    };
    let shown = (error != ChallengeError::Missing).then_some(description);
    let challenge = bearer_challenge(error, shown, scopes, &protection.metadata_url);
    let body = json!({"error": code, "error_description": description}).to_string();
    let mut response = json_body(status, body);
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_from_one_authorization_header() {
        let headers = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::AUTHORIZATION, value.parse().unwrap());
            }
            headers
        };
        assert_eq!(bearer_token(&headers(&[])), Ok(None));
        assert_eq!(
            bearer_token(&headers(&["Bearer abc.DEF-_~+/=="])),
            Ok(Some("abc.DEF-_~+/=="))
        );
        assert_eq!(bearer_token(&headers(&["bearer  tok "])), Ok(Some("tok")));
        assert_eq!(bearer_token(&headers(&["Basic dXNlcjpwdw=="])), Ok(None));
        assert!(bearer_token(&headers(&["Bearer a b"])).is_err());
        assert!(bearer_token(&headers(&["Bearer "])).is_err());
        assert!(bearer_token(&headers(&["Bearer a", "Bearer b"])).is_err());
    }
}
