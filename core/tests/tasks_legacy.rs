//! Tasks as 2025-11-25 has them (SEP-1686), on the wire of a session: a tool call with
//! `params.task` answered with a `CreateTaskResult`, `tasks/get`, `tasks/result` (which waits
//! for the end and answers what the call would have), `tasks/list` and `tasks/cancel`;
//! `notifications/tasks/status`, and the handler's progress and requests to the client
//! tagged with the task, which is `input_required` while they wait. A raw peer plays the
//! client, so that every member on the wire is checked; then the oxmcp client runs tools
//! as tasks in both eras, transparently and through a `ToolTask`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode};
use oxmcp::protocol::{CallToolResult, ContentBlock, ErrorObject, ProgressNotificationParams, TaskStatus};
use oxmcp::server::{Catalog, Context, HandlerError, Server, TaskLimits, TaskSupport, ToolDef};
use oxmcp::transport::{Frame, Transport};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::PollSender;

mod common;

const RELATED: &str = "io.modelcontextprotocol/related-task";

/// A server with a tool that may run as a task (`compute`: waits `ms`, reporting progress),
/// tools that must (`confirm` asks the user, `broken` fails as a request, `flawed` as a
/// tool), and one that never does (`plain`).
fn server() -> Server {
    Server::builder("legacy-tasks", "1.0.0")
        .task_limits(TaskLimits {
            poll_interval: Duration::from_millis(50),
            ..TaskLimits::default()
        })
        .tool(
            ToolDef::new("compute")
                .task_support(TaskSupport::Optional)
                .handler(|args, ctx: Context| async move {
                    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                    ctx.progress(1.0, Some(2.0), None).await;
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    format!("done after {ms} ms")
                }),
        )
        .tool(common::confirm_task_tool())
        .tool(common::broken_task_tool())
        .tool(
            ToolDef::new("flawed")
                .task_support(TaskSupport::Required)
                .handler(|_, _| async { Err::<String, _>(HandlerError::message("no luck")) }),
        )
        .tool(
            ToolDef::new("steps")
                .task_support(TaskSupport::Required)
                .handler(|_, ctx: Context| async move {
                    for step in 1..=2 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        ctx.progress(f64::from(step), Some(2.0), None).await;
                    }
                    "stepped"
                }),
        )
        .tool(ToolDef::new("plain").handler(|_, _| async { "plain" }))
        .build()
        .unwrap()
}

/// A client written by hand on an in-memory connection to a served session: it sends
/// requests and keeps what else the server sends (notifications and requests) in order.
struct Peer {
    to_server: mpsc::Sender<String>,
    from_server: mpsc::Receiver<String>,
    /// Messages that were not the response awaited.
    others: VecDeque<Value>,
    next_id: u64,
}

impl Peer {
    /// A session of `server` at `version`, initialized, with the elicitation capability
    /// and (when `tasks`) the tasks capability.
    async fn connect(server: &Server, version: &str) -> (Peer, Value) {
        let (to_server, server_rx) = mpsc::channel::<String>(64);
        let (server_tx, from_server) = mpsc::channel::<String>(64);
        let incoming = ReceiverStream::new(server_rx).map(|text| Ok(Frame::Message(text.into())));
        let outgoing = futures::SinkExt::sink_map_err(PollSender::new(server_tx), std::io::Error::other);
        let server = server.clone();
        tokio::spawn(async move { server.serve(Transport::new(incoming, outgoing)).await });
        let mut peer = Peer {
            to_server,
            from_server,
            others: VecDeque::new(),
            next_id: 0,
        };
        let initialized = peer
            .request(
                "initialize",
                json!({"protocolVersion": version, "clientInfo": {"name": "raw", "version": "1"},
                       "capabilities": {"elicitation": {}, "tasks": {"list": {}, "cancel": {}}}}),
            )
            .await;
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (peer, initialized)
    }

    async fn send(&self, message: Value) {
        self.to_server.send(message.to_string()).await.unwrap();
    }

