//! Handlers that ask the client for input (elicitation, sampling, roots): the same server
//! code and the same client tests in the legacy era (server-to-client requests) and the
//! 2026-07-28 era (multi round-trip requests), over the in-memory and stdio transports.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode};
use oxmcp::protocol::{
    code, ContentBlock, CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams,
    ElicitResult, ErrorObject, ListRootsResult, Root, SamplingContent,
};
use oxmcp::transport::child::{StderrMode, StdioCommand};
use serde_json::{json, Map, Value};

/// Which transport a test runs over.
#[derive(Debug, Clone, Copy)]
enum Over {
    Memory,
    Stdio,
}

const CASES: [(EraMode, Over); 4] = [
    (EraMode::Legacy, Over::Memory),
    (EraMode::Modern, Over::Memory),
    (EraMode::Legacy, Over::Stdio),
    (EraMode::Modern, Over::Stdio),
];

/// How often each client handler ran.
#[derive(Default)]
struct Calls {
    elicit: AtomicUsize,
    sample: AtomicUsize,
}

/// Answers the example server's questions like a user and a model would.
fn answering_options(era: EraMode, calls: &Arc<Calls>) -> ClientOptions {
    let (elicit_calls, sample_calls) = (Arc::clone(calls), Arc::clone(calls));
    ClientOptions::new("mrtr-tests", "1.0.0")
        .era(era)
        .on_elicitation(
            move |params: ElicitRequestParams| {
                elicit_calls.elicit.fetch_add(1, Ordering::SeqCst);
                async move {
                    let ElicitRequestParams::Form(form) = params else {
                        return Err(ErrorObject::invalid_params("form mode only"));
                    };
                    let content = match form.message.as_str() {
                        "Confirm?" => json!({"ok": true}),
                        "Your name?" => json!({"name": "Ada"}),
                        "Where do you live, Ada?" => json!({"city": "London"}),
                        "Favourite colour?" => json!({"color": "blue"}),
                        "Favourite food?" => json!({"food": "pie"}),
                        other => return Err(ErrorObject::invalid_params(format!("unexpected question {other}"))),
                    };
                    Ok(ElicitResult {
                        action: ElicitAction::Accept,
                        content: content.as_object().cloned(),
                        meta: None,
                    })
                }
            },
            false,
        )
        .on_sampling(
            move |params: CreateMessageRequestParams| {
                sample_calls.sample.fetch_add(1, Ordering::SeqCst);
                async move { Ok(model_reply(&params)) }
            },
            true,
        )
        .on_roots(|| async {
            Ok(ListRootsResult {
                roots: vec![Root {
                    uri: "file:///work".into(),
                    name: None,
                    meta: None,
                }],
                meta: None,
            })
        })
}

