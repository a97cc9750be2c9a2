//! A server and a client in one process over the in-memory transport: what needs a
//! handle on the server itself (runtime changes, configuration) in both eras.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ProgressCallback, ServerNotification};
use oxmcp::protocol::{
    code, CompleteRequestParams, Completion, CompletionReference, ElicitRequestFormParams, ElicitRequestParams,
    ErrorObject, SubscriptionFilter,
};
use oxmcp::server::{
    Capability, Context, DefinitionKind, HandlerError, Intercepted, Interceptor, Json, Next, NotificationNext,
    PromptDef, Server, ToolDef,
};
use oxmcp::transport::{stdio::from_streams, Spawner, DEFAULT_MAX_MESSAGE_SIZE};
use oxmcp::BoxFuture;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

fn tool(name: &str) -> ToolDef {
    ToolDef::new(name).handler(|_, _| async { "ok" })
}

async fn connect(server: &Server, era: EraMode) -> Client {
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    Client::connect(client_end, ClientOptions::new("memory-tests", "1.0.0").era(era))
        .await
        .expect("connects")
}

/// The names of every tool the client lists.
async fn tool_names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

/// The structured content of a call of `tool` with `arguments`.
async fn structured(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = client.call_tool(tool, Some(arguments)).await.unwrap();
    result.structured_content.expect("structured content")
}

/// The next notification within a short wait, skipping acknowledgements.
async fn next_change(notifications: &mut broadcast::Receiver<ServerNotification>) -> Option<ServerNotification> {
    loop {
        match tokio::time::timeout(Duration::from_millis(300), notifications.recv()).await {
            Ok(Ok(ServerNotification::SubscriptionAcknowledged(_))) => continue,
            Ok(Ok(note)) => return Some(note),
            _ => return None,
        }
    }
}

#[tokio::test]
async fn lists_are_paged_with_opaque_stable_cursors() {
    let server = (0..5)
        .fold(Server::builder("paged", "1"), |b, i| b.tool(tool(&format!("t{i}"))))
        .page_size(2)
        .build()
        .unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        let first = client.list_tools(None).await.unwrap();
        assert_eq!(first.tools.len(), 2);
        let cursor = first.next_cursor.expect("more pages");
        let second = client.list_tools(Some(cursor.clone())).await.unwrap();
        assert_eq!(second.tools[0].name, "t2");
        let names = tool_names(&client).await;
        assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
        let bad = client.list_tools(Some("not a cursor".into())).await.unwrap_err();
        assert_eq!(bad.as_remote().map(|e| e.code), Some(code::INVALID_PARAMS), "{era:?}");
    }
}

#[tokio::test]
async fn runtime_changes_notify_legacy_sessions_and_modern_listeners() {
    // Nothing is registered when the clients connect: the server declares what it will add.
    let server = Server::builder("changing", "1")
        .declare(Capability::Tools)
        .declare(Capability::Prompts)
        .build()
        .unwrap();
    let legacy = connect(&server, EraMode::Legacy).await;
    let modern = connect(&server, EraMode::Modern).await;
    let mut legacy_notes = legacy.notifications();
    let mut modern_notes = modern.notifications();
    let subscription = modern
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();

    server.add_tool(tool("late")).unwrap();
    assert_eq!(
        next_change(&mut legacy_notes).await,
        Some(ServerNotification::ToolListChanged)
    );
    assert_eq!(
        next_change(&mut modern_notes).await,
        Some(ServerNotification::ToolListChanged)
    );
    assert_eq!(modern.list_all_tools().await.unwrap()[0].name, "late");

    server
        .add_prompt(PromptDef::new("p").handler(|_, _| async { "hi" }))
        .unwrap();
    assert_eq!(
        next_change(&mut modern_notes).await,
        Some(ServerNotification::PromptListChanged)
    );
    assert!(server.remove_prompt("p"));
    assert_eq!(
        next_change(&mut modern_notes).await,
        Some(ServerNotification::PromptListChanged)
    );

    // Not asked for on the modern stream, so not sent there.
    server.notify_resource_updated("file:///x");
    assert!(server.remove_tool("late"));
    assert_eq!(
        next_change(&mut modern_notes).await,
        Some(ServerNotification::ToolListChanged)
    );
    assert!(!server.remove_tool("late"), "already gone: no change, no notification");

    drop(subscription);
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.add_tool(tool("after")).unwrap();
    assert_eq!(next_change(&mut modern_notes).await, None, "the stream was closed");
    assert!(modern.list_all_tools().await.unwrap().iter().any(|t| t.name == "after"));
}

