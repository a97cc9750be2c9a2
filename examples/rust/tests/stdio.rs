//! The example server as a child process, driven by the oxmcp client over stdio in both
//! protocol eras.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{
    code, CompletionReference, ContentBlock, LoggingLevel, ProgressNotificationParams, ProtocolVersion,
    ResourceContents,
};
use oxmcp::transport::child::{StderrMode, StdioCommand};
use oxmcp::Error;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

/// A client of a fresh example server process, in `era`.
async fn connect(era: EraMode) -> Client {
    connect_with(ClientOptions::new("oxmcp-tests", "1.0.0").era(era)).await
}

/// A client of a fresh example server process, with `options`.
async fn connect_with(options: ClientOptions) -> Client {
    let command = StdioCommand::new(env!("CARGO_BIN_EXE_server")).stderr(StderrMode::Null);
    Client::spawn(command, options)
        .await
        .expect("the example server starts")
}

fn text_of(content: &[ContentBlock]) -> String {
    content.iter().filter_map(ContentBlock::as_text).collect()
}

#[tokio::test]
async fn eras_are_negotiated_as_asked() {
    for (mode, expected) in [
        (EraMode::Legacy, ProtocolVersion::V2025_11_25),
        (EraMode::Modern, ProtocolVersion::V2026_07_28),
        (EraMode::Auto, ProtocolVersion::V2026_07_28),
    ] {
        let client = connect(mode).await;
        let details = client.server_details();
        assert_eq!(details.protocol_version, expected, "{mode:?}");
        assert_eq!(details.server_info.unwrap().name, "oxmcp-example");
        assert!(details.instructions.unwrap().contains("echo"));
        assert!(details.capabilities.tools.is_some());
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn tools_answer_in_both_eras() {
    for era in ERAS {
        let client = connect(era).await;
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(&names[..3], ["echo", "add", "slow"], "{era:?}: registration order");

        let echo = client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(text_of(&echo.content), "hi");
        assert_eq!(echo.is_error, None);

        let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(sum.structured_content, Some(json!({"result": 42})));

        let failed = client.call_tool("fail", json!({})).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
        assert!(text_of(&failed.content).contains("on purpose"));

        let image = client.call_tool("image", json!({})).await.unwrap();
        assert!(matches!(&image.content[1], ContentBlock::Image(i) if i.mime_type == "image/png"));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn invalid_arguments_are_a_tool_error_from_2025_11_25_and_invalid_params_before() {
    for era in ERAS {
        let client = connect(era).await;
        let result = client.call_tool("add", json!({"a": "two"})).await.unwrap();
        assert_eq!(result.is_error, Some(true), "{era:?}");
        let message = text_of(&result.content);
        assert!(
            message.contains("/a") && message.contains("\"b\" is a required property"),
            "{message}"
        );
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn unknown_tools_and_a_panicking_handler_get_errors_and_the_server_goes_on() {
    for era in ERAS {
        let client = connect(era).await;
        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.as_remote().map(|e| e.code), Some(code::INVALID_PARAMS));
        let panicked = client.call_tool("panic", json!({})).await.unwrap_err();
        let panicked = panicked.as_remote().expect("a JSON-RPC error");
        assert_eq!(panicked.code, code::INTERNAL_ERROR);
        assert!(panicked.message.contains("on purpose"));
        let echo = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(text_of(&echo.content), "still here");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn resources_templates_and_not_found_codes_per_era() {
    for (era, not_found) in [
        (EraMode::Legacy, code::RESOURCE_NOT_FOUND),
        (EraMode::Modern, code::INVALID_PARAMS),
    ] {
        let client = connect(era).await;
        let resources = client.list_all_resources().await.unwrap();
        assert_eq!(resources[0].uri, "file:///readme.md");
        let templates = client.list_all_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "greeting://{name}");

        let readme = client.read_resource("file:///readme.md").await.unwrap();
        assert!(
            matches!(&readme.contents[0], ResourceContents::Text(t) if t.text.starts_with("# oxmcp")
            && t.mime_type.as_deref() == Some("text/markdown"))
        );
        let blob = client.read_resource("file:///pixel.bin").await.unwrap();
        assert!(matches!(&blob.contents[0], ResourceContents::Blob(b) if b.blob == "AAEC"));
        let greeting = client.read_resource("greeting://J%C3%B6rg").await.unwrap();
        assert!(matches!(&greeting.contents[0], ResourceContents::Text(t) if t.text == "Hello, Jörg!"));

        let missing = client.read_resource("file:///missing").await.unwrap_err();
        let missing = missing.as_remote().expect("a JSON-RPC error");
        assert_eq!(missing.code, not_found, "{era:?}");
        assert_eq!(missing.data, Some(json!({"uri": "file:///missing"})));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn prompts_enforce_required_arguments_and_complete() {
    for era in ERAS {
        let client = connect(era).await;
        assert_eq!(client.list_all_prompts().await.unwrap()[0].name, "review");
        let args = BTreeMap::from([
            ("code".to_owned(), "x = 1".to_owned()),
            ("language".to_owned(), "python".to_owned()),
        ]);
        let prompt = client.get_prompt("review", args).await.unwrap();
        assert_eq!(
            prompt.messages[0].content.as_text(),
            Some("Please review this python:\nx = 1")
        );
        let missing = client.get_prompt("review", BTreeMap::new()).await.unwrap_err();
        let missing = missing.as_remote().expect("a JSON-RPC error");
        assert_eq!(missing.code, code::INVALID_PARAMS);
        assert!(missing.message.contains("code"));

        let prompt_ref = CompletionReference::Prompt {
            name: "review".into(),
            title: None,
        };
        let languages = client
            .complete(prompt_ref, "language", "py", BTreeMap::new())
            .await
            .unwrap();
        assert_eq!(languages.values, ["python"]);
        let template_ref = CompletionReference::Resource {
            uri: "greeting://{name}".into(),
        };
        let names = client
            .complete(template_ref, "name", "a", BTreeMap::new())
            .await
            .unwrap();
        assert_eq!(names.values, ["ada", "alan"]);
        assert_eq!(names.total, Some(2));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn progress_is_monotonic_and_reaches_the_callback() {
    for era in ERAS {
        let client = connect(era).await;
        let seen: Arc<Mutex<Vec<ProgressNotificationParams>>> = Arc::default();
        let sink = Arc::clone(&seen);
        let options = CallOptions {
            on_progress: Some(Arc::new(move |p| sink.lock().unwrap().push(p))),
            ..Default::default()
        };
        let result = client
            .call_tool_with("slow", json!({"steps": 4}), &options)
            .await
            .unwrap();
        assert_eq!(text_of(&result.content), "done after 4 steps");
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        let values: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert_eq!(values, [1.0, 2.0, 3.0, 4.0], "{era:?}");
        assert!(seen.iter().all(|p| p.total == Some(4.0)));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_cancelled_call_ends_at_once_and_the_server_keeps_serving() {
    for era in ERAS {
        let client = connect(era).await;
        let cancellation = CancellationToken::new();
        let options = CallOptions {
            cancellation: Some(cancellation.clone()),
            ..Default::default()
        };
        let canceller = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancellation.cancel();
        });
        let outcome = client.call_tool_with("slow", json!({"steps": 200}), &options).await;
        assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
        canceller.await.unwrap();
        let echo = client.call_tool("echo", json!({"text": "after"})).await.unwrap();
        assert_eq!(text_of(&echo.content), "after");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_timeout_cancels_the_request_and_a_progress_reset_keeps_it_alive() {
    let client = connect(EraMode::Legacy).await;
    let short = CallOptions {
        timeout: Some(Some(Duration::from_millis(120))),
        ..Default::default()
    };
    let outcome = client.call_tool_with("slow", json!({"steps": 10}), &short).await;
    assert!(matches!(outcome, Err(Error::Timeout(_))), "{outcome:?}");
    // 12 steps of 50 ms outlast a 250 ms timeout that each progress notification resets.
    let reset = CallOptions {
        timeout: Some(Some(Duration::from_millis(250))),
        reset_timeout_on_progress: true,
        ..short
    };
    let result = client
        .call_tool_with("slow", json!({"steps": 12}), &reset)
        .await
        .unwrap();
    assert_eq!(text_of(&result.content), "done after 12 steps");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_crashed_server_fails_pending_calls_promptly() {
    for era in ERAS {
        let client = connect(era).await;
        let pending = {
            let client = client.clone();
            tokio::spawn(async move { client.call_tool("slow", json!({"steps": 200})).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let crash = client.call_tool("crash", json!({})).await;
        assert!(matches!(crash, Err(Error::ConnectionClosed)), "{crash:?}");
        let pending = tokio::time::timeout(Duration::from_secs(2), pending)
            .await
            .expect("fails promptly");
        assert!(matches!(pending.unwrap(), Err(Error::ConnectionClosed)));
        let after = client.call_tool("echo", json!({"text": "x"})).await;
        assert!(matches!(after, Err(Error::ConnectionClosed)));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn log_messages_follow_the_level_in_both_eras() {
    for era in ERAS {
        let client = connect(era).await;
        let mut notifications = client.notifications();
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        client.call_tool("log", json!({})).await.unwrap();
        let mut levels = Vec::new();
        while let Ok(Ok(note)) = tokio::time::timeout(Duration::from_millis(200), notifications.recv()).await {
            if let ServerNotification::LogMessage(message) = note {
                levels.push(message.level);
            }
        }
        assert_eq!(levels, [LoggingLevel::Info, LoggingLevel::Error], "{era:?}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn modern_requests_without_a_log_level_get_no_log_messages() {
    let client = connect(EraMode::Modern).await;
    let mut notifications = client.notifications();
    client.call_tool("log", json!({})).await.unwrap();
    let quiet = tokio::time::timeout(Duration::from_millis(200), notifications.recv()).await;
    assert!(quiet.is_err(), "no log message expected, got {quiet:?}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn runtime_tools_and_resource_updates_reach_subscribers() {
    for era in ERAS {
        let client = connect(era).await;
        let mut notifications = client.notifications();
        client.subscribe_resource("greeting://ada").await.unwrap();
        client
            .call_tool("touch", json!({"name": "greeting://ada"}))
            .await
            .unwrap();
        client
            .call_tool("touch", json!({"name": "greeting://other"}))
            .await
            .unwrap();
        client.call_tool("add_tool", json!({"name": "fresh"})).await.unwrap();
        let mut updated = Vec::new();
        let mut tools_changed = false;
        while let Ok(Ok(note)) = tokio::time::timeout(Duration::from_millis(300), notifications.recv()).await {
            match note {
                ServerNotification::ResourceUpdated(params) => updated.push(params.uri),
                ServerNotification::ToolListChanged => tools_changed = true,
                _ => {}
            }
        }
        assert_eq!(updated, ["greeting://ada"], "{era:?}");
        // Modern clients hear of list changes only through a listen stream asking for them.
        assert_eq!(tools_changed, era == EraMode::Legacy, "{era:?}");
        let fresh = client.call_tool("fresh", json!({})).await.unwrap();
        assert_eq!(text_of(&fresh.content), "I am fresh");
        client.unsubscribe_resource("greeting://ada").await.unwrap();
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn close_shuts_the_server_process_down() {
    let client = connect(EraMode::Auto).await;
    client.ping().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), client.close())
        .await
        .expect("the server exits once its stdin closes")
        .unwrap();
}

#[tokio::test]
async fn the_server_stderr_can_be_captured_line_by_line() {
    let captured: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&captured);
    let command = StdioCommand::new(env!("CARGO_BIN_EXE_server")).stderr(StderrMode::Capture(Arc::new(move |line| {
        sink.lock().unwrap().push(line)
    })));
    let client = Client::spawn(command, ClientOptions::new("oxmcp-tests", "1.0.0"))
        .await
        .unwrap();
    client.call_tool("panic", json!({})).await.unwrap_err();
    client.close().await.unwrap();
    let captured = captured.lock().unwrap();
    assert!(captured.iter().any(|line| line.contains("panicked")), "{captured:?}");
}
