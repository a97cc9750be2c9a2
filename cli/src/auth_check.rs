//! `oxmcp auth check --url URL`: walks a protected server's discovery as a client would
//! (the challenge, Protected Resource Metadata and its `resource`, the authorization
//! server's metadata, PKCE, registration) and says in plain words what would stop a
//! client, and what would trouble one.

use std::time::Duration;

use oxmcp::client::auth::{
    authorization_server_metadata_urls, protected_resource_metadata_urls, resource_covers, AuthorizationServerMetadata,
    BearerChallenge, ProtectedResourceMetadata,
};
use reqwest::header::{ACCEPT, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::{StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;

use crate::args::Target;
use crate::failure::Failure;

/// How a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Verdict {
    /// As a client needs it.
    Pass,
    /// Works, but some clients will struggle.
    Warn,
    /// Stops clients.
    Fail,
}

/// One thing checked.
#[derive(Debug, Serialize)]
struct Finding {
    verdict: Verdict,
    check: &'static str,
    detail: String,
}

/// What the walk found.
#[derive(Debug, Default)]
struct Report {
    findings: Vec<Finding>,
}

impl Report {
    fn note(&mut self, verdict: Verdict, check: &'static str, detail: impl Into<String>) {
        self.findings.push(Finding {
            verdict,
            check,
            detail: detail.into(),
        });
    }

    fn problems(&self) -> usize {
        self.findings.iter().filter(|f| f.verdict == Verdict::Fail).count()
    }
}

/// A request every MCP server answers, to see how it treats one without a token.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"oxmcp-auth-check","version":"1"}}}"#;

/// Runs the check against `target.url`, prints the findings, and fails (exit 3) when one
/// would stop clients.
pub async fn check(target: &Target) -> Result<(), Failure> {
    let Some(url) = &target.url else {
        return Err(Failure::Usage("auth check needs --url URL".into()));
    };
    let url = Url::parse(url).map_err(|e| Failure::Usage(format!("--url {url}: {e}")))?;
    let timeout = Duration::try_from_secs_f64(target.timeout).unwrap_or(Duration::from_secs(30));
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .map_err(|e| Failure::Connect(e.to_string()))?;
    let mut report = Report::default();
    walk(&http, &url, &mut report).await?;
    print(&report, &url, target.json);
    match report.problems() {
        0 => Ok(()),
        n => Err(Failure::Authorization(format!(
            "{n} problem{} would stop clients",
            if n == 1 { "" } else { "s" }
        ))),
    }
}

async fn walk(http: &reqwest::Client, url: &Url, report: &mut Report) -> Result<(), Failure> {
    let Some(challenge) = challenge(http, url, report).await? else {
        return Ok(());
    };
    let Some(metadata) = resource_metadata(http, url, &challenge, report).await else {
        return Ok(());
    };
    match metadata.resource.as_deref() {
        None => report.note(
            Verdict::Fail,
            "resource",
            "the metadata has no `resource`: clients cannot tell what tokens to ask for",
        ),
        Some(resource) if resource_covers(resource, url) => {
            report.note(Verdict::Pass, "resource", format!("{resource} covers the endpoint"))
        }
        Some(resource) => report.note(
            Verdict::Fail,
            "resource",
            format!(
                "the metadata names the resource {resource}, which is not the endpoint {url} (the same origin, and its \
                 path or a parent of it): clients refuse it, as tokens for it are not meant for this server. Set the \
                 resource to the endpoint's public URL (behind a proxy, the URL clients use)"
            ),
        ),
    }
    let Some(issuer) = metadata.authorization_servers.first() else {
        report.note(
            Verdict::Fail,
            "authorization servers",
            "the metadata names no authorization server: clients have nowhere to get a token",
        );
        return Ok(());
    };
    report.note(
        Verdict::Pass,
        "authorization servers",
        metadata.authorization_servers.join(", "),
    );
    let Some(server) = authorization_server(http, issuer, report).await else {
        return Ok(());
    };
    check_server(&server, &metadata, report);
    Ok(())
}

/// The challenge of a request without a token; `None` when there is none to follow.
async fn challenge(http: &reqwest::Client, url: &Url, report: &mut Report) -> Result<Option<BearerChallenge>, Failure> {
    let answer = http
        .post(url.clone())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .map_err(|e| Failure::Connect(format!("{url}: {e}")))?;
    let status = answer.status();
    let header = answer
        .headers()
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let challenge = BearerChallenge::from_headers(header.iter().map(String::as_str));
    match (status, challenge) {
        (StatusCode::UNAUTHORIZED, Some(challenge)) => {
            report.note(Verdict::Pass, "challenge", format!("401 with {}", header.join(", ")));
            match &challenge.resource_metadata {
                Some(_) => report.note(Verdict::Pass, "challenge", "it names the Protected Resource Metadata"),
                None => report.note(
                    Verdict::Warn,
                    "challenge",
                    "it names no resource_metadata: clients must guess the metadata's well-known URLs",
                ),
            }
            Ok(Some(challenge))
        }
        (StatusCode::UNAUTHORIZED, None) => {
            report.note(
                Verdict::Fail,
                "challenge",
                "401 without a Bearer challenge (WWW-Authenticate): clients cannot learn how to authorize",
            );
            Ok(Some(BearerChallenge::default()))
        }
        (StatusCode::FORBIDDEN, _) => {
            report.note(
                Verdict::Fail,
                "challenge",
                "403 to a request without a token: clients start authorizing on 401 only (403 means a token lacks scope)",
            );
            Ok(Some(BearerChallenge::default()))
        }
        (status, _) if status.is_success() => {
            report.note(
                Verdict::Warn,
                "challenge",
                format!("{status} without a token: the endpoint does not require one, so clients never authorize"),
            );
            Ok(None)
        }
        (status, _) => {
            report.note(
                Verdict::Fail,
                "challenge",
                format!("{status} to a request without a token, where clients expect 401"),
            );
            Ok(None)
        }
    }
}

/// The protected resource metadata, from the challenge's URL or the well-known ones.
async fn resource_metadata(
    http: &reqwest::Client,
    url: &Url,
    challenge: &BearerChallenge,
    report: &mut Report,
) -> Option<ProtectedResourceMetadata> {
    let candidates = match challenge.resource_metadata.as_deref().map(Url::parse) {
        Some(Ok(named)) => vec![named],
        Some(Err(e)) => {
            report.note(
                Verdict::Fail,
                "resource metadata",
                format!("the challenge's resource_metadata is no URL: {e}"),
            );
            return None;
        }
        None => protected_resource_metadata_urls(url),
    };
    let (metadata, misses) = first_json::<ProtectedResourceMetadata>(http, &candidates).await;
    match metadata {
        Some((at, metadata)) => {
            report.note(Verdict::Pass, "resource metadata", format!("found at {at}"));
            Some(metadata)
        }
        None => {
            report.note(
                Verdict::Fail,
                "resource metadata",
                format!("no Protected Resource Metadata: {}", misses.join("; ")),
            );
            None
        }
    }
}

/// The authorization server's metadata at the well-known URLs of `issuer`.
async fn authorization_server(
    http: &reqwest::Client,
    issuer: &str,
    report: &mut Report,
) -> Option<AuthorizationServerMetadata> {
    let Ok(issuer_url) = Url::parse(issuer) else {
        report.note(Verdict::Fail, "authorization server", format!("{issuer} is no URL"));
        return None;
    };
    let loopback = matches!(issuer_url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    if issuer_url.scheme() != "https" && !loopback {
        report.note(
            Verdict::Fail,
            "authorization server",
            format!("{issuer} is not https: clients refuse it"),
        );
    }
    let (metadata, misses) =
        first_json::<AuthorizationServerMetadata>(http, &authorization_server_metadata_urls(&issuer_url)).await;
    let Some((at, metadata)) = metadata else {
        report.note(
            Verdict::Fail,
            "authorization server",
            format!("no metadata for {issuer}: {}", misses.join("; ")),
        );
        return None;
    };
    report.note(Verdict::Pass, "authorization server", format!("metadata at {at}"));
    if metadata.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
        report.note(
            Verdict::Fail,
            "authorization server",
            format!(
                "its metadata says issuer {}, not {issuer}: clients must refuse metadata of another issuer (RFC 8414 §3.3)",
                metadata.issuer
            ),
        );
    }
    Some(metadata)
}

/// What an MCP client needs of the authorization server.
fn check_server(server: &AuthorizationServerMetadata, resource: &ProtectedResourceMetadata, report: &mut Report) {
    match &server.authorization_endpoint {
        Some(_) => {}
        None => report.note(
            Verdict::Fail,
            "authorization endpoint",
            "none: no user can authorize a client",
        ),
    }
    if server.supports_s256() {
        report.note(Verdict::Pass, "PKCE", "S256 supported");
    } else {
        report.note(
            Verdict::Fail,
            "PKCE",
            "code_challenge_methods_supported lacks S256: MCP clients must refuse such an authorization server",
        );
    }
    if let Some(grants) = &server.grant_types_supported {
        if !grants.iter().any(|g| g == "authorization_code") {
            report.note(
                Verdict::Fail,
                "grant types",
                "authorization_code is not among grant_types_supported",
            );
        }
    }
    match (
        &server.registration_endpoint,
        server.client_id_metadata_document_supported,
    ) {
        (Some(endpoint), _) => report.note(
            Verdict::Pass,
            "registration",
            format!("dynamic registration at {endpoint}"),
        ),
        (None, true) => report.note(Verdict::Pass, "registration", "client ID metadata documents"),
        (None, false) => report.note(
            Verdict::Warn,
            "registration",
            "neither dynamic registration nor client ID metadata documents: only clients registered ahead can sign in",
        ),
    }
    if let (Some(wanted), Some(issued)) = (&resource.scopes_supported, &server.scopes_supported) {
        let unknown: Vec<&str> = wanted
            .iter()
            .filter(|s| !issued.contains(s))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            report.note(
                Verdict::Warn,
                "scopes",
                format!(
                    "the resource's scopes {} are not among the authorization server's",
                    unknown.join(", ")
                ),
            );
        }
    }
}

