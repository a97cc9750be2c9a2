//! The example server's exact answers to bad input, read off its stdout: each bad message
//! gets the error the spec asks for (or silence), and the next request is still answered.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A server process spoken to in raw lines.
struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl RawServer {
    async fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the example server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        RawServer {
            child,
            stdin,
            stdout,
            next_id: 1000,
        }
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn send(&mut self, message: Value) {
        self.send_bytes(message.to_string().as_bytes()).await;
    }

    async fn receive(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.stdout.next_line())
            .await
            .expect("an answer within 5 s")
            .unwrap()
            .expect("the server is still running");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried non-JSON {line:?}: {e}"))
    }

    /// Pings and expects the ping's answer to be the very next line: anything the server
    /// said about earlier input would come first.
    async fn expect_alive(&mut self, case: &str) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"})).await;
        let answer = self.receive().await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "after {case}"
        );
    }

    async fn initialize(&mut self, version: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
            .await;
        let answer = self.receive().await;
        assert_eq!(answer["result"]["protocolVersion"], version);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }
}

/// What a bad message must produce.
enum Expect {
    /// An error response with this code and id.
    Error(i64, Value),
    /// Nothing at all.
    Silence,
}

#[tokio::test]
async fn each_bad_message_gets_the_right_answer_and_the_next_request_is_served() {
    let oversized = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4 << 20)
    );
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        (
            "malformed JSON",
            b"{not json".to_vec(),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec(),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "wrong jsonrpc",
            br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#.to_vec(),
            Expect::Error(-32600, json!(7)),
        ),
        (
            "missing jsonrpc",
            br#"{"id":8,"method":"ping"}"#.to_vec(),
            Expect::Error(-32600, json!(8)),
        ),
        (
            "null id",
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_vec(),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "object id",
            br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#.to_vec(),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "unknown method",
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/frobnicate"}"#.to_vec(),
            Expect::Error(-32601, json!(9)),
        ),
        (
            "wrong param types",
            br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":5}}"#.to_vec(),
            Expect::Error(-32602, json!(10)),
        ),
        (
            "params not an object",
            br#"{"jsonrpc":"2.0","id":11,"method":"ping","params":3}"#.to_vec(),
            Expect::Error(-32600, json!(11)),
        ),
        (
            "oversized message",
            oversized.into_bytes(),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "notification method with an id",
            br#"{"jsonrpc":"2.0","id":12,"method":"notifications/initialized"}"#.to_vec(),
            Expect::Error(-32601, json!(12)),
        ),
        (
            "response to an unknown id",
            br#"{"jsonrpc":"2.0","id":999,"result":{}}"#.to_vec(),
            Expect::Silence,
        ),
        (
            "cancel of an unknown id",
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}"#.to_vec(),
            Expect::Silence,
        ),
        (
            "unknown notification",
            br#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#.to_vec(),
            Expect::Silence,
        ),
        (
            "batch outside 2025-03-26",
            br#"[{"jsonrpc":"2.0","id":13,"method":"ping"}]"#.to_vec(),
            Expect::Error(-32600, Value::Null),
        ),
    ];
    let mut server = RawServer::start().await;
    server.initialize("2025-11-25").await;
    for (case, bytes, expect) in cases {
        server.send_bytes(&bytes).await;
        if let Expect::Error(code, id) = expect {
            let answer = server.receive().await;
            assert_eq!(answer["error"]["code"], code, "{case}: {answer}");
            assert_eq!(answer["id"], id, "{case}: {answer}");
            assert!(
                answer["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{case}"
            );
        }
        server.expect_alive(case).await;
    }
    drop(server.stdin);
    let status = tokio::time::timeout(Duration::from_secs(5), server.child.wait()).await;
    assert!(status.expect("exits when stdin closes").unwrap().success());
}

#[tokio::test]
async fn batches_are_answered_as_batches_in_2025_03_26() {
    let mut server = RawServer::start().await;
    server.initialize("2025-03-26").await;
    server
        .send(json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/whatever"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
            {"jsonrpc": "1.0", "id": 3, "method": "ping"}
        ]))
        .await;
    let answer = server.receive().await;
    let answers = answer.as_array().expect("a batch answer");
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(answers[1]["result"]["content"][0]["text"], "b");
    assert_eq!(answers[2]["error"]["code"], -32600);
    server.expect_alive("a batch").await;
}

#[tokio::test]
async fn modern_requests_are_checked_before_they_run() {
    let mut server = RawServer::start().await;
    let meta = |version: &str| json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}});
    server
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta("1900-01-01")}}))
        .await;
    let answer = server.receive().await;
    assert_eq!(answer["error"]["code"], -32022);
    assert_eq!(answer["error"]["data"]["requested"], "1900-01-01");
    assert!(answer["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));

    let no_capabilities = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    server
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": no_capabilities}}))
        .await;
    assert_eq!(server.receive().await["error"]["code"], -32602);

    server
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        .await;
    assert_eq!(
        server.receive().await["error"]["code"],
        -32602,
        "no era: neither handshake nor _meta"
    );

    server
        .send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": meta("2026-07-28")}}))
        .await;
    assert_eq!(
        server.receive().await["error"]["code"],
        -32601,
        "ping is gone in 2026-07-28"
    );

    server
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {"_meta": meta("2026-07-28")}}))
        .await;
    let discover = server.receive().await;
    assert_eq!(discover["result"]["resultType"], "complete");
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "oxmcp-example"
    );
    assert!(discover["result"]["ttlMs"].is_u64());
}

#[tokio::test]
async fn a_cancelled_request_gets_no_response() {
    let mut server = RawServer::start().await;
    server.initialize("2025-11-25").await;
    server
        .send(json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": {"name": "slow", "arguments": {"steps": 100}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    server
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50}}))
        .await;
    server.expect_alive("a cancellation").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.expect_alive("the cancelled request's would-be end").await;
}

#[tokio::test]
async fn progress_stops_with_the_response() {
    let mut server = RawServer::start().await;
    server.initialize("2025-11-25").await;
    server
        .send(json!({"jsonrpc": "2.0", "id": 60, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}}))
        .await;
    let mut progress = Vec::new();
    loop {
        let message = server.receive().await;
        if message["id"] == 60 {
            break;
        }
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progressToken"], "p");
        progress.push(message["params"]["progress"].as_f64().unwrap());
    }
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    server.expect_alive("the progress").await;
}
