//! The example server of the oxmcp workspace, as a library so that the example binaries
//! and the integration tests build the same server.

use std::collections::BTreeMap;
use std::time::Duration;

use oxmcp::protocol::{ContentBlock, ElicitAction, LoggingLevel, ResourceContents, ToolAnnotations};
use oxmcp::server::{
    Context, DefinitionError, HandlerError, Json, PromptDef, ResourceDef, Server, ServerBuilder, TemplateDef, ToolDef,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

mod interactive;

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

#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    /// How many steps of 50 ms to take.
    steps: u32,
}

#[derive(Deserialize, JsonSchema)]
struct NameArgs {
    name: String,
}

/// The example server: every feature of the core in one place.
pub fn example_server() -> Result<Server, DefinitionError> {
    example_server_builder().build()
}

/// The example server's builder, for callers that change its settings.
pub fn example_server_builder() -> ServerBuilder {
    Server::builder("oxmcp-example", env!("CARGO_PKG_VERSION"))
        .instructions("An example server: echo text, add numbers, read greetings.")
        .tool(
            ToolDef::new("echo")
                .description("Send the text back")
                .annotations(ToolAnnotations {
                    read_only_hint: Some(true),
                    ..Default::default()
                })
                .typed(|args: EchoArgs, _ctx: Context| async move { args.text }),
        )
        .tool(
            ToolDef::new("add")
                .description("Add two integers")
                .structured_output::<Sum>()
                .typed(|args: AddArgs, _ctx: Context| async move { Json(Sum { result: args.a + args.b }) }),
        )
        .tool(
            ToolDef::new("slow")
                .description("Take a while, reporting progress; stops when cancelled")
                .typed(|args: SlowArgs, ctx: Context| async move {
                    for step in 1..=args.steps {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        ctx.progress(step.into(), Some(args.steps.into()), Some(format!("step {step}"))).await;
                    }
                    format!("done after {} steps", args.steps)
                }),
        )
        .tool(
            // Over HTTP a call that reports progress is answered with an SSE stream (the
            // progress, then the result), where a plain call gets one JSON body.
            ToolDef::new("echo_with_progress")
                .description("Send the text back after one progress report")
                .typed(|args: EchoArgs, ctx: Context| async move {
                    ctx.progress(1.0, Some(1.0), None).await;
                    args.text
                }),
        )
        .tool(
            ToolDef::new("fail")
                .description("Always fails, as a tool execution error")
                .handler(|_, _| async { Err::<String, _>(HandlerError::message("the tool failed on purpose")) }),
        )
        .tool(
            ToolDef::new("panic")
                .description("Panics; the server survives")
                .handler(|_, _| async { panic!("on purpose") as String }),
        )
        .tool(
            ToolDef::new("crash")
                .description("Ends the server process abruptly")
                .handler(|_, _| async { std::process::exit(3) as String }),
        )
        .tool(
            ToolDef::new("log")
                .description("Sends one log message of each level")
                .handler(|_, ctx: Context| async move {
                    for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error] {
                        ctx.log(level, Some("example"), json!({ "level": format!("{level:?}") })).await;
                    }
                    "logged"
                }),
        )
        .tool(ToolDef::new("confirm").description("Asks the user to confirm (elicitation)").handler(
            |_, ctx: Context| async move {
                let answer = interactive::ask(&ctx, "Confirm?", json!({"ok": {"type": "boolean"}})).await?;
                Ok::<_, HandlerError>(match answer.action {
                    ElicitAction::Accept => format!("confirmed: {}", json!(answer.content)),
                    other => format!("not confirmed: {other:?}"),
                })
            },
        ))
        .tool(ToolDef::new("ask_twice").description("Asks the user two questions, one after the other").handler(
            |_, ctx: Context| async move {
                let name = interactive::ask_text(&ctx, "Your name?", "name").await?;
                let city = interactive::ask_text(&ctx, &format!("Where do you live, {name}?"), "city").await?;
                Ok::<_, HandlerError>(format!("{name} lives in {city}"))
            },
        ))
        .tool(ToolDef::new("ask_both").description("Asks the user two questions at once").handler(
            |_, ctx: Context| async move {
                let (color, food) = futures::try_join!(
                    interactive::ask_text(&ctx, "Favourite colour?", "color"),
                    interactive::ask_text(&ctx, "Favourite food?", "food"),
                )?;
                Ok::<_, HandlerError>(format!("{color} and {food}"))
            },
        ))
        .tool(
            ToolDef::new("ask_llm")
                .description("Asks the client's model a question (sampling)")
                .handler(|_, ctx: Context| async move {
                    let reply = interactive::sample(&ctx, json!([interactive::user_text("What is the capital of France?")]), None).await?;
                    Ok::<_, HandlerError>(format!("the model said: {}", interactive::text_of(&reply)))
                }),
        )
        .tool(
            ToolDef::new("weather_agent")
                .description("Lets the client's model call a weather tool until it can answer (sampling with tools)")
                .handler(|_, ctx: Context| async move { interactive::weather_agent(&ctx).await }),
        )
        .tool(
            ToolDef::new("roots")
                .description("Lists the client's roots")
                .handler(|_, ctx: Context| async move {
                    let roots = ctx.list_roots().await?;
                    Ok::<_, HandlerError>(roots.roots.iter().map(|r| r.uri.clone()).collect::<Vec<_>>().join(","))
                }),
        )
        .tool(
            ToolDef::new("image")
                .description("Returns a 1x1 PNG")
                .handler(|_, _| async {
                    vec![
                        ContentBlock::text("a pixel"),
                        ContentBlock::image(
                            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
                            "image/png",
                        ),
                    ]
                }),
        )
        .resource(
            ResourceDef::new("file:///readme.md", "readme")
                .mime_type("text/markdown")
                .description("What this server is")
                .handler(|_, _, _| async { "# oxmcp example\nHello." }),
        )
        .resource(
            ResourceDef::new("file:///pixel.bin", "pixel")
                .mime_type("application/octet-stream")
                .handler(|uri, _, _| async move { ResourceContents::blob(uri, "AAEC") }),
        )
        .template(
            TemplateDef::new("greeting://{name}", "greeting")
                .mime_type("text/plain")
                .handler(|_, vars: BTreeMap<String, String>, _| async move { format!("Hello, {}!", vars["name"]) })
                .complete("name", |value: String, _| async move {
                    ["ada", "alan", "grace"].iter().filter(|n| n.starts_with(&value)).map(|n| n.to_string()).collect()
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
                    ["python", "rust", "typescript"].iter().filter(|n| n.starts_with(&value)).map(|n| n.to_string()).collect()
                }),
        )
}

/// Adds the tools that change the server itself, which need a handle on it.
pub fn add_runtime_tools(server: &Server) -> Result<(), DefinitionError> {
    let handle = server.clone();
    server.add_tool(
        ToolDef::new("add_tool")
            .description("Adds a tool named by `name`")
            .typed(move |args: NameArgs, _ctx: Context| {
                let server = handle.clone();
                async move {
                    let name = args.name.clone();
                    server.add_tool(ToolDef::new(args.name).handler(move |_, _| {
                        let name = name.clone();
                        async move { format!("I am {name}") }
                    }))?;
                    Ok::<_, HandlerError>("added")
                }
            }),
    )?;
    let handle = server.clone();
    server.add_tool(
        ToolDef::new("touch")
            .description("Announces that a resource changed")
            .typed(move |args: NameArgs, _ctx: Context| {
                let server = handle.clone();
                async move {
                    server.notify_resource_updated(&args.name);
                    "touched"
                }
            }),
    )
}