#[tokio::test]
async fn a_disabled_tool_is_unlisted_and_unknown_but_keeps_its_name() {
    let server = Server::builder("toggling", "1")
        .tool(tool("a"))
        .tool(tool("b"))
        .build()
        .unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        // Legacy sessions hear of every change of the list (modern clients would listen).
        let mut notes = client.notifications();
        let told = |expected: bool| match era {
            EraMode::Legacy => expected.then_some(ServerNotification::ToolListChanged),
            _ => None,
        };
        let unknown = client.call_tool("nothing", json!({})).await.unwrap_err();

        assert!(server.set_enabled(DefinitionKind::Tool, "a", false));
        assert_eq!(next_change(&mut notes).await, told(true));
        assert_eq!(tool_names(&client).await, ["b"]);
        let disabled = client.call_tool("a", json!({})).await.unwrap_err();
        assert_eq!(
            disabled.as_remote().map(|e| e.code),
            unknown.as_remote().map(|e| e.code),
            "{era:?}"
        );
        assert!(server.add_tool(tool("a")).is_err(), "the name stays taken");
        assert!(
            !server.set_enabled(DefinitionKind::Tool, "a", false),
            "already disabled"
        );

        assert!(server.set_enabled(DefinitionKind::Tool, "a", true));
        assert_eq!(next_change(&mut notes).await, told(true));
        assert_eq!(tool_names(&client).await, ["b", "a"]);
        client.call_tool("a", json!({})).await.unwrap();

        // Removing a disabled tool changes no list, so nobody is told; the name is free.
        assert!(server.set_enabled(DefinitionKind::Tool, "a", false));
        assert_eq!(next_change(&mut notes).await, told(true));
        assert!(server.remove_tool("a"));
        assert_eq!(next_change(&mut notes).await, told(false));
        server.add_tool(tool("a")).unwrap();
        assert_eq!(next_change(&mut notes).await, told(true));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn output_that_breaks_the_output_schema_or_a_schema_that_does_not_compile_is_an_internal_error() {
    let server = Server::builder("strict", "1")
        .tool(
            ToolDef::new("bad")
                .output_schema(
                    json!({"type": "object", "required": ["n"]})
                        .as_object()
                        .unwrap()
                        .clone(),
                )
                .handler(|_, _| async { oxmcp::server::Json(json!({"m": 1})) }),
        )
        .tool(
            ToolDef::new("rpc")
                .handler(|_, _| async { Err::<String, _>(HandlerError::rpc(ErrorObject::new(-31999, "custom"))) }),
        )
        .tool(
            ToolDef::new("misspelt")
                .input_schema(
                    json!({"type": "object", "properties": {"n": {"type": "integr"}}})
                        .as_object()
                        .unwrap()
                        .clone(),
                )
                .handler(|_, _| async { "unreachable" }),
        )
        .build()
        .expect("schemas compile at the first call, not at build");
    for era in ERAS {
        let client = connect(&server, era).await;
        let error = client.call_tool("bad", json!({})).await.unwrap_err();
        let error = error.as_remote().expect("a JSON-RPC error");
        assert_eq!(error.code, code::INTERNAL_ERROR);
        assert!(error.message.contains("breaks its schema"), "{}", error.message);
        let misspelt = client.call_tool("misspelt", json!({"n": 1})).await.unwrap_err();
        let misspelt = misspelt.as_remote().expect("a JSON-RPC error");
        assert_eq!(misspelt.code, code::INTERNAL_ERROR);
        assert!(
            misspelt.message.contains("input schema that does not compile"),
            "{}",
            misspelt.message
        );
        let custom = client.call_tool("rpc", json!({})).await.unwrap_err();
        assert_eq!(custom.as_remote().map(|e| e.code), Some(-31999));
    }
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_is_not_sent() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let server = Server::builder("counting", "1")
        .tool(ToolDef::new("count").handler(move |_, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { "counted" }
        }))
        .build()
        .unwrap();
    let cancelled = tokio_util::sync::CancellationToken::new();
    cancelled.cancel();
    let options = CallOptions {
        cancellation: Some(cancelled),
        ..Default::default()
    };
    for era in ERAS {
        let client = connect(&server, era).await;
        let outcome = client.call_tool_with("count", json!({}), &options).await;
        assert!(matches!(outcome, Err(oxmcp::Error::Cancelled)), "{era:?}: {outcome:?}");
        assert!(matches!(
            client.list_tools_with(None, &options).await,
            Err(oxmcp::Error::Cancelled)
        ));
        assert_eq!(
            client.call_tool("count", json!({})).await.unwrap().content[0].as_text(),
            Some("counted")
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2, "only the calls not cancelled ran");
}

#[tokio::test]
async fn handlers_see_the_request_era_and_client() {
    let server = Server::builder("introspective", "1")
        .tool(ToolDef::new("whoami").handler(|_, ctx: Context| async move {
            format!(
                "{} {:?} {}",
                ctx.protocol_version(),
                ctx.era(),
                ctx.client_info().map(|i| i.name.as_str()).unwrap_or("?")
            )
        }))
        .build()
        .unwrap();
    for (era, expected) in [
        (EraMode::Legacy, "2025-11-25 Legacy memory-tests"),
        (EraMode::Modern, "2026-07-28 Modern memory-tests"),
    ] {
        let client = connect(&server, era).await;
        let result = client.call_tool("whoami", json!(null)).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some(expected));
    }
}

#[test]
fn definitions_are_checked_when_the_server_is_built() {
    let twice = Server::builder("dup", "1").tool(tool("a")).tool(tool("a")).build();
    assert!(twice.err().unwrap().to_string().contains("already registered"));
    // At runtime too: a name is registered once, and replaced by removing it first.
    let server = Server::builder("dup", "1").tool(tool("a")).build().unwrap();
    assert!(server.add_tool(tool("a")).is_err());
    assert!(server.remove_tool("a"));
    assert!(server.add_tool(tool("a")).is_ok());
    let bad_name = Server::builder("bad", "1").tool(tool("no spaces allowed")).build();
    assert!(bad_name.is_err());
    let bad_template = Server::builder("bad", "1")
        .resource_template(
            oxmcp::server::ResourceTemplateDef::new("x://{unclosed", "t").handler(|_, _, _| async { "" }),
        )
        .build();
    assert!(bad_template.is_err());
}

