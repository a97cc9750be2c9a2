//! What the HTTP tests share: raw MCP POSTs and SSE reading; the programs written with the official SDKs in
//! `tests/interop/` (the Python SDK in `.venv`, `make peers`; the TypeScript SDK in
//! `node_modules`, `make node-peers`) run as child processes, the oxmcp server they talk to, and the checks our client makes.
//!
//! A missing interpreter or SDK fails the test with the command that installs it: these
//! tests never skip.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode};
use oxmcp::protocol::{
    CallToolResult, CreateMessageRequestParams, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitResult, Era, ErrorObject, LoggingLevel, ProgressNotificationParams, ResourceContents, SamplingContent,
};
use oxmcp::server::{Context, HandlerError, Json, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use oxmcp::Error;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How long a peer may take to start or to finish its whole script: a guard against hangs
/// only (they take a few seconds).
const PEER_TIMEOUT: Duration = Duration::from_secs(120);

/// The official SDK a peer program is written with. Its programs live in
/// `tests/interop/<sdk>/` at the repository root: `server` and `client`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    Python,
    TypeScript,
}

/// The repository's root directory.
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

impl Sdk {
    /// The file of this SDK's `program` ("server" or "client") in tests/interop.
    fn script(self, program: &str) -> PathBuf {
        let (dir, extension) = match self {
            Sdk::Python => ("python", "py"),
            Sdk::TypeScript => ("typescript", "mjs"),
        };
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/interop")
            .join(dir)
            .join(format!("{program}.{extension}"))
    }

    /// This SDK's interpreter (the venv's Python, Node), checked to be there.
    fn interpreter(self) -> PathBuf {
        match self {
            Sdk::Python => {
                let python = std::env::var_os("OXMCP_TEST_PYTHON")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
                assert!(
                    python.exists(),
                    "{} is missing: run `make peers` to create the venv with the official Python SDK",
                    python.display()
                );
                python
            }
            Sdk::TypeScript => {
                let node = std::env::var_os("OXMCP_TEST_NODE")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| "node".into());
                let version = std::process::Command::new(&node).arg("--version").output();
                assert!(
                    version.is_ok_and(|v| v.status.success()),
                    "`{}` does not run: install Node.js 20 or later (or set OXMCP_TEST_NODE)",
                    node.display()
                );
                node
            }
        }
    }

    /// A command that runs this SDK's `program` ("server" or "client") with its
    /// interpreter, after checking that the interpreter and the SDK are installed.
    fn command(self, program: &str) -> Command {
        let interpreter = self.interpreter();
        if self == Sdk::TypeScript {
            let sdk = repo_root().join("node_modules/@modelcontextprotocol/sdk/package.json");
            assert!(
                sdk.exists(),
                "{} is missing: run `make node-peers` to install the official TypeScript SDK",
                sdk.display()
            );
        }
        let mut command = Command::new(interpreter);
        command
            .arg(self.script(program))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        command
    }
}

/// The server written with an official SDK (tests/interop/<sdk>/server.*), serving HTTP;
/// killed when dropped.
pub struct PeerServer {
    child: Child,
    /// The URL of its endpoint, as it announced it: `http://127.0.0.1:<port>/…`.
    url: String,
}

impl PeerServer {
    /// Starts the server of `sdk` with `args` (`--http` or `--sse` and options) and waits
    /// for the `LISTENING <url>` line it prints on stdout once it accepts connections.
    pub async fn start(sdk: Sdk, args: &[&str]) -> PeerServer {
        let mut command = sdk.command("server");
        command.args(args);
        let (child, url) = announced(command, "LISTENING ", &format!("the {sdk:?} server")).await;
        PeerServer { child, url }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        loopback_port(&self.url).expect("checked when it started")
    }

    /// The URL of its endpoint (`/mcp`, or `/sse` for HTTP+SSE).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    pub async fn kill(&mut self) {
        self.child.kill().await.expect("kills the server");
    }
}

