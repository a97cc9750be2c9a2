//! The server fixture of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written with oxmcp.
//!
//! It exposes the tools, resources, prompts and completions the suite's server scenarios
//! call by name, for both protocol eras, on one Streamable HTTP endpoint bound to
//! 127.0.0.1. The port comes from `--port N`, else the `PORT` environment variable, else
//! the system picks one; the endpoint's URL is printed as the first line on stdout.
//!
//! Usage: `conformance-server [--port N]`

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use oxmcp::protocol::{
    ContentBlock, CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestParams, EmbeddedResource,
    ErrorObject, GetPromptResult, InputRequest, InputResponse, ListRootsRequestParams, LoggingLevel, PromptMessage,
    ResourceContents, Role, SamplingContent,
};
use oxmcp::server::http::HttpConfig;
use oxmcp::server::{Context, HandlerError, PromptDef, ResourceDef, ResourceTemplateDef, Server, TaskSupport, ToolDef};
use serde_json::{json, Map, Value};

/// A 1x1 red PNG.
const TEST_IMAGE_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file.
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The server, for the diagnostic tools that change its lists.
static SERVER: OnceLock<Server> = OnceLock::new();

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .init();
    let port = match port() {
        Ok(port) => port,
        Err(message) => {
            eprintln!("conformance-server: {message}");
            std::process::exit(2);
        }
    };
    let server = match fixture() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            std::process::exit(1);
        }
    };
    let _ = SERVER.set(server.clone());
    let handle = match server.bind_http(("127.0.0.1", port), HttpConfig::default()).await {
        Ok(handle) => handle,
        Err(e) => {
            eprintln!("conformance-server: cannot listen on 127.0.0.1:{port}: {e}");
            std::process::exit(1);
        }
    };
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{}", handle.url("/mcp"));
    let _ = stdout.flush();
    if let Err(e) = handle.wait().await {
        eprintln!("conformance-server: {e}");
        std::process::exit(1);
    }
}

/// `--port N`, else `PORT`, else 0 (any free port).
fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = std::env::var("PORT").ok();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = Some(args.next().ok_or("--port needs a value")?),
            other => match other.strip_prefix("--port=") {
                Some(value) => port = Some(value.to_owned()),
                None => {
                    return Err(format!(
                        "unknown argument {other:?}; usage: conformance-server [--port N]"
                    ))
                }
            },
        }
    }
    match port {
        None => Ok(0),
        Some(text) => text.parse().map_err(|_| format!("invalid port {text:?}")),
    }
}

/// Every definition the suite's server scenarios use.
fn fixture() -> Result<Server, oxmcp::server::DefinitionError> {
    let mut builder = Server::builder("oxmcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .instructions("The oxmcp fixture of the MCP conformance suite.");
    for tool in tools() {
        builder = builder.tool(tool);
    }
    for tool in input_required_tools().into_iter().chain(task_tools()) {
        builder = builder.tool(tool);
    }
    for resource in resources() {
        builder = builder.resource(resource);
    }
    builder = builder.resource_template(
        ResourceTemplateDef::new("test://template/{id}/data", "template")
            .title("Resource Template")
            .description("A resource template with parameter substitution")
            .mime_type("application/json")
            .handler(|uri, variables, _ctx| async move {
                let id = variables.get("id").cloned().unwrap_or_default();
                let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                text_contents(&uri, "application/json", text.to_string())
            })
            .complete("id", |_value: String, _context: BTreeMap<String, String>| async {
                vec!["123".to_owned()]
            }),
    );
    for prompt in prompts() {
        builder = builder.prompt(prompt);
    }
    builder
        .skills(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills"))
        .build()
}

/// A tool whose input schema is `schema`.
fn tool(name: &str, description: &str, schema: Value) -> ToolDef {
    ToolDef::new(name).description(description).input_schema(object(schema))
}

/// An empty object schema.
fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}})
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn text_contents(uri: &str, mime_type: &str, text: String) -> Vec<ResourceContents> {
    let mut contents = ResourceContents::text(uri, text);
    if let ResourceContents::Text(t) = &mut contents {
        t.mime_type = Some(mime_type.to_owned());
    }
    vec![contents]
}

