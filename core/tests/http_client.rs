//! Our HTTP client transport against real servers written with the official Python SDK
//! (`mcp`, pinned in the Makefile; `make peers` installs it into `.venv`): Streamable
//! HTTP in both eras, JSON and SSE answers, sessions, resumption, the HTTP+SSE fallback,
//! and servers that die mid-request.
//!
//! Each test starts its own server process (core/tests/peers/python_server.py) on
//! 127.0.0.1 and a free port, and kills it when done.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{
    CallToolResult, ElicitAction, ElicitRequestParams, ElicitResult, Era, ErrorObject, ProgressNotificationParams,
    ResourceContents,
};
use oxmcp::transport::http::client::{connect, HeaderName, HeaderValue, HttpClientOptions};
use oxmcp::Error;
use serde_json::{json, Map};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

/// A Python SDK server process; killed when dropped.
struct PythonPeer {
    child: Child,
    port: u16,
}

impl PythonPeer {
    async fn start(args: &[&str]) -> PythonPeer {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let python = std::env::var_os("OXMCP_TEST_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../.venv/bin/python"));
        assert!(
            python.exists(),
            "{} is missing: run `make peers` to create the venv with the official Python SDK",
            python.display()
        );
        let mut child = Command::new(&python)
            .arg(root.join("tests/peers/python_server.py"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("starts the Python server");
        let stdout = child.stdout.take().expect("piped");
        let mut lines = BufReader::new(stdout).lines();
        let port = tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = lines.next_line().await.expect("reads the server's stdout") {
                if let Some(port) = line.strip_prefix("LISTENING ") {
                    return port.trim().parse::<u16>().expect("a port");
                }
            }
            panic!("the Python server exited before listening")
        })
        .await
        .expect("the Python server listens within 60 s");
        // Keep draining stdout so that the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        PythonPeer { child, port }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    async fn kill(&mut self) {
        self.child.kill().await.expect("kills the server");
    }
}

fn options(era: EraMode) -> ClientOptions {
    ClientOptions::new("oxmcp-http-tests", "1.0.0")
        .era(era)
        .timeout(Some(Duration::from_secs(30)))
        .on_elicitation(
            |params: ElicitRequestParams| async move {
                assert!(matches!(params, ElicitRequestParams::Form(_)), "{params:?}");
                Ok::<_, ErrorObject>(ElicitResult {
                    action: ElicitAction::Accept,
                    content: Some(Map::from_iter([("name".to_owned(), json!("Ada"))])),
                    meta: None,
                })
            },
            false,
        )
}

async fn client_for(url: String, era: EraMode) -> Client {
    client_with(HttpClientOptions::new(url), era).await
}

async fn client_with(http: HttpClientOptions, era: EraMode) -> Client {
    let transport = connect(http).expect("a transport");
    Client::connect(transport, options(era)).await.expect("connects")
}

fn text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "the tool failed: {result:?}");
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .collect::<Vec<_>>()
        .join("")
}

fn resource_text(contents: &[ResourceContents]) -> String {
    match contents.first() {
        Some(ResourceContents::Text(text)) => text.text.clone(),
        other => panic!("not a text resource: {other:?}"),
    }
}

/// A progress callback and what it saw.
fn progress_log() -> (Arc<Mutex<Vec<ProgressNotificationParams>>>, CallOptions) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions {
        on_progress: Some(Arc::new(move |progress| sink.lock().unwrap().push(progress))),
        ..Default::default()
    };
    (seen, options)
}

