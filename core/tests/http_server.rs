//! The Streamable HTTP server on a real socket, driven with raw HTTP requests so that
//! every status code and header is visible: both eras, SSE, resumption, security.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, Server, ToolDef};
use oxmcp::state::{EventStore, InMemoryEventStore, StoredEvent};
use oxmcp::BoxFuture;
use reqwest::StatusCode;
use serde_json::{json, Value};

mod common;

use common::{mcp_post, read_events};

const MODERN: &str = "2026-07-28";

/// Extra request headers; an empty value removes a header the helper would send.
type Headers<'a> = Vec<(&'a str, &'a str)>;

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}
    })
}

/// A server with tools for every case; `stopped` is set when `wait` is stopped.
fn test_server(cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("http-tests", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .tool(
            ToolDef::new("regional")
                .input_schema(
                    json!({"type": "object", "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "count": {"type": "integer", "x-mcp-header": "Count"}
                    }})
                    .as_object()
                    .unwrap()
                    .clone(),
                )
                .handler(|args, _| async move { format!("{}", Value::Object(args)) }),
        )
        .tool(ToolDef::new("steps").handler(|_, ctx: Context| async move {
            for step in 1..=5 {
                tokio::time::sleep(Duration::from_millis(40)).await;
                ctx.progress(step as f64, Some(5.0), None).await;
            }
            "done"
        }))
        .tool(ToolDef::new("wait").handler(move |args, ctx: Context| {
            let stopped = StoppedFlag(Arc::clone(&cancelled));
            async move {
                if args.get("announce").is_some() {
                    ctx.progress(0.0, None, Some("waiting".into())).await;
                }
                tokio::time::sleep(Duration::from_secs(30)).await;
                drop(stopped);
                "waited"
            }
        }))
        .tool(ToolDef::new("polled").handler(|_, ctx: Context| async move {
            ctx.progress(1.0, None, None).await;
            ctx.close_stream().await;
            ctx.progress(2.0, None, None).await;
            "polled"
        }))
        .tool(
            ToolDef::new("session")
                .handler(|_, ctx: Context| async move { ctx.session_id().unwrap_or("none").to_owned() }),
        )
        .tool(ToolDef::new("tenant").handler(|_, ctx: Context| async move {
            let headers = ctx.http_headers();
            let tenant = headers.and_then(|headers| headers.get("x-tenant")?.to_str().ok());
            tenant.unwrap_or("none").to_owned()
        }))
        .tool(ToolDef::new("carrier").handler(|_, ctx: Context| async move {
            let request = ctx.http_request().expect("an HTTP request");
            let peer = request.peer().map(|peer| peer.ip().to_string());
            format!("{} from {}", request.uri(), peer.as_deref().unwrap_or("nowhere"))
        }))
        .tool(ToolDef::new("ask").handler(|_, ctx: Context| async move {
            let roots = ctx.list_roots().await?;
            Ok::<_, oxmcp::server::HandlerError>(roots.roots.len().to_string())
        }))
        .build()
        .unwrap()
}

/// Sets its flag when dropped: a handler that holds it was stopped.
struct StoppedFlag(Arc<AtomicBool>);

impl Drop for StoppedFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Fixture {
    server: Server,
    handle: HttpServerHandle,
    http: reqwest::Client,
    cancelled: Arc<AtomicBool>,
}

impl Fixture {
    async fn start(config: HttpConfig) -> Self {
        let cancelled = Arc::new(AtomicBool::new(false));
        let server = test_server(Arc::clone(&cancelled));
        let handle = server.bind_http("127.0.0.1:0", config).await.unwrap();
        Fixture {
            server,
            handle,
            http: reqwest::Client::new(),
            cancelled,
        }
    }

    fn url(&self) -> String {
        self.handle.url("/mcp")
    }

    async fn post(&self, body: Value, headers: &[(&str, &str)]) -> reqwest::Response {
        mcp_post(&self.http, &self.url(), &body, headers).send().await.unwrap()
    }

