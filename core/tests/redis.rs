//! Replicas sharing state through a real `redis-server` (started by each test): the Redis
//! task store behaves as every store must; a task started on one replica is seen, read and
//! cancelled on another (whose cancel stops the run on the first); an event published on
//! one replica reaches a listener on another; the rounds of a multi round-trip call land
//! on different replicas (one sealing key, made in Redis); a plain call sends Redis nothing
//! (`INFO commandstats`); with Redis down, what needs it fails clearly
//! while plain calls go on, and it all recovers when Redis is back. A legacy session opened
//! on one replica is served by all behind a round-robin balancer: elicitation answered on
//! another replica than the call's, the log level and subscriptions set on one replica
//! obeyed by the others, an update published anywhere told once, and a DELETE anywhere
//! ends it everywhere.
#![cfg(feature = "redis")]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::RedisServer;
use oxmcp::client::{Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{LoggingLevel, SubscriptionFilter, TaskStatus};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, ResourceDef, Server, TaskSupport, ToolDef};
use oxmcp::state::{check_task_store, EventStore, RedisStore, SharedState, TaskStore};
use oxmcp::transport::http::client::HttpClientOptions;
use serde_json::{json, Value};

/// Sets its flag when dropped: the run that holds it was stopped (or ended).
struct Stopped(Arc<AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A replica: a server whose state is shared through the Redis at `url`, and a modern-era
/// client of it. `stopped` is set when a `wait` run ends.
async fn replica(url: &str, stopped: Arc<AtomicBool>) -> (Server, Client) {
    replica_of(SharedState::connect(url).await.unwrap(), stopped).await
}

/// [`replica`], sharing `shared`.
async fn replica_of(shared: SharedState, stopped: Arc<AtomicBool>) -> (Server, Client) {
    let server = Server::builder("replica", "1")
        .shared_state(shared)
        .tool(
            ToolDef::new("wait")
                .task_support(TaskSupport::Optional)
                .handler(move |args, _| {
                    let stopped = Stopped(Arc::clone(&stopped));
                    async move {
                        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        drop(stopped);
                        format!("waited {ms} ms")
                    }
                }),
        )
        .tool(ToolDef::new("plain").handler(|_, _| async { "plain" }))
        .tool(common::confirm_tool())
        .build()
        .unwrap();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let served = server.clone();
    tokio::spawn(async move { served.serve(server_end).await });
    let options = common::accepting_ok(ClientOptions::new("replica-client", "1").era(EraMode::Modern));
    let client = Client::connect(client_end, options).await.unwrap();
    (server, client)
}

fn text(result: &oxmcp::protocol::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).collect()
}

#[tokio::test]
async fn the_redis_task_store_behaves_as_every_store_must() {
    let redis = RedisServer::start().await;
    let store = RedisStore::connect(&redis.url).await.unwrap().prefix("check:");
    check_task_store(&*store.task_store()).await;
}

#[tokio::test]
async fn the_first_command_after_redis_restarts_is_answered() {
    // The connection is lost with the Redis it went to; the command that finds it lost is
    // sent again over a new one instead of failing although Redis is back.
    let mut redis = RedisServer::start().await;
    let store = RedisStore::connect(&redis.url).await.unwrap();
    let (tasks, events) = (store.task_store(), store.event_store());
    for round in 0..3 {
        assert!(tasks.get("absent").await.unwrap().is_none());
        redis = redis.restart().await;
        assert!(
            matches!(tasks.get("absent").await, Ok(None)),
            "round {round}: the task store answers at once"
        );
        assert!(
            matches!(events.is_finished("session", 1).await, Ok(false)),
            "round {round}: and so does every store on the connection"
        );
    }
}

