//! Assertions for the JWT bearer grant (RFC 7523): a workload's own identity token
//! (workload identity federation), or an Identity Assertion JWT Authorization Grant
//! (ID-JAG) obtained from the enterprise identity provider by token exchange (RFC 8693)
//! for enterprise-managed authorization.

use std::borrow::Cow;

use reqwest::header::HeaderMap;
use reqwest::Url;
use serde::Deserialize;

use super::registration::{ClientCredentials, TokenEndpointAuthMethod};
use super::token::{authenticate, Form};
use super::AuthError;
use crate::oauth::http::{client, post_form};
use crate::{BoxError, BoxFuture};

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// What an assertion is for: the authorization server that will receive it (its issuer
/// is the assertion's audience), the MCP server's resource identifier, and the scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssertionTarget {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// The `resource` the token is for.
    pub resource: String,
    /// The space-separated scopes asked for, if any.
    pub scope: Option<String>,
}

impl AssertionTarget {
    /// An assertion for the authorization server `issuer`, for a token to `resource`
    /// with `scope` (an app that asks for an assertion itself, e.g. an ID-JAG ahead of time).
    pub fn new(issuer: impl Into<String>, resource: impl Into<String>, scope: Option<String>) -> AssertionTarget {
        AssertionTarget {
            issuer: issuer.into(),
            resource: resource.into(),
            scope,
        }
    }
}

/// Produces the assertion of each JWT bearer grant, e.g. reads the workload's identity
/// token, or calls [`request_id_jag`].
pub type AssertionSource =
    std::sync::Arc<dyn Fn(AssertionTarget) -> BoxFuture<'static, Result<String, BoxError>> + Send + Sync>;

/// Exchanges the user's ID token from the enterprise identity provider for an ID-JAG
/// for `target` (token exchange, RFC 8693), to present to the MCP server's
/// authorization server in a JWT bearer grant.
///
/// `idp_client` is the client's registration at the identity provider; it
/// authenticates with its secret (HTTP Basic) when it has one.
pub async fn request_id_jag(
    idp_token_endpoint: &str,
    idp_client: &ClientCredentials,
    id_token: &str,
    target: &AssertionTarget,
) -> Result<String, AuthError> {
    #[derive(Deserialize)]
    struct Answer {
        access_token: String,
        issued_token_type: Option<String>,
    }
    let url = Url::parse(idp_token_endpoint).map_err(|e| AuthError::invalid_url(idp_token_endpoint, e))?;
    let pairs = [
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN),
        ("audience", target.issuer.as_str()),
        ("resource", target.resource.as_str()),
    ];
    let mut form: Form = pairs.into_iter().map(|(k, v)| (k, Cow::Borrowed(v))).collect();
    if let Some(scope) = &target.scope {
        form.push(("scope", Cow::Borrowed(scope)));
    }
    let method = idp_client
        .token_endpoint_auth_method
        .unwrap_or(match idp_client.client_secret {
            Some(_) => TokenEndpointAuthMethod::ClientSecretBasic,
            None => TokenEndpointAuthMethod::None,
        });
    let mut headers = HeaderMap::new();
    authenticate(idp_client, method, idp_token_endpoint, &mut form, &mut headers)?;
    let answer: Answer = post_form(&client()?, &url, headers, &form).await?.answer?;
    match answer.issued_token_type.as_deref() {
        Some(ID_JAG) | None => Ok(answer.access_token),
        Some(other) => Err(AuthError::invalid(
            url,
            format!("the identity provider issued a {other}, not an ID-JAG"),
        )),
    }
}
