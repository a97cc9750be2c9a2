//! Our HTTP client with its OAuth provider against our own HTTP server behind a bearer
//! check, with a small authorization server in the same axum app: discovery from the
//! 401 challenge, dynamic registration, the authorization code flow with PKCE, `state`
//! and `iss` checks, and the retried request, in both eras.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use oxmcp::client::auth::{AuthError, BearerChallenge, ClientMetadata, OAuthProvider};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::server::http::HttpConfig;
use oxmcp::server::{Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";
const SCOPE: &str = "mcp:tools";

/// What the authorization server remembers between its endpoints.
#[derive(Default)]
struct Authority {
    base: String,
    registrations: usize,
    /// The code challenge of the pending authorization, by code.
    challenges: HashMap<String, String>,
    /// The access tokens issued, with their `resource`.
    tokens: Vec<(String, String)>,
    /// How many authorization codes were issued.
    codes: usize,
    /// The lifetime of the access tokens issued.
    expires_in: u64,
}

type Shared = Arc<Mutex<Authority>>;

fn json_response(status: StatusCode, value: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn authority(state: &Shared) -> std::sync::MutexGuard<'_, Authority> {
    state.lock().expect("the test's state")
}

async fn resource_metadata(State(state): State<Shared>) -> Response {
    let base = authority(&state).base.clone();
    json_response(
        StatusCode::OK,
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base], "scopes_supported": [SCOPE]}),
    )
}

async fn server_metadata(State(state): State<Shared>) -> Response {
    let base = authority(&state).base.clone();
    json_response(
        StatusCode::OK,
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": true,
        }),
    )
}

async fn register(State(state): State<Shared>, body: String) -> Response {
    let metadata: Value = serde_json::from_str(&body).unwrap_or_default();
    assert_eq!(metadata["redirect_uris"], json!([REDIRECT_URI]));
    assert_eq!(metadata["application_type"], "native");
    let mut authority = authority(&state);
    authority.registrations += 1;
    let client_id = format!("client-{}", authority.registrations);
    json_response(
        StatusCode::CREATED,
        json!({"client_id": client_id, "token_endpoint_auth_method": "none"}),
    )
}

async fn authorize(State(state): State<Shared>, Query(query): Query<HashMap<String, String>>) -> Response {
    let mut authority = authority(&state);
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["scope"], SCOPE);
    assert_eq!(query["resource"], format!("{}/mcp", authority.base));
    authority.codes += 1;
    let code = format!("code-{}", authority.codes);
    authority
        .challenges
        .insert(code.clone(), query["code_challenge"].clone());
    let mut callback = url::Url::parse(&query["redirect_uri"]).expect("a redirect URI");
    callback
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &query["state"])
        .append_pair("iss", &authority.base);
    (StatusCode::FOUND, [(header::LOCATION, callback.to_string())]).into_response()
}

async fn token(State(state): State<Shared>, body: String) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes()).into_owned().collect();
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    let mut authority = authority(&state);
    let granted = match field("grant_type").as_str() {
        "authorization_code" => {
            let challenge = authority.challenges.remove(&field("code"));
            let verified = URL_SAFE_NO_PAD.encode(Sha256::digest(field("code_verifier").as_bytes()));
            challenge == Some(verified)
        }
        "refresh_token" => field("refresh_token") == "refresh-me",
        _ => false,
    };
    if !granted {
        return json_response(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}));
    }
    let access_token = format!("token-{}", authority.tokens.len());
    authority.tokens.push((access_token.clone(), field("resource")));
    json_response(
        StatusCode::OK,
        json!({
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": authority.expires_in,
            "refresh_token": "refresh-me",
            "scope": SCOPE,
        }),
    )
}

/// The resource server's check: a token this authority issued for this resource.
async fn bearer_check(State(state): State<Shared>, request: Request<Body>, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let (known, base) = {
        let authority = authority(&state);
        let resource = format!("{}/mcp", authority.base);
        let known = presented.is_some_and(|t| authority.tokens.contains(&(t, resource)));
        (known, authority.base.clone())
    };
    if known {
        return next.run(request).await;
    }
    let challenge =
        format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp", scope="{SCOPE}""#);
    let mut headers = HeaderMap::new();
    headers.insert(header::WWW_AUTHENTICATE, challenge.parse().expect("a header value"));
    (StatusCode::UNAUTHORIZED, headers).into_response()
}

