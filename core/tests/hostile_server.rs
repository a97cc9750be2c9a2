//! Our client against small HTTP servers that misbehave on purpose (axum apps on
//! 127.0.0.1 and a free port, stopped at the end of each test): a cursor loop and lists
//! without end, a flood of requests to the client, too many sampling requests in one
//! `input_required` round, an enormous SSE `retry:`, a GET stream that keeps closing.
//! The client fails cleanly, within its limits, and never spins; the bounds the tests
//! assert are generous, so a slow machine passes them too.

mod common;

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::Served;
use futures::StreamExt;
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult, ErrorObject,
};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use oxmcp::Error;
use serde_json::{json, Value};
use tokio::sync::{mpsc, Semaphore};
use tokio_stream::wrappers::ReceiverStream;

/// How long any one step may take before the test calls it a hang: far more than any
/// step needs.
const PATIENCE: Duration = Duration::from_secs(20);

/// How a hostile server answers each message POSTed to it (requests, notifications, and
/// the client's responses), after [`handshake`].
type Answer = Arc<dyn Fn(&Value) -> Response + Send + Sync>;

/// A server with the MCP endpoint `/mcp`: POSTs go to [`handshake`], then to `answer`;
/// GETs to `get` (the legacy GET stream).
async fn serve(answer: Answer, get: impl Fn(&HeaderMap) -> Response + Clone + Send + Sync + 'static) -> Served {
    Served::start(|_| {
        Router::new().route(
            "/mcp",
            post(move |body: String| async move {
                let message: Value = serde_json::from_str(&body).unwrap_or_default();
                handshake(&message).unwrap_or_else(|| answer(&message))
            })
            .get(move |headers: HeaderMap| async move { get(&headers) })
            .delete(|| async { StatusCode::OK }),
        )
    })
    .await
}

fn method(message: &Value) -> &str {
    message["method"].as_str().unwrap_or_default()
}

/// A GET stream that the server does not offer.
fn no_get_stream(_: &HeaderMap) -> Response {
    StatusCode::METHOD_NOT_ALLOWED.into_response()
}

fn result(id: &Value, result: Value) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// An SSE answer of these events (each a complete `field: value` block).
fn events(events: impl futures::Stream<Item = String> + Send + 'static) -> Response {
    let body = Body::from_stream(events.map(|event| Ok::<_, Infallible>(format!("{event}\n\n"))));
    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

/// What every hostile server answers to the start of a connection: `server/discover`
/// (modern), `initialize` with a session (legacy), 202 for the notifications.
fn handshake(message: &Value) -> Option<Response> {
    let id = &message["id"];
    match method(message) {
        "server/discover" => Some(result(
            id,
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                   "resultType": "complete"}),
        )),
        "initialize" => {
            let mut answer = result(
                id,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "hostile", "version": "1"}}),
            );
            let session = header::HeaderValue::from_static("hostile-session");
            answer.headers_mut().insert("mcp-session-id", session);
            Some(answer)
        }
        notification if notification.starts_with("notifications/") => Some(StatusCode::ACCEPTED.into_response()),
        _ => None,
    }
}

async fn client(served: &Served, http: HttpClientOptions, options: ClientOptions) -> Client {
    let transport = connect(http.legacy_sse_fallback(false)).expect("a transport");
    tokio::time::timeout(PATIENCE, Client::connect(transport, options))
        .await
        .expect("connects in time")
        .unwrap_or_else(|e| panic!("connects to {}: {e}", served.base))
}

fn options(era: EraMode) -> ClientOptions {
    ClientOptions::new("hostile-tests", "1.0.0")
        .era(era)
        .timeout(Some(PATIENCE))
}

fn url(served: &Served) -> String {
    format!("{}/mcp", served.base)
}