    /// A modern request with every header right unless `headers` overrides them.
    async fn modern(&self, id: i64, method: &str, mut params: Value, headers: &[(&str, &str)]) -> reqwest::Response {
        params["_meta"] = meta();
        let name = params
            .get("name")
            .or(params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut all: Vec<(&str, &str)> = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
        if let Some(name) = name.as_deref() {
            all.push(("mcp-name", name));
        }
        for (k, v) in headers {
            all.retain(|(name, _)| name != k);
            if !v.is_empty() {
                all.push((k, v));
            }
        }
        self.post(
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            &all,
        )
        .await
    }

    async fn initialize(&self, version: &str) -> String {
        let response = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": version,
                    "capabilities": {"roots": {}},
                    "clientInfo": {"name": "raw", "version": "1"}}}),
                &[],
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let body: Value = json_of(response).await;
        assert_eq!(body["result"]["protocolVersion"], version);
        session
    }

    async fn legacy(&self, session: &str, body: Value) -> reqwest::Response {
        self.post(
            body,
            &[("mcp-session-id", session), ("mcp-protocol-version", "2025-11-25")],
        )
        .await
    }

    /// Resumes a legacy session's stream after `last_id` with GET; its events up to the answer.
    async fn resume(&self, session: &str, last_id: &str) -> Vec<(String, String)> {
        let resumed = self
            .http
            .get(self.url())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("last-event-id", last_id)
            .send()
            .await
            .unwrap();
        read_events(resumed, |events| events.iter().any(|(_, d)| d.contains("\"result\""))).await
    }

    /// Ends a legacy session.
    async fn delete(&self, session: &str) -> reqwest::Response {
        self.http
            .delete(self.url())
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap()
    }
}

fn data_json(events: &[(String, String)]) -> Vec<Value> {
    events
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect()
}

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

async fn error_code(response: reqwest::Response) -> i64 {
    let body: Value = json_of(response).await;
    body["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {body}"))
}