/// (Clients leave such tools out of their lists: the conformance suite's
/// `http-invalid-tool-headers` scenario checks oxmcp's clients against a server that
/// lists them.)
#[tokio::test]
async fn a_tool_with_invalid_header_annotations_is_refused_when_registered() {
    let schema = |property: Value| {
        json!({"type": "object", "properties": {"region": property}})
            .as_object()
            .unwrap()
            .clone()
    };
    let valid = schema(json!({"type": "string", "x-mcp-header": "Region"}));
    let server = Server::builder("headers", "1")
        .tool(tool("good").input_schema(valid))
        .build()
        .unwrap();
    for invalid in [
        json!({"type": "string", "x-mcp-header": "Not A Token"}),
        json!({"type": "string", "x-mcp-header": ""}),
        json!({"type": "object", "x-mcp-header": "Data"}),
        json!({"type": "number", "x-mcp-header": "Score"}),
    ] {
        let refused = server.add_tool(tool("bad").input_schema(schema(invalid.clone())));
        assert!(refused.is_err(), "{invalid}");
        let built = Server::builder("headers", "1")
            .tool(tool("bad").input_schema(schema(invalid.clone())))
            .build();
        assert!(built.is_err(), "{invalid}");
    }
    for era in ERAS {
        let client = connect(&server, era).await;
        assert_eq!(tool_names(&client).await, ["good"], "{era:?}");
    }
}

#[tokio::test]
async fn when_the_input_ends_requests_in_flight_are_cancelled_after_the_grace_period() {
    let stopped = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&stopped);
    let server = Server::builder("grace", "1")
        .end_grace(Duration::from_millis(300))
        .tool(ToolDef::new("endless").handler(move |_, _| {
            let stopped = StopCounter(Arc::clone(&counter));
            async move {
                tokio::time::sleep(Duration::from_secs(60)).await;
                drop(stopped);
                "never"
            }
        }))
        .build()
        .unwrap();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let serving = tokio::spawn({
        let server = server.clone();
        async move { server.serve(server_end).await }
    });
    let client = Client::connect(client_end, ClientOptions::new("memory-tests", "1.0.0"))
        .await
        .unwrap();
    let endless = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("endless", json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.close().await.unwrap();
    let served = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(served.is_ok(), "the server stops once the grace period is over");
    assert_eq!(stopped.load(Ordering::SeqCst), 1, "the endless handler was cancelled");
    let _ = endless.await;
}

#[tokio::test]
async fn dropping_the_future_of_serve_ends_the_connection_and_its_client_learns_it() {
    let server = Server::builder("dropped", "1").tool(tool("ping")).build().unwrap();
    for era in ERAS {
        let (client_end, server_end) = oxmcp::transport::memory::pair();
        let serving = tokio::spawn({
            let server = server.clone();
            async move { server.serve(server_end).await }
        });
        let client = Client::connect(client_end, ClientOptions::new("memory-tests", "1.0.0").era(era))
            .await
            .unwrap();
        assert!(client.call_tool("ping", json!({})).await.is_ok(), "{era:?}: served");
        let closed = client.closed();
        tokio::pin!(closed);
        let open = tokio::time::timeout(Duration::from_millis(100), &mut closed).await;
        assert!(open.is_err(), "{era:?}: open while served");
        // Aborting the task drops the future, as a `select!` or a timeout would.
        serving.abort();
        let _ = serving.await;
        let heard = tokio::time::timeout(Duration::from_secs(5), closed).await;
        assert!(heard.is_ok(), "{era:?}: the client learns that the server went away");
        let after = tokio::time::timeout(Duration::from_secs(5), client.call_tool("ping", json!({}))).await;
        assert!(
            matches!(after, Ok(Err(_))),
            "{era:?}: nobody serves the connection any more: {after:?}"
        );
    }
}