fn embedded(uri: &str, mime_type: &str, body: String) -> ContentBlock {
    let resource = text_contents(uri, mime_type, body).remove(0);
    ContentBlock::Resource(EmbeddedResource {
        resource,
        annotations: None,
        meta: None,
    })
}

fn form(message: &str, schema: Value) -> ElicitRequestParams {
    ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: None,
        message: message.to_owned(),
        requested_schema: object(schema),
        meta: None,
    })
}

fn sampling(prompt: &str, max_tokens: u64) -> CreateMessageRequestParams {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }))
    .expect("a valid sampling request")
}

/// The text of a sampling answer.
fn sampled_text(content: &oxmcp::protocol::OneOrMany<SamplingContent>) -> String {
    content
        .as_slice()
        .iter()
        .find_map(|c| match c {
            SamplingContent::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "No response".to_owned())
}

/// The tools of both eras.
fn tools() -> Vec<ToolDef> {
    vec![
        tool("test_simple_text", "Tests simple text content response", no_arguments())
            .handler(|_, _| async { "This is a simple text response for testing." }),
        tool("test_image_content", "Tests image content response", no_arguments())
            .handler(|_, _| async { ContentBlock::image(TEST_IMAGE_BASE64, "image/png") }),
        tool("test_audio_content", "Tests audio content response", no_arguments())
            .handler(|_, _| async { ContentBlock::audio(TEST_AUDIO_BASE64, "audio/wav") }),
        tool(
            "test_embedded_resource",
            "Tests embedded resource content response",
            no_arguments(),
        )
        .handler(|_, _| async {
            embedded(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.".into(),
            )
        }),
        tool(
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
            no_arguments(),
        )
        .handler(|_, _| async {
            vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
                embedded(
                    "test://mixed-content-resource",
                    "application/json",
                    json!({"test": "data", "value": 123}).to_string(),
                ),
            ]
        }),
        tool(
            "test_tool_with_logging",
            "Tests tool that emits log messages during execution",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let steps = [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ];
            for (i, step) in steps.into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                ctx.log(LoggingLevel::Info, Some("conformance-test-server"), step).await;
            }
            "Tool with logging executed successfully"
        }),
        tool(
            "test_tool_with_progress",
            "Tests tool that reports progress notifications",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                ctx.progress(step, Some(100.0), Some(format!("Completed step {step} of 100")))
                    .await;
            }
            // The result names the progress token the request carried.
            match ctx.meta().and_then(|m| m.get("progressToken")) {
                Some(Value::String(token)) => token.clone(),
                Some(token) => token.to_string(),
                None => "no progress token".to_owned(),
            }
        }),
        tool("test_error_handling", "Tests error response handling", no_arguments()).handler(|_, _| async {
            Err::<String, _>(HandlerError::message(
                "This tool intentionally returns an error for testing",
            ))
        }),
        tool(
            "test_reconnection",
            "Tests SSE stream disconnection and client reconnection (SEP-1699)",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            // A message before the result makes the answer a (resumable) SSE stream.
            ctx.log(
                LoggingLevel::Info,
                Some("conformance-test-server"),
                "Reconnection test started",
            )
            .await;
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            "Reconnection test completed successfully."
        }),
        tool(
            "test_sampling",
            "Tests server-initiated sampling (LLM completion request)",
            json!({
                "type": "object",
                "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                "required": ["prompt"],
            }),
        )
        .handler(|args, ctx: Context| async move {
            let prompt = args
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            match ctx.sample(sampling(&prompt, 100)).await {
                Ok(result) => Ok(format!("LLM response: {}", sampled_text(&result.content))),
                Err(HandlerError::Message(e)) => Ok(format!("Sampling not supported or error: {e}")),
                Err(other) => Err(other),
            }
        }),
        tool(
            "test_elicitation",
            "Tests server-initiated elicitation (user input request)",
            json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                "required": ["message"],
            }),
        )
        .handler(|args, ctx: Context| async move {
            let message = args
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let schema = json!({
                "type": "object",
                "properties": {"response": {"type": "string", "description": "User's response"}},
                "required": ["response"],
            });
            elicitation_summary(&ctx, form(&message, schema), "User response").await
        }),
        tool(
            "test_elicitation_sep1034_defaults",
            "Tests elicitation with default values per SEP-1034",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {
                        "type": "string",
                        "description": "User status",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active",
                    },
                    "verified": {"type": "boolean", "description": "Verification status", "default": true},
                },
                "required": [],
            });
            let params = form("Please review and update the form fields with defaults", schema);
            elicitation_summary(&ctx, params, "Elicitation completed").await
        }),
        tool(
            "test_elicitation_sep1330_enums",
            "Tests elicitation with enum schema improvements per SEP-1330",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {
                        "type": "string",
                        "description": "Select one option",
                        "enum": ["option1", "option2", "option3"],
                    },
                    "titledSingle": {
                        "type": "string",
                        "description": "Select one option with titles",
                        "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"},
                        ],
                    },
                    "legacyEnum": {
                        "type": "string",
                        "description": "Select one option (legacy)",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"],
                    },
                    "untitledMulti": {
                        "type": "array",
                        "description": "Select multiple options",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    },
                    "titledMulti": {
                        "type": "array",
                        "description": "Select multiple options with titles",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]},
                    },
                },
                "required": [],
            });
            let params = form("Please select options from the enum fields", schema);
            elicitation_summary(&ctx, params, "Elicitation completed").await
        }),
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "$anchor": "addressDef",
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    },
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"},
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false,
            }),
        )
        .handler(|args, _| async move { format!("JSON Schema 2020-12 tool called with: {}", Value::Object(args)) }),
        tool(
            "test_header_param",
            "Echoes a region sent both in the arguments and as an Mcp-Param header (SEP-2243)",
            json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "description": "A region", "x-mcp-header": "Region"},
                },
                "required": ["region"],
            }),
        )
        .handler(|args, _| async move {
            let region = args
                .get("region")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            format!("Region: {region}")
        }),
        // 2026-07-28 diagnostics of the `server-stateless` scenario.
        tool(
            "test_missing_capability",
            "Test tool requiring sampling: fails with -32021 when the client lacks it",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let answer = ctx.sample(sampling("Say hello", 20)).await?;
            Ok::<_, HandlerError>(format!("Success: {}", sampled_text(&answer.content)))
        }),
        tool(
            "test_streaming_elicitation",
            "Diagnostic tool validating response progress streams",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            ctx.progress(50.0, Some(100.0), Some("Half way".into())).await;
            ctx.log(LoggingLevel::Info, Some("conformance-test-server"), "Streaming")
                .await;
            "Streaming complete"
        }),
        tool("test_logging_tool", "Diagnostic logging validator tool", no_arguments()).handler(
            |_, ctx: Context| async move {
                ctx.log(
                    LoggingLevel::Info,
                    Some("conformance-test-server"),
                    "Diagnostic trace logging activated",
                )
                .await;
                "Logging evaluated"
            },
        ),
        tool(
            "test_trigger_tool_change",
            "Adds or removes the tool test_dynamic_tool, so the tool list changes",
            no_arguments(),
        )
        .handler(|_, _| async {
            toggle_dynamic_tool()?;
            Ok::<_, HandlerError>("Mutation triggered")
        }),
        tool(
            "test_trigger_prompt_change",
            "Adds or removes the prompt test_dynamic_prompt, so the prompt list changes",
            no_arguments(),
        )
        .handler(|_, _| async {
            toggle_dynamic_prompt()?;
            Ok::<_, HandlerError>("Mutation triggered")
        }),
    ]
}

