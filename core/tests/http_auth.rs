//! An oxmcp HTTP server as an OAuth resource server, over real sockets: a JWKS served by a
//! test issuer (an axum app on 127.0.0.1 that signs ES256, RS256, PS256 and EdDSA tokens),
//! a server protected by a `JwtVerifier` pointing at it. Every refusal is checked for its
//! status and its `WWW-Authenticate` challenge; the caller reaches the handlers; sessions and
//! `requestState` serve only the principal they were made for; the JWKS is fetched again
//! on a rotation, and not more often than allowed.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use axum::routing::get;
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use common::{mcp_post, Served};
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::protocol::{ElicitRequestFormParams, ElicitRequestParams, ErrorObject};
use oxmcp::server::auth::{JwtVerifier, ResourceServer};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, HandlerError, PromptDef, ResourceDef, Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::{json, Value};
use sha2::Digest;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// A signing key of the test issuer.
struct SigningKey {
    kid: String,
    alg: Algorithm,
    key: EncodingKey,
    public: Jwk,
}

impl SigningKey {
    fn generate(kid: &str, alg: Algorithm) -> SigningKey {
        let rng = SystemRandom::new();
        let (key, mut public) = match alg {
            Algorithm::ES256 => {
                let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
                let key = EncodingKey::from_ec_der(pkcs8.as_ref());
                let public = Jwk::from_encoding_key(&key, alg).unwrap();
                (key, public)
            }
            Algorithm::EdDSA => {
                let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
                let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
                let x = URL_SAFE_NO_PAD.encode(pair.public_key().as_ref());
                let public = serde_json::from_value(json!({"kty": "OKP", "crv": "Ed25519", "x": x, "alg": "EdDSA"}));
                (EncodingKey::from_ed_der(pkcs8.as_ref()), public.unwrap())
            }
            _ => {
                use aws_lc_rs::encoding::AsDer;
                let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap();
                let key = EncodingKey::from_rsa_der(pkcs1_of(pair.as_der().unwrap().as_ref()));
                let public = Jwk::from_encoding_key(&key, alg).unwrap();
                (key, public)
            }
        };
        public.common.key_id = Some(kid.to_owned());
        public.common.public_key_use = Some(PublicKeyUse::Signature);
        SigningKey {
            kid: kid.to_owned(),
            alg,
            key,
            public,
        }
    }
}

/// The RSAPrivateKey (PKCS#1) inside a PKCS#8 document: the content of the last element,
/// an OCTET STRING, of its outer SEQUENCE.
fn pkcs1_of(pkcs8: &[u8]) -> &[u8] {
    /// A DER element at the start of `der`: (content start, content length).
    fn element(der: &[u8]) -> (usize, usize) {
        match der[1] {
            short @ 0..=0x7f => (2, short as usize),
            long => {
                let bytes = (long & 0x7f) as usize;
                let length = der[2..2 + bytes].iter().fold(0, |n, b| n << 8 | *b as usize);
                (2 + bytes, length)
            }
        }
    }
    let (start, _) = element(pkcs8);
    let mut rest = &pkcs8[start..];
    loop {
        let (offset, length) = element(rest);
        if offset + length == rest.len() {
            return &rest[offset..];
        }
        rest = &rest[offset + length..];
    }
}

/// The test's authorization server: its JWKS, and tokens signed with its keys.
struct Issuer {
    served: Served,
    keys: Arc<Mutex<Vec<Arc<SigningKey>>>>,
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    async fn start() -> Issuer {
        let keys: Vec<Arc<SigningKey>> = [
            ("ec", Algorithm::ES256),
            ("rsa", Algorithm::RS256),
            ("pss", Algorithm::PS256),
            ("ed", Algorithm::EdDSA),
        ]
        .into_iter()
        .map(|(kid, alg)| Arc::new(SigningKey::generate(kid, alg)))
        .collect();
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (published, counted) = (Arc::clone(&keys), Arc::clone(&fetches));
        let served = Served::start(move |_| {
            Router::new().route(
                "/jwks",
                get(move || async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let keys: Vec<Jwk> = published.lock().unwrap().iter().map(|k| k.public.clone()).collect();
                    (
                        [("content-type", "application/json")],
                        json!({ "keys": keys }).to_string(),
                    )
                }),
            )
        })
        .await;
        Issuer { served, keys, fetches }
    }

    fn url(&self) -> &str {
        &self.served.base
    }

    fn verifier(&self) -> JwtVerifier {
        JwtVerifier::new(&format!("{}/jwks", self.url()), self.url()).unwrap()
    }

    fn key(&self, kid: &str) -> Arc<SigningKey> {
        let keys = self.keys.lock().unwrap();
        Arc::clone(keys.iter().find(|k| k.kid == kid).unwrap())
    }

    /// Publishes a new key (a rotation).
    fn rotate_in(&self, kid: &str) {
        self.keys
            .lock()
            .unwrap()
            .push(Arc::new(SigningKey::generate(kid, Algorithm::ES256)));
    }

    /// Stops publishing key `kid` (a withdrawal).
    fn withdraw(&self, kid: &str) {
        self.keys.lock().unwrap().retain(|key| key.kid != kid);
    }

    /// The claims of a good token of `sub` for `resource` with `scope`.
    fn claims(&self, sub: &str, resource: &str, scope: &str) -> Value {
        let now = now();
        json!({
            "iss": self.url(), "sub": sub, "aud": resource, "client_id": "app", "scope": scope,
            "iat": now, "exp": now + 300, "jti": format!("{sub}-{now}"),
        })
    }

    fn sign(&self, kid: &str, claims: &Value) -> String {
        let key = self.key(kid);
        let mut header = Header::new(key.alg);
        header.kid = Some(key.kid.clone());
        header.typ = Some("at+jwt".into());
        jsonwebtoken::encode(&header, claims, &key.key).unwrap()
    }
}