#[tokio::test]
async fn unknown_resources_and_prompts_are_the_spec_errors_unless_the_server_words_them() {
    let build = |worded: bool| {
        let builder = Server::builder("names", "1")
            .prompt(PromptDef::new("known").handler(|_, _| async { "hi" }))
            .resource_template(
                oxmcp::server::ResourceTemplateDef::new("notes://{id}", "notes")
                    .handler(|uri, _, _| async move { Err::<String, _>(HandlerError::resource_not_found(uri)) }),
            );
        let builder = if worded {
            builder
                .unknown_resource_error("Resource not found: '{uri}'")
                .unknown_prompt_error("Unknown prompt: '{name}'")
        } else {
            builder
        };
        builder.build().unwrap()
    };
    let (spec, worded) = (build(false), build(true));
    for era in ERAS {
        let spec_code = if era == EraMode::Legacy { -32002 } else { -32602 };
        for (server, code, missing) in [
            (&spec, spec_code, "Resource not found: other://x"),
            (&worded, -32602, "Resource not found: 'other://x'"),
        ] {
            let client = connect(server, era).await;
            let error = client.read_resource("other://x").await.unwrap_err();
            let error = error.as_remote().expect("a JSON-RPC error");
            assert_eq!((error.code, error.message.as_str()), (code, missing), "{era:?}");
            assert_eq!(error.data, Some(json!({"uri": "other://x"})), "{era:?}");
            // A handler that did not find its resource is answered the same way.
            let error = client.read_resource("notes://1").await.unwrap_err();
            let error = error.as_remote().expect("a JSON-RPC error");
            assert_eq!(error.code, code, "{era:?}");
            assert_eq!(error.message, missing.replace("other://x", "notes://1"), "{era:?}");
        }
        let refused = |server| async move {
            let error = connect(server, era)
                .await
                .get_prompt("nope", BTreeMap::new())
                .await
                .unwrap_err();
            let error = error.as_remote().expect("a JSON-RPC error").clone();
            (error.code, error.message)
        };
        assert_eq!(
            refused(&spec).await,
            (-32602, "Invalid params: unknown prompt: nope".to_owned()),
            "{era:?}"
        );
        assert_eq!(
            refused(&worded).await,
            (-32602, "Unknown prompt: 'nope'".to_owned()),
            "{era:?}"
        );
    }
    // A resource an interceptor says it did not find is worded as the server words them.
    worded.set_interceptor(NotFinding);
    for era in ERAS {
        let error = connect(&worded, era)
            .await
            .read_resource("other://x")
            .await
            .unwrap_err();
        let error = error.as_remote().expect("a JSON-RPC error");
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32602, "Resource not found: 'other://x'"),
            "{era:?}"
        );
    }
}

/// Passes every request on, and fails a read whose resource was not found as a binding's
/// interceptor does: naming the resource, for the server to word.
struct NotFinding;

impl Interceptor for NotFinding {
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(async move {
            let uri = request.params.get("uri").and_then(Value::as_str).map(str::to_owned);
            next.run(None).await.map_err(|error| match uri {
                Some(uri) => HandlerError::resource_not_found(uri),
                None => HandlerError::rpc(error),
            })
        })
    }
}

/// A [`Spawner`] that runs its tasks on one thread of its own, `spawner`, as the Node
/// binding runs them on Node's; the thread stops when the value is dropped.
struct OneThread {
    runtime: tokio::runtime::Handle,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl OneThread {
    fn start() -> Arc<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("spawner".into())
            .spawn(move || {
                let _ = runtime.block_on(stopped);
            })
            .unwrap();
        Arc::new(OneThread {
            runtime: handle,
            _stop: stop,
        })
    }
}

impl Spawner for OneThread {
    fn spawn(&self, task: BoxFuture<'static, ()>) {
        self.runtime.spawn(task);
    }
}

#[tokio::test]
async fn a_transport_with_a_spawner_of_its_own_runs_its_requests_there() {
    let server = Server::builder("spawned", "1")
        .tool(ToolDef::new("thread").handler(|_, _| async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            std::thread::current().name().unwrap_or_default().to_owned()
        }))
        .build()
        .unwrap();
    let spawner = OneThread::start();
    for era in ERAS {
        let (client_end, server_end) = oxmcp::transport::memory::pair();
        let serving = tokio::spawn({
            let server = server.clone();
            let transport = server_end.spawning_on(Arc::clone(&spawner) as _);
            async move { server.serve(transport).await }
        });
        let client = Client::connect(client_end, ClientOptions::new("memory-tests", "1.0.0").era(era))
            .await
            .unwrap();
        let calls = (0..4).map(|_| client.call_tool("thread", json!({})));
        for result in futures::future::join_all(calls).await {
            let text = result.unwrap().content[0].as_text().unwrap().to_owned();
            assert_eq!(text, "spawner", "{era:?}: the handler ran on the spawner's thread");
        }
        // Dropping the future of serve stops the connection's tasks on the spawner too.
        serving.abort();
        let _ = serving.await;
        let after = tokio::time::timeout(Duration::from_secs(5), client.call_tool("thread", json!({}))).await;
        assert!(matches!(after, Ok(Err(_))), "{era:?}: no longer served: {after:?}");
    }
}

/// A fed stdio connection (the Node binding's) reads the lines its caller hands over, in
/// whatever chunks they come, answers on the caller's stream, and ends when the input does.
#[tokio::test]
async fn a_fed_stdio_connection_answers_on_the_callers_stream() {
    use tokio::io::AsyncBufReadExt;

    let server = Server::builder("fed", "1")
        .tool(ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or("").to_owned() }))
        .build()
        .unwrap();
    let (output, answers) = tokio::io::duplex(64 * 1024);
    let (serving, mut feed) = server.serve_stdio_fed(OneThread::start(), output);
    let serving = tokio::spawn(serving);
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
    );
    // Split inside a line, and the last line without its newline until the input ends.
    let (first, rest) = input.split_at(50);
    feed.push(first.as_bytes());
    feed.push(rest.as_bytes());
    feed.end();
    let mut lines = tokio::io::BufReader::new(answers).lines();
    let mut next = async || -> Value { serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap() };
    assert_eq!(next().await["result"]["serverInfo"]["name"], "fed");
    let call = next().await;
    assert_eq!(
        (&call["id"], &call["result"]["content"][0]["text"]),
        (&json!(2), &json!("hi"))
    );
    let served = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(
        matches!(served, Ok(Ok(Ok(())))),
        "serving ended with the input: {served:?}"
    );
}

