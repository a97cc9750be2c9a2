//! The `oxmcp` binary as people and scripts run it: every verb against the Rust fixture
//! server over stdio and Streamable HTTP in both eras, and against a published server no
//! one here wrote (`@modelcontextprotocol/server-everything`, pinned in package-lock.json);
//! `--json` output parsed; each exit code provoked.
//!
//! The fixture server is `cargo build -p oxmcp-fixtures`'s (`cargo test --workspace` and
//! `make test` build it); server-everything is `npm install`'s.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use oxmcp::server::auth::{JwtVerifier, ResourceServer};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Context, Server, ToolDef};
use serde_json::{json, Value};

const ERAS: [&str; 2] = ["legacy", "modern"];

/// The workspace's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fixture server's binary, next to this test's.
fn fixture_server() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let binary = deps.parent().and_then(|d| d.parent()).unwrap().join("fixture-server");
    assert!(
        binary.exists(),
        "{} is missing: cargo build -p oxmcp-fixtures --bin fixture-server",
        binary.display()
    );
    binary
}

/// server-everything over stdio.
fn everything() -> Vec<String> {
    let script = root().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.exists(), "{} is missing: npm install", script.display());
    vec!["node".into(), script.display().to_string(), "stdio".into()]
}

/// Runs `oxmcp` with `args`.
fn oxmcp(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxmcp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oxmcp {args:?} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `oxmcp verb … --json -- target` (or `--url`): its stdout parsed, after checking it
/// exited with 0.
fn json_of(target: &Target, verb: &[&str]) -> Value {
    let output = oxmcp(&target.args(verb, true));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{verb:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{verb:?}: {e}: {output:?}"))
}

/// Where the server is, as the command line names it.
enum Target {
    Command(Vec<String>),
    Url(String),
}

impl Target {
    /// The arguments of `oxmcp verb` against this target, with `--json` if asked.
    fn args<'a>(&'a self, verb: &[&'a str], json: bool) -> Vec<&'a str> {
        let mut args = verb.to_vec();
        if json {
            args.push("--json");
        }
        match self {
            Target::Url(url) => args.extend(["--url", url.as_str()]),
            Target::Command(command) => {
                args.push("--");
                args.extend(command.iter().map(String::as_str));
            }
        }
        args
    }
}

/// The fixture server over HTTP, stopped when dropped.
struct HttpFixture {
    _child: KillOnDrop,
    url: String,
}

impl HttpFixture {
    fn start() -> HttpFixture {
        let mut command = Command::new(fixture_server());
        command.args(["--http", "127.0.0.1:0"]);
        let (child, url) = announced(command, "LISTENING ");
        HttpFixture { _child: child, url }
    }
}

/// Starts `command`, which tells something (a URL) on a line of stdout or stderr after
/// `prefix`; gives the process, killed when dropped, and what it told.
fn announced(mut command: Command, prefix: &str) -> (KillOnDrop, String) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (told, telling) = std::sync::mpsc::channel();
    for output in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let (told, prefix) = (told.clone(), prefix.to_owned());
        // Keeps draining the output after the line, so that the process never blocks on it.
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix(&prefix) {
                    let _ = told.send(rest.to_owned());
                }
            }
        });
    }
    let said = telling
        .recv_timeout(Duration::from_secs(30))
        .expect("the process tells it");
    (KillOnDrop(child), said)
}