#[tokio::test]
async fn modern_requests_answer_json_and_check_every_header() {
    let f = Fixture::start(HttpConfig::default()).await;
    let ok = f
        .modern(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
            &[],
        )
        .await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(ok.headers()["content-type"], "application/json");
    let body: Value = json_of(ok).await;
    assert_eq!(body["result"]["content"][0]["text"], "hi");
    assert_eq!(body["result"]["resultType"], "complete");

    let echo = || json!({"name": "echo", "arguments": {"text": "hi"}});
    let cases: Vec<(&str, Headers, StatusCode, i64)> = vec![
        (
            "no Mcp-Method",
            vec![("mcp-method", "")],
            StatusCode::BAD_REQUEST,
            -32020,
        ),
        (
            "wrong Mcp-Method",
            vec![("mcp-method", "tools/list")],
            StatusCode::BAD_REQUEST,
            -32020,
        ),
        ("no Mcp-Name", vec![("mcp-name", "")], StatusCode::BAD_REQUEST, -32020),
        (
            "wrong Mcp-Name",
            vec![("mcp-name", "other")],
            StatusCode::BAD_REQUEST,
            -32020,
        ),
        (
            "base64 Mcp-Name",
            vec![("mcp-name", "=?base64?ZWNobw==?=")],
            StatusCode::OK,
            0,
        ),
        (
            "no version header",
            vec![("mcp-protocol-version", "")],
            StatusCode::BAD_REQUEST,
            -32020,
        ),
        (
            "version header differs",
            vec![("mcp-protocol-version", "2025-11-25")],
            StatusCode::BAD_REQUEST,
            -32020,
        ),
    ];
    for (case, headers, status, code) in cases {
        let response = f.modern(2, "tools/call", echo(), &headers).await;
        assert_eq!(response.status(), status, "{case}");
        if code != 0 {
            assert_eq!(error_code(response).await, code, "{case}");
        }
    }

    let mut params = echo();
    params["_meta"] = meta();
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    let headers = [
        ("mcp-protocol-version", "1900-01-01"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    let unsupported = f.post(body, &headers).await;
    assert_eq!(unsupported.status(), StatusCode::BAD_REQUEST);
    assert_eq!(error_code(unsupported).await, -32022);

    let mut params = echo();
    params["_meta"] = meta();
    params["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params});
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    let without_capabilities = f.post(body, &headers).await;
    assert_eq!(without_capabilities.status(), StatusCode::BAD_REQUEST);
    assert_eq!(error_code(without_capabilities).await, -32602);

    let unknown = f.modern(4, "tools/frobnicate", json!({}), &[]).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(error_code(unknown).await, -32601);

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = f.http.request(method, f.url()).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()["allow"], "POST");
    }
}

#[tokio::test]
async fn mcp_param_headers_must_mirror_annotated_arguments() {
    let f = Fixture::start(HttpConfig::default()).await;
    let call = |args: Value| json!({"name": "regional", "arguments": args});
    let cases: Vec<(&str, Value, Headers, StatusCode)> = vec![
        (
            "both mirrored",
            json!({"region": "us-west1", "count": 3}),
            vec![("mcp-param-region", "us-west1"), ("mcp-param-count", "3")],
            StatusCode::OK,
        ),
        (
            "numeric match",
            json!({"count": 3}),
            vec![("mcp-param-count", "3.0")],
            StatusCode::OK,
        ),
        (
            "base64 value",
            json!({"region": "Zürich"}),
            vec![("mcp-param-region", "=?base64?WsO8cmljaA==?=")],
            StatusCode::OK,
        ),
        ("absent argument, no header", json!({}), vec![], StatusCode::OK),
        (
            "header missing",
            json!({"region": "us-west1"}),
            vec![],
            StatusCode::BAD_REQUEST,
        ),
        (
            "header differs",
            json!({"region": "us-west1"}),
            vec![("mcp-param-region", "eu")],
            StatusCode::BAD_REQUEST,
        ),
        (
            "header without argument",
            json!({}),
            vec![("mcp-param-region", "eu")],
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (case, args, headers, status) in cases {
        let response = f.modern(1, "tools/call", call(args), &headers).await;
        assert_eq!(response.status(), status, "{case}");
        if status == StatusCode::BAD_REQUEST {
            assert_eq!(error_code(response).await, -32020, "{case}");
        }
    }
}

#[tokio::test]
async fn progress_streams_as_sse_and_a_dropped_stream_cancels_the_handler() {
    let f = Fixture::start(HttpConfig::default()).await;
    let mut params = json!({"name": "steps", "arguments": {}});
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!("p1");
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "steps"),
    ];
    let response = f.post(body, &headers).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let messages = data_json(&read_events(response, |_| false).await);
    assert_eq!(messages.len(), 6, "{messages:?}");
    assert!(messages[..5].iter().all(|m| m["method"] == "notifications/progress"));
    assert_eq!(messages[5]["result"]["content"][0]["text"], "done");

    let waiting = f.modern(8, "tools/call", json!({"name": "wait", "arguments": {}}), &[]);
    let _ = tokio::time::timeout(Duration::from_millis(200), waiting).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        f.cancelled.load(Ordering::SeqCst),
        "closing the response cancels the request"
    );
}

#[tokio::test]
async fn subscriptions_listen_is_a_long_lived_stream() {
    let f = Fixture::start(HttpConfig::default()).await;
    let response = f
        .modern(
            9,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
            &[],
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let server = f.server.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        server
            .add_tool(ToolDef::new("late").handler(|_, _| async { "x" }))
            .unwrap();
    });
    let messages = data_json(&read_events(response, |events| events.len() >= 2).await);
    assert_eq!(messages[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(messages[1]["method"], "notifications/tools/list_changed");
    assert_eq!(
        messages[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
}

#[tokio::test]
async fn legacy_sessions_are_created_required_and_ended() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize("2025-11-25").await;
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let initialized = f
        .legacy(
            &session,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    let ok = f.legacy(&session, call.clone()).await;
    assert_eq!(ok.status(), StatusCode::OK);
    let body: Value = json_of(ok).await;
    assert_eq!(body["result"]["content"][0]["text"], "x");

    assert_eq!(
        f.post(call.clone(), &[]).await.status(),
        StatusCode::BAD_REQUEST,
        "no session id"
    );
    let unknown = f.post(call.clone(), &[("mcp-session-id", "0000")]).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let bad_version = f
        .post(
            call.clone(),
            &[("mcp-session-id", &session), ("mcp-protocol-version", "1999-01-01")],
        )
        .await;
    assert_eq!(bad_version.status(), StatusCode::BAD_REQUEST);

    let named =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "session", "arguments": {}}});
    let answer: Value = json_of(f.legacy(&session, named).await).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], session,
        "a handler knows its session"
    );
    let alone: Value = json_of(
        f.modern(3, "tools/call", json!({"name": "session", "arguments": {}}), &[])
            .await,
    )
    .await;
    assert_eq!(
        alone["result"]["content"][0]["text"], "none",
        "a modern request has no session"
    );

    assert_eq!(f.delete(&session).await.status(), StatusCode::OK);
    assert_eq!(f.legacy(&session, call).await.status(), StatusCode::NOT_FOUND, "ended");
}

