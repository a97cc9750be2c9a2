//! Each verb on a connected client: ask the server, print the answer for people or, with
//! `--json`, as the protocol's objects.

use std::time::{Duration, Instant};

use oxmcp::client::{CallOptions, Client, ServerNotification};
use oxmcp::protocol::{CallToolResult, CompletionReference, Era, Tool};
use serde_json::{json, Value};

use crate::args::{Call, Complete, GetPrompt, Read, Verb};
use crate::coerce::{string_arguments, tool_arguments};
use crate::failure::Failure;
use crate::feedback::Progress;
use crate::render;
use crate::tasks::{self, call_as_task};

/// Runs `verb` on `client`, printing what it gets.
pub async fn run(verb: &Verb, client: &Client) -> Result<(), Failure> {
    let json = verb.json();
    let output = match verb {
        Verb::Info(_) => info(client, json),
        Verb::Tools(_) => {
            let tools = client.list_all_tools().await?;
            printed(json, &tools, || render::tools(&tools))
        }
        Verb::Resources(_) => {
            let resources = client.list_all_resources().await?;
            printed(json, &resources, || render::resources(&resources))
        }
        Verb::Templates(_) => {
            let templates = client.list_all_resource_templates().await?;
            printed(json, &templates, || render::templates(&templates))
        }
        Verb::Prompts(_) => {
            let prompts = client.list_all_prompts().await?;
            printed(json, &prompts, || render::prompts(&prompts))
        }
        Verb::Call(call) => return call_tool(client, call).await,
        Verb::Read(read) => read_resource(client, read).await?,
        Verb::Prompt(prompt) => get_prompt(client, prompt).await?,
        Verb::Complete(complete) => complete_argument(client, complete).await?,
        Verb::Task(task) => return tasks::run(client, task).await,
        Verb::Auth(_) | Verb::Inspect(_) | Verb::Bench(_) => unreachable!("run without a client"),
        Verb::Ping(_) => {
            let started = Instant::now();
            client.ping().await?;
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            printed(json, &json!({"ms": elapsed}), || format!("pong in {elapsed:.1} ms"))
        }
    };
    crate::say(output);
    Ok(())
}

/// `value` as JSON, or as `human` renders it.
pub fn printed(json: bool, value: &impl serde::Serialize, human: impl FnOnce() -> String) -> String {
    if json {
        serde_json::to_string(value).unwrap_or_default()
    } else {
        human()
    }
}

/// The name of `era`, as `--era` and the JSON of `info` spell it.
fn era_name(era: Era) -> &'static str {
    match era {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    }
}

/// What the connection settled on, as `info --json` prints it (and the inspector shows).
pub fn connection(client: &Client) -> Value {
    let details = client.server_details();
    let version = details.protocol_version;
    json!({
        "serverInfo": details.server_info,
        "protocolVersion": version.as_str(),
        "era": era_name(version.era()),
        "capabilities": details.capabilities,
        "instructions": details.instructions,
    })
}

/// What the connection settled on.
fn info(client: &Client, json: bool) -> String {
    let details = client.server_details();
    let version = details.protocol_version;
    let era = era_name(version.era());
    printed(json, &connection(client), || {
        let mut lines = Vec::new();
        if let Some(server) = &details.server_info {
            let title = server.title.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
            lines.push(format!("server        {} {}{title}", server.name, server.version));
        }
        lines.push(format!("protocol      {} ({era} era)", version.as_str()));
        let capabilities = serde_json::to_value(&details.capabilities).unwrap_or_default();
        let names: Vec<&str> = capabilities
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        lines.push(format!("capabilities  {}", names.join(", ")));
        if let Some(instructions) = &details.instructions {
            lines.push(format!("instructions  {instructions}"));
        }
        lines.join("\n")
    })
}

async fn call_tool(client: &Client, call: &Call) -> Result<(), Failure> {
    let json = call.target.json;
    let tools = listed_with(client, &call.tool).await?;
    let Some(tool) = tools.iter().find(|tool| tool.name == call.tool) else {
        let known: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        return Err(Failure::Usage(format!(
            "the server has no tool {:?} (it has: {})",
            call.tool,
            known.join(", ")
        )));
    };
    let arguments = tool_arguments(
        Some(&tool.input_schema),
        call.json_arguments.as_deref(),
        &call.arguments,
    )?;
    if call.task {
        return call_as_task(client, &call.tool, arguments, json).await;
    }
    let progress = Progress::new();
    let options = CallOptions {
        on_progress: Some(progress.callback()),
        ..CallOptions::default()
    };
    let result = client.call_tool_with(&call.tool, arguments, &options).await;
    progress.finish();
    print_call_result(&result?, json)
}

/// The server's tools, listed again once if `name` is not among them and the list changes
/// within [`LATE_TOOLS`]: some servers add tools once the connection is set up, by the
/// client's capabilities.
async fn listed_with(client: &Client, name: &str) -> Result<Vec<Tool>, Failure> {
    let mut changes = client.notifications();
    let tools = client.list_all_tools().await?;
    if tools.iter().any(|tool| tool.name == name) {
        return Ok(tools);
    }
    let changed = tokio::time::timeout(LATE_TOOLS, async {
        while let Ok(notification) = changes.recv().await {
            if notification == ServerNotification::ToolListChanged {
                return true;
            }
        }
        false
    });
    match changed.await {
        Ok(true) => Ok(client.list_all_tools().await?),
        _ => Ok(tools),
    }
}

/// How long a call waits for a tool it does not see to be added.
const LATE_TOOLS: Duration = Duration::from_secs(1);

/// Prints what a tool returned; a result with `isError` fails the run (exit 5).
pub fn print_call_result(result: &CallToolResult, json: bool) -> Result<(), Failure> {
    crate::say(printed(json, result, || render::call_result(result)));
    if result.is_error == Some(true) {
        return Err(Failure::ToolError);
    }
    Ok(())
}

async fn read_resource(client: &Client, read: &Read) -> Result<String, Failure> {
    let result = client.read_resource(&read.uri).await?;
    Ok(printed(read.target.json, &result, || render::read_result(&result)))
}

async fn get_prompt(client: &Client, prompt: &GetPrompt) -> Result<String, Failure> {
    let arguments = string_arguments(&prompt.arguments)?;
    let result = client.get_prompt(&prompt.name, arguments).await?;
    Ok(printed(prompt.target.json, &result, || render::prompt_result(&result)))
}

async fn complete_argument(client: &Client, complete: &Complete) -> Result<String, Failure> {
    let reference = match (&complete.prompt, &complete.template) {
        (Some(name), _) => CompletionReference::Prompt {
            name: name.clone(),
            title: None,
        },
        (None, Some(uri)) => CompletionReference::Resource { uri: uri.clone() },
        (None, None) => return Err(Failure::Usage("give --prompt NAME or --template URI_TEMPLATE".into())),
    };
    let context = string_arguments(&complete.context)?;
    let completion = client
        .complete(reference, &complete.argument, &complete.value, context)
        .await?;
    Ok(printed(complete.target.json, &completion, || {
        completion.values.join("\n")
    }))
}
