//! The HTTP server against hostile and careless clients, on real sockets: every bound holds
//! while the server keeps serving everyone else, and shutdown ends what is open.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use oxmcp::protocol::LoggingLevel;
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, Server, ToolDef};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod common;

use common::{mcp_post, read_events};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// Counts the handlers of `wait` that were stopped before they finished.
#[derive(Clone, Default)]
struct Stopped(Arc<AtomicUsize>);

struct StopGuard(Stopped);

impl Drop for StopGuard {
    fn drop(&mut self) {
        self.0 .0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Stopped {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Waits until `n` handlers were stopped.
    async fn reach(&self, n: usize) {
        let waited = tokio::time::timeout(Duration::from_secs(10), async {
            while self.count() < n {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        assert!(waited.is_ok(), "{} of {n} handlers stopped", self.count());
    }
}

fn server(builder: oxmcp::server::ServerBuilder, stopped: Stopped) -> Server {
    builder
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .tool(ToolDef::new("wait").handler(move |_, _| {
            let guard = StopGuard(stopped.clone());
            async move {
                tokio::time::sleep(Duration::from_secs(60)).await;
                std::mem::forget(guard);
                "waited"
            }
        }))
        .tool(ToolDef::new("roots").handler(|_, ctx: Context| async move {
            ctx.list_roots().await.map(|roots| roots.roots.len().to_string())
        }))
        .tool(ToolDef::new("chatty").handler(|args, ctx: Context| async move {
            let (count, size) = (args["count"].as_u64().unwrap_or(1), args["size"].as_u64().unwrap_or(1));
            for _ in 0..count {
                ctx.log(LoggingLevel::Info, None, "x".repeat(size as usize)).await;
            }
            "said it all"
        }))
        .build()
        .unwrap()
}

struct Fixture {
    handle: HttpServerHandle,
    http: reqwest::Client,
    stopped: Stopped,
}

impl Fixture {
    async fn start(config: HttpConfig) -> Self {
        Self::with_server(Server::builder("hardening", "1.0.0"), config).await
    }

    async fn with_server(builder: oxmcp::server::ServerBuilder, config: HttpConfig) -> Self {
        let stopped = Stopped::default();
        let handle = server(builder, stopped.clone())
            .bind_http("127.0.0.1:0", config)
            .await
            .unwrap();
        Fixture {
            handle,
            http: reqwest::Client::new(),
            stopped,
        }
    }

    fn url(&self) -> String {
        self.handle.url("/mcp")
    }

    fn post(&self, body: &Value, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
        mcp_post(&self.http, &self.url(), body, headers)
    }

    /// `initialize` as a legacy client sends it; the session id, if one was given.
    async fn initialize(&self) -> Result<String, StatusCode> {
        let response = self.post(&initialize_body(), &[]).send().await.unwrap();
        match response.headers().get("mcp-session-id") {
            Some(id) if response.status() == StatusCode::OK => Ok(id.to_str().unwrap().to_owned()),
            _ => Err(response.status()),
        }
    }

    /// A legacy request in `session`.
    fn legacy(&self, session: &str, body: &Value) -> reqwest::RequestBuilder {
        self.post(body, &[("mcp-session-id", session), ("mcp-protocol-version", LEGACY)])
    }

    /// The session's GET stream, or with `last_event_id` the resumption of one of its
    /// streams.
    async fn get_stream(&self, session: &str, last_event_id: Option<&str>) -> reqwest::Response {
        let mut request = self
            .http
            .get(self.url())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        request.send().await.unwrap()
    }

    /// A modern `tools/call` with its headers.
    fn modern_call(&self, id: u64, name: &str, arguments: Value) -> reqwest::RequestBuilder {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        self.post(
            &body,
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "tools/call"),
                ("mcp-name", name),
            ],
        )
    }
}

fn initialize_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

async fn body_json(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

/// Whether the server closed a raw connection (EOF or reset) within `within`.
async fn closed_within(tcp: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    let read = tokio::time::timeout(within, async {
        loop {
            match tcp.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                // The server may answer (408) before it closes.
                Ok(_) => continue,
            }
        }
    });
    read.await.is_ok()
}

fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches(" kB").trim().parse::<usize>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[tokio::test]
async fn half_open_connections_are_closed_while_other_clients_are_answered() {
    let f = Fixture::start(HttpConfig::default().header_read_timeout(Duration::from_millis(800))).await;
    let mut half_open = Vec::new();
    for _ in 0..300 {
        let mut tcp = TcpStream::connect(f.handle.local_addr()).await.unwrap();
        tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
            .await
            .unwrap();
        half_open.push(tcp);
    }
    let started = Instant::now();
    let answered = f.post(&initialize_body(), &[]).send().await.unwrap();
    assert_eq!(answered.status(), StatusCode::OK);
    assert!(started.elapsed() < Duration::from_secs(2), "answered promptly");
    for tcp in &mut half_open {
        assert!(
            closed_within(tcp, Duration::from_secs(10)).await,
            "a half-open connection is closed"
        );
    }
}

#[tokio::test]
async fn idle_connections_are_closed_and_a_slow_body_gets_408() {
    let config = HttpConfig::default()
        .header_read_timeout(Duration::from_millis(500))
        .body_read_timeout(Duration::from_millis(500));
    let f = Fixture::start(config).await;
    let mut idle = TcpStream::connect(f.handle.local_addr()).await.unwrap();
    assert!(
        closed_within(&mut idle, Duration::from_secs(10)).await,
        "an idle connection is closed"
    );

    let mut slow = TcpStream::connect(f.handle.local_addr()).await.unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"";
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the slow body is given up on");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn past_the_connection_cap_clients_wait_until_a_connection_closes() {
    let f = Fixture::start(HttpConfig::default().max_connections(4)).await;
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(TcpStream::connect(f.handle.local_addr()).await.unwrap());
    }
    // Let the listener take the four before the fifth comes.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let waiting = f
        .post(&initialize_body(), &[])
        .timeout(Duration::from_millis(500))
        .send()
        .await;
    assert!(waiting.is_err(), "the fifth connection waits");
    drop(open.pop());
    let served = f
        .post(&initialize_body(), &[])
        .timeout(Duration::from_secs(10))
        .send()
        .await;
    assert_eq!(served.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn a_flood_of_bare_initialize_requests_does_not_lock_clients_out() {
    let config = HttpConfig::default()
        .max_sessions(500)
        .new_session_timeout(Duration::from_millis(300));
    let f = Fixture::start(config).await;
    // A client that came back after `initialize` keeps its session through the flood.
    let kept = f.initialize().await.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        f.legacy(&kept, &initialized).send().await.unwrap().status(),
        StatusCode::ACCEPTED
    );

    let before = resident_bytes();
    let refused = AtomicUsize::new(0);
    futures::stream::iter(0..20_000)
        .for_each_concurrent(32, |_| async {
            if f.initialize().await.is_err() {
                refused.fetch_add(1, Ordering::Relaxed);
            }
        })
        .await;
    let grown = resident_bytes().saturating_sub(before);
    assert!(refused.load(Ordering::Relaxed) > 0, "the flood met the session cap");
    assert!(grown < 200 << 20, "memory stays bounded: grew {} MiB", grown >> 20);

    tokio::time::sleep(Duration::from_millis(1200)).await;
    let newcomer = f
        .initialize()
        .await
        .expect("a new client is served once the bare sessions expired");
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(
        f.legacy(&newcomer, &ping).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(f.legacy(&kept, &ping).send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn a_failed_initialize_opens_no_session() {
    let f = Fixture::start(HttpConfig::default().max_sessions(1)).await;
    let broken = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 7}});
    for _ in 0..3 {
        let response = f.post(&broken, &[]).send().await.unwrap();
        assert!(response.headers().get("mcp-session-id").is_none());
        assert_eq!(body_json(response).await["error"]["code"], -32602);
    }
    f.initialize().await.expect("the only session is still free");
    assert_eq!(f.initialize().await, Err(StatusCode::SERVICE_UNAVAILABLE));
}

#[tokio::test]
async fn the_sse_sessions_of_2024_count_against_the_cap() {
    let f = Fixture::start(HttpConfig::default().legacy_sse(true).max_sessions(1)).await;
    let stream = f
        .http
        .get(f.handle.url("/sse"))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(f.initialize().await, Err(StatusCode::SERVICE_UNAVAILABLE));
    drop(stream);
    let freed = tokio::time::timeout(Duration::from_secs(10), async {
        while f.initialize().await.is_err() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    assert!(freed.await.is_ok(), "closing the /sse stream frees its place");
}

#[tokio::test]
async fn requests_in_flight_are_capped_with_a_clear_error() {
    let f = Fixture::start(HttpConfig::default().max_in_flight(2)).await;
    let mut waiting = Vec::new();
    for id in 1..=2 {
        waiting.push(tokio::spawn(f.modern_call(id, "wait", json!({})).send()));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let refused = body_json(f.modern_call(3, "echo", json!({"text": "hi"})).send().await.unwrap()).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("Server busy"),
        "{refused}"
    );
    for request in waiting {
        request.abort();
    }
    f.stopped.reach(2).await;
    let served = body_json(f.modern_call(4, "echo", json!({"text": "hi"})).send().await.unwrap()).await;
    assert_eq!(
        served["result"]["content"][0]["text"], "hi",
        "room again once they were cancelled"
    );
}

#[tokio::test]
async fn a_legacy_client_that_goes_away_before_its_answer_cancels_its_request() {
    let f = Fixture::start(HttpConfig::default()).await;
    let session = f.initialize().await.unwrap();
    let gave_up = f
        .legacy(&session, &call(1, "wait", json!({})))
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(gave_up.is_err());
    f.stopped.reach(1).await;
}

#[tokio::test]
async fn subscriptions_are_capped_per_session_and_refused_without_one() {
    let builder = Server::builder("hardening", "1.0.0").max_subscriptions(100);
    let f = Fixture::with_server(builder, HttpConfig::default()).await;
    let session = f.initialize().await.unwrap();
    let subscribe = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
        "params": {"uri": format!("file:///{id}")}})
    };
    let mut refused = 0;
    for id in 0..150 {
        let answer = body_json(f.legacy(&session, &subscribe(id)).send().await.unwrap()).await;
        if answer.get("error").is_some() {
            refused += 1;
        }
    }
    assert_eq!(refused, 50);

    let stateless = Fixture::start(HttpConfig::default().stateless(true)).await;
    let answer = body_json(
        stateless
            .post(&subscribe(1), &[("mcp-protocol-version", LEGACY)])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
}

#[tokio::test]
async fn a_session_keeps_a_bounded_number_of_event_bytes_for_resumption() {
    let f = Fixture::start(HttpConfig::default().event_bytes_kept(64 * 1024, 1 << 20)).await;
    let session = f.initialize().await.unwrap();
    let chatty = call(1, "chatty", json!({"count": 64, "size": 4096}));
    let live = read_events(f.legacy(&session, &chatty).send().await.unwrap(), |_| false).await;
    assert!(live.len() >= 65, "every event is sent live: {}", live.len());
    let stream = live[0].0.split('-').next().unwrap().to_owned();
    let resume_from = format!("{stream}-0");
    let replayed = read_events(f.get_stream(&session, Some(&resume_from)).await, |_| false).await;
    let kept: usize = replayed.iter().map(|(_, data)| data.len()).sum();
    assert!(kept <= 64 * 1024, "kept {kept} bytes");
    assert!(kept > 32 * 1024, "the newest events are kept: {kept} bytes");
    assert!(
        replayed.last().unwrap().1.contains("said it all"),
        "the answer is among them"
    );
}

#[tokio::test]
async fn a_request_to_the_client_times_out_and_is_cancelled() {
    let builder = Server::builder("hardening", "1.0.0").client_request_timeout(Duration::from_millis(300));
    let f = Fixture::with_server(builder, HttpConfig::default()).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {"roots": {}}, "clientInfo": {"name": "raw", "version": "1"}}});
    let session = f.post(&init, &[]).send().await.unwrap().headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let events = read_events(
        f.legacy(&session, &call(1, "roots", json!({}))).send().await.unwrap(),
        |_| false,
    )
    .await;
    let messages: Vec<Value> = events
        .iter()
        .filter(|(_, data)| !data.is_empty())
        .map(|(_, data)| serde_json::from_str(data).unwrap())
        .collect();
    let asked = messages
        .iter()
        .find(|m| m["method"] == "roots/list")
        .expect("the client was asked");
    let cancelled = messages
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("and told to stop");
    assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    let answer = messages.last().unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("no answer within"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_session_whose_stream_is_open_is_not_reaped() {
    let f = Fixture::start(HttpConfig::default().session_idle_timeout(Duration::from_millis(200))).await;
    let session = f.initialize().await.unwrap();
    let stream = f.get_stream(&session, None).await;
    assert_eq!(stream.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(f.legacy(&session, &ping).send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn shutdown_ends_open_streams_and_cancels_what_runs_past_the_deadline() {
    let f = Fixture::start(HttpConfig::default().shutdown_timeout(Duration::from_secs(3))).await;
    let session = f.initialize().await.unwrap();
    let stream = f.get_stream(&session, None).await;
    let in_flight = tokio::spawn(f.legacy(&session, &call(1, "wait", json!({}))).send());
    let modern = tokio::spawn(f.modern_call(2, "wait", json!({})).send());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let Fixture { handle, stopped, .. } = f;
    let url = handle.url("/mcp");
    let shutdown = tokio::spawn(handle.shutdown());
    // The GET stream only waits for events: it ends at once, long before the deadline that
    // the calls in flight are given.
    let ended = tokio::time::timeout(Duration::from_millis(1500), stream.bytes_stream().count()).await;
    assert!(ended.is_ok(), "the GET stream ended before the deadline");
    assert_eq!(stopped.count(), 0, "the calls in flight still run");
    tokio::time::timeout(Duration::from_secs(10), shutdown)
        .await
        .expect("shutdown returns after its deadline")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(6));
    stopped.reach(2).await;
    let _ = in_flight.await;
    let _ = modern.await;
    assert!(reqwest::get(url).await.is_err(), "nothing listens any more");
}

#[tokio::test]
async fn cors_answers_vary_by_origin_and_reflect_only_configured_ones() {
    let f = Fixture::start(
        HttpConfig::default()
            .allowed_origins(["https://app.example", "https://evil.example"])
            .cors_origins(["https://app.example"]),
    )
    .await;
    let allowed = f
        .post(&initialize_body(), &[("origin", "https://app.example")])
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.headers()["access-control-allow-origin"], "https://app.example");
    assert_eq!(allowed.headers()["vary"], "Origin");
    // A page's script reads the session and an auth challenge, and may send a token.
    assert_eq!(
        allowed.headers()["access-control-expose-headers"],
        "mcp-session-id, www-authenticate, dpop-nonce"
    );
    let preflight = f
        .http
        .request(reqwest::Method::OPTIONS, f.url())
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type")
        .send()
        .await
        .unwrap();
    let allowed_headers = preflight.headers()["access-control-allow-headers"].to_str().unwrap();
    assert!(
        allowed_headers.split(", ").any(|h| h == "authorization"),
        "{allowed_headers}"
    );
    let other = f
        .post(&initialize_body(), &[("origin", "https://evil.example")])
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
    assert_eq!(other.headers()["vary"], "Origin");
}