/// Counts the handlers dropped before they finished.
struct StopCounter(Arc<AtomicUsize>);

impl Drop for StopCounter {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A progress callback runs with no lock of the client held: one that calls back into the
/// client, starting a request of its own (whose first step registers its progress, under
/// the lock the callback used to run in), does not hang the client.
#[test]
fn a_progress_callback_may_call_back_into_the_client() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // On a task of its own: after a timeout its futures are left alone (dropping them
    // would take the lock a deadlocked read loop holds).
    let scenario = runtime.spawn(progress_callback_calls_the_client());
    let finished = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(30), scenario).await });
    // A read loop stuck in the callback would hold its worker forever: do not wait for it.
    runtime.shutdown_background();
    finished
        .expect("the calls finished: the callback did not deadlock the client")
        .expect("the scenario passed");
}

async fn progress_callback_calls_the_client() {
    let server = Server::builder("progress", "1")
        .tool(ToolDef::new("steps").handler(|_, ctx: Context| async move {
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), None).await;
            }
            "done"
        }))
        .build()
        .unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        let nested = Arc::new(Mutex::new(Vec::new()));
        let (caller, started) = (client.clone(), Arc::clone(&nested));
        let on_progress: ProgressCallback = Arc::new(move |_| {
            let client = caller.clone();
            let mut call = Box::pin(async move {
                let quiet = CallOptions {
                    on_progress: Some(Arc::new(|_| {})),
                    ..Default::default()
                };
                client.call_tool_with("steps", json!({}), &quiet).await
            });
            // Started right here in the callback: the first poll sends the request.
            let mut context = std::task::Context::from_waker(futures::task::noop_waker_ref());
            assert!(call.as_mut().poll(&mut context).is_pending());
            started.lock().unwrap().push(tokio::spawn(call));
        });
        let options = CallOptions {
            on_progress: Some(on_progress),
            ..Default::default()
        };
        let result = client.call_tool_with("steps", json!({}), &options).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("done"), "{era:?}");
        let calls: Vec<_> = std::mem::take(&mut *nested.lock().unwrap());
        assert_eq!(calls.len(), 3, "{era:?}: one call per progress notification");
        for call in calls {
            let result = call.await.unwrap().unwrap();
            assert_eq!(result.content[0].as_text(), Some("done"), "{era:?}");
        }
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn the_servers_completer_completes_what_no_argument_handler_does() {
    let prompt = PromptDef::new("review")
        .argument("language", "", true)
        .argument("code", "", true)
        .argument("style", "", false)
        .complete(
            "language",
            |value: String, _| async move { vec![format!("{value}thon")] },
        )
        .handler(|_, _| async { "hi" });
    let server = Server::builder("completing", "1").prompt(prompt).build().unwrap();
    server.set_completer(|params: CompleteRequestParams| async move {
        match params.argument.name.as_str() {
            "code" => Some(Completion {
                values: vec![format!("{}()", params.argument.value)],
                ..Default::default()
            }),
            "style" => Some(Completion {
                values: (0..150).map(|n| n.to_string()).collect(),
                ..Default::default()
            }),
            _ => None,
        }
    });
    let reference = || CompletionReference::Prompt {
        name: "review".into(),
        title: None,
    };
    for era in ERAS {
        let client = connect(&server, era).await;
        let complete = |argument: &'static str, value: &'static str| {
            let client = &client;
            async move {
                client
                    .complete(reference(), argument, value, BTreeMap::new())
                    .await
                    .unwrap()
            }
        };
        // The argument's own handler comes first.
        assert_eq!(complete("language", "py").await.values, ["python"]);
        let code = complete("code", "main").await;
        assert_eq!(
            (code.values, code.total, code.has_more),
            (vec!["main()".to_owned()], None, None)
        );
        let style = complete("style", "").await;
        assert_eq!(
            (style.values.len(), style.total, style.has_more),
            (100, Some(150), Some(true))
        );
        assert!(complete("nothing", "").await.values.is_empty());
    }
}

#[tokio::test]
async fn a_handler_tells_every_client_a_computed_list_changed() {
    let server = Server::builder("computed", "1")
        .tool(ToolDef::new("refresh").handler(|_, ctx: Context| async move {
            ctx.notify_list_changed(DefinitionKind::Resource);
            "refreshed"
        }))
        .build()
        .unwrap();
    let caller = connect(&server, EraMode::Modern).await;
    let other = connect(&server, EraMode::Legacy).await;
    let mut other_notes = other.notifications();
    caller.call_tool("refresh", json!({})).await.unwrap();
    assert_eq!(
        next_change(&mut other_notes).await,
        Some(ServerNotification::ResourceListChanged)
    );
}