#[tokio::test]
async fn ending_a_legacy_session_cancels_its_requests_in_flight() {
    let f = Arc::new(Fixture::start(HttpConfig::default()).await);
    let session = f.initialize("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait", "arguments": {}}});
    // The POST waits for the call's first message, which a silent handler never sends.
    let waiting = tokio::spawn({
        let (f, session) = (Arc::clone(&f), session.clone());
        async move { f.legacy(&session, call).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!f.cancelled.load(Ordering::SeqCst), "the call runs");
    assert_eq!(f.delete(&session).await.status(), StatusCode::OK);
    assert!(
        f.cancelled.load(Ordering::SeqCst),
        "the call is cancelled by the time the session's end is acknowledged"
    );
    tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the call's POST ends with its session")
        .unwrap();

    // A call whose answer has begun streams until the session ends, then its stream ends.
    f.cancelled.store(false, Ordering::SeqCst);
    let session = f.initialize("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait", "arguments": {"announce": true}, "_meta": {"progressToken": "w"}}});
    let mut stream = f.legacy(&session, call).await.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("waiting") {
        seen.push_str(&String::from_utf8_lossy(&stream.next().await.unwrap().unwrap()));
    }
    assert_eq!(f.delete(&session).await.status(), StatusCode::OK);
    assert!(f.cancelled.load(Ordering::SeqCst), "the streaming call is cancelled");
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = stream.next().await {}
    });
    rest.await.expect("the call's stream ends with its session");
}

#[tokio::test]
async fn legacy_streams_carry_server_requests_and_the_get_stream_carries_changes() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize("2025-11-25").await;
    let get = f
        .http
        .get(f.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::OK);
    let second_get = f
        .http
        .get(f.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(second_get.send().await.unwrap().status(), StatusCode::CONFLICT);
    f.server
        .add_tool(ToolDef::new("fresh").handler(|_, _| async { "x" }))
        .unwrap();
    let changes = data_json(&read_events(get, |events| events.iter().any(|(_, d)| !d.is_empty())).await);
    assert_eq!(changes[0]["method"], "notifications/tools/list_changed");

    let ask = f
        .legacy(
            &session,
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask"}}),
        )
        .await;
    assert_eq!(ask.headers()["content-type"], "text/event-stream");
    let mut events = ask.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("roots/list") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), events.next()).await;
        let chunk = chunk.unwrap_or_else(|_| panic!("no server request in: {seen:?}"));
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap().unwrap()));
    }
    let request_line = seen.lines().find(|l| l.contains("roots/list")).unwrap();
    let request: Value = serde_json::from_str(request_line.trim_start_matches("data:").trim()).unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}});
    assert_eq!(f.legacy(&session, answer).await.status(), StatusCode::ACCEPTED);
    while !seen.contains("\"id\":5") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), events.next()).await;
        let chunk = chunk.unwrap_or_else(|_| panic!("no answer in: {seen:?}"));
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap().unwrap()));
    }
    assert!(seen.contains(r#""text":"2""#), "{seen}");
}

/// Breaks a legacy POST stream after its third event, resumes it with `Last-Event-ID`
/// after `pause` and checks that every event came exactly once.
async fn break_and_resume(f: &Fixture, pause: Duration) {
    let session = f.initialize("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": "t"}}});
    let response = f.legacy(&session, call).await;
    let first = read_events(response, |events| events.len() >= 3).await;
    assert!(first[0].1.is_empty(), "a priming event comes first");
    let last_id = first.last().unwrap().0.clone();
    tokio::time::sleep(pause).await;
    let rest = f.resume(&session, &last_id).await;
    let progress: Vec<f64> = data_json(&first)
        .into_iter()
        .chain(data_json(&rest))
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0, 5.0], "every event exactly once");
    assert!(rest.iter().any(|(_, d)| d.contains("\"done\"")));
}

