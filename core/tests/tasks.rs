//! Tasks, the 2026-07-28 extension `io.modelcontextprotocol/tasks`, over real HTTP: a tool
//! call answered with a task for clients that declare the extension (in place for the
//! others, or -32021 when the tool requires a task), polled with `tasks/get`, given input
//! with `tasks/update`, stopped with `tasks/cancel`; tasks end as the handler does, expire,
//! are bounded in number, and are visible only to the caller that made them. The oxmcp
//! client follows tasks to their result: `call_tool` returns what the task did.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::mcp_post;
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::server::auth::{AccessToken, ResourceServer, VerifyError};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::tasks::EXTENSION;
use oxmcp::server::{Server, TaskLimits, TaskSupport, ToolDef};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

const MODERN: &str = "2026-07-28";

/// A server with a tool that may run as a task (`compute`, which waits `ms` and notes that
/// it finished) and tools that must: one asking the user, one failing as a request, one
/// quick.
fn server(limits: TaskLimits, finished: Arc<AtomicBool>) -> Server {
    Server::builder("tasks", "1.0.0")
        .task_limits(limits)
        .tool(
            ToolDef::new("compute")
                .task_support(TaskSupport::Optional)
                .handler(move |args, _| {
                    let finished = Arc::clone(&finished);
                    async move {
                        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        finished.store(true, Ordering::SeqCst);
                        format!("done after {ms} ms")
                    }
                }),
        )
        .tool(common::confirm_task_tool())
        .tool(common::broken_task_tool())
        .tool(
            ToolDef::new("greet_later")
                .task_support(TaskSupport::Required)
                .asks_before_task()
                .handler(|_, ctx: oxmcp::server::Context| async move {
                    let form = oxmcp::protocol::ElicitRequestParams::Form(oxmcp::protocol::ElicitRequestFormParams {
                        mode: None,
                        message: "Your name?".into(),
                        requested_schema: json!({"type": "object", "properties": {"name": {"type": "string"}}})
                            .as_object()
                            .cloned()
                            .unwrap(),
                        meta: None,
                    });
                    let answer = ctx.elicit(form).await?;
                    ctx.begin_task().await;
                    assert!(ctx.is_task());
                    let name = answer
                        .content
                        .and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned));
                    Ok::<_, oxmcp::server::HandlerError>(format!("Hello, {}!", name.unwrap_or_default()))
                }),
        )
        .tool(
            ToolDef::new("quick")
                .task_support(TaskSupport::Required)
                .handler(|_, _| async { "quick" }),
        )
        .build()
        .unwrap()
}

/// The server on 127.0.0.1, answering with JSON, and a raw modern-era client of it.
struct Served {
    handle: HttpServerHandle,
    http: reqwest::Client,
    /// Set when a `compute` finished its work.
    finished: Arc<AtomicBool>,
}

impl Served {
    async fn start(limits: TaskLimits) -> Served {
        Self::with(limits, HttpConfig::default()).await
    }

    async fn with(limits: TaskLimits, config: HttpConfig) -> Served {
        let finished = Arc::new(AtomicBool::new(false));
        let handle = server(limits, Arc::clone(&finished))
            .bind_http("127.0.0.1:0", config.json_response(true))
            .await
            .unwrap();
        Served {
            handle,
            http: reqwest::Client::new(),
            finished,
        }
    }

    /// The JSON-RPC response to `method` with `params`, from a client that declares the
    /// tasks extension (`tasks`) or not, presenting `token` if any.
    async fn ask(&self, method: &str, mut params: Value, tasks: bool, token: Option<&str>) -> Value {
        let extensions = if tasks { json!({EXTENSION: {}}) } else { json!({}) };
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": extensions},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}});
        let name = params
            .get("name")
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let bearer = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
        if let Some(name) = &name {
            headers.push(("mcp-name", name));
        }
        if let Some(bearer) = &bearer {
            headers.push(("authorization", bearer));
        }
        let url = self.handle.url("/mcp");
        let response = mcp_post(&self.http, &url, &body, &headers).send().await.unwrap();
        serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
    }

    async fn call(&self, tool: &str, arguments: Value, tasks: bool) -> Value {
        self.ask("tools/call", json!({"name": tool, "arguments": arguments}), tasks, None)
            .await
    }

    /// `tasks/get` of `id`, as a client declaring the extension.
    async fn get(&self, id: &str) -> Value {
        self.ask("tasks/get", json!({"taskId": id}), true, None).await
    }