/// Serves the MCP endpoint behind the bearer check and the authorization server on one
/// port; returns the MCP endpoint's URL and the shared state.
async fn start(expires_in: u64) -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    let state: Shared = Arc::new(Mutex::new(Authority {
        base: base.clone(),
        expires_in,
        ..Authority::default()
    }));
    let server = Server::builder("protected", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .build()
        .expect("a valid server");
    let mcp = server
        .http_router(HttpConfig::default())
        .layer(middleware::from_fn_with_state(Arc::clone(&state), bearer_check));
    let app = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
        .route("/.well-known/oauth-authorization-server", get(server_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(Arc::clone(&state))
        .merge(mcp);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("{base}/mcp"), state)
}

/// The user who approves at once: follows the authorization URL to its redirect,
/// optionally tampering with the callback.
fn provider(tamper: fn(String) -> String) -> OAuthProvider {
    OAuthProvider::authorization_code(ClientMetadata::new("oauth test", REDIRECT_URI), move |url| async move {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let answer = http.get(url).send().await?;
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .ok_or("no redirect")?
            .to_str()?
            .to_owned();
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(tamper(location))
    })
}

async fn connect_with(url: &str, provider: OAuthProvider, era: EraMode) -> oxmcp::Result<Client> {
    let transport = connect(HttpClientOptions::new(url).authorizer(provider))?;
    Client::connect(transport, ClientOptions::new("oauth-test", "1.0").era(era)).await
}

#[tokio::test]
async fn authorizes_on_the_first_refusal_and_reuses_the_token() {
    for era in [EraMode::Legacy, EraMode::Modern] {
        let (url, state) = start(3600).await;
        let provider = provider(|callback| callback);
        let client = connect_with(&url, provider.clone(), era).await.expect("connected");
        let result = client.call_tool("echo", json!({"text": "hi"})).await.expect("called");
        assert_eq!(result.content.len(), 1, "{era:?}");
        client.list_all_tools().await.expect("listed");
        client.close().await.expect("closed");
        let tokens = provider.tokens().await.expect("a store").expect("tokens");
        assert_eq!(tokens.scope.as_deref(), Some(SCOPE));
        let authority = authority(&state);
        assert_eq!(authority.registrations, 1, "{era:?}: one registration");
        assert_eq!(
            authority.tokens.len(),
            1,
            "{era:?}: one authorization for every request"
        );
    }
}

#[tokio::test]
async fn a_callback_with_another_state_is_refused() {
    let (url, state) = start(3600).await;
    let forged = provider(|callback| {
        let mut url = url::Url::parse(&callback).expect("a callback URL");
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| {
                let v = if k == "state" { "forged".into() } else { v.into_owned() };
                (k.into_owned(), v)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
        url.to_string()
    });
    let outcome = connect_with(&url, forged.clone(), EraMode::Legacy).await;
    let error = outcome.err().expect("the connection is refused").to_string();
    assert!(error.contains("state"), "{error}");
    assert!(authority(&state).tokens.is_empty(), "no code was exchanged");
    assert!(forged.tokens().await.expect("a store").is_none());
}

#[tokio::test]
async fn discovery_falls_back_to_the_well_known_urls() {
    let (url, state) = start(3600).await;
    let server = url::Url::parse(&url).expect("a URL");
    let challenge = BearerChallenge {
        resource_metadata: Some(format!("{}/missing", server.origin().ascii_serialization())),
        ..BearerChallenge::default()
    };
    let tokens = provider(|callback| callback).authorize(&server, Some(&challenge)).await;
    assert!(tokens.is_ok(), "{tokens:?}");
    assert_eq!(authority(&state).tokens.len(), 1);
    let unreachable = url::Url::parse("http://127.0.0.1:1/mcp").expect("a URL");
    let refused = provider(|callback| callback).authorize(&unreachable, None).await;
    assert!(matches!(refused, Err(AuthError::Http { .. })), "{refused:?}");
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_asking_the_user() {
    // Tokens that expire within the provider's safety margin count as expired at once.
    let (url, state) = start(1).await;
    let provider = provider(|callback| callback);
    let client = connect_with(&url, provider.clone(), EraMode::Modern)
        .await
        .expect("connected");
    client.list_all_tools().await.expect("listed");
    client
        .call_tool("echo", json!({"text": "again"}))
        .await
        .expect("called");
    client.close().await.expect("closed");
    let (codes, issued) = {
        let authority = authority(&state);
        (authority.codes, authority.tokens.len())
    };
    assert_eq!(codes, 1, "the user authorized once");
    assert!(issued >= 2, "later requests used refreshed tokens");
    let tokens = provider.tokens().await.expect("a store").expect("tokens");
    assert_eq!(tokens.refresh_token.as_deref(), Some("refresh-me"));
}