/// The first of `urls` that gives a JSON document of type `T`, with where; else why each
/// failed.
async fn first_json<T: DeserializeOwned>(http: &reqwest::Client, urls: &[Url]) -> (Option<(Url, T)>, Vec<String>) {
    let mut misses = Vec::new();
    for url in urls {
        let miss = match http.get(url.clone()).header(ACCEPT, "application/json").send().await {
            Ok(answer) if answer.status().is_success() => {
                let body = answer.bytes().await.unwrap_or_default();
                match serde_json::from_slice::<T>(&body) {
                    Ok(document) => return (Some((url.clone(), document)), misses),
                    Err(e) => format!("{url}: not the expected JSON ({e})"),
                }
            }
            Ok(answer) => format!("{url}: {}", answer.status()),
            Err(e) => format!("{url}: {e}"),
        };
        misses.push(miss);
    }
    (None, misses)
}

fn print(report: &Report, url: &Url, json: bool) {
    if json {
        let value = json!({"url": url.as_str(), "problems": report.problems(), "findings": report.findings});
        crate::say(value);
        return;
    }
    for finding in &report.findings {
        let mark = match finding.verdict {
            Verdict::Pass => "ok  ",
            Verdict::Warn => "warn",
            Verdict::Fail => "FAIL",
        };
        crate::say(format!("{mark}  {:<22} {}", finding.check, finding.detail));
    }
}