    /// Polls `id` until its status is one of `statuses` (at most 5 s).
    async fn until(&self, id: &str, statuses: &[&str]) -> Value {
        for _ in 0..250 {
            let task = self.get(id).await;
            if statuses.contains(&task["result"]["status"].as_str().unwrap_or_default()) {
                return task["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("task {id} never reached {statuses:?}");
    }

    async fn stop(self) {
        self.handle.shutdown().await.unwrap();
    }
}

fn limits() -> TaskLimits {
    TaskLimits {
        poll_interval: Duration::from_millis(50),
        ..TaskLimits::default()
    }
}

fn task_id(created: &Value) -> String {
    created["result"]["taskId"].as_str().expect("a task id").to_owned()
}

#[tokio::test]
async fn clients_that_declare_the_extension_get_tasks_and_others_answers() {
    let served = Served::start(limits()).await;
    let discovered = served.ask("server/discover", json!({}), true, None).await;
    assert_eq!(discovered["result"]["capabilities"]["extensions"][EXTENSION], json!({}));

    let created = served.call("compute", json!({"ms": 100}), true).await;
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working");
    assert_eq!(result["ttlMs"], 3_600_000);
    assert_eq!(result["pollIntervalMs"], 50);
    assert!(result["createdAt"].as_str().unwrap().ends_with('Z'), "{result}");
    for absent in ["result", "error", "inputRequests", "requestState", "task"] {
        assert!(result.get(absent).is_none(), "{absent} in {result}");
    }
    let id = task_id(&created);
    assert_eq!(id.len(), 32, "128 random bits");
    // Stored before the answer: polled at once, it is there.
    assert_eq!(served.get(&id).await["result"]["taskId"], id.as_str());
    let done = served.until(&id, &["completed"]).await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "done after 100 ms");

    // Without the extension: an optional tool answers in place, a required one refuses.
    let answered = served.call("compute", json!({"ms": 0}), false).await;
    assert_eq!(answered["result"]["content"][0]["text"], "done after 0 ms");
    let refused = served.call("quick", json!({}), false).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION],
        json!({})
    );
    // The task methods too, before any task is looked up.
    let gated = served.ask("tasks/get", json!({"taskId": id}), false, None).await;
    assert_eq!(gated["error"]["code"], -32021);
    served.stop().await;
}

#[tokio::test]
async fn a_task_asks_for_input_and_resumes_with_the_answer() {
    let served = Served::start(limits()).await;
    let id = task_id(&served.call("confirm", json!({}), true).await);
    let waiting = served.until(&id, &["input_required"]).await;
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");

    // An answer to a key that is not pending is ignored, whatever it holds.
    let ignored = served
        .ask(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"nope": {"x": 1}}}),
            true,
            None,
        )
        .await;
    assert_eq!(
        ignored["result"],
        json!({"resultType": "complete", "_meta": ignored["result"]["_meta"]})
    );
    assert_eq!(served.get(&id).await["result"]["status"], "input_required");

    let answer = json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}});
    served.ask("tasks/update", answer, true, None).await;
    let done = served.until(&id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "confirmed");
    assert!(done.get("inputRequests").is_none());
    served.stop().await;
}

#[tokio::test]
async fn cancel_stops_a_running_task_and_acknowledges_an_ended_one() {
    let served = Served::start(limits()).await;
    let id = task_id(&served.call("compute", json!({"ms": 300}), true).await);
    let ack = served.ask("tasks/cancel", json!({"taskId": id}), true, None).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none());
    assert_eq!(served.get(&id).await["result"]["status"], "cancelled");
    // The work stopped: it never finished.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!served.finished.load(Ordering::SeqCst));
    let again = served.ask("tasks/cancel", json!({"taskId": id}), true, None).await;
    assert_eq!(again["result"]["resultType"], "complete");
    assert_eq!(served.get(&id).await["result"]["status"], "cancelled");
    served.stop().await;
}

#[tokio::test]
async fn a_request_error_fails_the_task_and_a_tool_error_completes_it() {
    let served = Served::start(limits()).await;
    let failed = served
        .until(&task_id(&served.call("broken", json!({}), true).await), &["failed"])
        .await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["error"]["message"].as_str().unwrap().contains("it broke"),
        "{failed}"
    );
    assert!(failed.get("result").is_none());
    served.stop().await;
}