#[tokio::test]
async fn a_broken_legacy_stream_resumes_with_last_event_id_and_loses_nothing() {
    break_and_resume(&Fixture::start(HttpConfig::default()).await, Duration::ZERO).await;
}

#[tokio::test]
async fn a_handler_ends_its_stream_and_the_client_resumes_the_rest() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call",
        "params": {"name": "polled", "_meta": {"progressToken": "p"}}});
    let response = f.legacy(&session, call.clone()).await;
    // The server ends the stream (the body ends) before the call's answer.
    let first = tokio::time::timeout(Duration::from_secs(5), response.text())
        .await
        .expect("the server ended the stream")
        .unwrap();
    assert!(first.contains(r#""progress":1"#), "{first}");
    assert!(!first.contains("\"result\""), "{first}");
    let last_id = first
        .lines()
        .filter_map(|line| line.strip_prefix("id: "))
        .next_back()
        .unwrap()
        .to_owned();
    let rest = f.resume(&session, &last_id).await;
    let rest = data_json(&rest);
    assert_eq!(rest[0]["params"]["progress"], 2.0, "{rest:?}");
    assert_eq!(rest[1]["result"]["content"][0]["text"], "polled");

    // A stream nothing could resume stays open: a 2026-07-28 call gets its answer on it.
    let modern = f.modern(13, "tools/call", json!({"name": "polled"}), &[]).await;
    assert_eq!(json_of(modern).await["result"]["content"][0]["text"], "polled");
}

/// An event store that counts what goes through it, kept in an [`InMemoryEventStore`].
struct CountingStore {
    inner: InMemoryEventStore,
    appended: AtomicUsize,
    replayed: AtomicUsize,
    ended: AtomicUsize,
}

impl EventStore for CountingStore {
    fn append<'a>(&'a self, session: &'a str, stream: u64, event: StoredEvent) -> BoxFuture<'a, io::Result<()>> {
        self.appended.fetch_add(1, Ordering::SeqCst);
        self.inner.append(session, stream, event)
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'a, io::Result<Option<Vec<StoredEvent>>>> {
        self.replayed.fetch_add(1, Ordering::SeqCst);
        self.inner.replay(session, stream, after)
    }

    fn stream_finished<'a>(&'a self, session: &'a str, stream: u64) -> BoxFuture<'a, io::Result<()>> {
        self.inner.stream_finished(session, stream)
    }

    fn session_ended<'a>(&'a self, session: &'a str) -> BoxFuture<'a, io::Result<()>> {
        self.ended.fetch_add(1, Ordering::SeqCst);
        self.inner.session_ended(session)
    }
}

#[tokio::test]
async fn a_pluggable_event_store_logs_the_streams_and_serves_the_resumption() {
    let store = Arc::new(CountingStore {
        inner: InMemoryEventStore::new(16),
        appended: AtomicUsize::new(0),
        replayed: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
    });
    let f = Fixture::start(HttpConfig::default().event_store(Arc::clone(&store) as Arc<dyn EventStore>)).await;
    // Long enough for the request to finish: everything after the break comes from the store.
    break_and_resume(&f, Duration::from_millis(500)).await;
    assert_eq!(
        store.appended.load(Ordering::SeqCst),
        6,
        "five progress events and the answer"
    );
    assert_eq!(store.replayed.load(Ordering::SeqCst), 1, "one resumption");
    let session = f.initialize("2025-11-25").await;
    assert_eq!(f.delete(&session).await.status(), StatusCode::OK);
    tokio::time::timeout(Duration::from_secs(5), async {
        while store.ended.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the store hears that the session ended");
}

#[tokio::test]
async fn origin_host_size_and_session_limits_are_enforced() {
    let f = Fixture::start(HttpConfig::default().body_limit(1024).max_sessions(2)).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let headers = [("mcp-protocol-version", MODERN), ("mcp-method", "tools/list")];
    let evil_origin = f
        .post(
            ping.clone(),
            &[headers[0], headers[1], ("origin", "http://evil.example")],
        )
        .await;
    assert_eq!(evil_origin.status(), StatusCode::FORBIDDEN);
    let good_origin = f
        .post(
            ping.clone(),
            &[headers[0], headers[1], ("origin", "http://localhost:5173")],
        )
        .await;
    assert_eq!(good_origin.status(), StatusCode::OK);
    let evil_host = f
        .post(ping.clone(), &[headers[0], headers[1], ("host", "evil.example")])
        .await;
    assert_eq!(evil_host.status(), StatusCode::FORBIDDEN, "DNS rebinding");
    let mut big = ping.clone();
    big["params"]["pad"] = json!("x".repeat(2048));
    assert_eq!(f.post(big, &headers).await.status(), StatusCode::PAYLOAD_TOO_LARGE);
    f.initialize("2025-11-25").await;
    f.initialize("2025-11-25").await;
    let third = f
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}),
            &[],
        )
        .await;
    assert_eq!(third.status(), StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn idle_sessions_are_reaped() {
    let f = Fixture::start(HttpConfig::default().session_idle_timeout(Duration::from_millis(200))).await;
    let mut sessions = Vec::new();
    for _ in 0..1000 {
        sessions.push(f.initialize("2025-11-25").await);
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    for session in sessions.iter().step_by(100) {
        assert_eq!(f.legacy(session, ping.clone()).await.status(), StatusCode::NOT_FOUND);
    }
    // A fresh session still works after the churn.
    let session = f.initialize("2025-11-25").await;
    assert_eq!(f.legacy(&session, ping).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn stateless_and_json_response_modes() {
    let f = Fixture::start(HttpConfig::default().stateless(true).json_response(true)).await;
    let init = f
        .post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}),
            &[],
        )
        .await;
    assert!(init.headers().get("mcp-session-id").is_none());
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": 1}}});
    let response = f.post(call, &[("mcp-protocol-version", "2025-06-18")]).await;
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "JSON even with progress"
    );
    let body: Value = json_of(response).await;
    assert_eq!(body["result"]["content"][0]["text"], "done");

    // One client's handshake (2025-11-25 above) must not decide another's version: without
    // the header a request is 2025-03-26, where bad arguments are -32602, not an isError result.
    let bad = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "regional", "arguments": {"region": 5}}});
    let body = json_of(f.post(bad, &[]).await).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
}