/// Starts `command` and waits for the `prefix<url>` line it prints on stdout once it
/// accepts connections (on 127.0.0.1); stdout is drained after that.
async fn announced(mut command: Command, prefix: &str, what: &str) -> (Child, String) {
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{what} starts: {e}"));
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let url = tokio::time::timeout(PEER_TIMEOUT, async {
        while let Some(line) = lines.next_line().await.expect("reads the server's stdout") {
            if let Some(url) = line.strip_prefix(prefix) {
                return url.trim().to_owned();
            }
        }
        panic!("{what} exited before listening")
    })
    .await
    .unwrap_or_else(|_| panic!("{what} listens within {PEER_TIMEOUT:?}"));
    assert!(
        loopback_port(&url).is_some(),
        "{what} announced {url:?}, not http://127.0.0.1:<port>/…"
    );
    // Keep draining stdout so that the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// A real OAuth authorization server, `oidc-provider` from npm (tests/auth/provider.mjs):
/// dynamic registration, PKCE, refresh tokens, client credentials (`svc` / `svc-secret`),
/// introspection, and JWT access tokens for any `http://127.0.0.1:*` resource. Its user
/// approves every authorization at once. Killed when dropped.
pub struct AuthorizationServer {
    _child: Child,
    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub issuer: String,
}

impl AuthorizationServer {
    /// Starts it with the settings `env` (see the script's header).
    pub async fn start(env: &[(&str, &str)]) -> AuthorizationServer {
        let root = repo_root();
        let library = root.join("node_modules/oidc-provider/package.json");
        assert!(
            library.exists(),
            "{} is missing: run `make node-peers`",
            library.display()
        );
        let mut command = Command::new(Sdk::TypeScript.interpreter());
        command
            .arg(root.join("tests/auth/provider.mjs"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let (child, issuer) = announced(command, "ISSUER ", "the authorization server").await;
        AuthorizationServer { _child: child, issuer }
    }

    /// Its metadata document (RFC 8414).
    pub async fn metadata(&self) -> Value {
        let url = format!("{}/.well-known/oauth-authorization-server", self.issuer);
        let text = reqwest::get(url).await.unwrap().text().await.unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// An axum app of a test's own, served on 127.0.0.1 and a free port until [`Served::stop`]
/// (or drop): every test stops the servers it starts.
pub struct Served {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    stopping: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl Served {
    /// Serves the app that `build` makes for the server's base URL.
    pub async fn start(build: impl FnOnce(&str) -> axum::Router) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let app = build(&base);
        let stopping = CancellationToken::new();
        let shutdown = stopping.clone().cancelled_owned();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).with_graceful_shutdown(shutdown).await;
        });
        Served {
            base,
            stopping,
            task: Some(task),
        }
    }

    /// Fires when the server stops: streams that would last forever end on it.
    pub fn stopping(&self) -> CancellationToken {
        self.stopping.clone()
    }

    /// Stops accepting, lets open connections finish (briefly), then ends the server.
    pub async fn stop(mut self) {
        self.stopping.cancel();
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(Duration::from_secs(10), &mut task).await.is_err() {
                task.abort();
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // A test that failed before `stop` still ends its server.
        self.stopping.cancel();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The port of an `http://127.0.0.1:<port>/…` URL.
fn loopback_port(url: &str) -> Option<u16> {
    url.strip_prefix("http://127.0.0.1:")?.split('/').next()?.parse().ok()
}

/// Runs the client of `sdk` (tests/interop/<sdk>/client.*) with `args` to its end and
/// returns the JSON object it printed last.
pub async fn run_peer_client(sdk: Sdk, args: &[&str]) -> Value {
    let child = sdk
        .command("client")
        .args(args)
        .spawn()
        .expect("starts the peer client");
    // On timeout the future, and with it the child, is dropped: kill_on_drop ends it.
    let output = tokio::time::timeout(PEER_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the {sdk:?} client {args:?} did not finish within {PEER_TIMEOUT:?}"))
        .expect("waits for the peer client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the {sdk:?} client {args:?} failed ({}); its stdout: {stdout}",
        output.status
    );
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("the {sdk:?} client printed no JSON ({e}): {stdout}"))
}

fn schema(value: Value) -> Map<String, Value> {
    value.as_object().expect("an object").clone()
}

/// The text of a sampling reply.
fn sampled_text(content: &[SamplingContent]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            SamplingContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

/// The oxmcp server the official clients talk to: one of every feature, each with an
/// answer a client can check.
pub fn interop_server() -> Server {
    Server::builder("oxmcp-interop", "1.0.0")
        .tool(
            ToolDef::new("echo")
                .input_schema(schema(
                    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
                ))
                .handler(|args, _| async move { args["text"].as_str().unwrap_or_default().to_owned() }),
        )
        .tool(
            ToolDef::new("add")
                .input_schema(schema(json!({"type": "object", "properties": {
                    "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})))
                .output_schema(schema(
                    json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}),
                ))
                .handler(|args, _| async move {
                    let sum = args["a"].as_i64().unwrap_or_default() + args["b"].as_i64().unwrap_or_default();
                    Json(json!({ "sum": sum }))
                }),
        )
        .tool(
            ToolDef::new("fail").handler(|_, _| async { Err::<String, _>(HandlerError::message("failed on purpose")) }),
        )
        .tool(
            ToolDef::new("slow")
                .input_schema(schema(
                    json!({"type": "object", "properties": {"steps": {"type": "integer"}}}),
                ))
                .handler(|args, ctx: Context| async move {
                    let steps = args["steps"].as_u64().unwrap_or(1);
                    for step in 1..=steps {
                        ctx.progress(step as f64, Some(steps as f64), Some(format!("step {step}")))
                            .await;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    format!("done after {steps} steps")
                }),
        )
        .tool(ToolDef::new("confirm").handler(|_, ctx: Context| async move {
            let form = ElicitRequestFormParams {
                mode: None,
                message: "Your name?".into(),
                requested_schema: schema(
                    json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                ),
                meta: None,
            };
            let answer = ctx.elicit(ElicitRequestParams::Form(form)).await?;
            let name = answer
                .content
                .as_ref()
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str);
            Ok::<_, HandlerError>(format!("{:?}: {}", answer.action, name.unwrap_or_default()))
        }))
        .tool(ToolDef::new("ask_llm").handler(|_, ctx: Context| async move {
            let params: CreateMessageRequestParams = serde_json::from_value(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "The capital of France?"}}],
                "maxTokens": 20
            }))?;
            let reply = ctx.sample(params).await?;
            Ok::<_, HandlerError>(format!(
                "{} said {}",
                reply.model,
                sampled_text(reply.content.as_slice())
            ))
        }))
        .tool(ToolDef::new("log").handler(|_, ctx: Context| async move {
            for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error] {
                ctx.log(level, Some("interop"), json!({ "level": format!("{level:?}") }))
                    .await;
            }
            "logged"
        }))
        .resource(
            ResourceDef::new("greeting://world", "world")
                .mime_type("text/plain")
                .handler(|_, _, _| async { "Hello, world" }),
        )
        .resource_template(
            ResourceTemplateDef::new("greeting://people/{name}", "person")
                .mime_type("text/plain")
                .handler(|_, vars: BTreeMap<String, String>, _| async move { format!("Hello, {}", vars["name"]) }),
        )
        .prompt(
            PromptDef::new("review")
                .argument("code", "The code to review", true)
                .handler(|args: BTreeMap<String, String>, _| async move { format!("Please review: {}", args["code"]) }),
        )
        .build()
        .expect("a valid server")
}

/// Our client's options: an elicitation handler that answers "Ada".
pub fn options(era: EraMode) -> ClientOptions {
    ClientOptions::new("oxmcp-http-tests", "1.0.0")
        .era(era)
        .timeout(Some(Duration::from_secs(30)))
        .on_elicitation(
            |params: ElicitRequestParams| async move {
                assert!(matches!(params, ElicitRequestParams::Form(_)), "{params:?}");
                Ok::<_, ErrorObject>(ElicitResult {
                    action: ElicitAction::Accept,
                    content: Some(Map::from_iter([("name".to_owned(), json!("Ada"))])),
                    meta: None,
                })
            },
            false,
        )
}

pub async fn client_for(url: String, era: EraMode) -> Client {
    client_with(HttpClientOptions::new(url), era).await
}

pub async fn client_with(http: HttpClientOptions, era: EraMode) -> Client {
    let transport = connect(http).expect("a transport");
    Client::connect(transport, options(era)).await.expect("connects")
}

/// The text of a successful tool result.
pub fn text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "the tool failed: {result:?}");
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .collect::<Vec<_>>()
        .join("")
}

pub fn resource_text(contents: &[ResourceContents]) -> String {
    match contents.first() {
        Some(ResourceContents::Text(text)) => text.text.clone(),
        other => panic!("not a text resource: {other:?}"),
    }
}

/// A progress callback and what it saw.
pub fn progress_log() -> (Arc<Mutex<Vec<ProgressNotificationParams>>>, CallOptions) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions {
        on_progress: Some(Arc::new(move |progress| sink.lock().unwrap().push(progress))),
        ..Default::default()
    };
    (seen, options)
}

