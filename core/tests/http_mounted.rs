//! The endpoint served by a host with its own HTTP server (`Server::http_endpoint`): a
//! request's body fed chunk by chunk, the answer streamed back, the body limit holding
//! before the whole body arrived, a client leaving cancelling its request, shutdown, an
//! HTTP+SSE session named by its host, and a caller the host authenticated itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use oxmcp::server::auth::{AccessToken, ResourceServer, VerifyError};
use oxmcp::server::http::{HostedSse, HttpConfig, HttpEndpoint, HttpExchange, RequestHead, ResponseHead};
use oxmcp::server::{Context, Server, ToolDef};
use serde_json::{json, Value};
use tokio::sync::Notify;

/// Sets its flag when dropped: a handler future dropped mid-way was cancelled.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A server with `echo`, and `wait`, which never returns: it notifies `started`, and sets
/// `cancelled` when dropped.
fn server(started: Arc<Notify>, cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("mounted", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .tool(ToolDef::new("whoami").handler(|_, ctx: Context| async move {
            ctx.access_token().map_or("nobody".to_owned(), |token| {
                format!(
                    "{} {}",
                    token.client_id.clone().unwrap_or_default(),
                    token.scopes.join(",")
                )
            })
        }))
        .tool(ToolDef::new("carrier").handler(|_, ctx: Context| async move {
            let request = ctx.http_request().expect("an HTTP request");
            let peer = request.peer().map_or("nowhere".to_owned(), |peer| peer.to_string());
            format!("{} from {peer}", request.uri())
        }))
        .tool(ToolDef::new("wait").handler(move |_, _| {
            let (started, cancelled) = (Arc::clone(&started), Arc::clone(&cancelled));
            async move {
                let _flag = SetOnDrop(cancelled);
                started.notify_one();
                std::future::pending::<String>().await
            }
        }))
        .build()
        .expect("a valid server")
}

/// A POST of a legacy-era request to `/mcp`, as a host hands it over.
fn post(body: &Value) -> (RequestHead, Bytes) {
    post_to("/mcp", body)
}

/// A POST of `body` to `path`, with the headers of a legacy-era client.
fn post_to(path: &str, body: &Value) -> (RequestHead, Bytes) {
    let headers = [
        ("Host", "127.0.0.1:8000"),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let head = RequestHead {
        method: "POST".into(),
        path_and_query: path.into(),
        headers: headers
            .iter()
            .map(|(name, value)| (name.as_bytes().to_vec(), value.as_bytes().to_vec()))
            .collect(),
        caller: None,
        peer: None,
    };
    (head, Bytes::from(serde_json::to_vec(body).unwrap()))
}

/// The answer's head and its whole body.
async fn answer(exchange: &HttpExchange) -> (ResponseHead, Vec<u8>) {
    let head = exchange.response().await.expect("an answer");
    let mut body: Vec<u8> = head.ready.concat();
    while let Some(chunk) = exchange.next_chunk().await {
        body.extend_from_slice(&chunk);
    }
    (head, body)
}

fn header<'a>(head: &'a ResponseHead, name: &str) -> Option<&'a [u8]> {
    head.headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value.as_slice())
}

fn endpoint(config: HttpConfig) -> (HttpEndpoint, Arc<Notify>, Arc<AtomicBool>) {
    let (started, cancelled) = (Arc::new(Notify::new()), Arc::new(AtomicBool::new(false)));
    let server = server(Arc::clone(&started), Arc::clone(&cancelled));
    (
        server.http_endpoint(config).expect("a valid config"),
        started,
        cancelled,
    )
}

fn call(tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": {"text": "hi"}}})
}

#[tokio::test]
async fn a_request_fed_in_chunks_is_answered() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().stateless(true).json_response(true));
    let (head, body) = post(&call("echo"));
    let exchange = endpoint.exchange(head);
    let (first, rest) = body.split_at(body.len() / 2);
    assert!(exchange.send_body(Bytes::copy_from_slice(first)).await);
    assert!(exchange.send_body(Bytes::copy_from_slice(rest)).await);
    exchange.end_body();
    let (head, body) = answer(&exchange).await;
    assert_eq!(head.status, 200);
    assert!(head.ended, "a JSON answer is whole with its head");
    assert_eq!(header(&head, "content-type"), Some(&b"application/json"[..]));
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn the_body_limit_holds_before_the_body_is_whole() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().body_limit(4096));
    let (head, _) = post(&call("echo"));
    let exchange = endpoint.exchange(head);
    let chunk = Bytes::from(vec![b' '; 1024]);
    // The endpoint stops reading past its limit: the host learns it and stops sending,
    // long before the megabyte it would otherwise have sent.
    let mut sent = 0;
    while sent < 1024 && exchange.send_body(chunk.clone()).await {
        sent += 1;
    }
    assert!(sent < 16, "{sent} chunks of 1 KiB taken");
    let (head, body) = answer(&exchange).await;
    assert_eq!(head.status, 413);
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["error"]["code"], -32600);
}