#[tokio::test]
async fn a_handler_tells_its_own_legacy_session_alone_a_list_changed() {
    let server = Server::builder("per-session", "1")
        .tool(ToolDef::new("unlock").handler(|_, ctx: Context| async move {
            ctx.notify_session_list_changed(DefinitionKind::Tool).await;
            "unlocked"
        }))
        .build()
        .unwrap();
    let caller = connect(&server, EraMode::Legacy).await;
    let other = connect(&server, EraMode::Legacy).await;
    let (mut caller_notes, mut other_notes) = (caller.notifications(), other.notifications());
    caller.call_tool("unlock", json!({})).await.unwrap();
    assert_eq!(
        next_change(&mut caller_notes).await,
        Some(ServerNotification::ToolListChanged)
    );
    assert_eq!(next_change(&mut other_notes).await, None, "another session is not told");
}

#[tokio::test]
async fn a_tool_that_checks_its_own_arguments_gets_them_as_sent() {
    let Value::Object(schema) = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    else {
        unreachable!()
    };
    let echo = |arguments: serde_json::Map<String, Value>, _: Context| async move { Json(Value::Object(arguments)) };
    let server = Server::builder("lax", "1")
        .tool(ToolDef::new("strict").input_schema(schema.clone()).handler(echo))
        .tool(
            ToolDef::new("lax")
                .input_schema(schema)
                .handler(echo)
                .handler_checks_arguments(),
        )
        .build()
        .unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        let refused = client.call_tool("strict", Some(json!({"n": "5"}))).await;
        assert!(
            refused.is_err() || refused.unwrap().is_error == Some(true),
            "{era:?}: the core refuses"
        );
        assert_eq!(
            structured(&client, "lax", json!({"n": "5"})).await,
            json!({"n": "5"}),
            "{era:?}"
        );
    }
}

/// A modern client that writes its calls on a stream as text.
struct RawModernClient {
    writer: tokio::io::DuplexStream,
    reader: tokio::io::Lines<tokio::io::BufReader<tokio::io::DuplexStream>>,
    meta: Value,
}

impl RawModernClient {
    fn serving(server: Server, client_capabilities: Value) -> Self {
        let (client_out, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_in) = tokio::io::duplex(1 << 16);
        let transport = from_streams(server_in, server_out, DEFAULT_MAX_MESSAGE_SIZE);
        tokio::spawn(async move { server.serve(transport).await });
        RawModernClient {
            writer: client_out,
            reader: tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(client_in)),
            meta: json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": client_capabilities,
            }),
        }
    }

    /// Calls a tool with `params` (its `_meta` added) and reads the answer.
    async fn call(&mut self, id: u64, mut params: Value) -> Value {
        params["_meta"] = self.meta.clone();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        tokio::io::AsyncWriteExt::write_all(&mut self.writer, format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let answer = self.reader.next_line().await.unwrap().expect("an answer");
        serde_json::from_str(&answer).unwrap()
    }
}

/// Over a stream a call is read in one pass, envelope and params together, and its params
/// are found again in its frame only when a request state is sealed or opened: the state a
/// modern call is given opens for that call again, and for no call with other arguments.
#[tokio::test]
async fn a_request_state_given_over_a_stream_opens_for_its_own_call_only() {
    let server = Server::builder("streams", "1")
        .tool(ToolDef::new("delete").handler(|arguments, ctx: Context| async move {
            let form = ElicitRequestParams::Form(ElicitRequestFormParams {
                mode: None,
                message: "Sure?".into(),
                requested_schema: json!({"type": "object"}).as_object().cloned().unwrap(),
                meta: None,
            });
            let answer = ctx.elicit(form).await?;
            Ok::<_, HandlerError>(format!("{:?} {}", answer.action, arguments["file"]))
        }))
        .build()
        .unwrap();
    let mut client = RawModernClient::serving(server, json!({"elicitation": {}}));
    let first = client
        .call(1, json!({"name": "delete", "arguments": {"file": "a.txt"}}))
        .await;
    let first = &first["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    let key = first["inputRequests"].as_object().unwrap().keys().next().unwrap();
    let retry = |file: &str| {
        json!({
            "name": "delete",
            "arguments": {"file": file},
            "requestState": first["requestState"],
            "inputResponses": {key: {"action": "accept", "content": {}}},
        })
    };
    let other = client.call(2, retry("b.txt")).await;
    assert_eq!(other["error"]["code"], code::INVALID_PARAMS, "{other}");
    let same = client.call(3, retry("a.txt")).await;
    assert_eq!(same["result"]["content"][0]["text"], "Accept \"a.txt\"", "{same}");
}

/// An interceptor sees every request with its method and params, and answers it: through
/// the method with other params, with the method's result changed, or by itself with an
/// error; a modern result it gives is stamped as the method's own would be.
#[tokio::test]
async fn an_interceptor_runs_around_every_request() {
    let server = Server::builder("intercepted", "1")
        .tool(ToolDef::new("echo").handler(|arguments, _| async move { arguments["text"].to_string() }))
        .tool(tool("secret"))
        .build()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    server.set_interceptor(move |request: Intercepted, next: Next| {
        log.lock().unwrap().push(request.method.clone());
        async move {
            if request.method == "tools/call" && request.params["name"] == "secret" {
                return Err(HandlerError::rpc(ErrorObject::new(-32001, "not for you")));
            }
            if request.method == "tools/call" {
                let mut params = request.params.clone();
                params["arguments"]["text"] = json!("rewritten");
                let mut result = next.run(Some(params)).await.map_err(HandlerError::rpc)?;
                result["content"][0]["text"] = json!(format!("<{}>", result["content"][0]["text"].as_str().unwrap()));
                return Ok(result);
            }
            let mut result = next.run(None).await.map_err(HandlerError::rpc)?;
            if request.method == "tools/list" {
                let tools = result["tools"].as_array_mut().unwrap();
                tools.retain(|tool| tool["name"] != "secret");
            }
            Ok(result)
        }
    });
    for era in ERAS {
        seen.lock().unwrap().clear();
        let client = connect(&server, era).await;
        assert_eq!(tool_names(&client).await, ["echo"], "{era:?}");
        let echoed = client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(
            serde_json::to_value(&echoed.content).unwrap()[0]["text"],
            "<\"rewritten\">",
            "{era:?}"
        );
        let refused = client.call_tool("secret", json!({})).await.unwrap_err();
        assert!(refused.to_string().contains("not for you"), "{era:?}: {refused}");
        // Every request but the legacy handshake; a modern client discovers the server.
        let discovered = (era == EraMode::Modern).then_some("server/discover");
        let expected: Vec<_> = discovered
            .into_iter()
            .chain(["tools/list", "tools/call", "tools/call"])
            .collect();
        assert_eq!(*seen.lock().unwrap(), expected, "{era:?}");
    }
    let mut raw = RawModernClient::serving(server, json!({}));
    let answer = raw.call(1, json!({"name": "echo", "arguments": {"text": "hi"}})).await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "intercepted",
        "{answer}"
    );
}

