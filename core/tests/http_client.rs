//! Our HTTP client transport against real servers written with the official Python SDK
//! (`mcp`, pinned in the Makefile; `make peers` installs it into `.venv`): Streamable
//! HTTP in both eras, JSON and SSE answers, sessions, resumption, the HTTP+SSE fallback,
//! and servers that die mid-request.
//!
//! Each test starts its own server process (tests/interop/python/server.py) on
//! 127.0.0.1 and a free port, and kills it when done.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{
    client_for, client_with, exercise_legacy, options, progress_log, resource_text, slow_with_progress, text,
    PeerServer, Sdk,
};
use oxmcp::client::{Client, EraMode, ServerNotification};
use oxmcp::protocol::{CallToolResult, Era};
use oxmcp::transport::http::client::{connect, HeaderName, HeaderValue, HttpClientOptions};
use oxmcp::Error;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The server's name in its `initialize` answer.
const NAME: &str = "official-python";

async fn python_server(args: &[&str]) -> PeerServer {
    PeerServer::start(Sdk::Python, args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_sse_answers() {
    let server = python_server(&["--http"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    exercise_legacy(&client, NAME, true).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_json_answers() {
    let server = python_server(&["--http", "--json-response"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    exercise_legacy(&client, NAME, false).await;
    client.close().await.unwrap();

    let modern = client_for(server.url(), EraMode::Modern).await;
    let answer = modern
        .call_tool("regional", json!({"region": "Zürich", "query": "SELECT 2"}))
        .await
        .unwrap();
    assert_eq!(text(&answer), "SELECT 2 in Zürich");
    modern.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_without_sessions() {
    let server = python_server(&["--http", "--stateless"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    let echoed = client.call_tool("echo", json!({"text": "stateless"})).await.unwrap();
    assert_eq!(text(&echoed), "stateless");
    let read = client.read_resource("greeting://world").await.unwrap();
    assert_eq!(resource_text(&read.contents), "Hello, world");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn modern_era_with_header_mirroring() {
    let server = python_server(&["--http"]).await;
    // Auto settles on 2026-07-28: the official SDK speaks it.
    let client = client_for(server.url(), EraMode::Auto).await;
    assert_eq!(client.protocol_version().as_str(), "2026-07-28");

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "regional"));
    let echoed = client.call_tool("echo", json!({"text": "modern"})).await.unwrap();
    assert_eq!(text(&echoed), "modern");
    // The server checks Mcp-Name (Base64 for the non-ASCII URI) against the body.
    let read = client.read_resource("greeting://people/Zoë").await.unwrap();
    assert_eq!(resource_text(&read.contents), "Hello, Zoë");
    // The server checks Mcp-Param-Region, non-ASCII included, against the arguments.
    for region in ["eu-west-1", "Zürich", " padded ", "=?base64?literal?="] {
        let answer = client
            .call_tool("regional", json!({"region": region, "query": "SELECT 1"}))
            .await
            .unwrap();
        assert_eq!(text(&answer), format!("SELECT 1 in {region}"));
    }

    // The tool gains an x-mcp-header after we listed it: the first call goes without the
    // header, the server refuses it (HeaderMismatch), the transport lists the tools again
    // and retries with the header, all within one call.
    let before = client.call_tool("tenant", json!({"tenant": "acme"})).await.unwrap();
    assert_eq!(text(&before), "tenant acme, header None");
    client.call_tool("mirror_tenant", json!({})).await.unwrap();
    let after = client.call_tool("tenant", json!({"tenant": "acme"})).await.unwrap();
    assert_eq!(text(&after), "tenant acme, header acme");

    // Progress on the request's SSE stream.
    assert_eq!(slow_with_progress(&client, 2).await, [1.0, 2.0]);

    // Elicitation is a multi round-trip request in this era, answered by the same handler.
    let greeted = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_closes_the_request_stream() {
    let server = python_server(&["--http"]).await;
    for era in [EraMode::Modern, EraMode::Legacy] {
        let client = client_for(server.url(), era).await;
        let cancellation = CancellationToken::new();
        let (seen, mut call) = progress_log();
        call.cancellation = Some(cancellation.clone());
        let slow = {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool_with("slow", json!({"steps": 100, "delay": 0.1}), &call)
                    .await
            })
        };
        let started = Instant::now();
        while seen.lock().unwrap().is_empty() {
            assert!(started.elapsed() < Duration::from_secs(10), "no progress arrived");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancellation.cancel();
        let outcome = tokio::time::timeout(Duration::from_secs(2), slow)
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
        // The connection goes on.
        let echoed = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(text(&echoed), "still here");
        client.close().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_stream_is_resumed_without_losing_messages() {
    let server = python_server(&["--http", "--event-store"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    let (seen, call) = progress_log();
    let result = client.call_tool_with("interrupted", json!({}), &call).await.unwrap();
    assert_eq!(text(&result), "survived the break");
    let messages: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| p.message.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        messages,
        [
            "before the break",
            "just before the break",
            "while the client is away",
            "after the break"
        ]
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_get_stream_is_resumed_without_losing_messages() {
    let server = python_server(&["--http", "--event-store"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    let mut notifications = client.notifications();
    // Let the GET stream open before the server writes to it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sent = client.call_tool("break_listener", json!({})).await.unwrap();
    assert_eq!(text(&sent), "sent");
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.len() < 2 {
        match tokio::time::timeout_at(deadline, notifications.recv()).await {
            Ok(Ok(ServerNotification::ToolListChanged)) => seen.push("tools"),
            Ok(Ok(ServerNotification::ResourceListChanged)) => seen.push("resources"),
            Ok(Ok(_)) => {}
            other => panic!("missing notifications (got {seen:?}): {other:?}"),
        }
    }
    assert_eq!(seen, ["tools", "resources"]);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn custom_headers_and_bearer_tokens_reach_the_server() {
    let server = python_server(&["--http"]).await;
    let asked = Arc::new(Mutex::new(0u32));
    let counter = Arc::clone(&asked);
    let http = HttpClientOptions::new(server.url())
        .header(HeaderName::from_static("x-tenant"), HeaderValue::from_static("acme"))
        // Replaced by the protocol's own headers and by the token.
        .header(
            HeaderName::from_static("accept"),
            HeaderValue::from_static("text/plain"),
        )
        .header(
            HeaderName::from_static("authorization"),
            HeaderValue::from_static("Basic eDp5"),
        )
        .bearer_token(move || {
            let counter = Arc::clone(&counter);
            async move {
                *counter.lock().unwrap() += 1;
                Some("token-123".to_owned())
            }
        });
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = client_with(http.clone(), era).await;
        let seen = client.call_tool("headers_seen", json!({})).await.unwrap();
        assert_eq!(text(&seen), "authorization=Bearer token-123 x-tenant=acme");
        client.close().await.unwrap();
    }
    assert!(*asked.lock().unwrap() >= 4, "the token source is asked per request");
}

/// A restarted official server knows no session and answers the old session id with 404
/// (or, once the GET stream saw the 404 first, the transport knows the session is gone):
/// the client begins a new session and the call goes through in it.
#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_server_is_reached_in_a_new_session() {
    let mut server = python_server(&["--http"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    let echoed = client.call_tool("echo", json!({"text": "one"})).await.unwrap();
    assert_eq!(text(&echoed), "one");
    server.kill().await;
    let port = server.port().to_string();
    let _server = python_server(&["--http", "--port", &port]).await;
    for word in ["two", "three"] {
        let echoed = client.call_tool("echo", json!({ "text": word })).await.unwrap();
        assert_eq!(text(&echoed), word);
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn falls_back_to_http_with_sse() {
    let server = python_server(&["--sse"]).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    exercise_legacy(&client, NAME, true).await;
    client.close().await.unwrap();

    // Probing with server/discover first finds the same transport; the official SDK
    // answers server/discover on it too, so the era is 2026-07-28.
    let auto = client_for(server.url(), EraMode::Auto).await;
    assert_eq!(auto.protocol_version().as_str(), "2026-07-28");
    let echoed = auto.call_tool("echo", json!({"text": "auto"})).await.unwrap();
    assert_eq!(text(&echoed), "auto");
    auto.close().await.unwrap();
}

/// Starts a long call, waits for its first progress notification, kills the server and
/// returns how the call ended and how long that took.
async fn kill_mid_stream(server: &mut PeerServer, client: &Client) -> (oxmcp::Result<CallToolResult>, Duration) {
    let (seen, call) = progress_log();
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool_with("slow", json!({"steps": 1000, "delay": 0.05}), &call)
                .await
        })
    };
    let started = Instant::now();
    while seen.lock().unwrap().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(10), "no progress arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.kill().await;
    let killed = Instant::now();
    let outcome = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .expect("the pending call ends instead of hanging")
        .unwrap();
    (outcome, killed.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_stream_fails_pending_calls_promptly() {
    for (args, era) in [
        (&["--http"][..], EraMode::Legacy),
        (&["--http"][..], EraMode::Modern),
        (&["--http", "--event-store"][..], EraMode::Legacy),
        (&["--sse"][..], EraMode::Legacy),
    ] {
        let mut server = python_server(args).await;
        let client = client_for(server.url(), era).await;
        let (outcome, took) = kill_mid_stream(&mut server, &client).await;
        assert!(outcome.is_err(), "{args:?} {era:?}: {outcome:?}");
        assert!(took < Duration::from_secs(5), "{args:?} {era:?}: took {took:?}");
        // Later calls fail at once too.
        let started = Instant::now();
        let later = client.call_tool("echo", json!({"text": "anyone?"})).await;
        assert!(later.is_err(), "{args:?} {era:?}: {later:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        client.close().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_server_fails_fast() {
    // Bind and drop a listener to get a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let transport = connect(HttpClientOptions::new(format!("http://127.0.0.1:{port}/mcp"))).unwrap();
    let started = Instant::now();
    let outcome = Client::connect(transport, options(EraMode::Auto)).await;
    let error = outcome.err().expect("nothing listens there");
    assert!(started.elapsed() < Duration::from_secs(5), "{error}");
}