/// A scripted model: with tools, first asks for the weather, then answers from the result.
fn model_reply(params: &CreateMessageRequestParams) -> CreateMessageResult {
    let last = params.messages.last().map(|m| m.content.as_slice()).unwrap_or_default();
    let has_result = last.iter().any(|c| matches!(c, SamplingContent::ToolResult(_)));
    let content = match (&params.tools, has_result) {
        (Some(_), false) => {
            json!({"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}})
        }
        (Some(_), true) => json!({"type": "text", "text": "It is 18°C in Paris"}),
        (None, _) => json!({"type": "text", "text": "Paris"}),
    };
    let stop = if content["type"] == "tool_use" {
        "toolUse"
    } else {
        "endTurn"
    };
    serde_json::from_value(json!({"role": "assistant", "content": content, "model": "scripted", "stopReason": stop}))
        .expect("a valid sampling result")
}

async fn connect(over: Over, options: ClientOptions) -> Client {
    match over {
        Over::Memory => {
            let server = oxmcp_examples::example_server().expect("the example server builds");
            let (client_end, server_end) = oxmcp::transport::memory::pair();
            tokio::spawn(async move { server.serve(server_end).await });
            Client::connect(client_end, options).await.expect("connects")
        }
        Over::Stdio => {
            let command = StdioCommand::new(env!("CARGO_BIN_EXE_server")).stderr(StderrMode::Null);
            Client::spawn(command, options)
                .await
                .expect("the example server starts")
        }
    }
}

async fn call_text(client: &Client, tool: &str) -> String {
    let result = client
        .call_tool(tool, json!({}))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert_eq!(result.is_error, None, "{tool}: {result:?}");
    result.content.iter().filter_map(ContentBlock::as_text).collect()
}

#[tokio::test]
async fn the_same_handlers_work_in_both_eras_over_both_transports() {
    for (era, over) in CASES {
        let calls = Arc::new(Calls::default());
        let client = connect(over, answering_options(era, &calls)).await;
        let case = format!("{era:?} over {over:?}");
        assert_eq!(
            call_text(&client, "confirm").await,
            r#"confirmed: {"ok":true}"#,
            "{case}"
        );
        assert_eq!(call_text(&client, "ask_twice").await, "Ada lives in London", "{case}");
        assert_eq!(call_text(&client, "ask_both").await, "blue and pie", "{case}");
        assert_eq!(
            calls.elicit.load(Ordering::SeqCst),
            5,
            "{case}: each question asked once"
        );
        assert_eq!(call_text(&client, "ask_llm").await, "the model said: Paris", "{case}");
        assert_eq!(
            call_text(&client, "weather_agent").await,
            "It is 18°C in Paris",
            "{case}"
        );
        assert_eq!(calls.sample.load(Ordering::SeqCst), 3, "{case}");
        assert_eq!(call_text(&client, "roots").await, "file:///work", "{case}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_client_without_the_capability_gets_a_clean_failure_and_the_server_goes_on() {
    for (era, over) in CASES {
        let client = connect(over, ClientOptions::new("bare", "1.0.0").era(era)).await;
        for tool in ["confirm", "ask_llm", "roots"] {
            match (era, client.call_tool(tool, json!({})).await) {
                (EraMode::Legacy, Ok(result)) => assert_eq!(result.is_error, Some(true), "{tool}"),
                (EraMode::Modern, Err(error)) => {
                    let error = error.as_remote().expect("a JSON-RPC error");
                    assert_eq!(error.code, code::MISSING_REQUIRED_CLIENT_CAPABILITY, "{tool}");
                    assert!(error
                        .data
                        .as_ref()
                        .is_some_and(|d| d["requiredCapabilities"].is_object()));
                }
                (era, other) => panic!("{era:?} {tool}: {other:?}"),
            }
        }
        let echo = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(echo.content[0].as_text(), Some("still here"), "{era:?}");
        client.close().await.unwrap();
    }
}

/// A modern client that returns `input_required` results raw, for tests that tamper.
async fn raw_modern_client(server: oxmcp::server::Server) -> Client {
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(server_end).await });
    Client::connect(client_end, answering_options(EraMode::Modern, &Arc::default()))
        .await
        .expect("connects")
}

async fn call_raw(
    client: &Client,
    tool: &str,
    state: Option<&str>,
    answers: Option<Value>,
) -> Result<Value, oxmcp::Error> {
    let mut params = Map::new();
    params.insert("name".into(), tool.into());
    params.insert("arguments".into(), json!({}));
    if let Some(state) = state {
        params.insert("requestState".into(), state.into());
    }
    if let Some(answers) = answers {
        params.insert("inputResponses".into(), answers);
    }
    let raw = client
        .request_raw("tools/call", params, &CallOptions::default())
        .await?;
    Ok(serde_json::from_str(raw.get()).expect("JSON"))
}

#[tokio::test]
async fn request_state_that_is_tampered_with_replayed_or_expired_is_rejected_before_the_handler_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let server = oxmcp_examples::example_server_builder()
        .tool(
            oxmcp::server::ToolDef::new("counted").handler(move |_, ctx: oxmcp::server::Context| {
                counter.fetch_add(1, Ordering::SeqCst);
                async move {
                    let answer = ctx.list_roots().await?;
                    Ok::<_, oxmcp::server::HandlerError>(answer.roots.len().to_string())
                }
            }),
        )
        .request_state_ttl(Duration::ZERO)
        .build()
        .unwrap();
    let client = raw_modern_client(server).await;

    let first = call_raw(&client, "counted", None, None).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(first["inputRequests"]["q0"]["method"], "roots/list");
    let state = first["requestState"].as_str().unwrap().to_owned();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let answers = json!({"q0": {"roots": []}});

    let mut tampered = state.clone().into_bytes();
    tampered[10] = if tampered[10] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    for (case, tool, state) in [
        ("tampered", "counted", tampered.as_str()),
        ("replayed for another tool", "confirm", &state),
    ] {
        let error = call_raw(&client, tool, Some(state), Some(answers.clone()))
            .await
            .unwrap_err();
        assert_eq!(error.as_remote().map(|e| e.code), Some(code::INVALID_PARAMS), "{case}");
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let expired = call_raw(&client, "counted", Some(&state), Some(answers))
        .await
        .unwrap_err();
    let expired = expired.as_remote().expect("a JSON-RPC error");
    assert_eq!(expired.code, code::INVALID_PARAMS);
    assert!(expired.message.contains("expired"), "{}", expired.message);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the handler never ran on bad state");
}

#[tokio::test]
async fn the_explicit_style_round_trips_the_handlers_own_state_sealed() {
    let server = oxmcp_examples::example_server_builder()
        .tool(
            oxmcp::server::ToolDef::new("explicit").handler(|_, ctx: oxmcp::server::Context| async move {
                match (ctx.request_state(), ctx.input_responses()) {
                    (Some(step), Some(answers)) => Ok(format!("{step} with {}", answers.len())),
                    _ => Err(oxmcp::server::HandlerError::input_required(
                        [(
                            "roots".to_owned(),
                            oxmcp::protocol::InputRequest::Roots(Default::default()),
                        )],
                        Some("step-2".into()),
                    )),
                }
            }),
        )
        .build()
        .unwrap();
    let client = raw_modern_client(server).await;
    let first = call_raw(&client, "explicit", None, None).await.unwrap();
    assert_eq!(first["inputRequests"]["roots"]["method"], "roots/list");
    let state = first["requestState"].as_str().unwrap();
    assert!(!state.contains("step-2"), "the handler's state travels sealed");
    let done = client.call_tool("explicit", json!({})).await.unwrap();
    assert_eq!(done.content[0].as_text(), Some("step-2 with 1"));
}
