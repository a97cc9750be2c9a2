//! Our HTTP client with its OAuth provider against our own HTTP server behind a bearer
//! check, with a small authorization server in the same axum app: discovery from the
//! 401 challenge, dynamic registration, the authorization code flow with PKCE, `state`
//! and `iss` checks, and the retried request, in both eras; and hostile metadata (plain
//! http endpoints, a foreign authorization server for pre-registered credentials, a
//! metadata URL on another origin, a huge `expires_in`) refused with a clear error.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use common::Served;
use oxmcp::client::auth::{AuthError, BearerChallenge, ClientCredentials, ClientMetadata, OAuthProvider};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::server::http::HttpConfig;
use oxmcp::server::{Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const REDIRECT_URI: &str = "http://127.0.0.1:1/callback";
const SCOPE: &str = "mcp:tools";
/// The client id the authorization server knows without registration.
const PRE_REGISTERED: &str = "pre-registered-client";

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
    /// How many requests reached the token endpoint.
    token_requests: usize,
    /// The authorization servers the protected resource metadata names (default: this one).
    authorization_servers: Option<Vec<String>>,
    /// The authorization endpoint the metadata names (default: this server's).
    authorization_endpoint: Option<String>,
}

type Shared = Arc<Mutex<Authority>>;

fn json_response(status: StatusCode, value: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn authority(state: &Shared) -> std::sync::MutexGuard<'_, Authority> {
    state.lock().expect("the test's state")
}

async fn resource_metadata(State(state): State<Shared>) -> Response {
    let authority = authority(&state);
    let base = &authority.base;
    let servers = authority
        .authorization_servers
        .clone()
        .unwrap_or_else(|| vec![base.clone()]);
    json_response(
        StatusCode::OK,
        json!({"resource": format!("{base}/mcp"), "authorization_servers": servers, "scopes_supported": [SCOPE]}),
    )
}

