//! Replicas sharing state through a real `redis-server` (started by each test): the Redis
//! task store behaves as every store must; a task started on one replica is seen, read and
//! cancelled on another (whose cancel stops the run on the first); an event published on
//! one replica reaches a listener on another; with Redis down, what needs it fails clearly
//! while plain calls go on, and it all recovers when Redis is back.
#![cfg(feature = "redis")]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::RedisServer;
use oxmcp::client::{Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{SubscriptionFilter, TaskStatus};
use oxmcp::server::{Server, TaskSupport, ToolDef};
use oxmcp::state::{check_task_store, RedisStore};
use serde_json::{json, Value};

/// Sets its flag when dropped: the run that holds it was stopped (or ended).
struct Stopped(Arc<AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A replica: a server whose tasks and events live in the Redis at `url` (under `prefix`),
/// and a modern-era client of it. `stopped` is set when a `wait` run ends.
async fn replica(url: &str, prefix: &str, stopped: Arc<AtomicBool>) -> (Server, Client) {
    let redis = RedisStore::connect(url).await.unwrap().prefix(prefix);
    let server = Server::builder("replica", "1")
        .task_store(redis.task_store())
        .subscription_bus(redis.subscription_bus())
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
        .build()
        .unwrap();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let served = server.clone();
    tokio::spawn(async move { served.serve(server_end).await });
    let client = Client::connect(
        client_end,
        ClientOptions::new("replica-client", "1").era(EraMode::Modern),
    )
    .await
    .unwrap();
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
async fn replicas_share_tasks_and_events() {
    let redis = RedisServer::start().await;
    let stopped = Arc::new(AtomicBool::new(false));
    let (server_a, a) = replica(&redis.url, "shared:", Arc::clone(&stopped)).await;
    let (_server_b, b) = replica(&redis.url, "shared:", Arc::new(AtomicBool::new(false))).await;

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
    let (_server, client) = replica(&redis.url, "down:", Arc::new(AtomicBool::new(false))).await;
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
    let (_server, client) = replica(&redis.url, "ttl:", Arc::new(AtomicBool::new(false))).await;
    let task = client.call_tool_as_task("wait", json!({"ms": 0})).await.unwrap();
    task.result().await.unwrap();
    let mut connection = redis::Client::open(redis.url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("ttl:*")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(keys.len() >= 4, "the task and its indexes: {keys:?}");
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut connection).await.unwrap();
        assert!(ttl > 0, "{key} has no TTL");
    }
    client.close().await.unwrap();
}