    /// The response to `method` (the whole message: `result` or `error`).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.receive().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.others.push_back(message);
        }
    }

    /// The next message from the server (at most 5 s).
    async fn receive(&mut self) -> Value {
        let text = tokio::time::timeout(Duration::from_secs(5), self.from_server.recv())
            .await
            .expect("the server sent something in time")
            .expect("the session is open");
        serde_json::from_str(&text).unwrap()
    }

    /// The first message with `method` kept or yet to come, taken out.
    async fn expect(&mut self, method: &str) -> Value {
        if let Some(at) = self.others.iter().position(|m| m["method"] == method) {
            return self.others.remove(at).unwrap();
        }
        loop {
            let message = self.receive().await;
            if message["method"] == method {
                return message;
            }
            self.others.push_back(message);
        }
    }

    async fn call_as_task(&mut self, tool: &str, arguments: Value, task: Value) -> Value {
        self.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments, "task": task}),
        )
        .await
    }

    async fn task(&mut self, method: &str, id: &str) -> Value {
        self.request(method, json!({"taskId": id})).await
    }
}

fn created_id(created: &Value) -> String {
    created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a CreateTaskResult: {created}"))
        .to_owned()
}

#[tokio::test]
async fn a_task_runs_in_the_background_and_its_result_is_what_the_call_would_have_given() {
    let server = server();
    let (mut peer, initialized) = Peer::connect(&server, "2025-11-25").await;
    assert_eq!(
        initialized["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let listed = peer.request("tools/list", json!({})).await;
    let support: Vec<(String, Value)> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["execution"]["taskSupport"].clone(),
            )
        })
        .collect();
    assert!(support.contains(&("compute".into(), json!("optional"))), "{support:?}");
    assert!(support.contains(&("confirm".into(), json!("required"))));
    assert!(support.contains(&("plain".into(), Value::Null)));

    let created = peer
        .request(
            "tools/call",
            json!({"name": "compute", "arguments": {"ms": 200}, "task": {"ttl": 60000},
                   "_meta": {"progressToken": "p1"}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 60000, "the ttl asked for, under the server's bound");
    assert_eq!(task["pollInterval"], 50);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    assert!(created["result"].get("content").is_none(), "a task, not a result");
    let id = created_id(&created);

    let polled = peer.task("tasks/get", &id).await;
    assert_eq!(polled["result"]["taskId"], id.as_str());
    assert_eq!(polled["result"]["status"], "working");
    assert!(polled["result"].get("ttlMs").is_none(), "2025-11-25 names it ttl");

    // Progress keeps the call's token and is tagged with the task.
    let progress = peer.expect("notifications/progress").await;
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["_meta"][RELATED]["taskId"], id.as_str());

    let result = peer.task("tasks/result", &id).await;
    assert_eq!(result["result"]["content"][0]["text"], "done after 200 ms", "{result}");
    assert_eq!(result["result"]["_meta"][RELATED]["taskId"], id.as_str());
    let status = peer.expect("notifications/tasks/status").await;
    assert_eq!(status["params"]["taskId"], id.as_str());
    assert_eq!(status["params"]["status"], "completed");

    let listed = peer.request("tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id.as_str(), "{listed}");
    assert_eq!(listed["result"]["tasks"][0]["status"], "completed");

    // Without `task`, an optional tool answers in place.
    let answered = peer
        .request("tools/call", json!({"name": "compute", "arguments": {"ms": 0}}))
        .await;
    assert_eq!(answered["result"]["content"][0]["text"], "done after 0 ms");
}

#[tokio::test]
async fn calls_that_do_not_fit_the_tool_are_refused_and_older_revisions_run_in_place() {
    let server = server();
    let (mut peer, _) = Peer::connect(&server, "2025-11-25").await;
    let required = peer.request("tools/call", json!({"name": "confirm"})).await;
    assert_eq!(required["error"]["code"], -32601, "{required}");
    let forbidden = peer.call_as_task("plain", json!({}), json!({})).await;
    assert_eq!(forbidden["error"]["code"], -32601, "{forbidden}");

    // 2025-06-18 has no tasks: `task` is ignored, nothing is declared.
    let (mut older, initialized) = Peer::connect(&server, "2025-06-18").await;
    assert!(initialized["result"]["capabilities"].get("tasks").is_none());
    let answered = older.call_as_task("compute", json!({"ms": 0}), json!({})).await;
    assert_eq!(
        answered["result"]["content"][0]["text"], "done after 0 ms",
        "{answered}"
    );
    let unknown = older.task("tasks/get", "anything").await;
    assert_eq!(unknown["error"]["code"], -32601);

    // A server without task tools ignores `task` too.
    let plain = Server::builder("plain", "1")
        .tool(ToolDef::new("plain").handler(|_, _| async { "plain" }))
        .build()
        .unwrap();
    let (mut peer, initialized) = Peer::connect(&plain, "2025-11-25").await;
    assert!(initialized["result"]["capabilities"].get("tasks").is_none());
    let answered = peer.call_as_task("plain", json!({}), json!({})).await;
    assert_eq!(answered["result"]["content"][0]["text"], "plain");
}

#[tokio::test]
async fn a_task_waits_for_its_elicitation_as_input_required_and_resumes() {
    let server = server();
    let (mut peer, _) = Peer::connect(&server, "2025-11-25").await;
    let id = created_id(&peer.call_as_task("confirm", json!({}), json!({})).await);
    let asked = peer.expect("elicitation/create").await;
    assert_eq!(asked["params"]["message"], "Sure?");
    assert_eq!(asked["params"]["_meta"][RELATED]["taskId"], id.as_str());
    let waiting = peer.task("tasks/get", &id).await;
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");

    peer.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"ok": true}}}))
        .await;
    let result = peer.task("tasks/result", &id).await;
    assert_eq!(result["result"]["content"][0]["text"], "confirmed", "{result}");
    let statuses: Vec<Value> = peer
        .others
        .iter()
        .filter(|m| m["method"] == "notifications/tasks/status")
        .map(|m| m["params"]["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        [json!("input_required"), json!("working"), json!("completed")]
    );
}

