//! The official SDKs' clients against our Streamable HTTP server: the Python SDK's
//! (tests/interop/python/client.py) in the legacy era and in 2026-07-28, and the
//! TypeScript SDK's (tests/interop/typescript/client.mjs; SDK v1 speaks only the legacy
//! era), with SSE answers, JSON answers and without sessions.
//!
//! Each test starts an oxmcp server (common::interop_server) on 127.0.0.1 and a free port,
//! runs the peer client with its URL, and checks the JSON report the peer prints: what it
//! listed, read and called, and what its handlers were asked.

mod common;

use common::{interop_server, options, run_peer_client, Sdk};
use oxmcp::client::{Client, EraMode};
use oxmcp::server::http::HttpConfig;
use serde_json::{json, Value};

/// What a run of a peer client covers.
#[derive(Clone, Copy)]
struct Run {
    sdk: Sdk,
    /// The 2026-07-28 era (the Python client's `auto` mode must settle on it with our server).
    modern: bool,
    /// The server answers with SSE streams (else with plain JSON, so it cannot send progress,
    /// logs or legacy requests before an answer).
    sse: bool,
    /// Legacy sessions (else the stateless mode).
    sessions: bool,
}

impl Run {
    fn config(self) -> HttpConfig {
        // One session at most: the check after the run opens a second one, which works only
        // if the peer ended its own with DELETE.
        HttpConfig::default()
            .json_response(!self.sse)
            .stateless(!self.sessions)
            .max_sessions(1)
    }

    async fn run(self) {
        let handle = interop_server().bind_http("127.0.0.1:0", self.config()).await.unwrap();
        let url = handle.url("/mcp");
        let mut args = vec![url.as_str()];
        match self.sdk {
            Sdk::Python => args.extend(["--mode", if self.modern { "auto" } else { "legacy" }]),
            Sdk::TypeScript => assert!(!self.modern, "the TypeScript SDK v1 speaks only the legacy era"),
        }
        if !self.sse {
            args.push("--no-stream");
        }
        let report = run_peer_client(self.sdk, &args).await;
        self.check(&report);
        if self.sessions && !self.modern {
            // Refused with 503 (max_sessions 1) if the peer left its session open.
            let next = Client::connect_http(url.clone(), options(EraMode::Legacy))
                .await
                .unwrap_or_else(|e| panic!("the peer did not end its session with DELETE: {e}"));
            next.close().await.unwrap();
        }
    }

    fn check(self, report: &Value) {
        let version = if self.modern { "2026-07-28" } else { "2025-11-25" };
        assert_eq!(report["protocol_version"], version, "{report}");
        assert_eq!(report["server_name"], "oxmcp-interop");
        if let Some(session) = report.get("session") {
            assert_eq!(session, &json!(self.sessions && !self.modern), "an Mcp-Session-Id");
        }
        assert_eq!(
            report["tools"],
            json!(["add", "ask_llm", "confirm", "echo", "fail", "log", "slow"])
        );
        assert_eq!(report["echo"], "hi there");
        // Structured content, checked by the peer against the tool's outputSchema, and the
        // same value as text for clients that do not read it.
        assert_eq!(report["add"]["structured"], json!({"sum": 42}));
        let text: Value = serde_json::from_str(report["add"]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, json!({"sum": 42}));
        assert_eq!(report["fail"]["is_error"], true, "a tool error is a result");
        assert!(report["fail"]["text"].as_str().unwrap().contains("failed on purpose"));

        assert_eq!(report["resources"], json!(["greeting://world"]));
        assert_eq!(report["templates"], json!(["greeting://people/{name}"]));
        assert_eq!(report["read"], json!(["Hello, world"]));
        assert_eq!(report["read_template"], json!(["Hello, Zoë"]));
        assert_eq!(report["prompts"], json!(["review"]));
        assert_eq!(report["prompt"], "Please review: x = 1");

        // Legacy: requests on the POST's stream; 2026-07-28: input_required rounds, which
        // need no stream. Without sessions the server does not know the client's
        // capabilities (no initialize is remembered), so it cannot ask: the tools say so.
        if !self.sessions && !self.modern {
            for tool in ["confirm", "ask_llm"] {
                let answer = report[tool].as_str().unwrap();
                assert!(answer.contains("does not support"), "{tool}: {answer}");
            }
        }
        if (self.sse && self.sessions) || self.modern {
            assert_eq!(report["confirm"], "Accept: Ada", "{report}");
            assert_eq!(report["elicitations"], json!(["Your name?"]));
            let model = match self.sdk {
                Sdk::Python => "python-peer-model",
                Sdk::TypeScript => "typescript-peer-model",
            };
            assert_eq!(report["ask_llm"], format!("{model} said Paris"));
            assert_eq!(report["samplings"], json!(["The capital of France?"]));
        } else {
            assert_eq!(report["elicitations"], json!([]));
            assert_eq!(report["samplings"], json!([]));
        }

        if self.sse {
            assert_eq!(report["slow"], "done after 3 steps");
            // [progress, total, message]; Python prints 1.0 where JavaScript prints 1.
            let progress: Vec<(f64, f64, &str)> = report["progress"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap(), p[2].as_str().unwrap()))
                .collect();
            assert_eq!(
                progress,
                [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]
            );
            // Level info (logging/setLevel, or the request's log level in 2026-07-28): the
            // debug message is held back.
            assert_eq!(report["log"], "logged");
            assert_eq!(
                report["logs"],
                json!([
                    {"level": "info", "logger": "interop", "data": {"level": "Info"}},
                    {"level": "error", "logger": "interop", "data": {"level": "Error"}}
                ])
            );
        }
    }
}

const PYTHON_LEGACY: Run = Run {
    sdk: Sdk::Python,
    modern: false,
    sse: true,
    sessions: true,
};

const TYPESCRIPT: Run = Run {
    sdk: Sdk::TypeScript,
    ..PYTHON_LEGACY
};

#[tokio::test(flavor = "multi_thread")]
async fn python_client_legacy_era_over_sse() {
    PYTHON_LEGACY.run().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_legacy_era_over_json() {
    Run {
        sse: false,
        ..PYTHON_LEGACY
    }
    .run()
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_legacy_era_without_sessions() {
    Run {
        sessions: false,
        ..PYTHON_LEGACY
    }
    .run()
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_modern_era_over_sse() {
    Run {
        modern: true,
        ..PYTHON_LEGACY
    }
    .run()
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_client_modern_era_over_json() {
    Run {
        modern: true,
        sse: false,
        ..PYTHON_LEGACY
    }
    .run()
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_over_sse() {
    TYPESCRIPT.run().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_over_json() {
    Run {
        sse: false,
        ..TYPESCRIPT
    }
    .run()
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_without_sessions() {
    Run {
        sessions: false,
        ..TYPESCRIPT
    }
    .run()
    .await;
}
