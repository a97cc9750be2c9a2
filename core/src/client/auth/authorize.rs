//! The authorization request (OAuth 2.1 §4.1.1 with PKCE and `resource`) and the
//! validation of its response: `state`, then `iss` (RFC 9207), then `code` or `error`.

use reqwest::Url;

use super::pkce::{random_string, Pkce};
use super::AuthError;
use crate::oauth::http::require_https;

/// One authorization request, from the URL the user opens to the code it returns.
///
/// ```
/// use oxmcp::client::auth::AuthorizationRequest;
///
/// let request = AuthorizationRequest::new(
///     "https://auth.example.com/authorize",
///     "my-client",
///     "http://127.0.0.1:33418/callback",
///     Some("files:read"),
///     "https://mcp.example.com/mcp",
///     Some("https://auth.example.com".to_owned()),
///     true,
/// )
/// .unwrap();
/// let callback = format!(
///     "http://127.0.0.1:33418/callback?code=abc&state={}&iss=https%3A%2F%2Fauth.example.com",
///     request.state()
/// );
/// assert_eq!(request.code_from(&callback).unwrap(), "abc");
/// assert!(request.code_from("http://127.0.0.1:33418/callback?code=abc&state=forged").is_err());
/// ```
#[derive(Debug)]
pub struct AuthorizationRequest {
    url: Url,
    state: String,
    pkce: Pkce,
    redirect_uri: String,
    /// The issuer recorded from the validated metadata, when there is one.
    issuer: Option<String>,
    /// Whether the server said it puts `iss` in every response.
    iss_required: bool,
}