/// Everything a client does in the legacy era, against one server. `streaming`: the
/// server answers with SSE streams, so it can send progress and requests mid-call (in
/// JSON mode the official SDK drops both).
async fn exercise_legacy(client: &Client, streaming: bool) {
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    let details = client.server_details();
    assert_eq!(details.server_info.expect("server info").name, "python-peer");

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let echoed = client.call_tool("echo", json!({"text": "hi there"})).await.unwrap();
    assert_eq!(text(&echoed), "hi there");

    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "greeting://world"), "{resources:?}");
    let read = client.read_resource("greeting://world").await.unwrap();
    assert_eq!(resource_text(&read.contents), "Hello, world");

    // An unknown tool is the server's error, not a transport failure.
    let missing = client.call_tool("no-such-tool", json!({})).await;
    match missing {
        Ok(result) => assert_eq!(result.is_error, Some(true)),
        Err(Error::Remote(error)) => assert!(error.message.contains("no-such-tool"), "{error:?}"),
        Err(other) => panic!("unexpected failure: {other}"),
    }
    let templated = client.read_resource("greeting://people/Zoë").await.unwrap();
    assert_eq!(resource_text(&templated.contents), "Hello, Zoë");

    if !streaming {
        return;
    }
    // Progress notifications arrive before the result, on the POST's SSE stream.
    let (seen, call) = progress_log();
    let done = client
        .call_tool_with("slow", json!({"steps": 3, "delay": 0.05}), &call)
        .await
        .unwrap();
    assert_eq!(text(&done), "done after 3 steps");
    let progress: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);

    // A server-to-client request (elicitation/create), answered by our handler.
    let greeted = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_sse_answers() {
    let server = PythonPeer::start(&["streamable-http"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
    exercise_legacy(&client, true).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_json_answers() {
    let server = PythonPeer::start(&["streamable-http", "--json-response"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
    exercise_legacy(&client, false).await;
    client.close().await.unwrap();

    let modern = client_for(server.url("/mcp"), EraMode::Modern).await;
    let answer = modern
        .call_tool("regional", json!({"region": "Zürich", "query": "SELECT 2"}))
        .await
        .unwrap();
    assert_eq!(text(&answer), "SELECT 2 in Zürich");
    modern.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_without_sessions() {
    let server = PythonPeer::start(&["streamable-http", "--stateless"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    let echoed = client.call_tool("echo", json!({"text": "stateless"})).await.unwrap();
    assert_eq!(text(&echoed), "stateless");
    let read = client.read_resource("greeting://world").await.unwrap();
    assert_eq!(resource_text(&read.contents), "Hello, world");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn modern_era_with_header_mirroring() {
    let server = PythonPeer::start(&["streamable-http"]).await;
    // Auto settles on 2026-07-28: the official SDK speaks it.
    let client = client_for(server.url("/mcp"), EraMode::Auto).await;
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
    let (seen, call) = progress_log();
    let done = client
        .call_tool_with("slow", json!({"steps": 2, "delay": 0.05}), &call)
        .await
        .unwrap();
    assert_eq!(text(&done), "done after 2 steps");
    assert_eq!(seen.lock().unwrap().len(), 2);

    // Elicitation is a multi round-trip request in this era, answered by the same handler.
    let greeted = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_closes_the_request_stream() {
    let server = PythonPeer::start(&["streamable-http"]).await;
    for era in [EraMode::Modern, EraMode::Legacy] {
        let client = client_for(server.url("/mcp"), era).await;
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
    let server = PythonPeer::start(&["streamable-http", "--event-store"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
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
    let server = PythonPeer::start(&["streamable-http", "--event-store"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
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
    let server = PythonPeer::start(&["streamable-http"]).await;
    let asked = Arc::new(Mutex::new(0u32));
    let counter = Arc::clone(&asked);
    let http = HttpClientOptions::new(server.url("/mcp"))
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

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_session_fails_the_request_and_a_new_client_starts_over() {
    let mut server = PythonPeer::start(&["streamable-http"]).await;
    let client = client_for(server.url("/mcp"), EraMode::Legacy).await;
    let echoed = client.call_tool("echo", json!({"text": "one"})).await.unwrap();
    assert_eq!(text(&echoed), "one");
    // A restarted server knows no session: it answers the old session id with 404.
    server.kill().await;
    let port = server.port.to_string();
    let server = PythonPeer::start(&["streamable-http", "--port", &port]).await;
    let started = Instant::now();
    let expired = client.call_tool("echo", json!({"text": "two"})).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    match expired {
        // 404 for the session; or, when the GET stream saw the 404 first and the session
        // was dropped, the server's 400 for a request without one.
        Err(Error::Remote(error)) => assert!(
            error.message.contains("404") || error.message.contains("session"),
            "{error:?}"
        ),
        other => panic!("the session should be gone: {other:?}"),
    }
    client.close().await.unwrap();
    let fresh = client_for(server.url("/mcp"), EraMode::Legacy).await;
    let echoed = fresh.call_tool("echo", json!({"text": "three"})).await.unwrap();
    assert_eq!(text(&echoed), "three");
    fresh.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn falls_back_to_http_with_sse() {
    let server = PythonPeer::start(&["sse"]).await;
    let client = client_for(server.url("/sse"), EraMode::Legacy).await;
    exercise_legacy(&client, true).await;
    client.close().await.unwrap();

    // Probing with server/discover first finds the same transport; the official SDK
    // answers server/discover on it too, so the era is 2026-07-28.
    let auto = client_for(server.url("/sse"), EraMode::Auto).await;
    assert_eq!(auto.protocol_version().as_str(), "2026-07-28");
    let echoed = auto.call_tool("echo", json!({"text": "auto"})).await.unwrap();
    assert_eq!(text(&echoed), "auto");
    auto.close().await.unwrap();
}

/// Starts a long call, waits for its first progress notification, kills the server and
/// returns how the call ended and how long that took.
async fn kill_mid_stream(server: &mut PythonPeer, client: &Client) -> (oxmcp::Result<CallToolResult>, Duration) {
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
    for (args, era, path) in [
        (&["streamable-http"][..], EraMode::Legacy, "/mcp"),
        (&["streamable-http"][..], EraMode::Modern, "/mcp"),
        (&["streamable-http", "--event-store"][..], EraMode::Legacy, "/mcp"),
        (&["sse"][..], EraMode::Legacy, "/sse"),
    ] {
        let mut server = PythonPeer::start(args).await;
        let client = client_for(server.url(path), era).await;
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