/// The JSON body of a response.
async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A JWT with this header and claims, signed with nothing (for `alg: none` and forgeries).
fn unsigned(header: &Value, claims: &Value, signature: &[u8]) -> String {
    let part = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
    format!(
        "{}.{}.{}",
        part(header),
        part(claims),
        URL_SAFE_NO_PAD.encode(signature)
    )
}

/// A server whose tools say who called, one needing `notes:write`, one asking the user
/// (2026-07-28 `input_required`); a resource and a prompt needing `notes:read`.
fn notes_server() -> Server {
    let ask = |ctx: Context| async move {
        let answer = ctx
            .elicit(ElicitRequestParams::Form(ElicitRequestFormParams {
                mode: None,
                message: "Sure?".into(),
                requested_schema: json!({"type": "object", "properties": {}})
                    .as_object()
                    .cloned()
                    .unwrap(),
                meta: None,
            }))
            .await?;
        Ok::<_, HandlerError>(format!("{:?}", answer.action))
    };
    Server::builder("notes", "1.0.0")
        .tool(ToolDef::new("whoami").handler(|_, ctx: Context| async move {
            let token = ctx.access_token().expect("a caller on a protected endpoint");
            format!(
                "{} via {}",
                token.subject.clone().unwrap_or_default(),
                token.client_id.clone().unwrap_or_default()
            )
        }))
        .tool(
            ToolDef::new("write_note")
                .scopes(["notes:write"])
                .handler(|_, _| async { "written" }),
        )
        .tool(ToolDef::new("confirm").handler(move |_, ctx| ask(ctx)))
        .resource(
            ResourceDef::new("notes://secret", "secret")
                .scopes(["notes:read"])
                .handler(|_, _, _| async { "the secret" }),
        )
        .prompt(
            PromptDef::new("summarize")
                .scopes(["notes:read"])
                .handler(|_, _| async { "Summarize my notes." }),
        )
        .build()
        .unwrap()
}

/// The notes server on 127.0.0.1 and a free port, protected by the issuer, with `mcp`
/// required of every request.
struct Protected {
    issuer: Issuer,
    handle: HttpServerHandle,
    http: reqwest::Client,
}

impl Protected {
    async fn start() -> Protected {
        Self::configured(|verifier| verifier, |auth| auth).await
    }

    /// [`start`](Self::start) with the verifier's settings changed.
    async fn with(verifier: impl FnOnce(JwtVerifier) -> JwtVerifier) -> Protected {
        Self::configured(verifier, |auth| auth).await
    }

    /// [`start`](Self::start) with the verifier's and the resource server's settings changed.
    async fn configured(
        verifier: impl FnOnce(JwtVerifier) -> JwtVerifier,
        settings: impl FnOnce(ResourceServer) -> ResourceServer,
    ) -> Protected {
        let issuer = Issuer::start().await;
        let auth = settings(ResourceServer::new(verifier(issuer.verifier())).required_scopes(["mcp"]));
        let handle = notes_server()
            .bind_http("127.0.0.1:0", HttpConfig::default().auth(auth))
            .await
            .unwrap();
        Protected {
            issuer,
            handle,
            http: reqwest::Client::new(),
        }
    }

    fn url(&self) -> String {
        self.handle.url("/mcp")
    }

    fn metadata_url(&self) -> String {
        self.handle.url("/.well-known/oauth-protected-resource/mcp")
    }

    /// A good token of `sub` with `scope`, signed with key `kid`.
    fn token(&self, sub: &str, scope: &str, kid: &str) -> String {
        self.issuer.sign(kid, &self.issuer.claims(sub, &self.url(), scope))
    }

    async fn post(&self, body: &Value, headers: &[(&str, &str)]) -> reqwest::Response {
        mcp_post(&self.http, &self.url(), body, headers).send().await.unwrap()
    }