/// Every verb against the fixture server at `target`, in `era`.
fn every_verb(target: &Target, era: &str) {
    let era_args = ["--era", era];
    let with_era = |verb: &[&'static str]| -> Vec<&str> { verb.iter().copied().chain(era_args).collect() };
    let info = json_of(target, &with_era(&["info"]));
    assert_eq!(info["era"], era);
    assert_eq!(info["serverInfo"]["name"], "oxmcp-fixture");
    assert!(info["instructions"].as_str().unwrap().contains("fixture"));

    let tools = json_of(target, &with_era(&["tools"]));
    let add = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "add")
        .unwrap();
    assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");

    let resources = json_of(target, &with_era(&["resources"]));
    assert!(resources
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["uri"] == "file:///readme.md"));
    let templates = json_of(target, &with_era(&["templates"]));
    assert_eq!(templates[0]["uriTemplate"], "greeting://{name}");
    let prompts = json_of(target, &with_era(&["prompts"]));
    assert_eq!(prompts[0]["name"], "review");

    // `a=1` is an integer because the schema says so.
    let sum = json_of(target, &with_era(&["call", "add", "a=1", "b=2"]));
    assert_eq!(sum["structuredContent"], json!({"result": 3}));
    let echoed = json_of(target, &with_era(&["call", "echo", "--args", r#"{"text": "7"}"#]));
    assert_eq!(echoed["content"][0]["text"], "7");

    let read = json_of(target, &with_era(&["read", "greeting://Ada"]));
    assert_eq!(read["contents"][0]["text"], "Hello, Ada!");
    let prompt = json_of(
        target,
        &with_era(&["prompt", "review", "code=x = 1", "language=python"]),
    );
    assert!(prompt["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("x = 1"));
    let completion = json_of(target, &with_era(&["complete", "--prompt", "review", "language", "py"]));
    assert_eq!(completion["values"], json!(["python"]));
    assert!(json_of(target, &with_era(&["ping"]))["ms"].is_number());
}

#[test]
fn every_verb_over_stdio_in_both_eras() {
    let target = Target::Command(vec![fixture_server().display().to_string()]);
    for era in ERAS {
        every_verb(&target, era);
    }
}

#[test]
fn every_verb_over_http_in_both_eras() {
    let server = HttpFixture::start();
    let target = Target::Url(server.url.clone());
    for era in ERAS {
        every_verb(&target, era);
    }
}

#[test]
fn people_get_tables_and_text() {
    let target = Target::Command(vec![fixture_server().display().to_string()]);
    let tools = oxmcp(&target.args(&["tools"], false));
    let tools = String::from_utf8(tools.stdout).unwrap();
    let add = tools
        .lines()
        .find(|line| line.trim_start().starts_with("add "))
        .unwrap();
    assert!(
        add.contains("a*: integer, b*: integer") && add.contains("Add two integers"),
        "{add}"
    );
    assert!(tools.lines().all(|line| !line.ends_with(' ')), "no trailing blanks");
    let read = oxmcp(&target.args(&["read", "greeting://Ada"], false));
    assert_eq!(String::from_utf8(read.stdout).unwrap(), "Hello, Ada!\n");
    let image = oxmcp(&target.args(&["call", "image"], false));
    assert!(String::from_utf8(image.stdout)
        .unwrap()
        .contains("[image image/png, 70 bytes]"));
}

/// The exit code of `oxmcp args`, and its stderr.
fn failing(args: &[&str]) -> (Option<i32>, String) {
    let output = oxmcp(args);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn each_exit_code_means_one_thing() {
    let server = fixture_server().display().to_string();
    let server = server.as_str();
    // 1: usage.
    assert_eq!(failing(&["tools"]).0, Some(1), "no target");
    assert_eq!(failing(&["frobnicate"]).0, Some(1), "no such verb");
    let (code, stderr) = failing(&["call", "add", "a=one", "--", server]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("a=one: not an integer"), "{stderr}");
    let (code, stderr) = failing(&["call", "nothing", "--", server]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no tool \"nothing\""), "{stderr}");
    // 2: cannot connect.
    assert_eq!(failing(&["tools", "--", "/nonexistent/server"]).0, Some(2));
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{closed}/mcp");
    assert_eq!(failing(&["tools", "--url", &url]).0, Some(2), "nothing listens");
    // 3: authorization.
    let url = refusing_server();
    let (code, stderr) = failing(&["tools", "--json", "--url", &url]);
    assert_eq!(code, Some(3), "{stderr}");
    let error: Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(error["error"]["kind"], "authorization");
    // 4: a JSON-RPC error, as a JSON object on stderr with --json.
    let (code, stderr) = failing(&["read", "nothing://here", "--json", "--", server]);
    assert_eq!(code, Some(4), "{stderr}");
    let error: Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(error["error"]["exitCode"], 4);
    assert_eq!(error["error"]["rpc"]["code"], -32602);
    // 5: the tool's own error, its result still printed.
    let output = oxmcp(&["call", "fail", "--json", "--", server]);
    assert_eq!(output.status.code(), Some(5));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["isError"], true);
}

/// An HTTP server on 127.0.0.1 answering each request as `answer` says from its request
/// line and its own base URL (status line and headers, then body); gives the base URL.
fn raw_http(answer: impl Fn(&str, &str) -> (String, String) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let own = base.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 8192];
            let read = stream.read(&mut request).unwrap_or(0);
            let text = String::from_utf8_lossy(&request[..read]);
            let (head, body) = answer(text.lines().next().unwrap_or_default(), &own);
            let response = format!(
                "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    base
}

/// An HTTP server that answers every request 401 with a bearer challenge.
fn refusing_server() -> String {
    let base = raw_http(|_, _| {
        let head = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer".to_owned();
        (head, String::new())
    });
    format!("{base}/mcp")
}

#[test]
fn a_server_from_a_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("claude_desktop_config.json");
    let entry = json!({"mcpServers": {"fixture": {"command": fixture_server()}}});
    std::fs::write(&config, entry.to_string()).unwrap();
    let config = config.display().to_string();
    let output = oxmcp(&["call", "echo", "text=hi", "--server", "fixture", "--config", &config]);
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "hi\n");
    let (code, stderr) = failing(&["tools", "--server", "other", "--config", &config]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no server named \"other\""), "{stderr}");
}