impl AuthorizationRequest {
    /// A request to `endpoint` with a fresh PKCE pair and `state`. `issuer` is the
    /// issuer of the server's validated metadata (`None` for a server without
    /// metadata); `iss_required` is its `authorization_response_iss_parameter_supported`.
    /// An `endpoint` that is not https (plain http only on a loopback host) is refused:
    /// the user is never sent there.
    pub fn new(
        endpoint: &str,
        client_id: &str,
        redirect_uri: &str,
        scope: Option<&str>,
        resource: &str,
        issuer: Option<String>,
        iss_required: bool,
    ) -> Result<AuthorizationRequest, AuthError> {
        let mut url = Url::parse(endpoint).map_err(|e| AuthError::invalid_url(endpoint, e))?;
        require_https(&url)?;
        let pkce = Pkce::new()?;
        let state = random_string()?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", client_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("code_challenge", pkce.challenge())
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
            }
        }
        Ok(AuthorizationRequest {
            url,
            state,
            pkce,
            redirect_uri: redirect_uri.to_owned(),
            issuer,
            iss_required,
        })
    }

    /// The URL to open in the user's browser.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The `state` the response must carry back.
    pub fn state(&self) -> &str {
        &self.state
    }

    /// The PKCE verifier for the token request.
    pub fn verifier(&self) -> &str {
        self.pkce.verifier()
    }

    /// The redirect URI, which the token request repeats.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// The code of the authorization response `callback` (the URL the authorization
    /// server redirected to), once its `state` and `iss` are checked. An `error`
    /// response becomes [`AuthError::Refused`], but only when `iss` checks out.
    pub fn code_from(&self, callback: &str) -> Result<String, AuthError> {
        let callback = Url::parse(callback).map_err(|e| AuthError::invalid_url("(callback)", e))?;
        let mut state = None;
        let mut iss = None;
        let mut code = None;
        let mut error = None;
        let mut description = None;
        for (name, value) in callback.query_pairs() {
            let slot = match name.as_ref() {
                "state" => &mut state,
                "iss" => &mut iss,
                "code" => &mut code,
                "error" => &mut error,
                "error_description" => &mut description,
                _ => continue,
            };
            if slot.is_some() {
                return Err(AuthError::InvalidCallback("a parameter is repeated"));
            }
            *slot = Some(value.into_owned());
        }
        if state.as_deref() != Some(self.state.as_str()) {
            return Err(AuthError::InvalidCallback("the state does not match the request's"));
        }
        self.check_iss(iss.as_deref())?;
        if let Some(error) = error {
            return Err(AuthError::Refused { error, description });
        }
        code.ok_or(AuthError::InvalidCallback("it holds no code"))
    }

    /// RFC 9207 §2.4 as the MCP specification applies it: a present `iss` must equal the
    /// recorded issuer by simple string comparison; an absent one is refused only when
    /// the server advertised it.
    fn check_iss(&self, iss: Option<&str>) -> Result<(), AuthError> {
        match (iss, &self.issuer) {
            (Some(iss), Some(issuer)) if iss == issuer => Ok(()),
            (Some(_), Some(_)) => Err(AuthError::InvalidCallback(
                "iss is not the authorization server's issuer",
            )),
            (Some(_), None) => Err(AuthError::InvalidCallback("iss is present but no issuer was recorded")),
            (None, _) if self.iss_required => Err(AuthError::InvalidCallback(
                "iss is missing although the authorization server advertises it",
            )),
            (None, _) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "https://auth.example.com";

    fn request(iss_required: bool) -> AuthorizationRequest {
        AuthorizationRequest::new(
            "https://auth.example.com/authorize?tenant=1",
            "client",
            "http://localhost:3000/callback",
            None,
            "https://mcp.example.com/mcp",
            Some(ISSUER.to_owned()),
            iss_required,
        )
        .unwrap()
    }

    fn callback(request: &AuthorizationRequest, extra: &str) -> String {
        format!(
            "http://localhost:3000/callback?code=c0de&state={}{extra}",
            request.state()
        )
    }

    #[test]
    fn the_url_carries_pkce_state_and_resource() {
        let r = request(true);
        let query: std::collections::HashMap<_, _> = r.url().query_pairs().into_owned().collect();
        assert_eq!(query["tenant"], "1");
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["code_challenge"], Pkce::challenge_of(r.verifier()));
        assert_eq!(query["state"], r.state());
        assert_eq!(query["resource"], "https://mcp.example.com/mcp");
        assert!(!query.contains_key("scope"));
    }

    #[test]
    fn state_must_match() {
        let r = request(false);
        assert!(r
            .code_from("http://localhost:3000/callback?code=c0de&state=other")
            .is_err());
        assert!(r.code_from("http://localhost:3000/callback?code=c0de").is_err());
        assert_eq!(r.code_from(&callback(&r, "")).unwrap(), "c0de");
    }

    #[test]
    fn iss_is_compared_without_normalization() {
        let r = request(true);
        let iss = |v: &str| {
            format!(
                "&iss={}",
                url::form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()
            )
        };
        assert_eq!(r.code_from(&callback(&r, &iss(ISSUER))).unwrap(), "c0de");
        assert!(r.code_from(&callback(&r, &iss("https://auth.example.com/"))).is_err());
        assert!(r.code_from(&callback(&r, &iss("https://evil.example.com"))).is_err());
        assert!(r.code_from(&callback(&r, "")).is_err(), "advertised but absent");
        let lenient = request(false);
        assert!(lenient.code_from(&callback(&lenient, "")).is_ok());
        assert!(lenient
            .code_from(&callback(&lenient, &iss("https://evil.example.com")))
            .is_err());
    }

    #[test]
    fn an_endpoint_without_https_is_refused() {
        let plain = |endpoint: &str| {
            AuthorizationRequest::new(
                endpoint,
                "c",
                "http://localhost:3000/cb",
                None,
                "https://mcp",
                None,
                false,
            )
        };
        assert!(matches!(
            plain("http://auth.example.com/authorize"),
            Err(AuthError::InvalidUrl { .. })
        ));
        assert!(plain("http://127.0.0.1:9000/authorize").is_ok());
    }

    #[test]
    fn errors_are_reported_after_the_checks() {
        let r = request(false);
        let refused = format!("http://localhost:3000/callback?error=access_denied&state={}", r.state());
        assert!(matches!(r.code_from(&refused), Err(AuthError::Refused { error, .. }) if error == "access_denied"));
    }
}