    /// A legacy `initialize` with `token` (none when empty).
    async fn initialize(&self, token: &str) -> reqwest::Response {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
        let bearer = format!("Bearer {token}");
        let headers: Vec<(&str, &str)> = if token.is_empty() {
            vec![]
        } else {
            vec![("authorization", &bearer)]
        };
        self.post(&body, &headers).await
    }

    /// A modern `tools/call` of `tool` with `token` and extra params.
    async fn modern_call(&self, token: &str, tool: &str, extra: Value) -> reqwest::Response {
        self.modern_call_named(token, tool, tool, extra).await
    }

    /// [`modern_call`](Self::modern_call) with `named` in its `Mcp-Name` header.
    async fn modern_call_named(&self, token: &str, tool: &str, named: &str, extra: Value) -> reqwest::Response {
        let mut params = json!({"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
        let bearer = format!("Bearer {token}");
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "tools/call"),
            ("mcp-name", named),
        ];
        self.post(&body, &headers).await
    }

    /// An oxmcp client of the endpoint that sends `token`.
    async fn client(&self, token: String, era: EraMode) -> oxmcp::Result<Client> {
        let http = HttpClientOptions::new(self.url()).bearer_token(move || {
            let token = token.clone();
            async move { Some(token) }
        });
        Client::connect(connect(http)?, ClientOptions::new("auth-tests", "1").era(era)).await
    }

    async fn stop(self) {
        self.handle.shutdown().await.unwrap();
        self.issuer.served.stop().await;
    }
}

/// The status and `WWW-Authenticate` of a response.
fn challenge(response: &reqwest::Response) -> (u16, String) {
    let header = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), header)
}

#[tokio::test]
async fn the_metadata_names_the_resource_its_issuer_and_every_scope() {
    let server = Protected::start().await;
    for url in [
        server.metadata_url(),
        server.handle.url("/.well-known/oauth-protected-resource"),
    ] {
        let response = server.http.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        let document: Value = json_of(response).await;
        assert_eq!(document["resource"], server.url());
        assert_eq!(document["authorization_servers"], json!([server.issuer.url()]));
        assert_eq!(
            document["scopes_supported"],
            json!(["mcp", "notes:read", "notes:write"])
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }
    server.stop().await;
}

#[tokio::test]
async fn requests_without_a_token_are_challenged_to_get_one() {
    let server = Protected::start().await;
    let expected = format!("Bearer scope=\"mcp\", resource_metadata=\"{}\"", server.metadata_url());
    assert_eq!(challenge(&server.initialize("").await), (401, expected.clone()));
    let get = server
        .http
        .get(server.url())
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(challenge(&get), (401, expected.clone()));
    let delete = server
        .http
        .delete(server.url())
        .header("mcp-session-id", "x")
        .send()
        .await
        .unwrap();
    assert_eq!(challenge(&delete), (401, expected));
    let basic = server
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            &[("authorization", "Basic dXNlcjpwdw==")],
        )
        .await;
    assert_eq!(basic.status(), 401);
    server.stop().await;
}