/// Waits (generously) until `done` holds.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn listing_stops_on_a_repeated_cursor_and_at_the_page_limit() {
    let pages = Arc::new(AtomicUsize::new(0));
    let served_pages = Arc::clone(&pages);
    let answer: Answer = Arc::new(move |message| {
        let id = &message["id"];
        let page = served_pages.fetch_add(1, Ordering::SeqCst);
        match method(message) {
            // Always the same cursor: a loop.
            "tools/list" => result(
                id,
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}], "nextCursor": "again"}),
            ),
            "prompts/list" => result(id, json!({"prompts": [{"name": "p"}], "nextCursor": "again"})),
            // Always a new cursor: no end.
            "resources/list" => result(
                id,
                json!({"resources": [{"uri": "r://x", "name": "x"}], "nextCursor": format!("page-{page}")}),
            ),
            "resources/templates/list" => result(
                id,
                json!({"resourceTemplates": [{"uriTemplate": "r://{x}", "name": "x"}],
                       "nextCursor": format!("page-{page}")}),
            ),
            _ => StatusCode::BAD_REQUEST.into_response(),
        }
    });
    let served = serve(answer, no_get_stream).await;
    let http = HttpClientOptions::new(url(&served));
    let client = client(&served, http, options(EraMode::Modern).max_list_pages(20)).await;

    let looped = [
        tokio::time::timeout(PATIENCE, client.list_all_tools())
            .await
            .map(|r| r.map(drop)),
        tokio::time::timeout(PATIENCE, client.list_all_prompts())
            .await
            .map(|r| r.map(drop)),
    ];
    for outcome in looped {
        match outcome.expect("the listing ends") {
            Err(Error::Protocol(message)) => assert!(message.contains("\"again\" again"), "{message}"),
            other => panic!("not refused: {other:?}"),
        }
    }
    assert_eq!(pages.load(Ordering::SeqCst), 4, "two pages per loop");
    let endless = [
        tokio::time::timeout(PATIENCE, client.list_all_resources())
            .await
            .map(|r| r.map(drop)),
        tokio::time::timeout(PATIENCE, client.list_all_resource_templates())
            .await
            .map(|r| r.map(drop)),
    ];
    for outcome in endless {
        match outcome.expect("the listing ends") {
            Err(Error::Protocol(message)) => assert!(message.contains("after 20 pages"), "{message}"),
            other => panic!("not refused: {other:?}"),
        }
    }
    assert_eq!(pages.load(Ordering::SeqCst), 4 + 2 * 20, "the page limit, no more");
    // One page at a time still works.
    assert_eq!(client.list_tools(None).await.expect("a page").tools.len(), 1);
    client.close().await.expect("closed");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn too_many_sampling_requests_in_one_round_fail_before_any_is_answered() {
    let answer: Answer = Arc::new(|message| {
        let (id, params) = (&message["id"], &message["params"]);
        if method(message) != "tools/call" {
            return StatusCode::BAD_REQUEST.into_response();
        }
        if let Some(responses) = params["inputResponses"].as_object() {
            let text = format!("answered {}", responses.len());
            return result(
                id,
                json!({"content": [{"type": "text", "text": text}], "resultType": "complete"}),
            );
        }
        let count = params["arguments"]["count"].as_u64().unwrap_or_default();
        let sampling = json!({"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}});
        let requests: serde_json::Map<String, Value> =
            (0..count).map(|n| (format!("s{n}"), sampling.clone())).collect();
        result(
            id,
            json!({"resultType": "input_required", "inputRequests": requests, "requestState": "state"}),
        )
    });
    let served = serve(answer, no_get_stream).await;
    let sampled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sampled);
    let options = options(EraMode::Modern).max_sampling_per_round(3).on_sampling(
        move |_: CreateMessageRequestParams| {
            counter.fetch_add(1, Ordering::SeqCst);
            async {
                let reply = json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"});
                Ok::<_, ErrorObject>(serde_json::from_value::<CreateMessageResult>(reply).expect("a sampling result"))
            }
        },
        false,
    );
    let client = client(&served, HttpClientOptions::new(url(&served)), options).await;

    match client.call_tool("ask", json!({"count": 50})).await {
        Err(Error::Unsupported(message)) => assert!(message.contains("50 sampling requests"), "{message}"),
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(sampled.load(Ordering::SeqCst), 0, "no request reached the handler");

    let within = client.call_tool("ask", json!({"count": 3})).await.expect("answered");
    assert_eq!(within.content[0].as_text(), Some("answered 3"));
    assert_eq!(sampled.load(Ordering::SeqCst), 3);
    client.close().await.expect("closed");
    served.stop().await;
}

/// What the flooding server keeps: the response stream of the `tools/call`, ended with
/// its result once every request of the flood is answered, and the client's answers.
#[derive(Default)]
struct Flood {
    stream: Option<(Value, mpsc::Sender<String>)>,
    answered: usize,
    refusals: Vec<String>,
}

#[tokio::test(flavor = "multi_thread")]
async fn server_requests_beyond_the_limit_are_refused_at_once() {
    const FLOOD: usize = 20;
    const LIMIT: usize = 4;
    let flood = Arc::new(Mutex::new(Flood::default()));
    let state = Arc::clone(&flood);
    let answer: Answer = Arc::new(move |message| {
        let mut flood = state.lock().unwrap();
        if method(message) == "tools/call" {
            // The call's answer: a stream of elicitation requests, all at once.
            let (stream, events_rx) = mpsc::channel(FLOOD + 1);
            for n in 0..FLOOD {
                let request = json!({"jsonrpc": "2.0", "id": format!("e{n}"), "method": "elicitation/create",
                    "params": {"mode": "form", "message": "name?", "requestedSchema": {"type": "object"}}});
                stream.try_send(format!("data: {request}")).expect("room");
            }
            flood.stream = Some((message["id"].clone(), stream));
            return events(ReceiverStream::new(events_rx));
        }
        // The client's answers to the flood.
        match message.get("error") {
            Some(error) => flood
                .refusals
                .push(error["message"].as_str().unwrap_or_default().to_owned()),
            None => flood.answered += 1,
        }
        if flood.answered + flood.refusals.len() == FLOOD {
            if let Some((id, stream)) = flood.stream.take() {
                let done = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": "flood over"}]}});
                stream.try_send(format!("data: {done}")).expect("room");
            }
        }
        StatusCode::ACCEPTED.into_response()
    });
    let served = serve(answer, no_get_stream).await;

    let started = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Semaphore::new(0));
    let (counter, held) = (Arc::clone(&started), Arc::clone(&gate));
    let options = options(EraMode::Legacy).max_server_requests(LIMIT).on_elicitation(
        move |_: ElicitRequestParams| {
            counter.fetch_add(1, Ordering::SeqCst);
            let held = Arc::clone(&held);
            async move {
                // The handler (a user, say) takes its time: the flood piles up meanwhile.
                let _ = held.acquire().await;
                Ok::<_, ErrorObject>(ElicitResult {
                    action: ElicitAction::Decline,
                    content: None,
                    meta: None,
                })
            }
        },
        false,
    );
    let client = client(&served, HttpClientOptions::new(url(&served)), options).await;
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("flood", json!({})).await })
    };
    until("the requests past the limit are refused", || {
        flood.lock().unwrap().refusals.len() == FLOOD - LIMIT
    })
    .await;
    assert_eq!(
        started.load(Ordering::SeqCst),
        LIMIT,
        "only the limit reached the handler"
    );
    let refusal = flood.lock().unwrap().refusals[0].clone();
    assert!(refusal.contains("limit"), "{refusal}");

    gate.add_permits(FLOOD);
    let done = tokio::time::timeout(PATIENCE, call)
        .await
        .expect("the call ends")
        .expect("the task")
        .expect("the call");
    assert_eq!(done.content[0].as_text(), Some("flood over"));
    assert_eq!(flood.lock().unwrap().answered, LIMIT);
    client.close().await.expect("closed");
    served.stop().await;
}