/// Sees every notification, and drops `notifications/app/skip` without its handler running.
struct Watching(Arc<Mutex<Vec<String>>>);

impl Interceptor for Watching {
    fn intercept(&self, _: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(async move { next.run(None).await.map_err(HandlerError::rpc) })
    }

    fn notified(&self, notification: Intercepted, next: NotificationNext) -> BoxFuture<'static, ()> {
        let seen = Arc::clone(&self.0);
        Box::pin(async move {
            let skipped = notification.method == "notifications/app/skip";
            if !skipped {
                next.run().await;
            }
            let era = format!("{:?}", notification.ctx.era());
            seen.lock().unwrap().push(format!("{} {era}", notification.method));
        })
    }
}

/// An interceptor sees the client's notifications with their context, around their
/// handlers: it runs a handler or drops the notification.
#[tokio::test]
async fn an_interceptor_runs_around_every_notification() {
    let handled = Arc::new(AtomicUsize::new(0));
    let (pings, skips) = (Arc::clone(&handled), Arc::clone(&handled));
    let server = Server::builder("watched", "1")
        .notification_handler("notifications/app/skip", move |_: Value, _: Context| {
            let skips = Arc::clone(&skips);
            async move {
                skips.fetch_add(100, Ordering::SeqCst);
            }
        })
        .notification_handler("notifications/app/ping", move |_: Value, _: Context| {
            let pings = Arc::clone(&pings);
            async move {
                pings.fetch_add(1, Ordering::SeqCst);
            }
        })
        .build()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    server.set_interceptor(Watching(Arc::clone(&seen)));
    for era in ERAS {
        seen.lock().unwrap().clear();
        let client = connect(&server, era).await;
        client.notify("notifications/app/skip", None).await.unwrap();
        client.notify("notifications/app/ping", None).await.unwrap();
        let expected = 2 + usize::from(era == EraMode::Legacy);
        for _ in 0..200 {
            if seen.lock().unwrap().len() >= expected {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let era_name = if era == EraMode::Legacy { "Legacy" } else { "Modern" };
        let mut notified: Vec<String> = seen.lock().unwrap().clone();
        notified.sort();
        let mut wanted = vec![
            format!("notifications/app/ping {era_name}"),
            format!("notifications/app/skip {era_name}"),
        ];
        if era == EraMode::Legacy {
            wanted.push("notifications/initialized Legacy".to_owned());
        }
        assert_eq!(notified, wanted, "{era:?}");
    }
    // The ping's handler ran once in each era; the skipped one's (100 a run) never.
    assert_eq!(handled.load(Ordering::SeqCst), 2);
}

/// Sees the legacy `initialize` too: refuses a client named `blocked`, and adds to the
/// instructions of the others the client it saw in the context.
struct Gatekeeper(Arc<Mutex<Vec<String>>>);

impl Interceptor for Gatekeeper {
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        self.0.lock().unwrap().push(request.method.clone());
        Box::pin(async move {
            if request.method != "initialize" {
                return next.run(None).await.map_err(HandlerError::rpc);
            }
            let client = request.params["clientInfo"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if client == "blocked" {
                return Err(HandlerError::rpc(ErrorObject::new(-32001, "not this client")));
            }
            let mut result = next.run(None).await.map_err(HandlerError::rpc)?;
            let seen = request
                .ctx
                .client_info()
                .map(|info| info.name.clone())
                .unwrap_or_default();
            result["instructions"] = json!(format!("welcome, {seen}"));
            Ok(result)
        })
    }

    fn intercepts_initialize(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn an_interceptor_may_see_the_legacy_handshake() {
    let server = Server::builder("gated", "1").tool(tool("ok")).build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    server.set_interceptor(Gatekeeper(Arc::clone(&seen)));
    let client = connect(&server, EraMode::Legacy).await;
    assert_eq!(
        client.server_details().instructions.as_deref(),
        Some("welcome, memory-tests")
    );
    client.call_tool("ok", json!({})).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), ["initialize", "tools/call"]);

    let (client_end, server_end) = oxmcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(server_end).await });
    let options = ClientOptions::new("blocked", "1.0.0").era(EraMode::Legacy);
    let refused = Client::connect(client_end, options).await.err().expect("refused");
    assert!(refused.to_string().contains("not this client"), "{refused}");
}