/// Elicits, and reports the user's answer as text (or why there is none).
async fn elicitation_summary(ctx: &Context, params: ElicitRequestParams, label: &str) -> Result<String, HandlerError> {
    match ctx.elicit(params).await {
        Ok(result) => {
            let action = serde_json::to_value(result.action).unwrap_or(Value::Null);
            let content = Value::Object(result.content.unwrap_or_default());
            Ok(format!(
                "{label}: action={}, content={content}",
                action.as_str().unwrap_or_default()
            ))
        }
        Err(HandlerError::Message(e)) => Ok(format!("Elicitation not supported or error: {e}")),
        Err(other) => Err(other),
    }
}

/// The tools of the tasks extension's scenarios (`tasks-*`): one that never runs as a task,
/// one that may, and some that must (failing as a tool, failing as a request, asking the
/// user once, asking twice at once, asking before it becomes a task).
fn task_tools() -> Vec<ToolDef> {
    let required = |name: &str, description: &str, schema: Value| {
        tool(name, description, schema).task_support(TaskSupport::Required)
    };
    vec![
        tool(
            "greet",
            "Greets someone, always in place",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        )
        .handler(|args, _| async move {
            format!(
                "Hello, {}!",
                args.get("name").and_then(Value::as_str).unwrap_or_default()
            )
        }),
        tool(
            "slow_compute",
            "Computes for `seconds`: as a task for clients that support tasks",
            json!({"type": "object", "properties": {
                "seconds": {"type": "integer", "minimum": 0}, "label": {"type": "string"}}}),
        )
        .task_support(TaskSupport::Optional)
        .handler(|args, ctx: Context| async move {
            let seconds = args.get("seconds").and_then(Value::as_u64).unwrap_or(0);
            let label = args.get("label").and_then(Value::as_str).unwrap_or_default().to_owned();
            tokio::select! {
                _ = ctx.cancellation().cancelled() => return Err(HandlerError::message("cancelled")),
                _ = tokio::time::sleep(std::time::Duration::from_secs(seconds)) => {}
            }
            Ok(format!(
                "Computation \"{label}\" completed after {seconds} seconds. Result: 42."
            ))
        }),
        required("failing_job", "Fails as a tool after a second", no_arguments()).handler(|_, _| async {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            Err::<String, _>(HandlerError::message("the job failed"))
        }),
        required("protocol_error_job", "Fails as a request", no_arguments()).handler(|_, _| async {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            Err::<String, _>(HandlerError::rpc(ErrorObject::internal("the job broke")))
        }),
        required(
            "confirm_delete",
            "Deletes a file once the user confirms",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}),
        )
        .handler(|args, ctx: Context| async move {
            let filename = args
                .get("filename")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let schema =
                json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
            let answer = ctx.elicit(form(&format!("Delete '{filename}'?"), schema)).await?;
            let confirmed = answer.content.and_then(|c| c.get("confirm").and_then(Value::as_bool)) == Some(true);
            Ok::<_, HandlerError>(match confirmed {
                true => format!("deleted '{filename}'"),
                false => format!("kept '{filename}'"),
            })
        }),
        required(
            "multi_input",
            "Asks for a name and a confirmation at once",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let name = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            let confirm =
                json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
            let (name, confirm) = tokio::join!(
                ctx.elicit(form("Your name?", name)),
                ctx.elicit(form("Go ahead?", confirm))
            );
            let (name, _) = (name?, confirm?);
            let name = name
                .content
                .and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned));
            Ok::<_, HandlerError>(format!("done for {}", name.unwrap_or_default()))
        }),
        required(
            "test_tool_with_task",
            "Asks for a name in place, then greets as a task",
            no_arguments(),
        )
        .asks_before_task()
        .handler(|_, ctx: Context| async move {
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            let answer = ctx.elicit(form("Your name?", schema)).await?;
            ctx.begin_task().await;
            let name = answer
                .content
                .and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_owned));
            Ok::<_, HandlerError>(format!("Hello, {}!", name.unwrap_or_default()))
        }),
    ]
}