#[tokio::test]
async fn prefixes_keep_servers_on_one_redis_apart_and_only_redis_urls_are_stores() {
    let redis = RedisServer::start().await;
    let one = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .prefix("one:")
        .task_store();
    let other = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .prefix("other:")
        .task_store();
    let task = oxmcp::state::TaskRecord {
        id: "t".into(),
        owner: String::new(),
        status: TaskStatus::Working,
        status_message: None,
        created_at: std::time::SystemTime::now(),
        last_updated_at: std::time::SystemTime::now(),
        ttl: Duration::from_secs(60),
        poll_interval: Duration::from_millis(100),
        outcome: None,
        input_requests: Default::default(),
        input_responses: Default::default(),
    };
    use oxmcp::state::TaskStore;
    assert!(one.create(&task, 10).await.unwrap());
    assert!(one.get("t").await.unwrap().is_some());
    assert!(other.get("t").await.unwrap().is_none());
    let wrong = SharedState::connect("postgres://db").await.unwrap_err();
    assert_eq!(wrong.kind(), std::io::ErrorKind::InvalidInput);
}

#[tokio::test]
async fn replicas_share_tasks_and_events() {
    let redis = RedisServer::start().await;
    let stopped = Arc::new(AtomicBool::new(false));
    let (server_a, a) = replica(&redis.url, Arc::clone(&stopped)).await;
    let (_server_b, b) = replica(&redis.url, Arc::new(AtomicBool::new(false))).await;

    // A task run by A is read on B.
    let quick = a.call_tool_as_task("wait", json!({"ms": 0})).await.unwrap();
    let on_b = b.tool_task(quick.id().unwrap());
    assert_eq!(text(&on_b.result().await.unwrap()), "waited 0 ms");

    // Cancelled on B, its run on A stops.
    stopped.store(false, Ordering::SeqCst);
    let long = a.call_tool_as_task("wait", json!({"ms": 30_000})).await.unwrap();
    let id = long.id().unwrap().to_owned();
    assert_eq!(
        b.tool_task(&id).status().await.unwrap().unwrap().status,
        TaskStatus::Working
    );
    b.tool_task(&id).cancel().await.unwrap();
    assert_eq!(long.wait().await.unwrap().unwrap().status, TaskStatus::Cancelled);
    for _ in 0..100 {
        if stopped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(stopped.load(Ordering::SeqCst), "the run on A was stopped");

    // A list change on A reaches a listener on B.
    let mut heard = b.notifications();
    let _listening = b
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    server_a
        .add_tool(ToolDef::new("added").handler(|_, _| async { "added" }))
        .unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok(ServerNotification::ToolListChanged) = heard.recv().await {
                return;
            }
        }
    })
    .await;
    assert!(changed.is_ok(), "B heard of A's change");
    a.close().await.unwrap();
    b.close().await.unwrap();
}