/// Calls a peer server's `slow` tool for `steps` steps; the progress values it reported.
pub async fn slow_with_progress(client: &Client, steps: u32) -> Vec<f64> {
    let (seen, call) = progress_log();
    let done = client
        .call_tool_with("slow", json!({"steps": steps, "delay": 0.05}), &call)
        .await
        .unwrap();
    assert_eq!(text(&done), format!("done after {steps} steps"));
    let progress = seen.lock().unwrap().iter().map(|p| p.progress).collect();
    progress
}

/// Everything our client does in the legacy era against a peer server named `server_name`
/// (tests/interop/<sdk>/server.*: `echo`, `slow`, `greet`, `greeting://` resources).
/// `streaming`: the server answers with SSE streams, so it can send progress and requests
/// mid-call (in JSON mode the official SDKs drop both).
pub async fn exercise_legacy(client: &Client, server_name: &str, streaming: bool) {
    assert_eq!(client.protocol_version().era(), Era::Legacy);
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    let details = client.server_details();
    assert_eq!(details.server_info.expect("server info").name, server_name);

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let echoed = client.call_tool("echo", json!({"text": "hi there"})).await.unwrap();
    assert_eq!(text(&echoed), "hi there");

    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "greeting://world"), "{resources:?}");
    let read = client.read_resource("greeting://world").await.unwrap();
    assert_eq!(resource_text(&read.contents), "Hello, world");

    // An unknown tool is the server's error, not a transport failure.
    let missing = client.call_tool("no-such-tool", json!({})).await;
    match missing {
        Ok(result) => assert_eq!(result.is_error, Some(true)),
        Err(Error::Remote(error)) => assert!(error.message.contains("no-such-tool"), "{error:?}"),
        Err(other) => panic!("unexpected failure: {other}"),
    }
    let templated = client.read_resource("greeting://people/Zoë").await.unwrap();
    assert_eq!(resource_text(&templated.contents), "Hello, Zoë");

    if !streaming {
        return;
    }
    // Progress notifications arrive before the result, on the POST's SSE stream.
    assert_eq!(slow_with_progress(client, 3).await, [1.0, 2.0, 3.0]);

    // A server-to-client request (elicitation/create), answered by our handler.
    let greeted = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(text(&greeted), "Hello, Ada!");
}