static DYNAMIC_TOOL: AtomicBool = AtomicBool::new(false);
static DYNAMIC_PROMPT: AtomicBool = AtomicBool::new(false);

fn server() -> Result<&'static Server, HandlerError> {
    SERVER
        .get()
        .ok_or_else(|| HandlerError::message("the server is not running yet"))
}

fn toggle_dynamic_tool() -> Result<(), HandlerError> {
    let server = server()?;
    if DYNAMIC_TOOL.fetch_xor(true, Ordering::SeqCst) {
        server.remove_tool("test_dynamic_tool");
    } else {
        server
            .add_tool(
                tool("test_dynamic_tool", "A tool added at runtime", no_arguments())
                    .handler(|_, _| async { "This is a dynamically added tool." }),
            )
            .map_err(|e| HandlerError::message(e.to_string()))?;
    }
    Ok(())
}

fn toggle_dynamic_prompt() -> Result<(), HandlerError> {
    let server = server()?;
    if DYNAMIC_PROMPT.fetch_xor(true, Ordering::SeqCst) {
        server.remove_prompt("test_dynamic_prompt");
    } else {
        server
            .add_prompt(
                PromptDef::new("test_dynamic_prompt")
                    .description("A prompt added at runtime")
                    .handler(|_, _| async { "This is a dynamically added prompt." }),
            )
            .map_err(|e| HandlerError::message(e.to_string()))?;
    }
    Ok(())
}

