//! Our HTTP client transport against our own HTTP server, in both eras: SSE and JSON
//! answers, sessions and stateless mode, `x-mcp-header` mirroring and the HeaderMismatch
//! refresh, requests from the server, cancellation, and the HTTP+SSE fallback.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::middleware::{self, Next};
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{CallToolResult, Era, ErrorObject, ListRootsResult, LoggingLevel, Root};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, HandlerError, ResourceTemplateDef, Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use oxmcp::Error;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

fn schema(value: Value) -> Map<String, Value> {
    value.as_object().expect("an object").clone()
}

/// Sets its flag when dropped: a handler future dropped mid-way was cancelled.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn tenant_tool(mirrored: bool) -> ToolDef {
    let mut property = json!({"type": "string"});
    if mirrored {
        property["x-mcp-header"] = json!("Tenant");
    }
    ToolDef::new("tenant")
        .input_schema(schema(json!({"type": "object", "properties": {"tenant": property}})))
        .handler(|args, _| async move { format!("tenant {}", args["tenant"].as_str().unwrap_or_default()) })
}

fn test_server(stopped: Arc<AtomicBool>) -> Server {
    Server::builder("roundtrip", "1.0.0")
        .tool(
            ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .tool(
            ToolDef::new("regional")
                .input_schema(schema(json!({"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "count": {"type": "integer", "x-mcp-header": "Count"},
                    "dry": {"type": "boolean", "x-mcp-header": "Dry"}
                }})))
                .handler(|args, _| async move { Value::Object(args).to_string() }),
        )
        .tool(tenant_tool(false))
        .tool(ToolDef::new("steps").handler(|_, ctx: Context| async move {
            for step in 1..=3 {
                ctx.progress(step as f64, Some(3.0), None).await;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            "done"
        }))
        .tool(ToolDef::new("trace").handler(|_, ctx: Context| async move {
            let trace = ctx
                .http_headers()
                .and_then(|headers| headers.get("x-trace")?.to_str().ok());
            trace.unwrap_or("none").to_owned()
        }))
        .tool(ToolDef::new("roots").handler(|_, ctx: Context| async move {
            let roots = ctx.list_roots().await?;
            Ok::<_, oxmcp::server::HandlerError>(
                roots.roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(","),
            )
        }))
        .tool(ToolDef::new("wait").handler(move |_, ctx: Context| {
            let stopped = SetOnDrop(Arc::clone(&stopped));
            async move {
                ctx.progress(0.0, None, Some("waiting".into())).await;
                tokio::time::sleep(Duration::from_secs(30)).await;
                drop(stopped);
                "waited"
            }
        }))
        .build()
        .expect("a valid server")
}

async fn start(config: HttpConfig) -> (Server, HttpServerHandle, Arc<AtomicBool>) {
    let stopped = Arc::new(AtomicBool::new(false));
    let server = test_server(Arc::clone(&stopped));
    let handle = server.bind_http("127.0.0.1:0", config).await.expect("binds");
    (server, handle, stopped)
}

async fn client(url: String, era: EraMode) -> Client {
    client_with(HttpClientOptions::new(url), era).await
}

async fn client_with(transport: HttpClientOptions, era: EraMode) -> Client {
    let options = ClientOptions::new("roundtrip-client", "1.0.0")
        .era(era)
        .timeout(Some(Duration::from_secs(20)))
        .on_roots(|| async {
            Ok::<_, ErrorObject>(ListRootsResult {
                roots: vec![Root {
                    uri: "file:///work".into(),
                    name: None,
                    meta: None,
                }],
                meta: None,
            })
        });
    Client::connect(connect(transport).expect("a transport"), options)
        .await
        .expect("connects")
}

fn text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "the tool failed: {result:?}");
    result.content.iter().filter_map(|b| b.as_text()).collect()
}