async fn server_metadata(State(state): State<Shared>) -> Response {
    let authority = authority(&state);
    let base = &authority.base;
    let authorization_endpoint = authority
        .authorization_endpoint
        .clone()
        .unwrap_or_else(|| format!("{base}/authorize"));
    json_response(
        StatusCode::OK,
        json!({
            "issuer": base,
            "authorization_endpoint": authorization_endpoint,
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
    authority.token_requests += 1;
    let granted = match field("grant_type").as_str() {
        "authorization_code" => {
            let challenge = authority.challenges.remove(&field("code"));
            let verified = URL_SAFE_NO_PAD.encode(Sha256::digest(field("code_verifier").as_bytes()));
            challenge == Some(verified)
        }
        "refresh_token" => field("refresh_token") == "refresh-me",
        "client_credentials" => field("client_id") == PRE_REGISTERED,
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
/// port; returns the MCP endpoint's URL, the shared state and the server to stop.
async fn start(expires_in: u64) -> (String, Shared, Served) {
    start_with(Authority {
        expires_in,
        ..Authority::default()
    })
    .await
}

/// [`start`] with an authority set up as the test wants (its `base` is filled in).
async fn start_with(authority: Authority) -> (String, Shared, Served) {
    let state: Shared = Arc::new(Mutex::new(authority));
    let served = Served::start(|base| {
        self::authority(&state).base = base.to_owned();
        app(&state)
    })
    .await;
    (format!("{}/mcp", served.base), state, served)
}

/// The MCP endpoint behind the bearer check, and the authorization server's endpoints.
fn app(state: &Shared) -> Router {
    let server = Server::builder("protected", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .build()
        .expect("a valid server");
    let mcp = server
        .http_router(HttpConfig::default())
        .expect("a valid config")
        .layer(middleware::from_fn_with_state(Arc::clone(state), bearer_check));
    Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
        .route("/.well-known/oauth-authorization-server", get(server_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(Arc::clone(state))
        .merge(mcp)
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
        let (url, state, served) = start(3600).await;
        let provider = provider(|callback| callback);
        let client = connect_with(&url, provider.clone(), era).await.expect("connected");
        let result = client.call_tool("echo", json!({"text": "hi"})).await.expect("called");
        assert_eq!(result.content.len(), 1, "{era:?}");
        client.list_all_tools().await.expect("listed");
        client.close().await.expect("closed");
        let tokens = provider.tokens().await.expect("a store").expect("tokens");
        assert_eq!(tokens.scope.as_deref(), Some(SCOPE));
        served.stop().await;
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
    let (url, state, served) = start(3600).await;
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
    served.stop().await;
}

#[tokio::test]
async fn discovery_falls_back_to_the_well_known_urls() {
    let (url, state, served) = start(3600).await;
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
    served.stop().await;
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_asking_the_user() {
    // Tokens that expire within the provider's safety margin count as expired at once.
    let (url, state, served) = start(1).await;
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
    served.stop().await;
}

#[tokio::test]
async fn a_huge_expires_in_is_capped_instead_of_overflowing() {
    let (url, _state, served) = start(u64::MAX).await;
    let provider = provider(|callback| callback);
    let client = connect_with(&url, provider.clone(), EraMode::Modern)
        .await
        .expect("connected");
    client.call_tool("echo", json!({"text": "hi"})).await.expect("called");
    client.close().await.expect("closed");
    let tokens = provider.tokens().await.expect("a store").expect("tokens");
    let expires_at = tokens.expires_at.expect("an expiry");
    let day = Duration::from_secs(24 * 60 * 60);
    assert!(expires_at > SystemTime::now() + day, "{expires_at:?}");
    assert!(expires_at < SystemTime::now() + 800 * day, "{expires_at:?}");
    served.stop().await;
}

#[tokio::test]
async fn an_authorization_server_without_https_is_refused() {
    let (url, state, served) = start_with(Authority {
        authorization_servers: Some(vec!["http://auth.example.test".to_owned()]),
        ..Authority::default()
    })
    .await;
    let outcome = connect_with(&url, provider(|callback| callback), EraMode::Legacy).await;
    let error = outcome.err().expect("the connection is refused").to_string();
    assert!(error.contains("http://auth.example.test"), "{error}");
    assert!(error.contains("must use https"), "{error}");
    assert_eq!(authority(&state).registrations, 0);
    served.stop().await;
}

#[tokio::test]
async fn an_authorization_endpoint_without_https_never_reaches_the_user() {
    let (url, state, served) = start_with(Authority {
        authorization_endpoint: Some("http://login.example.test/authorize".to_owned()),
        ..Authority::default()
    })
    .await;
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let provider = OAuthProvider::authorization_code(ClientMetadata::new("oauth test", REDIRECT_URI), move |_url| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Err::<String, _>(std::io::Error::other("the user was sent to a plain-http page")) }
    });
    let outcome = connect_with(&url, provider, EraMode::Modern).await;
    let error = outcome.err().expect("the connection is refused").to_string();
    assert!(error.contains("must use https"), "{error}");
    assert_eq!(asked.load(Ordering::SeqCst), 0, "the redirect handler was never called");
    assert_eq!(authority(&state).token_requests, 0);
    served.stop().await;
}

#[tokio::test]
async fn pre_registered_credentials_never_go_to_another_authorization_server() {
    let (url, state, served) = start(3600).await;
    let elsewhere = "https://auth.example.com";
    let credentials = || ClientCredentials::new(PRE_REGISTERED).secret("s3cret");
    let assertions = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&assertions);
    let jwt_bearer = OAuthProvider::jwt_bearer(elsewhere, credentials(), move |_target| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, std::io::Error>("workload-identity-token".to_owned()) }
    });
    let providers = [
        OAuthProvider::client_credentials(elsewhere, credentials()),
        jwt_bearer,
        provider(|callback| callback).pre_registered(elsewhere, credentials()),
    ];
    for provider in providers {
        let outcome = connect_with(&url, provider, EraMode::Legacy).await;
        let error = outcome.err().expect("the connection is refused").to_string();
        assert!(error.contains("not one this client is registered with"), "{error}");
        assert!(error.contains(elsewhere), "{error}");
    }
    assert_eq!(assertions.load(Ordering::SeqCst), 0, "no assertion was made for it");
    {
        let authority = authority(&state);
        assert_eq!(authority.token_requests, 0, "nothing reached its token endpoint");
        assert_eq!((authority.registrations, authority.codes), (0, 0));
    }

    // With the issuer they were registered with, the same credentials work.
    let base = authority(&state).base.clone();
    let client = connect_with(
        &url,
        OAuthProvider::client_credentials(base, credentials()),
        EraMode::Legacy,
    )
    .await
    .expect("connected");
    client.call_tool("echo", json!({"text": "hi"})).await.expect("called");
    client.close().await.expect("closed");
    assert_eq!(authority(&state).token_requests, 1);
    served.stop().await;
}

#[tokio::test]
async fn a_resource_metadata_url_on_another_origin_is_refused() {
    let (url, state, served) = start(3600).await;
    let base = authority(&state).base.clone();
    // Another origin serving a document that would pass every other check.
    let document = json!({"resource": url, "authorization_servers": [base], "scopes_supported": [SCOPE]});
    let foreign = Served::start(|_| {
        Router::new().route(
            "/prm",
            get(move || async move { json_response(StatusCode::OK, document) }),
        )
    })
    .await;
    let challenge = BearerChallenge {
        resource_metadata: Some(format!("{}/prm", foreign.base)),
        ..BearerChallenge::default()
    };
    let server = url::Url::parse(&url).expect("a URL");
    let refused = provider(|callback| callback).authorize(&server, Some(&challenge)).await;
    match refused {
        Err(AuthError::InvalidUrl { reason, .. }) => assert!(reason.contains("origin"), "{reason}"),
        other => panic!("not refused: {other:?}"),
    }
    assert!(authority(&state).tokens.is_empty());
    foreign.stop().await;
    served.stop().await;
}
