//! An oxmcp server protected against a real authorization server, `oidc-provider` from npm
//! (tests/auth/provider.mjs, started on 127.0.0.1 and stopped by each test), and the oxmcp
//! client's OAuth flows against both: the authorization code flow with dynamic
//! registration and PKCE (the user's browser step done by plain HTTP), refresh, step-up on
//! `insufficient_scope`, client credentials; JWT access tokens checked with the issuer's
//! JWKS, opaque ones by introspection.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{text, AuthorizationServer};
use oxmcp::client::auth::{ClientCredentials, ClientMetadata, OAuthProvider};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::server::auth::{IntrospectionVerifier, JwtVerifier, ResourceServer, TokenVerifier};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::json;

const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// A server whose `whoami` says who called (the user, or the client acting for itself) and
/// whether the token is DPoP-bound, and whose `write_note` needs `notes:write`;
/// every request needs `notes:read`.
async fn notes_server(verifier: impl TokenVerifier) -> HttpServerHandle {
    notes_server_with(verifier, |auth| auth).await
}

/// [`notes_server`] with the resource server's settings changed.
async fn notes_server_with(
    verifier: impl TokenVerifier,
    settings: impl FnOnce(ResourceServer) -> ResourceServer,
) -> HttpServerHandle {
    let server = Server::builder("notes", "1.0.0")
        .tool(ToolDef::new("whoami").handler(|_, ctx: Context| async move {
            let token = ctx.access_token().expect("a caller");
            let who = token.subject.as_ref().or(token.client_id.as_ref());
            let bound = if token.bound_key_thumbprint().is_some() {
                " (DPoP)"
            } else {
                ""
            };
            format!("{} {}{bound}", who.cloned().unwrap_or_default(), token.scopes.join(","))
        }))
        .tool(
            ToolDef::new("write_note")
                .scopes(["notes:write"])
                .handler(|_, _| async { "written" }),
        )
        .build()
        .unwrap();
    let auth = settings(ResourceServer::new(verifier).required_scopes(["notes:read"]));
    server
        .bind_http("127.0.0.1:0", HttpConfig::default().auth(auth))
        .await
        .unwrap()
}

/// The user at the authorization server, approving at once: follows the redirects of the
/// authorization URL until the one to the app's redirect URI. Counts the authorizations.
fn user(authorizations: Arc<AtomicUsize>) -> OAuthProvider {
    OAuthProvider::authorization_code(ClientMetadata::new("notes app", REDIRECT_URI), move |url| {
        let authorizations = Arc::clone(&authorizations);
        async move {
            authorizations.fetch_add(1, Ordering::SeqCst);
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()?;
            let mut next = url;
            for _ in 0..10 {
                let answer = http.get(next.clone()).send().await?;
                let location = answer
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .ok_or("no redirect")?
                    .to_str()?;
                let location = next.join(location)?;
                if location.as_str().starts_with(REDIRECT_URI) {
                    return Ok(location.to_string());
                }
                next = location;
            }
            Err::<String, Box<dyn std::error::Error + Send + Sync>>("too many redirects".into())
        }
    })
}

async fn client(url: String, provider: OAuthProvider, era: EraMode) -> Client {
    let transport = connect(HttpClientOptions::new(url).authorizer(provider)).unwrap();
    Client::connect(transport, ClientOptions::new("notes app", "1").era(era))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_code_flow_refreshes_and_steps_up_against_a_real_authorization_server() {
    // Access tokens live 3 s, so that one expires during the test and is refreshed.
    let authority = AuthorizationServer::start(&[("ACCESS_TOKEN_TTL", "3")]).await;
    let metadata = authority.metadata().await;
    let jwks = metadata["jwks_uri"].as_str().unwrap();
    for era in [EraMode::Legacy, EraMode::Modern] {
        let server = notes_server(JwtVerifier::new(jwks, &authority.issuer).unwrap()).await;
        let authorizations = Arc::new(AtomicUsize::new(0));
        let client = client(server.url("/mcp"), user(Arc::clone(&authorizations)), era).await;
        let whoami = text(&client.call_tool("whoami", json!({})).await.unwrap());
        assert_eq!(
            whoami, "alice notes:read",
            "{era:?}: the scope the first challenge asked for"
        );
        assert_eq!(authorizations.load(Ordering::SeqCst), 1);

        // write_note needs more: the client authorizes again with the union of scopes.
        assert_eq!(
            text(&client.call_tool("write_note", json!({})).await.unwrap()),
            "written",
            "{era:?}"
        );
        assert_eq!(authorizations.load(Ordering::SeqCst), 2, "{era:?}: one step-up");
        let whoami = text(&client.call_tool("whoami", json!({})).await.unwrap());
        assert!(
            whoami.contains("notes:write") && whoami.contains("notes:read"),
            "{era:?}: {whoami}"
        );

        // Once the token expired, the refresh token gets a new one, with no user involved.
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(
            text(&client.call_tool("whoami", json!({})).await.unwrap()).starts_with("alice"),
            "{era:?}"
        );
        assert_eq!(
            authorizations.load(Ordering::SeqCst),
            2,
            "{era:?}: refreshed, not authorized again"
        );
        client.close().await.unwrap();
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn client_credentials_with_jwt_and_introspected_opaque_tokens() {
    let credentials = || ClientCredentials::new("svc").secret("svc-secret");
    for format in ["jwt", "opaque"] {
        let authority = AuthorizationServer::start(&[("ACCESS_TOKEN_FORMAT", format)]).await;
        let metadata = authority.metadata().await;
        let server = if format == "jwt" {
            notes_server(JwtVerifier::new(metadata["jwks_uri"].as_str().unwrap(), &authority.issuer).unwrap()).await
        } else {
            let endpoint = metadata["introspection_endpoint"].as_str().unwrap();
            let verifier = IntrospectionVerifier::new(endpoint, "svc", "svc-secret")
                .unwrap()
                .issuer(&authority.issuer);
            notes_server(verifier).await
        };
        for era in [EraMode::Legacy, EraMode::Modern] {
            let provider = OAuthProvider::client_credentials(&authority.issuer, credentials());
            let client = client(server.url("/mcp"), provider, era).await;
            let whoami = text(&client.call_tool("whoami", json!({})).await.unwrap());
            assert_eq!(whoami, "svc notes:read", "{format} {era:?}");
            client.close().await.unwrap();
        }
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn dpop_bound_tokens_of_a_real_authorization_server_with_server_nonces() {
    let authority = AuthorizationServer::start(&[]).await;
    let metadata = authority.metadata().await;
    let jwks = metadata["jwks_uri"].as_str().unwrap();
    let verifier = JwtVerifier::new(jwks, &authority.issuer).unwrap();
    let server = notes_server_with(verifier, |auth| auth.dpop_nonces(true)).await;
    for era in [EraMode::Legacy, EraMode::Modern] {
        let key = oxmcp::client::auth::SigningKey::generate().unwrap();
        let credentials = ClientCredentials::new("svc").secret("svc-secret");
        let provider = OAuthProvider::client_credentials(&authority.issuer, credentials).dpop(key);
        let client = client(server.url("/mcp"), provider, era).await;
        let whoami = text(&client.call_tool("whoami", json!({})).await.unwrap());
        assert_eq!(
            whoami, "svc notes:read (DPoP)",
            "{era:?}: a DPoP-bound token, its proofs with the server's nonce"
        );
        client.close().await.unwrap();
    }
    server.shutdown().await.unwrap();
}