#[tokio::test]
async fn without_redis_tasks_fail_clearly_plain_calls_go_on_and_all_recovers() {
    let mut redis = RedisServer::start().await;
    let (_server, client) = replica(&redis.url, Arc::new(AtomicBool::new(false))).await;
    assert!(client.call_tool_as_task("wait", json!({"ms": 0})).await.is_ok());

    redis.kill().await;
    let refused = client.call_tool_as_task("wait", json!({"ms": 0})).await.unwrap_err();
    assert!(
        matches!(&refused, oxmcp::Error::Remote(e) if e.code == -32603 && e.message.contains("task store is unavailable")),
        "{refused:?}"
    );
    assert_eq!(text(&client.call_tool("plain", json!({})).await.unwrap()), "plain");

    let _back = redis.restart().await;
    let mut recovered = false;
    for _ in 0..100 {
        if client.call_tool_as_task("wait", json!({"ms": 0})).await.is_ok() {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "tasks work again once Redis is back");
    client.close().await.unwrap();
}

#[tokio::test]
async fn every_key_the_store_writes_expires() {
    let redis = RedisServer::start().await;
    let (_server, client) = replica(&redis.url, Arc::new(AtomicBool::new(false))).await;
    let task = client.call_tool_as_task("wait", json!({"ms": 0})).await.unwrap();
    task.result().await.unwrap();
    let keys = assert_every_key_expires(&redis.url).await;
    assert!(keys.len() >= 4, "the task and its indexes: {keys:?}");
    client.close().await.unwrap();
}

/// Checks that every key under `oxmcp:` in the Redis at `url` has a TTL; gives the keys.
async fn assert_every_key_expires(url: &str) -> Vec<String> {
    let mut connection = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("oxmcp:*")
        .query_async(&mut connection)
        .await
        .unwrap();
    for key in &keys {
        let ttl: i64 = redis::cmd("PTTL").arg(key).query_async(&mut connection).await.unwrap();
        assert!(ttl > 0, "{key} has no TTL");
    }
    keys
}

#[tokio::test]
async fn the_rounds_of_a_call_may_land_on_different_replicas() {
    let redis = RedisServer::start().await;
    let (_server_a, a) = replica(&redis.url, Arc::new(AtomicBool::new(false))).await;
    let (_server_b, b) = replica(&redis.url, Arc::new(AtomicBool::new(false))).await;
    let call = |extra: Value| {
        let mut params = serde_json::Map::from_iter([("name".to_owned(), json!("confirm"))]);
        if let Value::Object(extra) = extra {
            params.extend(extra);
        }
        params
    };
    let options = oxmcp::client::CallOptions::default();
    let first = a.request_raw("tools/call", call(json!({})), &options).await.unwrap();
    let first: Value = serde_json::from_str(first.get()).unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let key = common::first_input_key(&first);
    let retry = call(json!({
        "requestState": first["requestState"],
        "inputResponses": {key: {"action": "accept", "content": {"ok": true}}},
    }));
    let second = b.request_raw("tools/call", retry, &options).await.unwrap();
    let second: Value = serde_json::from_str(second.get()).unwrap();
    assert_eq!(
        second["content"][0]["text"], "confirmed",
        "B opened what A sealed: {second}"
    );
    a.close().await.unwrap();
    b.close().await.unwrap();
}

#[tokio::test]
async fn plain_modern_calls_send_redis_nothing() {
    let redis = RedisServer::start().await;
    // The replica's upkeep (its heartbeat, a look at the sealing keys) comes minutes apart:
    // none of it falls within the calls.
    let store = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .replica_liveness(Duration::from_secs(3600));
    let shared = SharedState::redis(&store).await.unwrap();
    let (_server, client) = replica_of(shared, Arc::new(AtomicBool::new(false))).await;
    let mut admin = redis::Client::open(redis.url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    // Once the replica's bus and session relay have subscribed (at start), nothing more is
    // expected.
    for _ in 0..100 {
        let (_, events, _, sessions): (String, i64, String, i64) = redis::cmd("PUBSUB")
            .arg("NUMSUB")
            .arg("oxmcp:events")
            .arg("oxmcp:sessions")
            .query_async(&mut admin)
            .await
            .unwrap();
        if events > 0 && sessions > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query_async(&mut admin)
        .await
        .unwrap();
    for _ in 0..20 {
        assert_eq!(text(&client.call_tool("plain", json!({})).await.unwrap()), "plain");
    }
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(&mut admin)
        .await
        .unwrap();
    let commands: Vec<&str> = stats
        .lines()
        .filter_map(|line| line.strip_prefix("cmdstat_"))
        .filter_map(|line| line.split(':').next())
        .filter(|name| !name.starts_with("config") && !name.starts_with("info"))
        .collect();
    assert!(commands.is_empty(), "plain calls sent Redis {commands:?}:\n{stats}");
    client.close().await.unwrap();
}

/// An HTTP replica named `name`, its state shared through the Redis at `url`.
async fn http_replica(url: &str, name: &'static str) -> (Server, HttpServerHandle) {
    let server = Server::builder("replica", "1")
        .shared_state(SharedState::connect(url).await.unwrap())
        .tool(ToolDef::new("whoami").handler(move |_, _| async move { name }))
        .tool(common::confirm_tool())
        .tool(ToolDef::new("count").handler(|_, ctx: Context| async move {
            for step in 1..=10 {
                ctx.progress(f64::from(step), Some(10.0), None).await;
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
            "counted"
        }))
        .tool(ToolDef::new("say").handler(|_, ctx: Context| async move {
            ctx.log(LoggingLevel::Info, None, "info").await;
            ctx.log(LoggingLevel::Error, None, "error").await;
            "said"
        }))
        .resource(ResourceDef::new("memo://board", "board").handler(|_, _, _| async { "the board" }))
        .build()
        .unwrap();
    let handle = server.bind_http("127.0.0.1:0", HttpConfig::default()).await.unwrap();
    (server, handle)
}

#[tokio::test]
async fn a_legacy_session_is_served_by_every_replica_behind_round_robin() {
    let redis = RedisServer::start().await;
    let mut replicas = Vec::new();
    for name in ["a", "b", "c"] {
        replicas.push(http_replica(&redis.url, name).await);
    }
    let balancer = common::round_robin(
        replicas
            .iter()
            .map(|(_, handle)| format!("http://{}", handle.local_addr()))
            .collect(),
    )
    .await;
    let transport =
        oxmcp::transport::http::client::connect(HttpClientOptions::new(format!("{}/mcp", balancer.base))).unwrap();
    let options = common::accepting_ok(ClientOptions::new("legacy", "1").era(EraMode::Legacy));
    let client = Client::connect(transport, options).await.unwrap();
    let mut notifications = client.notifications();

    let mut answered = std::collections::BTreeSet::new();
    for _ in 0..3 {
        answered.insert(text(&client.call_tool("whoami", json!({})).await.unwrap()));
    }
    assert_eq!(answered.len(), 3, "{answered:?}");
    // Each call's answer to the elicitation is the next request: another replica takes it
    // and passes it to the one that asked.
    for _ in 0..3 {
        assert_eq!(
            text(&client.call_tool("confirm", json!({})).await.unwrap()),
            "confirmed"
        );
    }

    // Set on one replica, obeyed by all.
    client.set_log_level(LoggingLevel::Warning).await.unwrap();
    for _ in 0..3 {
        assert_eq!(text(&client.call_tool("say", json!({})).await.unwrap()), "said");
    }
    // The log messages came with the calls' answers.
    let logged: Vec<_> = std::iter::from_fn(|| notifications.try_recv().ok()).collect();
    let levels: Vec<_> = logged
        .iter()
        .filter_map(|n| match n {
            ServerNotification::LogMessage(log) => Some(log.level),
            _ => None,
        })
        .collect();
    assert_eq!(levels, [LoggingLevel::Error; 3], "{logged:?}");

    client.subscribe_resource("memo://board").await.unwrap();
    // Updates reach the client on its GET stream, which opens on its own schedule: once one
    // update came through (and stragglers settled), the stream is there for the three
    // counted below.
    let stream_open = async {
        loop {
            replicas[0].0.notify_resource_updated("memo://board");
            let heard = tokio::time::timeout(Duration::from_millis(100), async {
                while !matches!(notifications.recv().await, Ok(ServerNotification::ResourceUpdated(_))) {}
            });
            if heard.await.is_ok() {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), stream_open)
        .await
        .expect("an update reaches the client");
    tokio::time::sleep(Duration::from_millis(500)).await;
    while notifications.try_recv().is_ok() {}
    for (server, _) in &replicas {
        server.notify_resource_updated("memo://board");
    }
    let mut heard = Vec::new();
    let settled = tokio::time::sleep(Duration::from_millis(500));
    tokio::pin!(settled);
    loop {
        tokio::select! {
            _ = &mut settled => break,
            Ok(notification) = notifications.recv() => heard.push(notification),
        }
    }
    let updates = heard
        .iter()
        .filter(|n| matches!(n, ServerNotification::ResourceUpdated(_)))
        .count();
    assert_eq!(updates, 3, "each update told once: {heard:?}");
    client.close().await.unwrap();

    // A session ended on one replica is gone from all.
    let http = reqwest::Client::new();
    let [a, b, c] = [0, 1, 2].map(|i| replicas[i].1.url("/mcp"));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = common::mcp_post(&http, &a, &initialize, &[]).send().await.unwrap();
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let pinged = common::mcp_post(&http, &c, &ping, &headers).send().await.unwrap();
    assert_eq!(pinged.status(), 200);
    let deleted = http.delete(&b).header("mcp-session-id", &session).send().await.unwrap();
    assert_eq!(deleted.status(), 200);
    for url in [&a, &b, &c] {
        let refused = common::mcp_post(&http, url, &ping, &headers).send().await.unwrap();
        assert_eq!(refused.status(), 404, "{url}");
    }
    balancer.stop().await;
    for (_, handle) in replicas {
        handle.shutdown().await.unwrap();
    }
}

/// The legacy session a raw client opens on `url` (2025-06-18): its id.
async fn open_raw_session(http: &reqwest::Client, url: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = common::mcp_post(http, url, &initialize, &[]).send().await.unwrap();
    opened.headers()["mcp-session-id"].to_str().unwrap().to_owned()
}

/// The progress values and the result text in SSE events.
fn progress_and_result(events: &[(String, String)]) -> (Vec<f64>, Option<String>) {
    let messages: Vec<Value> = events
        .iter()
        .filter_map(|(_, data)| serde_json::from_str(data).ok())
        .collect();
    let progress = messages
        .iter()
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    let result = messages
        .iter()
        .find_map(|m| m["result"]["content"][0]["text"].as_str().map(str::to_owned));
    (progress, result)
}

#[tokio::test]
async fn a_legacy_stream_cut_on_one_replica_resumes_on_another_exactly_once() {
    let redis = RedisServer::start().await;
    let (a, b) = (http_replica(&redis.url, "a").await, http_replica(&redis.url, "b").await);
    let [a_url, b_url] = [&a.1, &b.1].map(|handle| handle.url("/mcp"));
    let http = reqwest::Client::new();
    let session = open_raw_session(&http, &a_url).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "t"}}});
    let answer = common::mcp_post(&http, &a_url, &call, &headers).send().await.unwrap();
    // The priming event, then three progress notifications; then the client goes.
    let before = common::read_events(answer, |events| events.len() == 4).await;
    let (mut progress, result) = progress_and_result(&before);
    assert_eq!((progress.as_slice(), result), (&[1.0, 2.0, 3.0][..], None));
    let last_id = before.last().unwrap().0.clone();

    let resumed = http
        .get(&b_url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .header("last-event-id", &last_id)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let after = common::read_events(resumed, |events| progress_and_result(events).1.is_some()).await;
    let (more, result) = progress_and_result(&after);
    progress.extend(more);
    assert_eq!(progress, (1..=10).map(f64::from).collect::<Vec<_>>(), "each event once");
    assert_eq!(result.as_deref(), Some("counted"));
    assert_every_key_expires(&redis.url).await;
    a.1.shutdown().await.unwrap();
    b.1.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_redis_legacy_sessions_fail_clearly_and_new_ones_open_once_it_is_back() {
    let mut redis = RedisServer::start().await;
    let (_server, handle) = http_replica(&redis.url, "a").await;
    let url = handle.url("/mcp");
    let http = reqwest::Client::new();
    let session = open_raw_session(&http, &url).await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];

    redis.kill().await;
    let refused = common::mcp_post(&http, &url, &ping, &headers).send().await.unwrap();
    assert_eq!(refused.status(), 503);
    let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session store is unavailable"),
        "{body}"
    );

    // A restarted Redis remembers nothing: the session is gone (404, so the client opens
    // another), and new ones open on the same replica, which was not restarted.
    let _back = redis.restart().await;
    let mut status = 0;
    for _ in 0..100 {
        status = common::mcp_post(&http, &url, &ping, &headers)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        if status != 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 404);
    let again = open_raw_session(&http, &url).await;
    let headers = [
        ("mcp-session-id", again.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let pinged = common::mcp_post(&http, &url, &ping, &headers).send().await.unwrap();
    assert_eq!(pinged.status(), 200);
    handle.shutdown().await.unwrap();
}

/// The id of the key that sealed `sealed` (its first bytes).
fn sealed_by(sealed: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(sealed).unwrap()[..4].to_vec()
}

#[tokio::test]
async fn shared_sealing_keys_rotate_and_a_replaced_key_opens_state_until_its_overlap_ends() {
    let redis = RedisServer::start().await;
    let store = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .key_rotation(Duration::from_millis(400), Duration::from_millis(1000));
    let (one, two) = (store.key_ring().await.unwrap(), store.clone().key_ring().await.unwrap());
    let first = one.seal(b"state", b"b").unwrap();
    assert_eq!(two.open(&first, b"b").unwrap(), b"state", "one key for both replicas");

    tokio::time::sleep(Duration::from_millis(900)).await;
    let second = two.seal(b"later", b"b").unwrap();
    assert_ne!(sealed_by(&first), sealed_by(&second), "rotated");
    assert_eq!(
        sealed_by(&one.seal(b"x", b"b").unwrap()),
        sealed_by(&second),
        "both replicas rotated"
    );
    assert_eq!(one.open(&second, b"b").unwrap(), b"later");
    assert_eq!(
        one.open(&first, b"b").unwrap(),
        b"state",
        "the replaced key still opens"
    );

    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(one.open(&first, b"b").is_err(), "the overlap ended");
    assert!(two.open(&first, b"b").is_err());
    assert_eq!(two.open(&one.seal(b"now", b"b").unwrap(), b"b").unwrap(), b"now");
}

#[tokio::test]
async fn a_restarted_redis_gets_the_sealing_key_back_from_the_replicas() {
    let mut redis = RedisServer::start().await;
    let rotation = |store: RedisStore| store.key_rotation(Duration::from_secs(3600), Duration::from_millis(400));
    let one = rotation(RedisStore::connect(&redis.url).await.unwrap())
        .key_ring()
        .await
        .unwrap();
    let sealed = one.seal(b"state", b"b").unwrap();
    let _back = redis.restart().await;
    // The replica looks at the keys every 100 ms; a replica that starts then finds its key.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let two = rotation(RedisStore::connect(&redis.url).await.unwrap())
        .key_ring()
        .await
        .unwrap();
    assert_eq!(one.open(&sealed, b"b").unwrap(), b"state");
    assert_eq!(two.open(&sealed, b"b").unwrap(), b"state");
}

#[tokio::test]
async fn a_task_made_after_redis_restarted_empty_runs_on_while_its_replica_lives() {
    let mut redis = RedisServer::start().await;
    // Heartbeats a long time apart: none comes between the restart and the look.
    let shared = || async {
        let store = RedisStore::connect(&redis.url)
            .await
            .unwrap()
            .replica_liveness(Duration::from_secs(60));
        SharedState::redis(&store).await.unwrap()
    };
    let (_runs, runner) = replica_of(shared().await, Arc::new(AtomicBool::new(false))).await;
    let (_looks, looker) = replica_of(shared().await, Arc::new(AtomicBool::new(false))).await;
    redis = redis.restart().await;
    let mut task = None;
    for _ in 0..50 {
        match runner.call_tool_as_task("wait", json!({"ms": 60_000})).await {
            Ok(made) => {
                task = Some(made);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let id = task.expect("tasks work once Redis is back").id().unwrap().to_owned();
    let status = looker.tool_task(&id).status().await.unwrap().unwrap();
    assert_eq!(status.status, TaskStatus::Working, "its replica is alive: {status:?}");
    drop(redis);
}

#[test]
fn a_task_whose_replica_died_fails_rather_than_stay_working() {
    let main = tokio::runtime::Runtime::new().unwrap();
    main.block_on(async {
        let redis = RedisServer::start().await;
        let lively = |url: String| async move {
            let store = RedisStore::connect(&url)
                .await
                .unwrap()
                .replica_liveness(Duration::from_millis(300));
            SharedState::redis(&store).await.unwrap()
        };
        // The replica that runs the task lives in a runtime of its own, which goes as a
        // killed process would: its heartbeat stops mid-task.
        let doomed = tokio::runtime::Runtime::new().unwrap();
        let shared = doomed.spawn(lively(redis.url.clone())).await.unwrap();
        let id = doomed
            .spawn(async move {
                let (server, client) = replica_of(shared, Arc::new(AtomicBool::new(false))).await;
                let task = client.call_tool_as_task("wait", json!({"ms": 60_000})).await.unwrap();
                let id = task.id().unwrap().to_owned();
                std::mem::forget((server, client, task));
                id
            })
            .await
            .unwrap();
        let (_server, other) = replica_of(lively(redis.url.clone()).await, Arc::new(AtomicBool::new(false))).await;
        let status = other.tool_task(&id).status().await.unwrap().unwrap();
        assert_eq!(status.status, TaskStatus::Working, "its replica is alive");
        doomed.shutdown_background();
        let mut status = None;
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            status = other.tool_task(&id).status().await.unwrap().map(|task| task.status);
            if status == Some(TaskStatus::Failed) {
                break;
            }
        }
        assert_eq!(status, Some(TaskStatus::Failed), "the task of a replica gone fails");
        other.close().await.unwrap();
    });
}