#[tokio::test]
async fn a_host_that_is_not_allowed_is_refused() {
    let (endpoint, _, _) = endpoint(HttpConfig::default());
    let (mut head, body) = post(&call("echo"));
    head.headers[0].1 = b"evil.example".to_vec();
    let exchange = endpoint.exchange(head);
    exchange.send_body(body).await;
    exchange.end_body();
    assert_eq!(answer(&exchange).await.0.status, 403);
}

#[tokio::test]
async fn a_malformed_head_is_answered_400() {
    let (endpoint, _, _) = endpoint(HttpConfig::default());
    let (mut head, _) = post(&call("echo"));
    head.headers.push((b"bad name".to_vec(), b"x".to_vec()));
    let exchange = endpoint.exchange(head);
    assert_eq!(answer(&exchange).await.0.status, 400);
}

#[tokio::test]
async fn a_client_leaving_cancels_its_request() {
    let (endpoint, started, cancelled) = endpoint(HttpConfig::default().stateless(true));
    let (head, body) = post(&call("wait"));
    let exchange = Arc::new(endpoint.exchange(head));
    exchange.send_body(body).await;
    exchange.end_body();
    let waiting = tokio::spawn({
        let exchange = Arc::clone(&exchange);
        async move {
            if exchange.response().await.is_some() {
                while exchange.next_chunk().await.is_some() {}
            }
        }
    });
    started.notified().await;
    assert!(!cancelled.load(Ordering::SeqCst));
    exchange.cancel();
    tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the host's calls return once cancelled")
        .unwrap();
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the handler was not cancelled");
}

#[tokio::test]
async fn shutdown_cancels_what_outlives_its_deadline() {
    let config = HttpConfig::default()
        .stateless(true)
        .shutdown_timeout(Duration::from_millis(200));
    let (endpoint, started, cancelled) = endpoint(config);
    let (head, body) = post(&call("wait"));
    let exchange = endpoint.exchange(head);
    exchange.send_body(body).await;
    exchange.end_body();
    started.notified().await;
    tokio::time::timeout(Duration::from_secs(5), endpoint.shutdown())
        .await
        .expect("shutdown ends at its deadline");
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the handler was not cancelled");
}

/// The next whole SSE event of a stream, as text.
async fn next_event(exchange: &HttpExchange, pending: &mut String) -> String {
    loop {
        if let Some(end) = pending.find("\n\n") {
            let event = pending[..end].to_owned();
            pending.drain(..end + 2);
            return event;
        }
        let chunk = exchange.next_chunk().await.expect("the stream goes on");
        pending.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test]
async fn a_host_names_an_http_sse_session_and_where_its_client_posts() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().legacy_sse(true));
    let hosted = HostedSse::new("0b7a-session_1", "/rpc/messages?tenant=a&sessionId=stale").unwrap();
    let (head, _) = post_to("/ignored", &Value::Null);
    let stream = endpoint.open_hosted_sse(head.clone(), hosted.clone());
    let opened = stream.response().await.expect("a stream");
    assert_eq!(opened.status, 200);
    let mut pending = String::from_utf8(opened.ready.concat()).unwrap();
    assert_eq!(
        next_event(&stream, &mut pending).await,
        "event: endpoint\ndata: /rpc/messages?tenant=a&sessionId=0b7a-session_1"
    );

    // The host routes the client's messages to the session by its id.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    for message in [initialize, call("echo")] {
        let (head, body) = post_to("/messages?sessionId=0b7a-session_1", &message);
        let exchange = endpoint.exchange(head);
        exchange.send_whole_body(body);
        assert_eq!(answer(&exchange).await.0.status, 202);
        let event = next_event(&stream, &mut pending).await;
        let data: Value = serde_json::from_str(event.strip_prefix("event: message\ndata: ").unwrap()).unwrap();
        assert_eq!(data["id"], message["id"]);
    }

    // The id is the session's while its stream lasts; a second stream under it is refused.
    let twice = endpoint.open_hosted_sse(head.clone(), hosted.clone());
    assert_eq!(twice.response().await.unwrap().status, 409);
    stream.cancel();
    let (head, body) = post_to("/messages?sessionId=0b7a-session_1", &call("echo"));
    let after = endpoint.exchange(head);
    after.send_whole_body(body);
    assert_eq!(answer(&after).await.0.status, 404, "the session ended with its stream");
}