#[tokio::test]
async fn bad_tokens_get_invalid_token_and_say_why() {
    let server = Protected::start().await;
    let issuer = &server.issuer;
    let good = issuer.claims("alice", &server.url(), "mcp");
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = good.clone();
        change(&mut claims);
        claims
    };
    let rsa_modulus = server.issuer.key("rsa").public.clone();
    let hmac_with_public_key = {
        let Some(n) = serde_json::to_value(&rsa_modulus).unwrap()["n"]
            .as_str()
            .map(str::to_owned)
        else {
            panic!("an RSA JWK has n")
        };
        let header = Header {
            kid: Some("rsa".into()),
            ..Header::new(Algorithm::HS256)
        };
        jsonwebtoken::encode(&header, &good, &EncodingKey::from_secret(n.as_bytes())).unwrap()
    };
    let forged = {
        let real = issuer.sign("ec", &good);
        let (signed, _) = real.rsplit_once('.').unwrap();
        let other = issuer.sign("ec", &with(&|c| c["sub"] = json!("mallory")));
        format!("{signed}.{}", other.rsplit_once('.').unwrap().1)
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("malformed", "not-a-jwt".into(), "not a JWT"),
        (
            "alg none",
            unsigned(&json!({"alg": "none", "kid": "ec"}), &good, b""),
            "not a JWT",
        ),
        (
            "HS256 with the RSA key as secret",
            hmac_with_public_key,
            "HS256 algorithm is not accepted",
        ),
        ("forged signature", forged, "signature does not verify"),
        (
            "expired",
            issuer.sign("rsa", &with(&|c| c["exp"] = json!(now() - 3600))),
            "has expired",
        ),
        (
            "not yet valid",
            issuer.sign("pss", &with(&|c| c["nbf"] = json!(now() + 3600))),
            "not valid yet",
        ),
        (
            "another issuer",
            issuer.sign("ed", &with(&|c| c["iss"] = json!("https://evil.example"))),
            "another issuer",
        ),
        (
            "another audience",
            issuer.sign("ec", &with(&|c| c["aud"] = json!("http://127.0.0.1:1/mcp"))),
            "another resource",
        ),
        (
            "no audience",
            issuer.sign(
                "ec",
                &with(&|c| {
                    c.as_object_mut().unwrap().remove("aud");
                }),
            ),
            "another resource",
        ),
        (
            "no expiry",
            issuer.sign(
                "ec",
                &with(&|c| {
                    c.as_object_mut().unwrap().remove("exp");
                }),
            ),
            "no exp claim",
        ),
        (
            "DPoP-bound as Bearer",
            issuer.sign("ec", &with(&|c| c["cnf"] = json!({"jkt": "thumb"}))),
            "DPoP",
        ),
    ];
    for (case, token, reason) in cases {
        let response = server.initialize(&token).await;
        let (status, header) = challenge(&response);
        assert_eq!(status, 401, "{case}");
        assert!(
            header.starts_with("Bearer error=\"invalid_token\", error_description=\""),
            "{case}: {header}"
        );
        assert!(header.contains(reason), "{case}: {header}");
        assert!(
            header.ends_with(&format!("resource_metadata=\"{}\"", server.metadata_url())),
            "{case}"
        );
        let body: Value = json_of(response).await;
        assert_eq!(body["error"], "invalid_token", "{case}");
    }
    for kid in ["ec", "rsa", "pss", "ed"] {
        let response = server.initialize(&server.token("alice", "mcp", kid)).await;
        assert_eq!(response.status(), 200, "a good {kid} token");
    }
    // Not a b64token: a bad request, whether or not a good token was admitted before.
    let good = server.token("alice", "mcp", "ec");
    assert_eq!(server.initialize(&good).await.status(), 200);
    for malformed in [format!("{good},x"), "a\"b".to_owned()] {
        let (status, header) = challenge(&server.initialize(&malformed).await);
        assert_eq!(status, 400, "{malformed}");
        assert!(
            header.contains("invalid_request") && header.contains("malformed"),
            "{header}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn scopes_the_server_or_a_tool_needs_are_challenged_with_insufficient_scope() {
    let server = Protected::start().await;
    let metadata = server.metadata_url();
    let response = server.initialize(&server.token("alice", "notes:write", "ec")).await;
    assert_eq!(
        challenge(&response),
        (
            403,
            format!("Bearer error=\"insufficient_scope\", error_description=\"the token lacks the scopes this server requires\", scope=\"mcp\", resource_metadata=\"{metadata}\"")
        )
    );
    let reader = server.token("alice", "mcp", "ec");
    let refused = server.modern_call(&reader, "write_note", json!({})).await;
    let (status, header) = challenge(&refused);
    assert_eq!(status, 403);
    assert!(
        header.contains("error=\"insufficient_scope\"") && header.contains("scope=\"mcp notes:write\""),
        "{header}"
    );
    // A header naming a tool that needs no scope does not take the call past the check of
    // the tool its body names, which comes before the headers' (a mismatch, 400).
    let disguised = server
        .modern_call_named(&reader, "write_note", "whoami", json!({}))
        .await;
    assert_eq!(challenge(&disguised).0, 403);
    let writer = server.token("alice", "mcp notes:write", "ec");
    let written: Value = json_of(server.modern_call(&writer, "write_note", json!({})).await).await;
    assert_eq!(written["result"]["content"][0]["text"], "written");

    // The same rules through the oxmcp client, in both eras: the caller reaches the
    // handler; a resource and a prompt with scopes refuse a token without them.
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = server.client(reader.clone(), era).await.unwrap();
        let whoami = client.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(common::text(&whoami), "alice via app", "{era:?}");
        assert!(client.read_resource("notes://secret").await.is_err(), "{era:?}");
        assert!(
            client.get_prompt("summarize", Default::default()).await.is_err(),
            "{era:?}"
        );
        let _ = client.close().await;
        let full = server
            .client(server.token("bob", "mcp notes:read", "ed"), era)
            .await
            .unwrap();
        assert_eq!(
            common::resource_text(&full.read_resource("notes://secret").await.unwrap().contents),
            "the secret"
        );
        assert!(
            full.get_prompt("summarize", Default::default()).await.is_ok(),
            "{era:?}"
        );
        let _ = full.close().await;
    }
    server.stop().await;
}

/// The names a listing shows, in order.
fn names_of<'a>(items: impl IntoIterator<Item = &'a String>) -> Vec<&'a str> {
    items.into_iter().map(String::as_str).collect()
}