#[tokio::test]
async fn failures_are_the_calls_own_and_a_tool_error_fails_the_task() {
    let server = server();
    let (mut peer, _) = Peer::connect(&server, "2025-11-25").await;
    let broken = created_id(&peer.call_as_task("broken", json!({}), json!({})).await);
    let result = peer.task("tasks/result", &broken).await;
    assert_eq!(
        result["error"]["message"], "Internal error: it broke",
        "the call's own error: {result}"
    );
    assert_eq!(peer.task("tasks/get", &broken).await["result"]["status"], "failed");

    let flawed = created_id(&peer.call_as_task("flawed", json!({}), json!({})).await);
    let result = peer.task("tasks/result", &flawed).await;
    assert_eq!(result["result"]["isError"], true, "{result}");
    assert_eq!(
        peer.task("tasks/get", &flawed).await["result"]["status"],
        "failed",
        "2025-11-25 counts a tool error as the task's failure"
    );
}

#[tokio::test]
async fn cancel_stops_a_task_once_and_the_session_sees_only_its_own() {
    let server = server();
    let (mut peer, _) = Peer::connect(&server, "2025-11-25").await;
    let id = created_id(&peer.call_as_task("compute", json!({"ms": 10_000}), json!({})).await);

    // Another session knows nothing of it.
    let (mut other, _) = Peer::connect(&server, "2025-11-25").await;
    assert_eq!(other.task("tasks/get", &id).await["error"]["code"], -32602);
    assert_eq!(other.task("tasks/cancel", &id).await["error"]["code"], -32602);
    assert_eq!(
        other.request("tasks/list", json!({})).await["result"]["tasks"],
        json!([])
    );

    let cancelled = peer.task("tasks/cancel", &id).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["result"]["taskId"], id.as_str());
    let again = peer.task("tasks/cancel", &id).await;
    assert_eq!(
        again["error"]["code"], -32602,
        "a task that ended cannot be cancelled: {again}"
    );
    let result = peer.task("tasks/result", &id).await;
    assert_eq!(result["error"]["code"], -32602, "{result}");
    assert_eq!(peer.task("tasks/get", &"0".repeat(32)).await["error"]["code"], -32602);
}