/// The text field `field` of an accepted elicitation answer.
fn elicited_text(answer: Option<&InputResponse>, field: &str) -> Option<String> {
    match answer? {
        InputResponse::Elicitation(result) => result
            .content
            .as_ref()
            .and_then(|c| c.get(field))
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    }
}

fn elicit(message: &str, field: &str, kind: &str) -> InputRequest {
    InputRequest::Elicitation(form(
        message,
        json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]}),
    ))
}

fn roots() -> InputRequest {
    InputRequest::Roots(ListRootsRequestParams::default())
}

/// Ends the run with `input_required` (the explicit multi round-trip style, with the
/// request keys the suite names).
fn ask<const N: usize>(requests: [(&str, InputRequest); N], state: Option<&str>) -> HandlerError {
    HandlerError::input_required(
        requests.into_iter().map(|(key, request)| (key.to_owned(), request)),
        state.map(str::to_owned),
    )
}

/// The 2026-07-28 multi round-trip tools of the `input-required-result-*` scenarios. They
/// use the explicit style (named input requests, their own state), which the core seals.
fn input_required_tools() -> Vec<ToolDef> {
    vec![
        tool(
            "test_input_required_result_elicitation",
            "MRTR: returns InputRequiredResult with elicitation request",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let responses = ctx.input_responses();
            match elicited_text(responses.and_then(|r| r.get("user_name")), "name") {
                Some(name) => Ok(format!("Hello, {name}!")),
                None => Err(ask(
                    [("user_name", elicit("What is your name?", "name", "string"))],
                    None,
                )),
            }
        }),
        tool(
            "test_input_required_result_sampling",
            "MRTR: returns InputRequiredResult with sampling request",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            match ctx.input_responses().and_then(|r| r.get("capital_question")) {
                Some(InputResponse::Sampling(result)) => {
                    Ok(format!("Sampling result: {}", sampled_text(&result.content)))
                }
                _ => Err(ask(
                    [(
                        "capital_question",
                        InputRequest::Sampling(sampling("What is the capital of France?", 100)),
                    )],
                    None,
                )),
            }
        }),
        tool(
            "test_input_required_result_list_roots",
            "MRTR: returns InputRequiredResult with roots/list request",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            match ctx.input_responses().and_then(|r| r.get("client_roots")) {
                Some(InputResponse::Roots(result)) => Ok(format!(
                    "Found {} root(s): {}",
                    result.roots.len(),
                    result
                        .roots
                        .iter()
                        .map(|r| r.uri.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => Err(ask([("client_roots", roots())], None)),
            }
        }),
        tool(
            "test_input_required_result_request_state",
            "MRTR: returns InputRequiredResult with requestState",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let confirmed = match ctx.input_responses().and_then(|r| r.get("confirm")) {
                Some(InputResponse::Elicitation(result)) => {
                    result.content.as_ref().and_then(|c| c.get("ok")) == Some(&Value::Bool(true))
                }
                _ => false,
            };
            if confirmed && ctx.request_state() == Some("request-state") {
                return Ok("state-ok: requestState validated");
            }
            Err(ask(
                [("confirm", elicit("Please confirm", "ok", "boolean"))],
                Some("request-state"),
            ))
        }),
        tool(
            "test_input_required_result_multiple_inputs",
            "MRTR: returns InputRequiredResult with multiple input requests",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let responses = ctx.input_responses();
            let get = |key: &str| responses.and_then(|r| r.get(key));
            if let (Some(name), Some(InputResponse::Sampling(greeting)), Some(InputResponse::Roots(roots)), Some(_)) = (
                elicited_text(get("user_name"), "name"),
                get("greeting"),
                get("client_roots"),
                ctx.request_state(),
            ) {
                return Ok(format!(
                    "Name: {name}; Greeting: {}; Roots: {}",
                    sampled_text(&greeting.content),
                    roots.roots.len()
                ));
            }
            Err(ask(
                [
                    ("user_name", elicit("What is your name?", "name", "string")),
                    ("greeting", InputRequest::Sampling(sampling("Generate a greeting", 50))),
                    ("client_roots", roots()),
                ],
                Some("multiple-inputs"),
            ))
        }),
        tool(
            "test_input_required_result_multi_round",
            "MRTR: multi-round InputRequiredResult workflow",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let responses = ctx.input_responses();
            let state: Value = ctx
                .request_state()
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or(Value::Null);
            let step1 = || {
                ask(
                    [("step1", elicit("Step 1: What is your name?", "name", "string"))],
                    Some(r#"{"round":1}"#),
                )
            };
            match state.get("round").and_then(Value::as_u64) {
                Some(1) => match elicited_text(responses.and_then(|r| r.get("step1")), "name") {
                    Some(name) => Err(ask(
                        [(
                            "step2",
                            elicit("Step 2: What is your favorite color?", "color", "string"),
                        )],
                        Some(&json!({"round": 2, "name": name}).to_string()),
                    )),
                    None => Err(step1()),
                },
                Some(2) => match elicited_text(responses.and_then(|r| r.get("step2")), "color") {
                    Some(color) => {
                        let name = state.get("name").and_then(Value::as_str).unwrap_or("friend");
                        Ok(format!("Multi-round complete for {name} who likes {color}"))
                    }
                    None => Err(step1()),
                },
                _ => Err(step1()),
            }
        }),
        tool(
            "test_input_required_result_tampered_state",
            "MRTR: integrity-protected requestState (the core seals and checks it)",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            let confirmed = ctx.input_responses().is_some_and(|r| r.contains_key("confirm"));
            if confirmed && ctx.request_state() == Some("tamper-test") {
                return Ok("integrity-ok: state verified");
            }
            Err(ask(
                [("confirm", elicit("Please confirm", "ok", "boolean"))],
                Some("tamper-test"),
            ))
        }),
        tool(
            "test_input_required_result_capabilities",
            "MRTR: respects client capabilities in inputRequests",
            no_arguments(),
        )
        .handler(|_, ctx: Context| async move {
            if let Some(responses) = ctx.input_responses().filter(|r| !r.is_empty()) {
                let keys: Vec<&str> = responses.keys().map(String::as_str).collect();
                return Ok(format!("capabilities-ok: received {}", keys.join(",")));
            }
            let capabilities = ctx.client_capabilities();
            let mut requests = Vec::new();
            if capabilities.elicitation.is_some() {
                requests.push((
                    "elicit_input".to_owned(),
                    elicit("Elicitation input", "value", "string"),
                ));
            }
            if capabilities.sampling.is_some() {
                requests.push((
                    "sample_input".to_owned(),
                    InputRequest::Sampling(sampling("Sample request", 50)),
                ));
            }
            if requests.is_empty() {
                return Ok("No supported capabilities declared".to_owned());
            }
            Err(HandlerError::input_required(requests, Some("capabilities-test".into())))
        }),
    ]
}