#[tokio::test]
async fn lists_show_everything_or_only_what_the_callers_scopes_permit() {
    let modern_list = |server: &Protected, token: String| {
        let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}}});
        let bearer = format!("Bearer {token}");
        let url = server.url();
        let http = server.http.clone();
        async move {
            let headers = [
                ("authorization", bearer.as_str()),
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "tools/list"),
            ];
            json_of(mcp_post(&http, &url, &body, &headers).send().await.unwrap()).await
        }
    };

    // By default everything is listed, publicly: a call is what the scopes guard.
    let open = Protected::start().await;
    let listed = modern_list(&open, open.token("alice", "mcp", "ec")).await;
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 3, "{listed}");
    assert_eq!(listed["result"]["cacheScope"], "public");
    open.stop().await;

    let server = Protected::configured(
        |verifier| verifier,
        |auth| {
            auth.list_only_permitted(true)
                .scope_implies("notes", ["notes:read", "notes:write"])
        },
    )
    .await;
    let listed = modern_list(&server, server.token("alice", "mcp", "ec")).await;
    let tools: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["whoami", "confirm"]);
    assert_eq!(listed["result"]["cacheScope"], "private", "a list made for its caller");
    // Hidden is not callable either, and the refusal still says how to step up.
    let refused = server
        .modern_call(&server.token("alice", "mcp", "ec"), "write_note", json!({}))
        .await;
    assert!(challenge(&refused).1.contains("scope=\"mcp notes:write\""));

    for era in [EraMode::Legacy, EraMode::Modern] {
        let reader = server.client(server.token("alice", "mcp", "ec"), era).await.unwrap();
        let tools = reader.list_all_tools().await.unwrap();
        assert_eq!(
            names_of(tools.iter().map(|t| &t.name)),
            ["whoami", "confirm"],
            "{era:?}"
        );
        assert!(reader.list_resources(None).await.unwrap().resources.is_empty());
        assert!(reader.list_prompts(None).await.unwrap().prompts.is_empty());
        let _ = reader.close().await;
        // `notes` implies both note scopes: everything shows.
        let writer = server
            .client(server.token("bob", "mcp notes", "ed"), era)
            .await
            .unwrap();
        let tools = writer.list_all_tools().await.unwrap();
        assert_eq!(
            names_of(tools.iter().map(|t| &t.name)),
            ["whoami", "write_note", "confirm"],
            "{era:?}"
        );
        let resources = writer.list_resources(None).await.unwrap().resources;
        assert_eq!(names_of(resources.iter().map(|r| &r.uri)), ["notes://secret"]);
        let prompts = writer.list_prompts(None).await.unwrap().prompts;
        assert_eq!(names_of(prompts.iter().map(|p| &p.name)), ["summarize"]);
        let _ = writer.close().await;
    }
    server.stop().await;
}

#[tokio::test]
async fn a_modern_call_is_refused_from_its_headers_before_its_body_arrives() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = Protected::start().await;
    let token = server.token("alice", "mcp", "ec");
    let address = server
        .url()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    // A body announced but never sent: the answer can only come from the headers.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\
         authorization: Bearer {token}\r\nmcp-protocol-version: {MODERN}\r\n\
         mcp-method: tools/call\r\nmcp-name: write_note\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("an answer before the body")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]).to_lowercase();
    assert!(answer.starts_with("http/1.1 403"), "{answer}");
    assert!(answer.contains("error=\"insufficient_scope\""), "{answer}");
    assert!(answer.contains("scope=\"mcp notes:write\""), "{answer}");
    drop(stream);
    server.stop().await;
}

#[tokio::test]
async fn a_session_serves_only_the_principal_that_opened_it() {
    let server = Protected::start().await;
    let alice = server.token("alice", "mcp", "ec");
    let opened = server.initialize(&alice).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let as_caller = |token: &str| {
        let bearer = format!("Bearer {token}");
        let session = session.clone();
        let server = &server;
        let ping = ping.clone();
        async move {
            let headers = [
                ("authorization", bearer.as_str()),
                ("mcp-session-id", session.as_str()),
                ("mcp-protocol-version", LEGACY),
            ];
            server.post(&ping, &headers).await.status().as_u16()
        }
    };
    assert_eq!(
        as_caller(&server.token("bob", "mcp", "ec")).await,
        404,
        "another principal"
    );
    assert_eq!(
        as_caller(&server.token("alice", "mcp", "rsa")).await,
        200,
        "alice with a fresh token"
    );
    let bob_delete = server
        .http
        .delete(server.url())
        .header("authorization", format!("Bearer {}", server.token("bob", "mcp", "ec")))
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(bob_delete.status(), 404, "bob cannot end alice's session");
    assert_eq!(as_caller(&alice).await, 200, "the session lives on");
    server.stop().await;
}