/// A POST as an MCP client sends one over Streamable HTTP: a JSON body, accepting JSON or
/// SSE, with `headers` added.
pub fn mcp_post(http: &reqwest::Client, url: &str, body: &Value, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
}

/// The SSE events (`id`, `data`) of a response, read until `done` says stop, the stream
/// ends, or 5 s pass without a chunk; comments are skipped.
pub async fn read_events(
    response: reqwest::Response,
    done: impl Fn(&[(String, String)]) -> bool,
) -> Vec<(String, String)> {
    let mut events = Vec::new();
    let mut buffer = String::new();
    let mut body = response.bytes_stream();
    while let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_secs(5), body.next()).await {
        buffer.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| v.trim_start().to_owned())
                    .unwrap_or_default()
            };
            if block.starts_with(':') {
                continue;
            }
            events.push((field("id:"), field("data:")));
            if done(&events) {
                return events;
            }
        }
    }
    events
}

/// `confirm`, a tool that must run as a task: see [`confirm_tool`].
pub fn confirm_task_tool() -> ToolDef {
    confirm_tool().task_support(oxmcp::server::TaskSupport::Required)
}

/// `confirm`, a tool that asks the user (a form with a boolean `ok`) and says `confirmed` or
/// `declined`.
pub fn confirm_tool() -> ToolDef {
    ToolDef::new("confirm").handler(|_, ctx: Context| async move {
        let form = oxmcp::protocol::ElicitRequestParams::Form(oxmcp::protocol::ElicitRequestFormParams {
            mode: None,
            message: "Sure?".into(),
            requested_schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})
                .as_object()
                .cloned()
                .unwrap(),
            meta: None,
        });
        let answer = ctx.elicit(form).await?;
        let ok = answer.content.and_then(|c| c.get("ok").and_then(Value::as_bool)) == Some(true);
        Ok::<_, HandlerError>(if ok { "confirmed" } else { "declined" })
    })
}