#[test]
fn a_hosted_session_id_is_refused_unless_it_is_plain_text() {
    for id in ["", "a b", "a&b", "\u{e9}", &"x".repeat(129)] {
        assert!(HostedSse::new(id, "/messages").is_err(), "{id:?}");
    }
    assert_eq!(HostedSse::new("abc", "/messages").unwrap().session_id(), "abc");
}

/// What the whoami tool answers to `head` (with a stateless, JSON-answering endpoint).
async fn whoami(endpoint: &HttpEndpoint, caller: Option<AccessToken>) -> (u16, Value) {
    let (head, body) = post(&call("whoami"));
    let exchange = endpoint.exchange(RequestHead { caller, ..head });
    exchange.send_whole_body(body);
    let (head, body) = answer(&exchange).await;
    (head.status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_caller_the_host_authenticated_reaches_the_handlers_of_an_open_endpoint() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().stateless(true).json_response(true));
    let alice = AccessToken::new("t-1").client_id("alice").scopes(["notes", "mail"]);
    let (status, answer) = whoami(&endpoint, Some(alice)).await;
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["content"][0]["text"], "alice notes,mail");
    let (_, answer) = whoami(&endpoint, None).await;
    assert_eq!(answer["result"]["content"][0]["text"], "nobody");
}

#[tokio::test]
async fn handlers_read_the_target_and_peer_the_host_handed_over() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().stateless(true).json_response(true));
    let peer = "203.0.113.7:4711".parse().ok();
    for (peer, seen) in [(peer, "203.0.113.7:4711"), (None, "nowhere")] {
        let (head, body) = post_to("/mcp?tenant=acme", &call("carrier"));
        let exchange = endpoint.exchange(RequestHead { peer, ..head });
        exchange.send_whole_body(body);
        let (_, body) = answer(&exchange).await;
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("/mcp?tenant=acme from {seen}")
        );
    }
}

#[tokio::test]
async fn a_session_opened_by_a_vouched_caller_serves_only_that_caller() {
    let (endpoint, _, _) = endpoint(HttpConfig::default().json_response(true));
    let as_client = |client: &str| Some(AccessToken::new(format!("token-of-{client}")).client_id(client));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (head, body) = post(&initialize);
    let exchange = endpoint.exchange(RequestHead {
        caller: as_client("alice"),
        ..head
    });
    exchange.send_whole_body(body);
    let (head, _) = answer(&exchange).await;
    let session = String::from_utf8(header(&head, "mcp-session-id").expect("a session").to_vec()).unwrap();
    let in_session = |client: &str| {
        let (mut head, body) = post(&call("whoami"));
        head.headers
            .push((b"mcp-session-id".to_vec(), session.clone().into_bytes()));
        let exchange = endpoint.exchange(RequestHead {
            caller: as_client(client),
            ..head
        });
        exchange.send_whole_body(body);
        exchange
    };
    let (head, _) = answer(&in_session("mallory")).await;
    assert_eq!(head.status, 404, "another caller does not find the session");
    let (head, body) = answer(&in_session("alice")).await;
    assert_eq!(head.status, 200);
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "alice ");
}

#[tokio::test]
async fn a_protected_endpoint_does_not_take_the_hosts_word() {
    let verifier = |token: String| async move {
        match token.as_str() {
            "good" => Ok(AccessToken::new(token)
                .client_id("checked")
                .scopes(["mcp"])
                .audience(["http://127.0.0.1:8000/mcp"])),
            _ => Err(VerifyError::Invalid("unknown token".into())),
        }
    };
    let auth = ResourceServer::new(verifier)
        .resource_url("http://127.0.0.1:8000/mcp")
        .authorization_servers(["http://127.0.0.1:9000"]);
    let (endpoint, _, _) = endpoint(HttpConfig::default().stateless(true).json_response(true).auth(auth));
    let vouched = AccessToken::new("anything").client_id("vouched").scopes(["mcp"]);
    let (status, _) = whoami(&endpoint, Some(vouched.clone())).await;
    assert_eq!(status, 401, "no token of its own: refused whatever the host says");
    let (mut head, body) = post(&call("whoami"));
    head.headers.push((b"authorization".to_vec(), b"Bearer good".to_vec()));
    let exchange = endpoint.exchange(RequestHead {
        caller: Some(vouched),
        ..head
    });
    exchange.send_whole_body(body);
    let (_, body) = answer(&exchange).await;
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "checked mcp");
}