#[tokio::test]
async fn tasks_expire_are_bounded_and_unknown_ones_are_refused() {
    let served = Served::start(TaskLimits {
        ttl: Duration::from_millis(300),
        max_tasks: 2,
        ..limits()
    })
    .await;
    let unknown = served.get("no-such-task").await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let first = task_id(&served.call("compute", json!({"ms": 60_000}), true).await);
    let second = task_id(&served.call("compute", json!({"ms": 60_000}), true).await);
    let refused = served.call("compute", json!({"ms": 60_000}), true).await;
    assert_eq!(
        refused["error"]["code"], -32603,
        "every kept task is running: {refused}"
    );
    // An ended task makes room.
    served.ask("tasks/cancel", json!({"taskId": first}), true, None).await;
    let third = task_id(&served.call("compute", json!({"ms": 0}), true).await);
    assert_eq!(
        served.get(&first).await["error"]["code"],
        -32602,
        "the oldest ended one went"
    );
    // Past its time to live a task is gone.
    tokio::time::sleep(Duration::from_millis(400)).await;
    for id in [second, third] {
        assert_eq!(served.get(&id).await["error"]["code"], -32602);
    }
    served.stop().await;
}

#[tokio::test]
async fn a_task_is_visible_only_to_the_principal_that_made_it() {
    // Any closure is a verifier: the token names the subject.
    let verifier = |token: String| async move {
        Ok::<_, VerifyError>(AccessToken::new(token.clone()).issuer("https://as").subject(token))
    };
    let auth = ResourceServer::new(verifier)
        .check_audience(false)
        .authorization_servers(["https://as"]);
    let served = Served::with(limits(), HttpConfig::default().auth(auth)).await;
    let arguments = json!({"name": "compute", "arguments": {"ms": 60_000}});
    let created = served.ask("tools/call", arguments, true, Some("alice")).await;
    let id = task_id(&created);
    let by_alice = served
        .ask("tasks/get", json!({"taskId": id}), true, Some("alice"))
        .await;
    assert_eq!(by_alice["result"]["status"], "working");
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let by_mallory = served
            .ask(
                method,
                json!({"taskId": id, "inputResponses": {}}),
                true,
                Some("mallory"),
            )
            .await;
        assert_eq!(by_mallory["error"]["code"], -32602, "{method}: {by_mallory}");
    }
    let still = served
        .ask("tasks/get", json!({"taskId": id}), true, Some("alice"))
        .await;
    assert_eq!(still["result"]["status"], "working", "mallory's cancel did nothing");
    served.stop().await;
}

#[tokio::test]
async fn the_oxmcp_client_follows_a_task_to_its_result() {
    let served = Served::start(limits()).await;
    let options = common::accepting_ok(ClientOptions::new("tasks-client", "1").era(EraMode::Modern));
    let client = Client::connect_http(served.handle.url("/mcp"), options).await.unwrap();
    // Polled to the end, the result is the handler's, as if answered in place.
    let done = client.call_tool("compute", json!({"ms": 100})).await.unwrap();
    assert_eq!(common::text(&done), "done after 100 ms");
    // What the task asks goes to the client's handler and back through tasks/update.
    let confirmed = client.call_tool("confirm", json!({})).await.unwrap();
    assert_eq!(common::text(&confirmed), "confirmed");
    // A failed task is the request's error.
    let broken = client.call_tool("broken", json!({})).await.unwrap_err();
    assert!(
        matches!(broken, oxmcp::Error::Remote(ref e) if e.code == -32603),
        "{broken:?}"
    );
    // Cancelling the call cancels the task: its work never finishes.
    served.finished.store(false, Ordering::SeqCst);
    let cancellation = CancellationToken::new();
    let call_options = CallOptions {
        cancellation: Some(cancellation.clone()),
        ..CallOptions::default()
    };
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancellation.cancel();
    });
    let cancelled = client
        .call_tool_with("compute", json!({"ms": 300}), &call_options)
        .await
        .unwrap_err();
    assert!(matches!(cancelled, oxmcp::Error::Cancelled), "{cancelled:?}");
    canceller.await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!served.finished.load(Ordering::SeqCst), "the server stopped the task");

    // A client that does not declare the extension gets answers in place, and -32021 from
    // a tool that requires a task.
    let plain = Client::connect_http(
        served.handle.url("/mcp"),
        ClientOptions::new("plain", "1").era(EraMode::Modern).tasks(false),
    )
    .await
    .unwrap();
    assert_eq!(
        common::text(&plain.call_tool("compute", json!({"ms": 0})).await.unwrap()),
        "done after 0 ms"
    );
    let refused = plain.call_tool("quick", json!({})).await.unwrap_err();
    assert!(
        matches!(refused, oxmcp::Error::Remote(ref e) if e.code == -32021),
        "{refused:?}"
    );
    let _ = client.close().await;
    let _ = plain.close().await;
    served.stop().await;
}

