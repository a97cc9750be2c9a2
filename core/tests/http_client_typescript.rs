//! Our HTTP client transport against servers written with the official TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned in package.json; `make node-peers` installs it):
//! McpServer and StreamableHTTPServerTransport on node:http, with sessions and without,
//! SSE and JSON answers. The SDK (v1) speaks only the legacy era.
//!
//! Each test starts its own server process (tests/interop/typescript/server.mjs) on
//! 127.0.0.1 and a free port, and kills it when done.

mod common;

use std::collections::BTreeMap;

use common::{client_for, exercise_legacy, text, PeerServer, Sdk};
use oxmcp::client::{Client, EraMode};
use serde_json::json;

/// The server's name in its `initialize` answer.
const NAME: &str = "official-typescript";

async fn typescript_server(args: &[&str]) -> PeerServer {
    PeerServer::start(Sdk::TypeScript, args).await
}

/// What `exercise_legacy` leaves out: prompts, templates, and a tool that fails.
async fn exercise_the_rest(client: &Client) {
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["review"]);
    let arguments = BTreeMap::from([("code".to_owned(), "x = 1".to_owned())]);
    let prompt = client.get_prompt("review", arguments).await.unwrap();
    assert_eq!(prompt.messages[0].content.as_text(), Some("Please review:\nx = 1"));

    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "greeting://people/{name}");

    let failed = client.call_tool("fail", json!({})).await.unwrap();
    assert_eq!(failed.is_error, Some(true), "a tool error is a result");
    assert_eq!(failed.content[0].as_text(), Some("failed on purpose"));
}

/// Closes `client`, then asks the server (as a new client) how many sessions were ended:
/// our close must have sent DELETE.
async fn close_ends_the_session(server: &PeerServer, client: Client) {
    client.close().await.unwrap();
    let next = client_for(server.url(), EraMode::Legacy).await;
    let closed = next.call_tool("sessions_closed", json!({})).await.unwrap();
    assert_eq!(text(&closed), "1");
    next.close().await.unwrap();
}

/// Everything in the legacy era against a server started with `args`; `streaming` as in
/// `exercise_legacy`.
async fn legacy_era(args: &[&str], streaming: bool) {
    let server = typescript_server(args).await;
    let client = client_for(server.url(), EraMode::Legacy).await;
    exercise_legacy(&client, NAME, streaming).await;
    exercise_the_rest(&client).await;
    if args.contains(&"--stateless") {
        client.close().await.unwrap();
    } else {
        close_ends_the_session(&server, client).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_sse_answers() {
    legacy_era(&["--http"], true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_over_json_answers() {
    legacy_era(&["--http", "--json-response"], false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_era_without_sessions() {
    legacy_era(&["--http", "--stateless", "--json-response"], false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_settles_on_the_legacy_era() {
    // The SDK does not know server/discover: the probe fails and we fall back to initialize.
    let server = typescript_server(&["--http"]).await;
    let client = client_for(server.url(), EraMode::Auto).await;
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    let echoed = client.call_tool("echo", json!({"text": "auto"})).await.unwrap();
    assert_eq!(text(&echoed), "auto");
    close_ends_the_session(&server, client).await;
}
