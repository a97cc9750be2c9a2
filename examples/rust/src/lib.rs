//! The example server of oxmcp: two tools, a resource, a URI template and a prompt with
//! argument completion. The `server` binary serves it over stdio or Streamable HTTP; the
//! `client` binary starts it and shows what they exchange.

use std::collections::BTreeMap;

use oxmcp::protocol::ToolAnnotations;
use oxmcp::server::http::HttpConfig;
use oxmcp::server::{
    Context, DefinitionError, Json, PromptDef, ResourceDef, ResourceTemplateDef, Server, ServerBuilder, ToolDef,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    result: i64,
}

/// The example server.
pub fn example_server() -> Result<Server, DefinitionError> {
    example_server_builder().build()
}

/// The example server's builder, for callers that add to it or change its settings.
pub fn example_server_builder() -> ServerBuilder {
    Server::builder("oxmcp-example", env!("CARGO_PKG_VERSION"))
        .instructions("An example server: echo text, add numbers, read greetings.")
        .tool(
            // The input schema comes from `EchoArgs`; the core checks the arguments against it.
            ToolDef::new("echo")
                .description("Send the text back")
                .annotations(ToolAnnotations {
                    read_only_hint: Some(true),
                    ..Default::default()
                })
                .typed(|args: EchoArgs, _ctx: Context| async move { args.text }),
        )
        .tool(
            // `Json` answers with structured content, described by the output schema.
            ToolDef::new("add")
                .description("Add two integers")
                .structured_output::<Sum>()
                .typed(|args: AddArgs, _ctx: Context| async move {
                    Json(Sum {
                        result: args.a + args.b,
                    })
                }),
        )
        .resource(
            ResourceDef::new("file:///readme.md", "readme")
                .mime_type("text/markdown")
                .description("What this server is")
                .handler(|_, _, _| async { "# oxmcp example\nHello." }),
        )
        .resource_template(
            ResourceTemplateDef::new("greeting://{name}", "greeting")
                .mime_type("text/plain")
                .handler(|_, vars: BTreeMap<String, String>, _| async move { format!("Hello, {}!", vars["name"]) })
                .complete("name", |value: String, _| async move {
                    starting_with(&["ada", "alan", "grace"], &value)
                }),
        )
        .prompt(
            PromptDef::new("review")
                .description("Review a piece of code")
                .argument("code", "The code to review", true)
                .argument("language", "Its language", false)
                .handler(|args: BTreeMap<String, String>, _| async move {
                    let language = args.get("language").map_or("code", String::as_str);
                    format!("Please review this {language}:\n{}", args["code"])
                })
                .complete("language", |value: String, _| async move {
                    starting_with(&["python", "rust", "typescript"], &value)
                }),
        )
}

/// The completions of `prefix` among `choices`.
fn starting_with(choices: &[&str], prefix: &str) -> Vec<String> {
    choices
        .iter()
        .filter(|choice| choice.starts_with(prefix))
        .map(|choice| choice.to_string())
        .collect()
}

/// Serves `server` as the command line asks: over stdio with no arguments, or Streamable
/// HTTP with `--http ADDR` (both eras on `/mcp`). Logs go to stderr, filtered by `RUST_LOG`.
pub async fn serve_from_command_line(server: Server) -> Result<(), Box<dyn std::error::Error>> {
    serve_from_command_line_with(server, HttpConfig::default()).await
}

/// [`serve_from_command_line`], with `http` as the settings of Streamable HTTP.
pub async fn serve_from_command_line_with(server: Server, http: HttpConfig) -> Result<(), Box<dyn std::error::Error>> {
    // Over stdio, stdout carries only protocol messages.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    match args.collect::<Vec<_>>().as_slice() {
        [] => server.serve_stdio().await?,
        [flag, addr] if flag == "--http" => {
            let handle = server.bind_http(addr.as_str(), http).await?;
            // Port 0 picks a free port: this line tells people and scripts which one.
            eprintln!("LISTENING {}", handle.url("/mcp"));
            handle.wait().await?;
        }
        _ => return Err(format!("usage: {program} [--http 127.0.0.1:PORT]").into()),
    }
    Ok(())
}
