//! The dispatcher on its own: requests in, response texts out, no connection.

use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::*;
use crate::protocol::ContentBlock;
use crate::server::ToolDef;

const MODERN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {}}"#;

fn server() -> Server {
    Server::builder("dispatch", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args: Map<String, Value>, _ctx| async move {
                args["text"].as_str().unwrap_or_default().to_owned()
            }),
        )
        .extension("com.example/weather", json!({}))
        .request_handler("weather/forecast", |params: Value, _ctx: Context| async move {
            Ok::<_, crate::server::HandlerError>(json!({ "city": params["city"] }))
        })
        .request_handler("weather/broken", |_params: Value, _ctx: Context| async move {
            Ok::<_, crate::server::HandlerError>(json!("not an object"))
        })
        .build()
        .unwrap()
}

/// Answers one request as a client would send it, without any connection.
async fn ask(dispatcher: &Arc<Dispatcher>, id: i64, method: &str, params: Value) -> Value {
    ask_assuming(dispatcher, id, method, params, None).await
}

/// [`ask`] as stateless HTTP does, assuming a legacy version when the request gives none.
async fn ask_assuming(
    dispatcher: &Arc<Dispatcher>,
    id: i64,
    method: &str,
    params: Value,
    assumed_version: Option<ProtocolVersion>,
) -> Value {
    let text = jsonrpc::request_text(&RequestId::Number(id), method, Some(&params));
    let Ok(Message::Request(request)) = jsonrpc::parse_message(&text) else {
        panic!("not a request: {text}")
    };
    let (tx, _rx) = mpsc::channel(8);
    let scope = Scope {
        assumed_version,
        ..Scope::new(Reply::Stream(tx), CancellationToken::new())
    };
    serde_json::from_str(&dispatcher.answer(request, scope).await.expect("answered")).unwrap()
}

fn modern(mut params: Value) -> Value {
    params["_meta"] = serde_json::from_str(MODERN_META).unwrap();
    params
}

#[tokio::test]
async fn the_era_comes_from_the_handshake_or_from_each_request() {
    let dispatcher = Dispatcher::new(server(), TransportKind::Memory);
    let early = ask(&dispatcher, 1, "tools/list", json!({})).await;
    assert_eq!(early["error"]["code"], -32602, "{early}");
    let modern_call = ask(
        &dispatcher,
        2,
        "tools/call",
        modern(json!({"name": "echo", "arguments": {"text": "hi"}})),
    )
    .await;
    assert_eq!(modern_call["result"]["content"][0]["text"], "hi");
    assert_eq!(modern_call["result"]["resultType"], "complete");
    assert_eq!(
        modern_call["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "dispatch"
    );
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let answer = ask(&dispatcher, 3, "initialize", init).await;
    assert_eq!(answer["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        dispatcher.handshake_version(),
        Some(ProtocolVersion::parse("2025-06-18").unwrap())
    );
    let legacy_call = ask(
        &dispatcher,
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "yo"}}),
    )
    .await;
    assert_eq!(legacy_call["result"]["content"][0]["text"], "yo");
    assert!(legacy_call["result"].get("resultType").is_none(), "{legacy_call}");
}

#[tokio::test]
async fn each_call_of_a_stream_is_served_under_the_meta_it_sends() {
    let dispatcher = Dispatcher::new(server(), TransportKind::Memory);
    let roots = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"error"}"#;
    let plain = MODERN_META.replace(char::is_whitespace, "");
    let read = |id: u32, meta: &str| {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{meta}}}}}"#
        );
        let (request, read) = dispatcher
            .read_call_frame(&Bytes::from(frame))
            .expect("read in one pass");
        assert_eq!(request.id, RequestId::Number(id.into()));
        assert_eq!(read.call.expect("the call's params").name(), "echo");
        read.exchange
    };
    // Read, then learned; another `_meta` read for itself; the first one again.
    for (id, meta, has_roots) in [
        (1, &*plain, false),
        (2, &plain, false),
        (3, roots, true),
        (4, &plain, false),
    ] {
        let exchange = read(id, meta);
        assert_eq!(exchange.version, ProtocolVersion::LATEST);
        assert_eq!(exchange.client_capabilities.roots.is_some(), has_roots, "call {id}");
        assert_eq!(exchange.log_level.is_some(), has_roots, "call {id}");
    }
    // A handshake decides the era of what follows, whatever the `_meta`.
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    ask(&dispatcher, 5, "initialize", init).await;
    for id in [6, 7] {
        assert_eq!(read(id, &plain).version, ProtocolVersion::parse("2025-06-18").unwrap());
    }
}

#[tokio::test]
async fn a_shared_dispatcher_answers_initialize_without_remembering_it() {
    let dispatcher = Dispatcher::shared(server(), 8);
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    ask(&dispatcher, 1, "initialize", init).await;
    assert_eq!(dispatcher.handshake_version(), None);
}