/// The result of a legacy `tools/call` with this id.
fn resumed(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "resumed"}]}}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_enormous_retry_is_capped_by_the_reconnection_policy() {
    let pending = Arc::new(Mutex::new(Value::Null));
    let call = Arc::clone(&pending);
    let answer: Answer = Arc::new(move |message| {
        if method(message) != "tools/call" {
            return StatusCode::BAD_REQUEST.into_response();
        }
        *call.lock().unwrap() = message["id"].clone();
        // The stream breaks before the result; resuming it would wait for `retry:`,
        // some 3,000 years.
        events(futures::stream::iter([
            "retry: 99999999999999\nid: ev-1\ndata:".to_owned()
        ]))
    });
    let get = move |headers: &HeaderMap| {
        if headers.get("last-event-id").and_then(|v| v.to_str().ok()) != Some("ev-1") {
            return StatusCode::METHOD_NOT_ALLOWED.into_response();
        }
        let id = pending.lock().unwrap().clone();
        events(futures::stream::iter([format!("id: ev-2\ndata: {}", resumed(&id))]))
    };
    let served = serve(answer, get).await;
    let backoff = (Duration::from_millis(50), Duration::from_millis(300));
    let http = HttpClientOptions::new(url(&served)).reconnect(backoff.0, backoff.1, 4);
    let client = client(&served, http, options(EraMode::Legacy)).await;
    let answer = client
        .call_tool("resume", json!({}))
        .await
        .expect("resumed after a capped wait");
    assert_eq!(answer.content[0].as_text(), Some("resumed"));
    client.close().await.expect("closed");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flapping_get_stream_is_reconnected_with_backoff_not_in_a_spin() {
    let answer: Answer = Arc::new(|message| match method(message) {
        "tools/list" => result(&message["id"], json!({"tools": []})),
        _ => StatusCode::BAD_REQUEST.into_response(),
    });
    // Each GET stream delivers a message, asks for an immediate reconnection, and closes.
    let opened = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&opened);
    let get = move |_: &HeaderMap| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        let message = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": format!("flap {n}")}});
        events(futures::stream::iter([format!("id: {n}\nretry: 0\ndata: {message}")]))
    };
    let served = serve(answer, get).await;
    // Waits of 50 ms doubling up to 800 ms: about 8 GETs in 3 s, where a spin (a fresh
    // back-off after every event) makes one every 50 ms, about 60.
    let backoff = (Duration::from_millis(50), Duration::from_millis(800));
    let http = HttpClientOptions::new(url(&served)).reconnect(backoff.0, backoff.1, 4);
    let client = client(&served, http, options(EraMode::Legacy)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let gets = opened.load(Ordering::SeqCst);
    assert!(gets >= 3, "the stream is reconnected: {gets} GETs");
    assert!(gets <= 20, "no spin: {gets} GETs in 3 s");
    // The connection still works meanwhile.
    assert!(client.list_tools(None).await.expect("listed").tools.is_empty());
    client.close().await.expect("closed");
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_stream_that_keeps_breaking_is_resumed_with_backoff_not_in_a_spin() {
    let pending = Arc::new(Mutex::new(Value::Null));
    let call = Arc::clone(&pending);
    // Each piece of the call's stream delivers a message, asks for an immediate
    // reconnection, and closes before the result, until the test lets it finish.
    let piece = |n: usize| {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": format!("piece {n}")}});
        events(futures::stream::iter([format!("id: r{n}\nretry: 0\ndata: {message}")]))
    };
    let answer: Answer = Arc::new(move |message| {
        if method(message) != "tools/call" {
            return StatusCode::BAD_REQUEST.into_response();
        }
        *call.lock().unwrap() = message["id"].clone();
        piece(0)
    });
    let resumptions = Arc::new(AtomicUsize::new(0));
    let finish = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (counter, finishing) = (Arc::clone(&resumptions), Arc::clone(&finish));
    let get = move |headers: &HeaderMap| {
        if headers.get("last-event-id").is_none() {
            return StatusCode::METHOD_NOT_ALLOWED.into_response();
        }
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        if !finishing.load(Ordering::SeqCst) {
            return piece(n);
        }
        let id = pending.lock().unwrap().clone();
        events(futures::stream::iter([format!("id: r{n}\ndata: {}", resumed(&id))]))
    };
    let served = serve(answer, get).await;
    let backoff = (Duration::from_millis(50), Duration::from_millis(800));
    let http = HttpClientOptions::new(url(&served)).reconnect(backoff.0, backoff.1, 4);
    let client = client(&served, http, options(EraMode::Legacy)).await;
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("pieces", json!({})).await })
    };
    tokio::time::sleep(Duration::from_secs(3)).await;
    let gets = resumptions.load(Ordering::SeqCst);
    assert!(gets >= 3, "the stream is resumed: {gets} GETs");
    assert!(gets <= 20, "no spin: {gets} GETs in 3 s");
    finish.store(true, Ordering::SeqCst);
    let answer = tokio::time::timeout(PATIENCE, call)
        .await
        .expect("the call ends")
        .expect("the task")
        .expect("the call");
    assert_eq!(answer.content[0].as_text(), Some("resumed"));
    client.close().await.expect("closed");
    served.stop().await;
}