/// `broken`, a tool that must run as a task and fails as a request ("it broke", -32603).
pub fn broken_task_tool() -> ToolDef {
    ToolDef::new("broken")
        .task_support(oxmcp::server::TaskSupport::Required)
        .handler(|_, _| async {
            Err::<String, _>(HandlerError::rpc(oxmcp::protocol::ErrorObject::internal("it broke")))
        })
}

/// `options` with an elicitation handler that accepts every form with `{"ok": true}`.
pub fn accepting_ok(options: ClientOptions) -> ClientOptions {
    options.on_elicitation(
        |_: oxmcp::protocol::ElicitRequestParams| async {
            Ok::<_, oxmcp::protocol::ErrorObject>(oxmcp::protocol::ElicitResult {
                action: oxmcp::protocol::ElicitAction::Accept,
                content: json!({"ok": true}).as_object().cloned(),
                meta: None,
            })
        },
        false,
    )
}

/// A load balancer of a test's own, as plain as nginx's default: each request goes to the
/// next of `upstreams` (`http://host:port`) in turn, without stickiness, and its response
/// streams back.
pub async fn round_robin(upstreams: Vec<String>) -> Served {
    let http = reqwest::Client::new();
    let turn = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    Served::start(move |_| {
        axum::Router::new().fallback(move |request: axum::extract::Request| {
            let upstream = upstreams[turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % upstreams.len()].clone();
            let http = http.clone();
            async move {
                let (parts, body) = request.into_parts();
                let body = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
                let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
                let mut forwarded = http.request(parts.method, format!("{upstream}{path}")).body(body);
                for (name, value) in parts.headers.iter().filter(|(name, _)| *name != http::header::HOST) {
                    forwarded = forwarded.header(name, value);
                }
                let Ok(answer) = forwarded.send().await else {
                    return axum::response::Response::builder()
                        .status(502)
                        .body(axum::body::Body::empty())
                        .unwrap();
                };
                let mut response = axum::response::Response::builder().status(answer.status());
                for (name, value) in answer.headers() {
                    response = response.header(name, value);
                }
                response
                    .body(axum::body::Body::from_stream(answer.bytes_stream()))
                    .unwrap()
            }
        })
    })
    .await
}

/// A `redis-server` of this test alone, on a free port of 127.0.0.1, with nothing saved to
/// disk; stopped when dropped.
pub struct RedisServer {
    child: Child,
    /// Its `redis://` URL.
    pub url: String,
}

impl RedisServer {
    pub async fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::on_port(port).await
    }

    /// A new server on the port of this one (stopped first), as a restarted Redis.
    pub async fn restart(&mut self) -> RedisServer {
        self.kill().await;
        let port = self.url.trim_start_matches("redis://127.0.0.1:").trim_end_matches("/0");
        Self::on_port(port.parse().unwrap()).await
    }

    async fn on_port(port: u16) -> RedisServer {
        let child = Command::new("redis-server")
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server is installed (`make test` installs it)");
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return RedisServer {
                    child,
                    url: format!("redis://127.0.0.1:{port}/0"),
                };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not listen on port {port}");
    }

    /// Stops it outright, as a crash would.
    pub async fn kill(&mut self) {
        let _ = self.child.kill().await;
    }
}

/// The key of the first input request of an `input_required` result.
pub fn first_input_key(input_required: &Value) -> String {
    input_required["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next())
        .expect("an input request")
        .clone()
}