#[tokio::test]
async fn tasks_are_listed_a_page_at_a_time() {
    let server = Server::builder("paged", "1")
        .page_size(2)
        .tool(
            ToolDef::new("quick")
                .task_support(TaskSupport::Optional)
                .handler(|_, _| async { "quick" }),
        )
        .build()
        .unwrap();
    let (mut peer, _) = Peer::connect(&server, "2025-11-25").await;
    let mut made = Vec::new();
    for _ in 0..3 {
        made.push(created_id(&peer.call_as_task("quick", json!({}), json!({})).await));
    }
    let first = peer.request("tasks/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].as_str().expect("a next page").to_owned();
    let rest = peer.request("tasks/list", json!({"cursor": cursor})).await;
    assert!(rest["result"].get("nextCursor").is_none());
    let listed: Vec<&str> = first["result"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["result"]["tasks"].as_array().unwrap())
        .map(|task| task["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, made.iter().map(String::as_str).collect::<Vec<_>>());
    let bad = peer.request("tasks/list", json!({"cursor": "nope"})).await;
    assert_eq!(bad["error"]["code"], -32602);
}

/// The oxmcp client in `era` on an in-memory connection to `server`, accepting every
/// elicitation with `{"ok": true}`.
async fn oxmcp_client(server: &Server, era: EraMode) -> Client {
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    let options = common::accepting_ok(ClientOptions::new("tasks-client", "1").era(era));
    Client::connect(client_end, options).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(ContentBlock::as_text).collect()
}

#[tokio::test]
async fn the_oxmcp_client_runs_tools_as_tasks_in_both_eras() {
    let server = server();
    for era in [EraMode::Legacy, EraMode::Modern] {
        let client = oxmcp_client(&server, era).await;
        // A tool that must run as a task is followed to its end, its question answered.
        let confirmed = client.call_tool("confirm", json!({})).await.unwrap();
        assert_eq!(text(&confirmed), "confirmed", "{era:?}");
        if era == EraMode::Legacy {
            // The call's progress goes on reaching it while its task runs.
            let progress = Arc::new(Mutex::new(Vec::new()));
            let seen = Arc::clone(&progress);
            let options = CallOptions {
                on_progress: Some(Arc::new(move |p: ProgressNotificationParams| {
                    seen.lock().unwrap().push(p.progress)
                })),
                ..CallOptions::default()
            };
            let stepped = client.call_tool_with("steps", json!({}), &options).await.unwrap();
            assert_eq!(text(&stepped), "stepped");
            assert_eq!(*progress.lock().unwrap(), [1.0, 2.0]);
        }

        let task = client.call_tool_as_task("compute", json!({"ms": 100})).await.unwrap();
        assert_eq!(task.id().map(str::len), Some(32), "{era:?}");
        let now = task.status().await.unwrap().expect("a task");
        assert_eq!(now.status, TaskStatus::Working, "{era:?}");
        assert_eq!(now.poll_interval_ms, Some(50));
        assert_eq!(text(&task.result().await.unwrap()), "done after 100 ms", "{era:?}");
        assert_eq!(task.wait().await.unwrap().unwrap().status, TaskStatus::Completed);

        let long = client
            .call_tool_as_task("compute", json!({"ms": 10_000}))
            .await
            .unwrap();
        long.cancel().await.unwrap();
        let ended = long.wait().await.unwrap().unwrap();
        assert_eq!(ended.status, TaskStatus::Cancelled, "{era:?}");
        assert!(matches!(long.result().await, Err(oxmcp::Error::Cancelled)), "{era:?}");
        long.cancel().await.expect("cancelling an ended task is no error");

        let broken = client.call_tool_as_task("broken", json!({})).await.unwrap();
        let error = broken.result().await.unwrap_err();
        assert!(
            matches!(error, oxmcp::Error::Remote(ref e) if e.code == -32603),
            "{era:?}: {error:?}"
        );

        // A tool that never runs as a task is answered in place.
        let plain = client.call_tool_as_task("plain", json!({})).await.unwrap();
        assert!(plain.id().is_none());
        assert!(plain.status().await.unwrap().is_none());
        assert_eq!(text(&plain.result().await.unwrap()), "plain");
        client.close().await.unwrap();
    }
}

/// A low-level server that keeps its own tasks, as the official SDKs' low-level servers do
/// with a task store of theirs: its catalog starts a call that asks for a task and answers
/// with the task it made, and its request handlers answer `tasks/get` and `tasks/result`.
fn server_keeping_its_tasks() -> Server {
    let kept: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let starting = Arc::clone(&kept);
    let getting = Arc::clone(&kept);
    let catalog = Catalog::new()
        .call_tool(|name: String, _arguments, _ctx: Context| async move {
            Ok::<_, HandlerError>(CallToolResult::success(vec![ContentBlock::text(format!("{name} in place"))]))
        })
        .start_tool_tasks(move |name: String, arguments: Map<String, Value>, task: Value, _ctx: Context| {
            let kept = Arc::clone(&starting);
            async move {
                let mut kept = kept.lock().unwrap();
                let id = format!("own-{}", kept.len() + 1);
                let result = json!({"content": [{"type": "text", "text": format!("{name} of {}", Value::Object(arguments))}]});
                kept.push((id.clone(), result));
                Ok(json!({"task": {"taskId": id, "status": "completed", "ttl": task["ttl"],
                                   "createdAt": "2026-11-29T00:00:00Z", "lastUpdatedAt": "2026-11-29T00:00:00Z"}}))
            }
        });
    let found = move |params: Value| -> Result<Value, HandlerError> {
        let kept = getting.lock().unwrap();
        let (_, result) = (kept.iter().find(|(id, _)| params["taskId"] == id.as_str()))
            .ok_or_else(|| HandlerError::rpc(ErrorObject::invalid_params("no such task")))?;
        Ok(result.clone())
    };
    let found = Arc::new(found);
    let server = Server::builder("own-tasks", "1.0.0").catalog(catalog).build().unwrap();
    let result = Arc::clone(&found);
    server
        .add_request_handler("tasks/result", move |params, _ctx: Context| {
            let answer = result(params);
            async move { answer }
        })
        .unwrap();
    server
        .add_request_handler("tasks/get", move |params: Value, _ctx: Context| {
            let answer = found(params.clone()).map(|_| json!({"taskId": params["taskId"], "status": "completed"}));
            async move { answer }
        })
        .unwrap();
    server
}

#[tokio::test]
async fn a_catalog_that_keeps_its_own_tasks_starts_them_and_its_handlers_answer_for_them() {
    let server = server_keeping_its_tasks();
    let (mut peer, initialized) = Peer::connect(&server, "2025-11-25").await;
    // Calls, and neither `tasks/list` nor `tasks/cancel`, which no handler answers.
    assert_eq!(
        initialized["result"]["capabilities"]["tasks"],
        json!({"requests": {"tools": {"call": {}}}})
    );

    let created = peer
        .call_as_task("report", json!({"year": 2026}), json!({"ttl": 5000}))
        .await;
    assert_eq!(created["result"]["task"]["ttl"], 5000, "{created}");
    let id = created_id(&created);
    assert_eq!(id, "own-1");
    assert_eq!(peer.task("tasks/get", &id).await["result"]["status"], "completed");
    let result = peer.task("tasks/result", &id).await;
    assert_eq!(result["result"]["content"][0]["text"], r#"report of {"year":2026}"#);
    let unknown = peer.task("tasks/get", "own-9").await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // A call that does not ask for a task runs in place, as in a revision without tasks.
    let plain = peer
        .request("tools/call", json!({"name": "report", "arguments": {}}))
        .await;
    assert_eq!(plain["result"]["content"][0]["text"], "report in place");
    let (mut older, initialized) = Peer::connect(&server, "2025-06-18").await;
    assert!(initialized["result"]["capabilities"].get("tasks").is_none());
    let in_place = older.call_as_task("report", json!({}), json!({"ttl": 5000})).await;
    assert_eq!(in_place["result"]["content"][0]["text"], "report in place");
}