#[tokio::test]
async fn handlers_read_the_headers_of_the_post_that_carried_their_request() {
    let text = |body: Value| {
        body["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let call = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "tenant"}});
    let f = Fixture::start(HttpConfig::default().json_response(true)).await;
    let modern = f
        .modern(1, "tools/call", json!({"name": "tenant"}), &[("x-tenant", "acme")])
        .await;
    assert_eq!(text(json_of(modern).await), "acme");
    let carrier = f.modern(7, "tools/call", json!({"name": "carrier"}), &[]).await;
    assert_eq!(
        text(json_of(carrier).await),
        "/mcp from 127.0.0.1",
        "its target and peer too"
    );
    let session = f.initialize("2025-11-25").await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("x-tenant", "globex"),
    ];
    assert_eq!(text(json_of(f.post(call(2), &headers).await).await), "globex");
    let without = f.legacy(&session, call(3)).await;
    assert_eq!(text(json_of(without).await), "none", "each request its own headers");

    let stateless = Fixture::start(HttpConfig::default().stateless(true).json_response(true)).await;
    let headers = [("mcp-protocol-version", "2025-03-26"), ("x-tenant", "initech")];
    let one = stateless.post(call(4), &headers).await;
    assert_eq!(text(json_of(one).await), "initech");
    let batch = stateless.post(json!([call(5), call(6)]), &headers).await;
    let answers = json_of(batch).await;
    assert_eq!(text(answers[0].clone()), "initech");
    assert_eq!(text(answers[1].clone()), "initech");
}

#[tokio::test]
async fn every_method_checks_origin_host_session_and_accept() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize("2025-11-25").await;
    let send = |method: reqwest::Method, headers: Headers| {
        let mut request = f.http.request(method, f.url());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        async move { request.send().await.unwrap().status() }
    };
    let sse = ("accept", "text/event-stream");
    let refused: [(&str, (&str, &str)); 4] = [
        ("a foreign page", ("origin", "http://evil.example")),
        ("an opaque origin", ("origin", "null")),
        ("a look-alike origin", ("origin", "http://localhost.evil.example")),
        ("a rebound host", ("host", "evil.example:80")),
    ];
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        for (case, header) in refused {
            let status = send(method.clone(), vec![sse, ("mcp-session-id", &session), header]).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{method} from {case}");
        }
        let status = send(method.clone(), vec![sse]).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} without a session");
        let status = send(method.clone(), vec![sse, ("mcp-session-id", "0000")]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} for an unknown session");
    }
    let json_only = vec![("accept", "application/json"), ("mcp-session-id", &session)];
    assert_eq!(send(reqwest::Method::GET, json_only).await, StatusCode::NOT_ACCEPTABLE);
    // The refused DELETEs ended nothing.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(f.legacy(&session, ping).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn bodies_and_modern_headers_are_checked_for_every_named_method() {
    let f = Fixture::start(HttpConfig::default()).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let as_text = f
        .http
        .post(f.url())
        .header("content-type", "text/plain")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .body(ping.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(as_text.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let batch = f.post(json!([ping.clone(), ping]), &[]).await;
    assert_eq!(batch.status(), StatusCode::BAD_REQUEST);

    // Each with one header wrong (an empty value: missing).
    let cases: [(&str, Value, (&str, &str)); 5] = [
        ("resources/read", json!({"uri": "file:///a"}), ("mcp-name", "file:///b")),
        ("resources/read", json!({"uri": "file:///a"}), ("mcp-name", "")),
        ("prompts/get", json!({"name": "review"}), ("mcp-name", "other")),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
            ("mcp-name", "=?base64?***?="),
        ),
        (
            "tools/call",
            json!({"name": "regional", "arguments": {"region": "eu"}}),
            ("mcp-param-region", "=?base64?***?="),
        ),
    ];
    for (method, params, header) in cases {
        let response = f.modern(2, method, params, &[header]).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{method} {header:?}");
        assert_eq!(error_code(response).await, -32020, "{method} {header:?}");
    }
    // A modern version header on a body without the modern _meta: the body must agree.
    let legacy_body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let mixed = f
        .post(
            legacy_body,
            &[("mcp-protocol-version", MODERN), ("mcp-method", "tools/list")],
        )
        .await;
    assert_eq!(mixed.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_2025_03_26_client_may_post_a_batch() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize("2025-03-26").await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-03-26"),
    ];
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "one"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}
    ]);
    let response = f.post(batch, &headers).await;
    assert_eq!(response.status(), StatusCode::OK);
    let answers: Value = json_of(response).await;
    let by_id = |id: i64| {
        answers
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_id(1)["result"]["content"][0]["text"], "one", "{answers}");
    assert_eq!(by_id(2)["result"], json!({}), "{answers}");
    assert_eq!(by_id(3)["error"]["code"], -32601, "{answers}");
    assert_eq!(answers.as_array().unwrap().len(), 3, "{answers}");

    let only_notifications = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
    assert_eq!(
        f.post(only_notifications, &headers).await.status(),
        StatusCode::ACCEPTED
    );
    let with_initialize = json!([{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}}]);
    assert_eq!(
        f.post(with_initialize, &headers).await.status(),
        StatusCode::BAD_REQUEST
    );

    // Later revisions have no batches.
    let newer = f.initialize("2025-11-25").await;
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    let refused = f.legacy(&newer, json!([ping.clone(), ping])).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(json_of(refused).await["error"]["message"]
        .as_str()
        .unwrap()
        .contains("2025-03-26"));

    // Without sessions too.
    let stateless = Fixture::start(HttpConfig::default().stateless(true)).await;
    let pings =
        json!([{"jsonrpc": "2.0", "id": 6, "method": "ping"}, {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}]);
    let response = stateless.post(pings, &[("mcp-protocol-version", "2025-03-26")]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(json_of(response).await.as_array().map(Vec::len), Some(2));
}