#[tokio::test]
async fn custom_methods_answer_in_both_eras_and_extensions_are_declared_to_the_modern_one() {
    let dispatcher = Dispatcher::new(server(), TransportKind::Memory);
    let modern_answer = ask(&dispatcher, 1, "weather/forecast", modern(json!({"city": "Oslo"}))).await;
    assert_eq!(modern_answer["result"]["city"], "Oslo");
    assert_eq!(modern_answer["result"]["resultType"], "complete");
    let discover = ask(&dispatcher, 2, "server/discover", modern(json!({}))).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({"com.example/weather": {}})
    );
    let broken = ask(&dispatcher, 3, "weather/broken", modern(json!({}))).await;
    assert_eq!(broken["error"]["code"], -32603, "{broken}");
    let unknown = ask(&dispatcher, 4, "weather/unknown", modern(json!({}))).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let initialized = ask(&dispatcher, 5, "initialize", init).await;
    assert!(
        initialized["result"]["capabilities"].get("extensions").is_none(),
        "{initialized}"
    );
    let legacy_answer = ask(&dispatcher, 6, "weather/forecast", json!({"city": "Lima"})).await;
    assert_eq!(legacy_answer["result"], json!({"city": "Lima"}));
}

#[tokio::test]
async fn custom_notifications_reach_their_handler() {
    let (seen_tx, mut seen) = mpsc::unbounded_channel();
    let server = Server::builder("dispatch", "1.0.0")
        .notification_handler("notifications/weather/seen", move |params: Value, _ctx: Context| {
            let seen_tx = seen_tx.clone();
            async move {
                let _ = seen_tx.send(params);
            }
        })
        .build()
        .unwrap();
    let dispatcher = Dispatcher::new(server, TransportKind::Memory);
    let text = jsonrpc::notification_text("notifications/weather/seen", Some(&json!({"city": "Rome"})));
    let message = jsonrpc::parse_message(&text).unwrap();
    assert!(dispatcher.receive(message).is_none());
    let seen = tokio::time::timeout(std::time::Duration::from_secs(5), seen.recv()).await;
    assert_eq!(seen.expect("the handler ran"), Some(json!({"city": "Rome"})));
}

#[tokio::test]
async fn past_its_cap_a_request_is_refused_at_once_and_a_panic_tells_nothing() {
    let release = Arc::new(tokio::sync::Notify::new());
    let held = Arc::clone(&release);
    let server = Server::builder("dispatch", "1.0.0")
        .max_in_flight(1)
        .tool(ToolDef::new("hold").handler(move |_args: Map<String, Value>, _ctx| {
            let held = Arc::clone(&held);
            async move { held.notified().await }
        }))
        .tool(
            ToolDef::new("panic").handler(|args: Map<String, Value>, _ctx| async move {
                if args.is_empty() {
                    panic!("secret detail");
                }
                String::new()
            }),
        )
        .build()
        .unwrap();
    let dispatcher = Dispatcher::new(server, TransportKind::Memory);
    let call = |name: &str| modern(json!({"name": name, "arguments": {}}));
    let first = Arc::clone(&dispatcher);
    let held_call = tokio::spawn(async move { ask(&first, 1, "tools/call", call("hold")).await });
    tokio::task::yield_now().await;
    let refused = ask(&dispatcher, 2, "tools/call", call("hold")).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("Server busy"),
        "{refused}"
    );
    release.notify_one();
    held_call.await.unwrap();
    let panicked = ask(&dispatcher, 3, "tools/call", call("panic")).await;
    assert_eq!(panicked["error"]["code"], -32603, "{panicked}");
    assert!(!panicked.to_string().contains("secret"), "{panicked}");
}

#[tokio::test]
async fn a_server_that_masks_error_details_sends_a_generic_message() {
    let failing = || {
        ToolDef::new("fail").handler(|_args: Map<String, Value>, _ctx| async move {
            Err::<String, _>(crate::server::HandlerError::message("secret detail"))
        })
    };
    for (mask, expected) in [(false, "secret detail"), (true, "the request failed")] {
        let server = Server::builder("dispatch", "1.0.0")
            .mask_error_details(mask)
            .tool(failing())
            .build()
            .unwrap();
        let dispatcher = Dispatcher::new(server, TransportKind::Memory);
        let answer = ask(&dispatcher, 1, "tools/call", modern(json!({"name": "fail"}))).await;
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], expected);
    }
}