#[test]
fn a_published_server_no_one_here_wrote() {
    let target = Target::Command(everything());
    let tools = json_of(&target, &["tools"]);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo") && names.contains(&"get-sum"), "{names:?}");
    let echoed = json_of(&target, &["call", "echo", "message=hello"]);
    assert!(echoed["content"][0]["text"].as_str().unwrap().contains("hello"));
    // Numbers, because its schema says so.
    let sum = json_of(&target, &["call", "get-sum", "a=2", "b=3.5"]);
    assert!(sum["content"][0]["text"].as_str().unwrap().contains("5.5"), "{sum}");
    let resources = json_of(&target, &["resources"]);
    let uri = resources[0]["uri"].as_str().unwrap().to_owned();
    let read = json_of(&target, &["read", &uri]);
    assert_eq!(read["contents"][0]["uri"], uri.as_str());
    let prompts = json_of(&target, &["prompts"]);
    assert!(prompts.as_array().unwrap().iter().any(|p| p["name"] == "args-prompt"));
    let prompt = json_of(&target, &["prompt", "args-prompt", "city=Paris"]);
    assert!(prompt["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("Paris"));
    let templates = json_of(&target, &["templates"]);
    assert!(templates
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["uriTemplate"] == "demo://resource/dynamic/text/{resourceId}"));
    let dynamic = json_of(&target, &["read", "demo://resource/dynamic/text/3"]);
    assert!(dynamic["contents"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Resource 3"));
    let completion = json_of(
        &target,
        &["complete", "--prompt", "completable-prompt", "department", "E"],
    );
    assert_eq!(completion["values"], json!(["Engineering"]));
    assert_eq!(json_of(&target, &["info"])["era"], "legacy");
    assert!(json_of(&target, &["ping"])["ms"].is_number());
    // Its elicitation tool, added once the connection is set up, answered from a file.
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers.json");
    let script = json!({"elicitation": [{"action": "accept", "content": {"name": "Ada", "check": true}}]});
    std::fs::write(&answers, script.to_string()).unwrap();
    let answers = answers.display().to_string();
    let elicited = json_of(&target, &["call", "trigger-elicitation-request", "--answers", &answers]);
    let said = elicited["content"][1]["text"].as_str().unwrap();
    assert!(
        said.contains("Name: Ada") && said.contains("Agreed to terms: true"),
        "{said}"
    );
}

#[test]
fn the_servers_questions_are_answered_from_a_file_or_declined() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers.json");
    let script = json!({
        "elicitation": [{"action": "accept", "content": {"name": "Ada"}}, {"action": "accept", "content": {"city": "London"}}],
        "sampling": [{"text": "Paris"}],
    });
    std::fs::write(&answers, script.to_string()).unwrap();
    let answers = answers.display().to_string();
    let server = fixture_server().display().to_string();
    for era in ERAS {
        // Two questions in turn, then one for the model: each answer in order.
        let asked = oxmcp(&["call", "ask_twice", "--era", era, "--answers", &answers, "--", &server]);
        assert_eq!(
            String::from_utf8_lossy(&asked.stdout),
            "Ada lives in London\n",
            "{era}: {asked:?}"
        );
        let sampled = oxmcp(&["call", "ask_llm", "--era", era, "--answers", &answers, "--", &server]);
        assert_eq!(
            String::from_utf8_lossy(&sampled.stdout),
            "the model said: Paris\n",
            "{era}: {sampled:?}"
        );
        // Without a terminal or a file, and with --no-input, the user declines.
        for declining in [vec![], vec!["--no-input"]] {
            let mut args = vec!["call", "confirm", "--era", era];
            args.extend(declining);
            args.extend(["--", server.as_str()]);
            let declined = oxmcp(&args);
            assert_eq!(
                String::from_utf8_lossy(&declined.stdout),
                "not confirmed: Decline\n",
                "{era}"
            );
        }
    }
    let (code, stderr) = failing(&["tools", "--answers", &answers, "--no-input", "--", &server]);
    assert_eq!(code, Some(1), "{stderr}");
}

#[test]
fn the_servers_log_messages_go_to_stderr_from_the_level_asked() {
    let server = fixture_server().display().to_string();
    for era in ERAS {
        let logged = oxmcp(&["call", "log", "--era", era, "--", &server]);
        let stderr = String::from_utf8_lossy(&logged.stderr);
        assert!(stderr.contains("[error] fixture:"), "{era}: {stderr}");
        assert!(!stderr.contains("[debug]"), "info and above by default: {stderr}");
        let quiet = oxmcp(&["call", "log", "--era", era, "--log-level", "critical", "--", &server]);
        assert!(!String::from_utf8_lossy(&quiet.stderr).contains("[error]"), "{era}");
        assert_eq!(String::from_utf8_lossy(&quiet.stdout), "logged\n");
    }
}

#[test]
fn a_task_is_followed_then_looked_at_and_cancelled_from_other_runs() {
    let server = HttpFixture::start();
    let url = server.url.as_str();
    // Started and followed to its result by one run.
    let done = oxmcp(&["call", "slow_task", "steps=2", "--task", "--json", "--url", url]);
    assert_eq!(done.status.code(), Some(0), "{done:?}");
    let told: Value = serde_json::from_str(String::from_utf8_lossy(&done.stderr).lines().next().unwrap()).unwrap();
    let id = told["taskId"].as_str().unwrap().to_owned();
    let result: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(result["content"][0]["text"], "done after 2 steps");
    // Read again by a later run, as a 2026-07-28 task outlives its connection.
    let again = json_of(&Target::Url(server.url.clone()), &["task", "result", &id]);
    assert_eq!(again["content"], result["content"]);
    assert_eq!(
        json_of(&Target::Url(server.url.clone()), &["task", "status", &id])["status"],
        "completed"
    );

    // A long one: its status seen, then cancelled, by other runs while the first follows it.
    let mut following = Command::new(env!("CARGO_BIN_EXE_oxmcp"))
        .args(["call", "slow_task", "steps=1000", "--task", "--json", "--url", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(following.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let id = serde_json::from_str::<Value>(&first).unwrap()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let target = Target::Url(server.url.clone());
    assert_eq!(json_of(&target, &["task", "status", &id])["status"], "working");
    assert_eq!(json_of(&target, &["task", "cancel", &id])["status"], "cancelled");
    let status = following.wait().unwrap();
    assert_eq!(status.code(), Some(4), "the follower sees the task cancelled");
    let (code, _) = failing(&["task", "status", "no-such-task", "--url", url]);
    assert_eq!(code, Some(4));
}

/// The findings of `oxmcp auth check --json` against `url`, and its exit code.
fn auth_check(url: &str) -> (Option<i32>, Vec<(String, String, String)>) {
    let output = oxmcp(&["auth", "check", "--json", "--url", url]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    let findings = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = |name: &str| f[name].as_str().unwrap().to_owned();
            (field("verdict"), field("check"), field("detail"))
        })
        .collect();
    (output.status.code(), findings)
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_check_passes_a_server_protected_as_clients_need() {
    let (_provider, issuer) = authorization_server();
    let handle = protected_server(&issuer).await;
    let url = handle.url("/mcp");
    let (code, findings) = tokio::task::spawn_blocking(move || auth_check(&url)).await.unwrap();
    assert_eq!(code, Some(0), "{findings:#?}");
    assert!(findings.iter().all(|(verdict, ..)| verdict == "pass"), "{findings:#?}");
    let checks: Vec<&str> = findings.iter().map(|(_, check, _)| check.as_str()).collect();
    for check in [
        "challenge",
        "resource metadata",
        "resource",
        "authorization server",
        "PKCE",
        "registration",
    ] {
        assert!(checks.contains(&check), "{check} checked: {checks:?}");
    }
    handle.shutdown().await.unwrap();
}

#[test]
fn auth_check_names_each_misconfiguration() {
    // The commonest mistakes at once: metadata naming another resource (a proxy's
    // internal URL), an issuer that is not the one named, no PKCE, no registration.
    let base = raw_http(|request, base| {
        let json = "HTTP/1.1 200 OK\r\nContent-Type: application/json".to_owned();
        let path = request.split_whitespace().nth(1).unwrap_or_default();
        match path {
            "/mcp" => (
                format!("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""),
                String::new(),
            ),
            "/.well-known/oauth-protected-resource/mcp" => (
                json,
                json!({"resource": "http://10.0.0.7:8080/mcp", "authorization_servers": [format!("{base}/auth")]}).to_string(),
            ),
            "/.well-known/oauth-authorization-server/auth" => (
                json,
                json!({"issuer": "https://login.example", "authorization_endpoint": format!("{base}/authorize"),
                       "token_endpoint": format!("{base}/token")})
                .to_string(),
            ),
            _ => ("HTTP/1.1 404 Not Found".to_owned(), String::new()),
        }
    });
    let (code, findings) = auth_check(&format!("{base}/mcp"));
    assert_eq!(code, Some(3), "{findings:#?}");
    let verdict = |check: &str| -> Vec<&str> {
        findings
            .iter()
            .filter(|(_, c, _)| c == check)
            .map(|(v, ..)| v.as_str())
            .collect()
    };
    assert_eq!(verdict("resource"), ["fail"]);
    assert!(verdict("authorization server").contains(&"fail"), "the issuer mismatch");
    assert_eq!(verdict("PKCE"), ["fail"]);
    assert_eq!(verdict("registration"), ["warn"]);
    let resource = findings.iter().find(|(_, c, _)| c == "resource").unwrap();
    assert!(resource.2.contains("http://10.0.0.7:8080/mcp"), "{}", resource.2);
    // A server that answers without a token is not protected: a warning, not a failure.
    let open = HttpFixture::start();
    let (code, findings) = auth_check(&open.url);
    assert_eq!(code, Some(0));
    assert_eq!(findings[0].0, "warn");
}

/// oidc-provider (tests/auth/provider.mjs), killed when dropped, and its issuer.
fn authorization_server() -> (KillOnDrop, String) {
    let mut command = Command::new("node");
    command.arg(root().join("tests/auth/provider.mjs"));
    announced(command, "ISSUER ")
}

/// A child process killed when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An oxmcp server whose every request needs a `notes:read` token from `issuer`; its
/// `whoami` tells who signed in.
async fn protected_server(issuer: &str) -> HttpServerHandle {
    let metadata = reqwest::get(format!("{issuer}/.well-known/oauth-authorization-server"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    let verifier = JwtVerifier::new(metadata["jwks_uri"].as_str().unwrap(), issuer).unwrap();
    let server = Server::builder("protected", "1.0.0")
        .tool(ToolDef::new("whoami").handler(|_, ctx: Context| async move {
            ctx.access_token()
                .and_then(|token| token.subject.clone())
                .unwrap_or_default()
        }))
        .build()
        .unwrap();
    let config = HttpConfig::default().auth(ResourceServer::new(verifier).required_scopes(["notes:read"]));
    server.bind_http("127.0.0.1:0", config).await.unwrap()
}

/// The user in the browser: opens `authorization`, approves at once (oidc-provider's test
/// user does), and follows the redirects back to the app's loopback address.
async fn approve(authorization: &str) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut next = reqwest::Url::parse(authorization).unwrap();
    let redirect_uri = next
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .unwrap()
        .1
        .into_owned();
    for _ in 0..10 {
        let answer = http.get(next.clone()).send().await.unwrap();
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .expect("a redirect")
            .to_str()
            .unwrap();
        next = next.join(location).unwrap();
        if next.as_str().starts_with(&redirect_uri) {
            let back = http.get(next).send().await.unwrap();
            assert!(back.status().is_success());
            return;
        }
    }
    panic!("the authorization server never sent the browser back");
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_signs_in_through_the_browser_once_and_later_runs_reuse_the_tokens() {
    let (_provider, issuer) = authorization_server();
    let server = protected_server(&issuer).await;
    let url = server.url("/mcp");
    let config = tempfile::tempdir().unwrap();
    let home = config.path().to_owned();
    let endpoint = url.clone();
    let run = move || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_oxmcp"));
        command
            .args(["call", "whoami", "--oauth", "--url", &endpoint])
            .env("XDG_CONFIG_HOME", &home)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    // Without --oauth the server refuses: exit 3.
    let (code, stderr) = failing(&["tools", "--url", &url]);
    assert_eq!(code, Some(3), "{stderr}");

    let mut first = run().spawn().unwrap();
    let mut stderr = BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("oxmcp: sign in at ") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the command tells where to sign in"
        );
    }
    approve(line.trim().trim_start_matches("oxmcp: sign in at ")).await;
    let first = tokio::task::spawn_blocking(move || first.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&first.stdout), "alice\n", "{first:?}");

    // The tokens were kept, for the user alone; the next run signs in with them.
    let tokens = std::fs::read_dir(config.path().join("oxmcp/tokens"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(tokens.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }
    let second = tokio::task::spawn_blocking(move || run().output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&second.stdout), "alice\n");
    assert!(
        !String::from_utf8_lossy(&second.stderr).contains("sign in"),
        "no second sign-in"
    );
    server.shutdown().await.unwrap();
}

/// `oxmcp inspect --no-open` on the fixture server, killed when dropped, and its page's URL.
fn inspector() -> (KillOnDrop, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_oxmcp"));
    command.args(["inspect", "--no-open", "--"]).arg(fixture_server());
    announced(command, "oxmcp: inspector at ")
}

#[test]
fn the_inspector_works_in_a_real_browser_in_both_eras() {
    let (_inspector, url) = inspector();
    let script = root().join("cli/tests/inspector/browser.mjs");
    let screenshots = root().join("target/inspector-screenshots");
    for era in ERAS {
        let driven = Command::new("node")
            .arg(&script)
            .arg(&url)
            .arg(era)
            .arg(&screenshots)
            .output()
            .unwrap();
        assert!(
            driven.status.success(),
            "{era}: {}{} (screenshots in {})",
            String::from_utf8_lossy(&driven.stdout),
            String::from_utf8_lossy(&driven.stderr),
            screenshots.display()
        );
    }
}

#[test]
fn the_inspector_answers_only_its_own_page() {
    let (_inspector, url) = inspector();
    let (base, token) = url.split_once("/?token=").unwrap();
    let address = base.trim_start_matches("http://").to_owned();
    let get = |path: &str, host: &str, origin: Option<&str>| -> String {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
        let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer.lines().next().unwrap_or_default().to_owned()
    };
    assert!(get(&format!("/?token={token}"), &address, None).contains("200"));
    assert!(get("/", &address, None).contains("403"), "no token");
    assert!(get("/?token=00000000000000000000000000000000", &address, None).contains("403"));
    // DNS rebinding: the right token, another host name.
    assert!(get(&format!("/?token={token}"), "evil.example", None).contains("403"));
    assert!(get(&format!("/?token={token}"), &address, Some("http://evil.example")).contains("403"));
}

#[test]
fn bench_drives_a_server_over_stdio_and_http_in_both_eras() {
    let server = fixture_server().display().to_string();
    let quick = ["--calls", "200", "--warmup", "20", "--json"];
    for era in ERAS {
        let mut args = vec!["bench", "--era", era, "--in-flight", "8"];
        args.extend(quick);
        args.extend(["--", server.as_str()]);
        let output = oxmcp(&args);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            (report["calls"].as_u64(), report["errors"].as_u64()),
            (Some(200), Some(0)),
            "{report}"
        );
        assert!(
            report["server_cpu_us_per_call"].as_f64().is_some(),
            "the server's CPU time, from /proc"
        );
    }
    let http = HttpFixture::start();
    let mut args = vec![
        "bench",
        "--era",
        "modern",
        "--url",
        http.url.as_str(),
        "--concurrency",
        "4",
    ];
    args.extend(quick);
    let report: Value = serde_json::from_slice(&oxmcp(&args).stdout).unwrap();
    assert_eq!(
        (report["transport"].as_str(), report["errors"].as_u64()),
        (Some("http"), Some(0))
    );
    // People get a table, and a histogram with --plot; a server without the tool fails the run.
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("latency.png").display().to_string();
    let table = oxmcp(&[
        "bench", "--calls", "50", "--warmup", "5", "--plot", &plot, "--", &server,
    ]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("calls/s"), "{table:?}");
    let png = std::fs::read(&plot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "a drawn PNG"
    );
    let wrong = oxmcp(&[
        "bench", "--calls", "20", "--warmup", "0", "--tool", "nothing", "--", &server,
    ]);
    assert_eq!(wrong.status.code(), Some(4));
}
