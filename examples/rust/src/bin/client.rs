//! The example client: starts the example server and shows what they exchange, once in
//! each protocol era. `cargo run -p oxmcp-examples --bin client -- path/to/server`.

use std::collections::BTreeMap;

use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::transport::child::StdioCommand;
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = std::env::args().nth(1).unwrap_or_else(|| sibling("server"));
    for era in [EraMode::Legacy, EraMode::Modern] {
        let options = ClientOptions::new("oxmcp-example-client", env!("CARGO_PKG_VERSION")).era(era);
        let client = Client::spawn(StdioCommand::new(&server), options).await?;
        let details = client.server_details();
        println!(
            "== {era:?} era: protocol {} with {:?}",
            details.protocol_version,
            details.server_info.map(|i| i.name)
        );
        let tools = client.list_all_tools().await?;
        println!(
            "-> tools/list\n<- {} tools: {}",
            tools.len(),
            tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
        );
        let echo = client.call_tool("echo", json!({"text": "hello"})).await?;
        println!(
            "-> tools/call echo {{\"text\":\"hello\"}}\n<- {}",
            serde_json::to_string(&echo)?
        );
        let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
        println!(
            "-> tools/call add {{\"a\":2,\"b\":3}}\n<- {}",
            serde_json::to_string(&sum)?
        );
        let greeting = client.read_resource("greeting://ada").await?;
        println!(
            "-> resources/read greeting://ada\n<- {}",
            serde_json::to_string(&greeting)?
        );
        let prompt = client
            .get_prompt("review", BTreeMap::from([("code".into(), "fn main() {}".into())]))
            .await?;
        println!("-> prompts/get review\n<- {}", serde_json::to_string(&prompt)?);
        client.close().await?;
    }
    Ok(())
}

/// A binary built next to this one.
fn sibling(name: &str) -> String {
    let me = std::env::current_exe().expect("the path of this program");
    me.with_file_name(name).to_string_lossy().into_owned()
}