#[tokio::test]
async fn request_state_opens_only_for_the_principal_it_was_sealed_for() {
    let server = Protected::start().await;
    let alice = server.token("alice", "mcp", "ec");
    let first: Value = json_of(server.modern_call(&alice, "confirm", json!({})).await).await;
    let state = first["result"]["requestState"]
        .as_str()
        .expect("an input_required result")
        .to_owned();
    let key = common::first_input_key(&first["result"]);
    let retry = json!({"requestState": state, "inputResponses": {key: {"action": "accept", "content": {}}}});
    let mallory = server.token("mallory", "mcp", "ec");
    let replayed: Value = json_of(server.modern_call(&mallory, "confirm", retry.clone()).await).await;
    let error: ErrorObject = serde_json::from_value(replayed["error"].clone()).unwrap();
    assert_eq!(error.code, -32602, "{replayed}");
    let answered: Value = json_of(server.modern_call(&alice, "confirm", retry).await).await;
    assert_eq!(answered["result"]["content"][0]["text"], "Accept", "{answered}");
    server.stop().await;
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_and_made_up_keys_do_not_hammer_the_issuer() {
    let interval = Duration::from_millis(500);
    let server = Protected::with(|verifier| verifier.refetch_interval(interval)).await;
    let issuer = &server.issuer;
    assert_eq!(
        server.initialize(&server.token("alice", "mcp", "ec")).await.status(),
        200
    );
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1);
    issuer.rotate_in("next");
    let rotated = server.token("alice", "mcp", "next");
    assert_eq!(
        server.initialize(&rotated).await.status(),
        401,
        "within the interval of the first fetch"
    );
    tokio::time::sleep(interval).await;
    assert_eq!(server.initialize(&rotated).await.status(), 200, "the new key, fetched");
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 2);
    let claims = issuer.claims("mallory", &server.url(), "mcp");
    let made_up = |kid: &str| {
        let header = json!({"alg": "ES256", "kid": kid, "typ": "at+jwt"});
        unsigned(&header, &claims, &[1; 64])
    };
    for kid in ["made-up-1", "made-up-2", "made-up-3"] {
        assert_eq!(server.initialize(&made_up(kid)).await.status(), 401);
    }
    assert_eq!(
        issuer.fetches.load(Ordering::SeqCst),
        2,
        "within the interval of the last fetch"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_verified_token_is_reused_until_the_cache_lets_it_go() {
    // Each server: a token verified once, then its key withdrawn (the verifier learns of it
    // when a token of a new key makes it fetch the keys again), then the first token again.
    async fn first_token_after_its_key_went(cache_for: Option<Duration>) -> u16 {
        let server = Protected::with(|verifier| {
            let verifier = verifier.refetch_interval(Duration::ZERO);
            match cache_for {
                Some(duration) => verifier.cache_for(duration),
                None => verifier,
            }
        })
        .await;
        let first = server.token("alice", "mcp", "ec");
        assert_eq!(server.initialize(&first).await.status(), 200);
        server.issuer.withdraw("ec");
        server.issuer.rotate_in("next");
        assert_eq!(
            server.initialize(&server.token("bob", "mcp", "next")).await.status(),
            200
        );
        assert_eq!(
            server.issuer.fetches.load(Ordering::SeqCst),
            2,
            "the keys were fetched again"
        );
        let status = server.initialize(&first).await.status().as_u16();
        server.stop().await;
        status
    }
    assert_eq!(
        first_token_after_its_key_went(None).await,
        200,
        "reused, not verified again"
    );
    assert_eq!(
        first_token_after_its_key_went(Some(Duration::ZERO)).await,
        401,
        "verified again: its key is gone"
    );
}

#[tokio::test]
async fn configs_that_contradict_themselves_are_refused() {
    let issuer = Issuer::start().await;
    let server = notes_server();
    let auth = || ResourceServer::new(issuer.verifier());
    let error = server.http_router(HttpConfig::default().auth(auth())).unwrap_err();
    assert!(error.to_string().contains("resource_url"), "{error}");
    let mounted = HttpConfig::default().auth(auth().resource_url("https://notes.example/mcp"));
    assert!(server.http_router(mounted).is_ok());
    let elsewhere = HttpConfig::default().auth(auth().resource_url("https://notes.example/api/mcp"));
    assert!(server
        .http_router(elsewhere)
        .unwrap_err()
        .to_string()
        .contains("not the endpoint's"));
    let bound = server.bind_http("127.0.0.1:0", HttpConfig::default().path("mcp")).await;
    assert!(bound.is_err(), "a path without '/'");
    let unverified = ResourceServer::new(|_token: String| async {
        Err::<oxmcp::server::auth::AccessToken, _>(oxmcp::server::auth::VerifyError::invalid("no"))
    });
    let error = server
        .bind_http("127.0.0.1:0", HttpConfig::default().auth(unverified))
        .await
        .err()
        .unwrap();
    assert!(error.to_string().contains("authorization_servers"), "{error}");
    issuer.served.stop().await;
}

#[tokio::test]
async fn an_unreachable_issuer_answers_503_and_a_custom_verifier_is_enough() {
    // A JWKS nobody serves: the token cannot be checked now, which is not the client's fault.
    let dead = JwtVerifier::new("http://127.0.0.1:1/jwks", "http://127.0.0.1:1").unwrap();
    let handle = notes_server()
        .bind_http("127.0.0.1:0", HttpConfig::default().auth(ResourceServer::new(dead)))
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let token = unsigned(&json!({"alg": "ES256", "kid": "k"}), &json!({}), &[1; 64]);
    let response = mcp_post(
        &http,
        &handle.url("/mcp"),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &[("authorization", &format!("Bearer {token}"))],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), 503);
    handle.shutdown().await.unwrap();

    // Any closure is a verifier; with the audience check off, one that knows no audience works.
    let verifier = |token: String| async move {
        match token.as_str() {
            "let-me-in" => Ok(oxmcp::server::auth::AccessToken::new(token)
                .subject("carol")
                .client_id("cli")),
            _ => Err(oxmcp::server::auth::VerifyError::invalid("unknown token")),
        }
    };
    let auth = ResourceServer::new(verifier)
        .authorization_servers(["https://as.example"])
        .check_audience(false);
    let handle = notes_server()
        .bind_http("127.0.0.1:0", HttpConfig::default().auth(auth))
        .await
        .unwrap();
    let http_options =
        HttpClientOptions::new(handle.url("/mcp")).bearer_token(|| async { Some("let-me-in".to_owned()) });
    let client = Client::connect(
        connect(http_options).unwrap(),
        ClientOptions::new("t", "1").era(EraMode::Modern),
    )
    .await
    .unwrap();
    assert_eq!(
        common::text(&client.call_tool("whoami", json!({})).await.unwrap()),
        "carol via cli"
    );
    let _ = client.close().await;
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn introspection_authenticates_the_server_and_reuses_answers() {
    // An introspection endpoint that wants `rs:secret` (HTTP Basic), knows the tokens
    // `live-*`, and counts the questions.
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let endpoint = Served::start(move |_| {
        Router::new().route(
            "/introspect",
            axum::routing::post(move |headers: axum::http::HeaderMap, form: String| async move {
                counted.fetch_add(1, Ordering::SeqCst);
                let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("rs:secret"));
                let answer = if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(basic.as_str()) {
                    return (axum::http::StatusCode::UNAUTHORIZED, String::new());
                } else if form.contains("token=live-") {
                    json!({"active": true, "sub": "dave", "client_id": "app", "scope": "mcp", "aud": "urn:notes", "exp": now() + 60})
                } else {
                    json!({"active": false})
                };
                (axum::http::StatusCode::OK, answer.to_string())
            }),
        )
    })
    .await;
    let url = format!("{}/introspect", endpoint.base);
    let verifier = |secret: &str| oxmcp::server::auth::IntrospectionVerifier::new(&url, "rs", secret).unwrap();
    use oxmcp::server::auth::TokenVerifier;
    let good = verifier("secret");
    let token = good.verify("live-1".into()).await.unwrap();
    assert_eq!(
        (token.subject.as_deref(), token.audience.as_slice()),
        (Some("dave"), &["urn:notes".to_owned()][..])
    );
    let refused = good.verify("revoked".into()).await.unwrap_err();
    assert_eq!(
        refused,
        oxmcp::server::auth::VerifyError::invalid("the token is not active")
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    // An endpoint asks once about a token it is sent twice, unless told to ask each time.
    for (verifier, questions) in [(good.clone(), 1), (good.clone().cache_for(Duration::ZERO), 2)] {
        let before = asked.load(Ordering::SeqCst);
        let auth = ResourceServer::new(verifier)
            .accept_audiences(["urn:notes"])
            .authorization_servers([endpoint.base.clone()]);
        let handle = notes_server()
            .bind_http("127.0.0.1:0", HttpConfig::default().auth(auth))
            .await
            .unwrap();
        let server = Protected {
            issuer: Issuer::start().await,
            handle,
            http: reqwest::Client::new(),
        };
        for _ in 0..2 {
            assert_eq!(server.initialize("live-2").await.status(), 200);
        }
        assert_eq!(
            asked.load(Ordering::SeqCst) - before,
            questions,
            "{questions} question(s)"
        );
        server.stop().await;
    }
    let wrong_secret = verifier("guess").verify("live-3".into()).await.unwrap_err();
    assert!(
        matches!(wrong_secret, oxmcp::server::auth::VerifyError::Unavailable(_)),
        "{wrong_secret:?}"
    );
    let other_issuer = verifier("secret").issuer("https://as.example");
    assert!(
        other_issuer.verify("live-4".into()).await.is_ok(),
        "an answer without iss is not refused for it"
    );
    endpoint.stop().await;
}

/// A DPoP proof (RFC 9449 §4.2) signed with `key`, for `method` on `url` with `token`.
fn dpop_proof(
    key: &SigningKey,
    method: &str,
    url: &str,
    token: &str,
    jti: &str,
    iat: u64,
    nonce: Option<&str>,
) -> String {
    let mut header = Header::new(key.alg);
    header.typ = Some("dpop+jwt".into());
    header.jwk = Some(key.public.clone());
    let ath = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes()));
    let mut claims = json!({"htm": method, "htu": url, "iat": iat, "jti": jti, "ath": ath});
    if let Some(nonce) = nonce {
        claims["nonce"] = json!(nonce);
    }
    jsonwebtoken::encode(&header, &claims, &key.key).unwrap()
}