fn resources() -> Vec<ResourceDef> {
    vec![
        ResourceDef::new("test://static-text", "static-text")
            .title("Static Text Resource")
            .description("A static text resource for testing")
            .mime_type("text/plain")
            .handler(|_, _, _| async { "This is the content of the static text resource." }),
        ResourceDef::new("test://static-binary", "static-binary")
            .title("Static Binary Resource")
            .description("A static binary resource (image) for testing")
            .mime_type("image/png")
            .handler(|uri, _, _| async move {
                let mut contents = ResourceContents::blob(uri, TEST_IMAGE_BASE64);
                if let ResourceContents::Blob(b) = &mut contents {
                    b.mime_type = Some("image/png".into());
                }
                contents
            }),
        ResourceDef::new("test://watched-resource", "watched-resource")
            .title("Watched Resource")
            .description("A resource that can be subscribed to")
            .mime_type("text/plain")
            .handler(|_, _, _| async { "Watched resource content" }),
    ]
}

fn prompts() -> Vec<PromptDef> {
    vec![
        PromptDef::new("test_simple_prompt")
            .title("Simple Test Prompt")
            .description("A simple prompt without arguments")
            .handler(|_, _| async { "This is a simple prompt for testing." }),
        PromptDef::new("test_prompt_with_arguments")
            .title("Prompt With Arguments")
            .description("A prompt with required arguments")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true)
            .handler(|args, _| async move {
                let arg = |name: &str| args.get(name).cloned().unwrap_or_default();
                format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2"))
            })
            .complete("arg1", complete_from(&["paris", "park", "party", "test", "testing"]))
            .complete("arg2", complete_from(&["world", "wide", "web"])),
        PromptDef::new("test_prompt_with_embedded_resource")
            .title("Prompt With Embedded Resource")
            .description("A prompt that includes an embedded resource")
            .argument("resourceUri", "URI of the resource to embed", true)
            .handler(|args, _| async move {
                let uri = args.get("resourceUri").cloned().unwrap_or_default();
                vec![
                    PromptMessage {
                        role: Role::User,
                        content: embedded(&uri, "text/plain", "Embedded resource content for testing.".into()),
                    },
                    PromptMessage::user("Please process the embedded resource above."),
                ]
            }),
        PromptDef::new("test_prompt_with_image")
            .title("Prompt With Image")
            .description("A prompt that includes image content")
            .handler(|_, _| async {
                vec![
                    PromptMessage {
                        role: Role::User,
                        content: ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
                    },
                    PromptMessage::user("Please analyze the image above."),
                ]
            }),
        PromptDef::new("test_input_required_result_prompt")
            .description("MRTR: prompt that requires elicitation input")
            .handler(|_, ctx: Context| async move {
                match elicited_text(ctx.input_responses().and_then(|r| r.get("user_context")), "context") {
                    Some(context) => Ok(GetPromptResult {
                        messages: vec![PromptMessage::user(format!("Prompt with context: {context}"))],
                        ..Default::default()
                    }),
                    None => Err(ask(
                        [(
                            "user_context",
                            elicit("What context should the prompt use?", "context", "string"),
                        )],
                        None,
                    )),
                }
            }),
    ]
}

/// Completes from a fixed list, by prefix.
fn complete_from(
    values: &'static [&'static str],
) -> impl Fn(String, BTreeMap<String, String>) -> futures::future::Ready<Vec<String>> + Send + Sync + 'static {
    move |prefix: String, _context| {
        futures::future::ready(
            values
                .iter()
                .filter(|v| v.starts_with(&prefix))
                .map(|v| (*v).to_owned())
                .collect(),
        )
    }
}
