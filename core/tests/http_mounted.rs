//! The endpoint served by a host with its own HTTP server (`Server::http_endpoint`): a
//! request's body fed chunk by chunk, the answer streamed back, the body limit holding
//! before the whole body arrived, a client leaving cancelling its request, shutdown.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use oxmcp::server::http::{HttpConfig, HttpEndpoint, HttpExchange, RequestHead, ResponseHead};
use oxmcp::server::{Server, ToolDef};
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
    let headers = [
        ("Host", "127.0.0.1:8000"),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let head = RequestHead {
        method: "POST".into(),
        path_and_query: "/mcp".into(),
        headers: headers
            .iter()
            .map(|(name, value)| (name.as_bytes().to_vec(), value.as_bytes().to_vec()))
            .collect(),
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