async fn exercise(client: &Client, streaming: bool) {
    let echoed = client.call_tool("echo", json!({"text": "hello"})).await.unwrap();
    assert_eq!(text(&echoed), "hello");
    let regional = client
        .call_tool("regional", json!({"region": "Zürich", "count": 42, "dry": true}))
        .await
        .unwrap();
    let args: Value = serde_json::from_str(&text(&regional)).unwrap();
    assert_eq!(args, json!({"region": "Zürich", "count": 42, "dry": true}));
    if client.protocol_version().era() == Era::Modern || streaming {
        // Legacy: a roots/list request on the POST's stream; modern: input_required.
        let roots = client.call_tool("roots", json!({})).await.unwrap();
        assert_eq!(text(&roots), "file:///work");
    }
    if streaming {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let call = CallOptions {
            on_progress: Some(Arc::new(move |p| sink.lock().unwrap().push(p.progress))),
            ..Default::default()
        };
        let done = client.call_tool_with("steps", json!({}), &call).await.unwrap();
        assert_eq!(text(&done), "done");
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn both_eras_over_sse_and_json_answers() {
    for json_response in [false, true] {
        let (_server, handle, _) = start(HttpConfig::default().json_response(json_response)).await;
        for era in ERAS {
            let client = client(handle.url("/mcp"), era).await;
            let expected = if era == EraMode::Legacy {
                Era::Legacy
            } else {
                Era::Modern
            };
            assert_eq!(client.protocol_version().era(), expected);
            exercise(&client, !json_response).await;
            client.close().await.unwrap();
        }
        // Auto settles on the modern era with our server.
        let auto = client(handle.url("/mcp"), EraMode::Auto).await;
        assert_eq!(auto.protocol_version().era(), Era::Modern);
        auto.close().await.unwrap();
        handle.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stateless_legacy_mode() {
    let (_server, handle, _) = start(HttpConfig::default().stateless(true)).await;
    let client = client(handle.url("/mcp"), EraMode::Legacy).await;
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    let echoed = client.call_tool("echo", json!({"text": "no session"})).await.unwrap();
    assert_eq!(text(&echoed), "no session");
    client.close().await.unwrap();
    handle.shutdown().await.unwrap();
}

/// What one HTTP request to the server carried: its HTTP method, `Mcp-Method` and
/// `MCP-Protocol-Version`.
type Seen = (String, Option<String>, Option<String>);

#[tokio::test(flavor = "multi_thread")]
async fn legacy_requests_after_the_handshake_carry_its_version() {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = Arc::clone(&seen);
    let header = |request: &Request, name: &str| {
        let value = request.headers().get(name)?;
        Some(value.to_str().ok()?.to_owned())
    };
    let app = test_server(Arc::default())
        .http_router(HttpConfig::default())
        .expect("a valid config")
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let entry = (
                request.method().to_string(),
                header(&request, "mcp-method"),
                header(&request, "mcp-protocol-version"),
            );
            record.lock().unwrap().push(entry);
            next.run(request)
        }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let client = client(url, EraMode::Legacy).await;
    let version = client.protocol_version().as_str().to_owned();
    client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    client.close().await.unwrap();

    let seen = seen.lock().unwrap().clone();
    let entry = |method: &str, mcp_method: Option<&str>, version: Option<&str>| -> Seen {
        (method.into(), mcp_method.map(Into::into), version.map(Into::into))
    };
    let v = Some(version.as_str());
    assert_eq!(
        seen,
        [
            entry("POST", Some("initialize"), None),
            entry("POST", Some("notifications/initialized"), v),
            entry("GET", None, v),
            entry("POST", Some("tools/call"), v),
            entry("DELETE", None, v),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_starts_mirroring_a_header_is_refreshed_and_retried() {
    let (server, handle, _) = start(HttpConfig::default()).await;
    let client = client(handle.url("/mcp"), EraMode::Modern).await;
    client.list_all_tools().await.unwrap();
    let before = client.call_tool("tenant", json!({"tenant": "acme"})).await.unwrap();
    assert_eq!(text(&before), "tenant acme");
    // The server now wants Mcp-Param-Tenant; our cached schema does not know it.
    assert!(server.remove_tool("tenant"));
    server.add_tool(tenant_tool(true)).unwrap();
    let after = client.call_tool("tenant", json!({"tenant": "globex"})).await.unwrap();
    assert_eq!(text(&after), "tenant globex");
    client.close().await.unwrap();
    handle.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_stops_the_handler_in_both_eras() {
    for era in ERAS {
        let (_server, handle, stopped) = start(HttpConfig::default()).await;
        let client = client(handle.url("/mcp"), era).await;
        let cancellation = CancellationToken::new();
        let started = Arc::new(tokio::sync::Notify::new());
        let notify = Arc::clone(&started);
        let call = CallOptions {
            cancellation: Some(cancellation.clone()),
            on_progress: Some(Arc::new(move |_| notify.notify_one())),
            ..Default::default()
        };
        let waiting = {
            let client = client.clone();
            tokio::spawn(async move { client.call_tool_with("wait", json!({}), &call).await })
        };
        tokio::time::timeout(Duration::from_secs(10), started.notified())
            .await
            .expect("the handler runs");
        cancellation.cancel();
        let outcome = tokio::time::timeout(Duration::from_secs(2), waiting)
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(outcome, Err(Error::Cancelled)), "{era:?}: {outcome:?}");
        let since = Instant::now();
        while !stopped.load(Ordering::SeqCst) {
            assert!(
                since.elapsed() < Duration::from_secs(5),
                "{era:?}: the handler still runs"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        client.close().await.unwrap();
        handle.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn falls_back_to_our_http_with_sse_endpoints() {
    let (_server, handle, _) = start(HttpConfig::default().legacy_sse(true)).await;
    let client = client(handle.url("/sse"), EraMode::Legacy).await;
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    exercise(&client, true).await;
    client.close().await.unwrap();
    handle.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_handler_reads_the_headers_its_client_sent_on_each_transport() {
    let (_server, handle, _) = start(HttpConfig::default().legacy_sse(true)).await;
    let traced = |url: String| HttpClientOptions::new(url).header("x-trace".parse().unwrap(), "t-42".parse().unwrap());
    for (path, era) in [
        ("/mcp", EraMode::Legacy),
        ("/mcp", EraMode::Modern),
        ("/sse", EraMode::Legacy),
    ] {
        let client = client_with(traced(handle.url(path)), era).await;
        let answer = client.call_tool("trace", json!({})).await.unwrap();
        assert_eq!(text(&answer), "t-42", "{path} {era:?}");
        client.close().await.unwrap();
    }
    handle.shutdown().await.unwrap();
}

/// `test_server`, with resources to subscribe to, whose subscriptions and log levels are
/// noted in `told`.
fn recording_server(told: &Arc<Mutex<Vec<String>>>) -> Server {
    let server = test_server(Arc::new(AtomicBool::new(false)));
    server
        .add_resource_template(
            ResourceTemplateDef::new("file:///{name}", "files")
                .handler(|uri: String, _, _: Context| async move { Ok::<_, HandlerError>(uri) }),
        )
        .unwrap();
    for method in ["resources/subscribe", "logging/setLevel"] {
        let told = Arc::clone(told);
        server
            .add_request_handler(method, move |params: Value, _: Context| {
                let told = Arc::clone(&told);
                async move {
                    let what = params.get("uri").or(params.get("level")).cloned().unwrap_or_default();
                    told.lock()
                        .unwrap()
                        .push(format!("{method} {}", what.as_str().unwrap_or_default()));
                    Ok(json!({}))
                }
            })
            .unwrap();
    }
    server
}

/// A legacy client of a `recording_server` noting in `told`, subscribed to `file:///a`;
/// and the server's listener, to shut down as a restart does.
async fn subscribed_client(told: &Arc<Mutex<Vec<String>>>) -> (Client, HttpServerHandle) {
    let handle = recording_server(told)
        .bind_http("127.0.0.1:0", HttpConfig::default())
        .await
        .unwrap();
    let client = client(handle.url("/mcp"), EraMode::Legacy).await;
    client.subscribe_resource("file:///a").await.unwrap();
    (client, handle)
}

/// A server that restarted no longer knows the client's legacy session and answers 404 for
/// it: the client begins a new session (once, however many calls found the old one gone),
/// sends each call again in it, and asks again for the log level and the subscriptions the
/// old session held, whose updates reach it as before.
#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_server_is_reached_in_a_new_legacy_session() {
    let told = Arc::new(Mutex::new(Vec::new()));
    let (client, handle) = subscribed_client(&told).await;
    let address = handle.local_addr();
    client.set_log_level(LoggingLevel::Warning).await.unwrap();
    assert_eq!(told.lock().unwrap().len(), 2);

    handle.shutdown().await.unwrap();
    // As a real restart takes: the client sees the old connections close before it
    // reuses one (a POST on a connection closing under it fails, and is not sent again).
    tokio::time::sleep(Duration::from_millis(300)).await;
    told.lock().unwrap().clear();
    let restarted = recording_server(&told);
    let _handle = restarted.bind_http(address, HttpConfig::default()).await.unwrap();
    let calls = (0..4).map(|i| client.call_tool("echo", json!({ "text": format!("call {i}") })));
    for (i, echoed) in futures::future::join_all(calls).await.into_iter().enumerate() {
        assert_eq!(
            text(&echoed.expect("sent again in the new session")),
            format!("call {i}")
        );
    }
    assert_eq!(
        *told.lock().unwrap(),
        ["logging/setLevel warning", "resources/subscribe file:///a"],
        "asked for once, in the new session"
    );
    let mut notifications = client.notifications();
    assert_eq!(
        updated(&restarted, &mut notifications).await.as_deref(),
        Some("file:///a")
    );
}

/// The URI of the first resource update `notifications` bring while `server` tells of
/// `file:///a` again and again; None after 10 s.
async fn updated(
    server: &Server,
    notifications: &mut tokio::sync::broadcast::Receiver<ServerNotification>,
) -> Option<String> {
    let updated = async {
        loop {
            server.notify_resource_updated("file:///a");
            if let Ok(Ok(ServerNotification::ResourceUpdated(params))) =
                tokio::time::timeout(Duration::from_millis(200), notifications.recv()).await
            {
                return params.uri;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), updated).await.ok()
}

/// A restarted server's 404 found by the client's GET stream, while no request is made:
/// the client begins a new session at once, and the server's notifications reach it again
/// without it asking anything.
#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_server_is_heard_again_before_the_next_request() {
    let told = Arc::new(Mutex::new(Vec::new()));
    let (client, handle) = subscribed_client(&told).await;
    let address = handle.local_addr();
    let mut notifications = client.notifications();

    handle.shutdown().await.unwrap();
    let restarted = recording_server(&told);
    let _handle = restarted.bind_http(address, HttpConfig::default()).await.unwrap();
    let uri = updated(&restarted, &mut notifications).await;
    assert_eq!(
        uri.as_deref(),
        Some("file:///a"),
        "the update arrives with no request made"
    );
    assert_eq!(
        told.lock().unwrap().last().map(String::as_str),
        Some("resources/subscribe file:///a")
    );
}