#[tokio::test]
async fn dpop_bound_tokens_need_a_fresh_single_use_proof_for_the_request() {
    use jsonwebtoken::jwk::ThumbprintHash;
    let server = Protected::start().await;
    let url = server.url();
    let client = SigningKey::generate("client", Algorithm::ES256);
    let thumbprint = client.public.thumbprint(ThumbprintHash::SHA256).unwrap();
    let mut claims = server.issuer.claims("alice", &url, "mcp");
    claims["cnf"] = json!({ "jkt": thumbprint });
    let token = server.issuer.sign("ec", &claims);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let send = |scheme: &'static str, proof: Option<String>| {
        let authorization = format!("{scheme} {token}");
        let server = &server;
        let body = body.clone();
        async move {
            let mut headers = vec![("authorization", authorization.as_str())];
            if let Some(proof) = &proof {
                headers.push(("dpop", proof.as_str()));
            }
            server.post(&body, &headers).await
        }
    };
    let fresh = |jti: &str| dpop_proof(&client, "POST", &url, &token, jti, now(), None);
    assert_eq!(send("DPoP", Some(fresh("one"))).await.status(), 200, "a good proof");

    let refused = [
        ("as Bearer", send("Bearer", None).await, "present it as DPoP"),
        ("no proof", send("DPoP", None).await, "send one DPoP proof"),
        ("replayed", send("DPoP", Some(fresh("one"))).await, "used before"),
        (
            "for another URL",
            send(
                "DPoP",
                Some(dpop_proof(
                    &client,
                    "POST",
                    "http://127.0.0.1:1/mcp",
                    &token,
                    "u",
                    now(),
                    None,
                )),
            )
            .await,
            "another request",
        ),
        (
            "for another method",
            send("DPoP", Some(dpop_proof(&client, "GET", &url, &token, "m", now(), None))).await,
            "another request",
        ),
        (
            "for another token",
            send(
                "DPoP",
                Some(dpop_proof(&client, "POST", &url, "other", "t", now(), None)),
            )
            .await,
            "another token",
        ),
        (
            "stale",
            send(
                "DPoP",
                Some(dpop_proof(&client, "POST", &url, &token, "s", now() - 600, None)),
            )
            .await,
            "not fresh",
        ),
        (
            "another key",
            send(
                "DPoP",
                Some(dpop_proof(
                    &server.issuer.key("ec"),
                    "POST",
                    &url,
                    &token,
                    "k",
                    now(),
                    None,
                )),
            )
            .await,
            "another key",
        ),
    ];
    for (case, response, reason) in refused {
        let (status, header) = challenge(&response);
        assert_eq!(status, 401, "{case}");
        assert!(header.contains(reason), "{case}: {header}");
        let scheme = if case == "as Bearer" {
            "Bearer error=\"invalid_token\""
        } else {
            "DPoP error=\"invalid_dpop_proof\""
        };
        assert!(header.starts_with(scheme), "{case}: {header}");
    }
    let unbound = server.token("bob", "mcp", "ec");
    let response = server
        .post(
            &body,
            &[("authorization", &format!("DPoP {unbound}")), ("dpop", &fresh("x"))],
        )
        .await;
    assert!(challenge(&response).1.contains("not bound to a DPoP key"));
    server.stop().await;

    // With nonces, a proof without the server's current one is sent back for it.
    let server = Protected::configured(|verifier| verifier, |auth| auth.dpop_nonces(true)).await;
    let url = server.url();
    let mut claims = server.issuer.claims("alice", &url, "mcp");
    claims["cnf"] = json!({ "jkt": thumbprint });
    let token = server.issuer.sign("ec", &claims);
    let authorization = format!("DPoP {token}");
    let without = dpop_proof(&client, "POST", &url, &token, "n1", now(), None);
    let response = server
        .post(&body, &[("authorization", &authorization), ("dpop", &without)])
        .await;
    let (status, header) = challenge(&response);
    assert_eq!(
        (status, header.starts_with("DPoP error=\"use_dpop_nonce\"")),
        (401, true),
        "{header}"
    );
    let nonce = response.headers()["dpop-nonce"].to_str().unwrap().to_owned();
    let with = dpop_proof(&client, "POST", &url, &token, "n2", now(), Some(&nonce));
    assert_eq!(
        server
            .post(&body, &[("authorization", &authorization), ("dpop", &with)])
            .await
            .status(),
        200
    );
    server.stop().await;
}