#[tokio::test]
async fn a_task_that_ended_is_read_without_waiting_a_poll_interval() {
    // The server asks for polls a minute apart: a client that waited one before its first
    // look would take that long over a task that took no time.
    let served = Served::start(TaskLimits {
        poll_interval: Duration::from_secs(60),
        ..TaskLimits::default()
    })
    .await;
    for era in [EraMode::Modern, EraMode::Legacy] {
        let options = ClientOptions::new("tasks-client", "1").era(era);
        let client = Client::connect_http(served.handle.url("/mcp"), options).await.unwrap();
        let read = async {
            let done = client.call_tool("compute", json!({"ms": 0})).await.unwrap();
            assert_eq!(common::text(&done), "done after 0 ms");
            let task = client.call_tool_as_task("compute", json!({"ms": 0})).await.unwrap();
            assert!(task.id().is_some(), "{era:?}: a task");
            assert_eq!(common::text(&task.result().await.unwrap()), "done after 0 ms");
        };
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .unwrap_or_else(|_| panic!("{era:?}: the ended task was read at once"));
        let _ = client.close().await;
    }
    served.stop().await;
}

#[tokio::test]
async fn listeners_hear_of_their_own_tasks_and_a_task_says_what_it_is_doing() {
    let release = Arc::new(tokio::sync::Notify::new());
    let released = Arc::clone(&release);
    let server = Server::builder("staged", "1")
        .task_limits(limits())
        .tool(ToolDef::new("staged").task_support(TaskSupport::Required).handler(
            move |_, ctx: oxmcp::server::Context| {
                let released = Arc::clone(&released);
                async move {
                    assert!(ctx.is_task());
                    ctx.task_status("halfway").await;
                    released.notified().await;
                    "staged done"
                }
            },
        ))
        .build()
        .unwrap();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    tokio::spawn(async move { server.serve(server_end).await });
    let client = Client::connect(client_end, ClientOptions::new("listener", "1").era(EraMode::Modern))
        .await
        .unwrap();
    let task = client.call_tool_as_task("staged", json!({})).await.unwrap();
    let id = task.id().unwrap().to_owned();
    let mut notifications = client.notifications();
    let filter = oxmcp::protocol::SubscriptionFilter {
        task_ids: Some(vec![id.clone(), "0".repeat(32)]),
        ..Default::default()
    };
    let _subscription = client.listen(filter).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match notifications.recv().await.unwrap() {
                ServerNotification::SubscriptionAcknowledged(ack) => {
                    assert_eq!(
                        ack.notifications.task_ids,
                        Some(vec![id.clone()]),
                        "only known tasks of the caller"
                    );
                    // The task says "halfway" as it starts (maybe before the stream opened).
                    let mut said = None;
                    for _ in 0..100 {
                        said = task.status().await.unwrap().unwrap().status_message;
                        if said.is_some() {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    assert_eq!(said.as_deref(), Some("halfway"));
                    release.notify_one();
                }
                ServerNotification::Other { method, params } if method == "notifications/tasks" => {
                    let params = params.unwrap();
                    assert_eq!(params["taskId"], id.as_str());
                    if params["status"] == "completed" {
                        return params;
                    }
                }
                _ => {}
            }
        }
    })
    .await
    .expect("the task's end is heard");
    assert_eq!(ended["result"]["content"][0]["text"], "staged done", "{ended}");
    assert!(ended.get("resultType").is_none());
    assert!(
        ended["_meta"].get("io.modelcontextprotocol/subscriptionId").is_some(),
        "{ended}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_listener_without_the_extension_is_refused_task_notifications() {
    let served = Served::start(limits()).await;
    let refused = served
        .ask(
            "subscriptions/listen",
            json!({"notifications": {"taskIds": ["x"]}}),
            false,
            None,
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    served.stop().await;
}

#[tokio::test]
async fn a_tool_may_ask_before_it_becomes_a_task() {
    let served = Served::start(limits()).await;
    let first = served.call("greet_later", json!({}), true).await;
    let first = &first["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(first.get("taskId").is_none());
    let key = common::first_input_key(first);
    let retry = json!({
        "name": "greet_later",
        "arguments": {},
        "requestState": first["requestState"],
        "inputResponses": {key: {"action": "accept", "content": {"name": "Alice"}}},
    });
    let created = served.ask("tools/call", retry, true, None).await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    for absent in ["requestState", "inputRequests"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let id = created["taskId"].as_str().unwrap();
    let done = served.until(id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");

    // The oxmcp client answers the rounds, then follows the task.
    let options = common::accepting_ok(ClientOptions::new("asker", "1").era(EraMode::Modern));
    let client = Client::connect_http(served.handle.url("/mcp"), options).await.unwrap();
    let greeted = client.call_tool("greet_later", json!({})).await.unwrap();
    assert_eq!(common::text(&greeted), "Hello, !");
    let _ = client.close().await;
    served.stop().await;
}