#[tokio::test]
async fn a_tool_renders_the_servers_own_prompt_with_its_context() {
    let prompt = PromptDef::new("greet")
        .description("A greeting")
        .argument("name", "", true)
        .handler(|arguments: BTreeMap<String, String>, ctx: Context| async move {
            format!("hello {} ({:?})", arguments["name"], ctx.era())
        });
    let render = ToolDef::new("render").handler(|arguments: Map<String, Value>, ctx: Context| async move {
        let given = serde_json::from_value(arguments["arguments"].clone()).unwrap();
        let era = format!("{:?}", ctx.era());
        match ctx.get_prompt(arguments["name"].as_str().unwrap_or(""), given).await {
            Ok(result) => Json(json!({"rendered": result, "era": era})),
            Err(HandlerError::Rpc(error)) => Json(json!({"error": error.message})),
            Err(other) => panic!("{other:?}"),
        }
    });
    let server = Server::builder("prompts-as-tools", "1.0.0")
        .prompt(prompt)
        .tool(render)
        .build()
        .unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        let call = |name: &str, given: Value| structured(&client, "render", json!({"name": name, "arguments": given}));
        let rendered = call("greet", json!({"name": "Ada"})).await;
        assert_eq!(rendered["rendered"]["description"], "A greeting", "{era:?}");
        let text = format!("hello Ada ({})", rendered["era"].as_str().unwrap());
        assert_eq!(rendered["rendered"]["messages"][0]["content"]["text"], text.as_str());
        let missing = call("greet", json!({})).await;
        assert_eq!(
            missing["error"],
            "Invalid params: prompt greet is missing required arguments: name"
        );
        assert_eq!(
            call("nope", json!({})).await["error"],
            "Invalid params: unknown prompt: nope"
        );
    }
}

#[tokio::test]
async fn a_tool_calls_another_of_the_servers_tools_and_pings_its_client() {
    let add = ToolDef::new("add").handler(|arguments: Map<String, Value>, _| async move {
        let sum = arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0);
        sum.to_string()
    });
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let add = add.input_schema(schema.as_object().cloned().expect("an object"));
    let via = ToolDef::new("via").handler(|arguments: Map<String, Value>, ctx: Context| async move {
        let given = arguments["arguments"].as_object().cloned().unwrap_or_default();
        let pinged = ctx.ping().await.is_ok();
        match ctx.call_tool(arguments["name"].as_str().unwrap_or(""), given).await {
            Ok(result) => Json(json!({"called": result, "pinged": pinged})),
            Err(HandlerError::Rpc(error)) => Json(json!({"error": error.message})),
            Err(other) => panic!("{other:?}"),
        }
    });
    let server = Server::builder("calls", "1.0.0").tool(add).tool(via).build().unwrap();
    for era in ERAS {
        let client = connect(&server, era).await;
        let call = |name: &str, given: Value| structured(&client, "via", json!({"name": name, "arguments": given}));
        let called = call("add", json!({"a": 2, "b": 3})).await;
        assert_eq!(called["called"]["content"][0]["text"], "5", "{era:?}");
        assert_eq!(called["pinged"], true, "the client answers the ping ({era:?})");
        let refused = call("add", json!({"a": "two"})).await;
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("invalid arguments for tool add"),
            "{refused}"
        );
        assert_eq!(
            call("nope", json!({})).await["error"],
            "Invalid params: unknown tool: nope"
        );
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error_unless_the_server_words_it_as_a_tool_error() {
    let known = || ToolDef::new("known").handler(|_, _| async { "yes" });
    let spec = Server::builder("spec", "1").tool(known()).build().unwrap();
    let worded = Server::builder("sdk", "1")
        .tool(known())
        .unknown_tool_error("Unknown tool: '{name}'")
        .build()
        .unwrap();
    for era in ERAS {
        let refused = connect(&spec, era)
            .await
            .call_tool("nope", json!({}))
            .await
            .unwrap_err();
        assert_eq!(refused.as_remote().map(|e| e.code), Some(-32602), "{era:?}");
        let client = connect(&worded, era).await;
        let answered = client.call_tool("nope", json!({})).await.unwrap();
        assert_eq!(answered.is_error, Some(true), "{era:?}");
        assert_eq!(
            serde_json::to_value(&answered.content).unwrap(),
            json!([{"type": "text", "text": "Unknown tool: 'nope'"}])
        );
        let called = client.call_tool("known", json!({})).await.unwrap();
        assert_eq!(called.is_error, None, "{era:?}");
    }
}