#[tokio::test]
async fn subscriptions_are_capped_and_refused_without_a_session() {
    let server = Server::builder("dispatch", "1.0.0")
        .max_subscriptions(1)
        .build()
        .unwrap();
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let shared = Dispatcher::shared(server.clone(), 8);
    let uri = json!({"uri": "file:///a"});
    let refused = ask_assuming(
        &shared,
        1,
        "resources/subscribe",
        uri,
        ProtocolVersion::parse("2025-06-18"),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let dispatcher = Dispatcher::new(server, TransportKind::Memory);
    ask(&dispatcher, 2, "initialize", init).await;
    let first = ask(&dispatcher, 3, "resources/subscribe", json!({"uri": "file:///a"})).await;
    assert!(first.get("result").is_some(), "{first}");
    let again = ask(&dispatcher, 4, "resources/subscribe", json!({"uri": "file:///a"})).await;
    assert!(again.get("result").is_some(), "the same URI again: {again}");
    let second = ask(&dispatcher, 5, "resources/subscribe", json!({"uri": "file:///b"})).await;
    assert_eq!(second["error"]["code"], -32600, "{second}");
}

#[test]
fn the_core_methods_cannot_be_replaced() {
    let replaced = Server::builder("dispatch", "1.0.0")
        .request_handler("tools/call", |_params: Value, _ctx: Context| async move {
            Ok::<_, crate::server::HandlerError>(json!({}))
        })
        .build();
    assert!(replaced.is_err());
    let replaced = Server::builder("dispatch", "1.0.0")
        .notification_handler("notifications/cancelled", |_params: Value, _ctx: Context| async {})
        .build();
    assert!(replaced.is_err());
    let twice = Server::builder("dispatch", "1.0.0")
        .notification_handler("notifications/x", |_params: Value, _ctx: Context| async {})
        .notification_handler("notifications/x", |_params: Value, _ctx: Context| async {})
        .build();
    assert!(twice.is_err());
}

#[tokio::test]
async fn content_a_revision_does_not_know_is_said_in_text() {
    let server = Server::builder("content", "1.0.0")
        .tool(
            ToolDef::new("media").handler(|_args: Map<String, Value>, _ctx| async move {
                crate::protocol::CallToolResult::success(vec![
                    ContentBlock::audio("UklGRg==", "audio/wav"),
                    ContentBlock::ResourceLink(crate::protocol::Resource {
                        uri: "file:///notes.txt".into(),
                        name: "notes".into(),
                        title: None,
                        description: Some("the notes".into()),
                        mime_type: None,
                        annotations: None,
                        size: None,
                        icons: None,
                        meta: None,
                    }),
                ])
            }),
        )
        .build()
        .unwrap();
    let kinds = |answer: &Value| -> Vec<String> {
        answer["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|block| block["type"].as_str().unwrap().to_owned())
            .collect()
    };
    for (version, expected) in [
        ("2024-11-05", ["text", "text"]),
        ("2025-03-26", ["audio", "text"]),
        ("2025-06-18", ["audio", "resource_link"]),
        ("2025-11-25", ["audio", "resource_link"]),
    ] {
        let dispatcher = Dispatcher::new(server.clone(), TransportKind::Memory);
        let init = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        ask(&dispatcher, 1, "initialize", init).await;
        let answer = ask(&dispatcher, 2, "tools/call", json!({"name": "media"})).await;
        assert_eq!(kinds(&answer), expected, "{version}: {answer}");
        if version == "2024-11-05" {
            assert_eq!(
                answer["result"]["content"][1]["text"],
                "Resource notes: file:///notes.txt (the notes)"
            );
        }
    }
    let modern_answer = ask(
        &Dispatcher::new(server, TransportKind::Memory),
        1,
        "tools/call",
        modern(json!({"name": "media"})),
    )
    .await;
    assert_eq!(kinds(&modern_answer), ["audio", "resource_link"]);
}

#[tokio::test]
async fn notification_handlers_count_against_the_cap_on_work_in_flight() {
    let release = Arc::new(tokio::sync::Notify::new());
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let held = Arc::clone(&release);
    let server = Server::builder("dispatch", "1.0.0")
        .max_in_flight(1)
        .notification_handler("notifications/x", move |params: Value, _ctx: Context| {
            let (held, started_tx) = (Arc::clone(&held), started_tx.clone());
            async move {
                let _ = started_tx.send(params);
                held.notified().await;
            }
        })
        .build()
        .unwrap();
    let dispatcher = Dispatcher::new(server, TransportKind::Memory);
    for n in 0..3 {
        let text = jsonrpc::notification_text("notifications/x", Some(&json!({ "n": n })));
        assert!(dispatcher.receive(jsonrpc::parse_message(&text).unwrap()).is_none());
    }
    assert_eq!(started.recv().await, Some(json!({ "n": 0 })));
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(started.try_recv().is_err(), "the others were dropped, not queued");
    let busy = ask(&dispatcher, 1, "ping", json!({})).await;
    assert_eq!(busy["error"]["code"], -32603, "{busy}");
    release.notify_one();
}
