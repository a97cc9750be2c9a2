//! Checks the wire against the official MCP JSON schemas:
//!
//! 1. every official example of the newest revision round-trips through our types;
//! 2. everything our server writes validates against the schema of the revision the
//!    conversation negotiated, for every revision from 2024-11-05 to 2026-07-28.
//!
//! The schemas and examples are vendored in the repository, in `spec/schema/<revision>/`
//! (see `spec/README.md`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jsonschema::{Draft, Validator};
use oxmcp::protocol::jsonrpc::{self, Message};
use oxmcp::protocol::{
    code, BlobResourceContents, CallToolRequestParams, CallToolResult, CancelledNotificationParams, ClientCapabilities,
    CompleteRequestParams, CompleteResult, ContentBlock, CreateMessageRequestParams, CreateMessageResult,
    DiscoverResult, ElicitRequestFormParams, ElicitRequestUrlParams, ElicitResult, ErrorObject, GetPromptRequestParams,
    GetPromptResult, Icon, InputRequest, InputRequests, InputRequiredResult, InputResponses, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListRootsResult, ListToolsResult, LoggingLevel,
    LoggingMessageNotificationParams, ModelPreferences, ProgressNotificationParams, ReadResourceRequestParams,
    ReadResourceResult, RequestId, RequestMeta, Resource, ResourceUpdatedNotificationParams, Root, SamplingContent,
    SamplingMessage, ServerCapabilities, SubscriptionsListenParams, SubscriptionsListenResult, TextResourceContents,
    Tool, ToolAnnotations,
};
use oxmcp::server::{Context, HandlerError, Json, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use oxmcp::transport::{stdio::from_streams, DEFAULT_MAX_MESSAGE_SIZE};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

/// Every revision with a schema, oldest first.
const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", LATEST];

/// The newest revision: the only one with examples, and the only modern one.
const LATEST: &str = "2026-07-28";

/// Where the official schemas live, one folder per revision: `spec/schema/` at the workspace root.
fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/schema")
}

// ---------------------------------------------------------------------------------------
// The official schemas
// ---------------------------------------------------------------------------------------

/// One revision's `schema.json`, with a validator per definition compiled on first use.
struct Schema {
    revision: &'static str,
    document: Value,
    /// `$defs` (2020-12 revisions) or `definitions` (draft-07 revisions).
    defs_key: &'static str,
    draft: Draft,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

impl Schema {
    fn load(revision: &'static str) -> Schema {
        let path = spec_dir().join(revision).join("schema.json");
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let document: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let defs_key = if document.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let draft = match document["$schema"].as_str() {
            Some(uri) if uri.contains("draft-07") => Draft::Draft7,
            Some(uri) if uri.contains("2020-12") => Draft::Draft202012,
            other => panic!("{revision}: unexpected $schema {other:?}"),
        };
        Schema {
            revision,
            document,
            defs_key,
            draft,
            validators: Mutex::new(HashMap::new()),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.document[self.defs_key].get(name).is_some()
    }

    /// Why `instance` is not a valid `name`; empty when it is.
    fn errors(&self, name: &str, instance: &Value) -> Vec<String> {
        if !self.has(name) {
            return vec![format!("{} has no definition {name}", self.revision)];
        }
        self.validator(name)
            .iter_errors(instance)
            .map(|error| format!("{name}: {error} (at {:?})", error.instance_path().as_str()))
            .collect()
    }

    /// A validator for one definition: the whole document's definitions, entered through a
    /// root `$ref`.
    fn validator(&self, name: &str) -> Arc<Validator> {
        let mut validators = self.validators.lock().unwrap();
        let validator = validators.entry(name.to_owned()).or_insert_with(|| {
            let root = json!({
                "$schema": self.document["$schema"],
                "$ref": format!("#/{}/{name}", self.defs_key),
                (self.defs_key): self.document[self.defs_key],
            });
            let validator = jsonschema::options()
                .with_draft(self.draft)
                .build(&root)
                .unwrap_or_else(|e| panic!("{} {name} does not compile: {e}", self.revision));
            Arc::new(validator)
        });
        Arc::clone(validator)
    }
}

/// The validators are not vacuous: in every revision they reject a broken result and a
/// broken envelope, and accept a sound one (a guard against a root `$ref` that silently
/// validates nothing).
#[test]
fn schema_validators_reject_what_the_schemas_forbid() {
    let invalid = [
        (
            "ListToolsResult",
            json!({ "tools": [{ "name": 3, "inputSchema": { "type": "object" } }] }),
        ),
        ("CallToolResult", json!({ "content": "not an array" })),
        ("JSONRPCMessage", json!({ "jsonrpc": "1.0", "id": 1, "result": {} })),
    ];
    let valid = json!({
        "tools": [{ "name": "t", "inputSchema": { "type": "object" } }],
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "public",
    });
    for revision in REVISIONS {
        let schema = Schema::load(revision);
        for (definition, instance) in &invalid {
            let errors = schema.errors(definition, instance);
            assert!(!errors.is_empty(), "{revision} {definition} accepts {instance}");
        }
        let errors = schema.errors("ListToolsResult", &valid);
        assert!(errors.is_empty(), "{revision} rejects {valid}: {errors:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Test 1: the official examples round-trip through our types
// ---------------------------------------------------------------------------------------

/// One example file: the schema type it illustrates (its folder) and its JSON.
struct Example {
    type_name: String,
    file: String,
    json: Value,
}

/// Every example of the newest revision, in a stable order.
fn examples() -> Vec<Example> {
    let root = spec_dir().join(LATEST).join("examples");
    let mut examples = Vec::new();
    for folder in sorted_entries(&root) {
        let type_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in sorted_entries(&folder) {
            let text = fs::read_to_string(&file).unwrap();
            let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let file = file.file_name().unwrap().to_string_lossy().into_owned();
            examples.push(Example {
                type_name: type_name.clone(),
                file,
                json,
            });
        }
    }
    examples
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
    paths.sort();
    paths
}

/// A check of one example (or of one part of it, such as a request's params).
type Check = fn(&Value) -> Result<(), String>;

/// The mapping from schema type names to our types: every example folder must have an
/// entry, so that new examples cannot be skipped silently.
fn check_example(type_name: &str, example: &Value, schema: &Schema) -> Result<(), String> {
    match type_name {
        // Whole requests from the client.
        "CallToolRequest" => request(example, "tools/call", round_trip::<CallToolRequestParams>),
        "CompleteRequest" => request(example, "completion/complete", round_trip::<CompleteRequestParams>),
        "DiscoverRequest" => request(example, "server/discover", meta_only),
        "GetPromptRequest" => request(example, "prompts/get", round_trip::<GetPromptRequestParams>),
        "ListPromptsRequest" => request(example, "prompts/list", paginated),
        "ListResourceTemplatesRequest" => request(example, "resources/templates/list", paginated),
        "ListResourcesRequest" => request(example, "resources/list", paginated),
        "ListToolsRequest" => request(example, "tools/list", paginated),
        "ReadResourceRequest" => request(example, "resources/read", round_trip::<ReadResourceRequestParams>),
        "SubscriptionsListenRequest" => {
            request(example, "subscriptions/listen", round_trip::<SubscriptionsListenParams>)
        }
        // Requests from the server, which 2026-07-28 sends inside an `input_required` result.
        "CreateMessageRequest" | "ElicitRequest" | "ListRootsRequest" => input_request(example),
        // Whole notifications.
        "CancelledNotification" => notification(
            example,
            "notifications/cancelled",
            round_trip::<CancelledNotificationParams>,
        ),
        "LoggingMessageNotification" => notification(
            example,
            "notifications/message",
            round_trip::<LoggingMessageNotificationParams>,
        ),
        "ProgressNotification" => notification(
            example,
            "notifications/progress",
            round_trip::<ProgressNotificationParams>,
        ),
        "PromptListChangedNotification" => notification(example, "notifications/prompts/list_changed", meta_only),
        "ResourceListChangedNotification" => notification(example, "notifications/resources/list_changed", meta_only),
        "ResourceUpdatedNotification" => notification(
            example,
            "notifications/resources/updated",
            round_trip::<ResourceUpdatedNotificationParams>,
        ),
        "SubscriptionsAcknowledgedNotification" => notification(
            example,
            "notifications/subscriptions/acknowledged",
            round_trip::<SubscriptionsListenParams>,
        ),
        "ToolListChangedNotification" => notification(example, "notifications/tools/list_changed", meta_only),
        // Whole responses.
        "CallToolResultResponse" => response(example, round_trip::<CallToolResult>),
        "CompleteResultResponse" => response(example, round_trip::<CompleteResult>),
        "DiscoverResultResponse" => response(example, round_trip::<DiscoverResult>),
        "GetPromptResultResponse" => response(example, round_trip::<GetPromptResult>),
        "ListPromptsResultResponse" => response(example, round_trip::<ListPromptsResult>),
        "ListResourceTemplatesResultResponse" => response(example, round_trip::<ListResourceTemplatesResult>),
        "ListResourcesResultResponse" => response(example, round_trip::<ListResourcesResult>),
        "ListToolsResultResponse" => response(example, round_trip::<ListToolsResult>),
        "ReadResourceResultResponse" => response(example, round_trip::<ReadResourceResult>),
        "SubscriptionsListenResultResponse" => response(example, round_trip::<SubscriptionsListenResult>),
        "HeaderMismatchError" | "MissingRequiredClientCapabilityError" | "UnsupportedProtocolVersionError" => {
            error_response(example)
        }
        // Error objects on their own.
        "InternalError" | "InvalidParamsError" | "MethodNotFoundError" | "ParseError" => {
            round_trip::<ErrorObject>(example)
        }
        // Params.
        "CallToolRequestParams" => round_trip::<CallToolRequestParams>(example),
        "CancelledNotificationParams" => round_trip::<CancelledNotificationParams>(example),
        "CompleteRequestParams" => round_trip::<CompleteRequestParams>(example),
        "CreateMessageRequestParams" => round_trip::<CreateMessageRequestParams>(example),
        "ElicitRequestFormParams" => round_trip::<ElicitRequestFormParams>(example),
        "ElicitRequestURLParams" => round_trip::<ElicitRequestUrlParams>(example),
        "GetPromptRequestParams" => round_trip::<GetPromptRequestParams>(example),
        "LoggingMessageNotificationParams" => round_trip::<LoggingMessageNotificationParams>(example),
        "PaginatedRequestParams" => request_meta(example).and_then(|()| paginated(example)),
        "ProgressNotificationParams" => round_trip::<ProgressNotificationParams>(example),
        "ResourceUpdatedNotificationParams" => round_trip::<ResourceUpdatedNotificationParams>(example),
        // Results.
        "CallToolResult" => round_trip::<CallToolResult>(example),
        "CompleteResult" => round_trip::<CompleteResult>(example),
        "CreateMessageResult" => round_trip::<CreateMessageResult>(example),
        "DiscoverResult" => round_trip::<DiscoverResult>(example),
        "ElicitResult" => round_trip::<ElicitResult>(example),
        "GetPromptResult" => round_trip::<GetPromptResult>(example),
        "InputRequiredResult" => round_trip::<InputRequiredResult>(example),
        "ListPromptsResult" => round_trip::<ListPromptsResult>(example),
        "ListResourceTemplatesResult" => round_trip::<ListResourceTemplatesResult>(example),
        "ListResourcesResult" => round_trip::<ListResourcesResult>(example),
        "ListRootsResult" => round_trip::<ListRootsResult>(example),
        "ListToolsResult" => round_trip::<ListToolsResult>(example),
        "ReadResourceResult" => round_trip::<ReadResourceResult>(example),
        "SubscriptionsListenResult" => round_trip::<SubscriptionsListenResult>(example),
        // Multi round-trip maps.
        "InputRequests" => round_trip::<InputRequests>(example),
        "InputResponses" => round_trip::<InputResponses>(example),
        // Content.
        "AudioContent" | "EmbeddedResource" | "ImageContent" | "ResourceLink" | "TextContent" => {
            round_trip::<ContentBlock>(example)
        }
        "ToolResultContent" | "ToolUseContent" => round_trip::<SamplingContent>(example),
        "BlobResourceContents" => round_trip::<BlobResourceContents>(example),
        "TextResourceContents" => round_trip::<TextResourceContents>(example),
        "SamplingMessage" => round_trip::<SamplingMessage>(example),
        // Definitions.
        "ClientCapabilities" => round_trip::<ClientCapabilities>(example),
        "ModelPreferences" => round_trip::<ModelPreferences>(example),
        "Resource" => round_trip::<Resource>(example),
        "Root" => round_trip::<Root>(example),
        "ServerCapabilities" => round_trip::<ServerCapabilities>(example),
        "Tool" => round_trip::<Tool>(example),
        // Elicitation's primitive schemas: `requestedSchema` is kept as a JSON map.
        "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledMultiSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema" => primitive_schema(example, schema),
        other => Err(format!(
            "no mapping for the schema type {other}: add one to check_example"
        )),
    }
}

/// Reads `value` as `T` and writes it back: the JSON must come back unchanged.
fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {
    let through = std::any::type_name::<T>();
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("does not read as {through}: {e}"))?;
    let written = serde_json::to_value(&typed).map_err(|e| format!("{through} does not write: {e}"))?;
    unchanged(value, &written, through)
}

fn unchanged(original: &Value, ours: &Value, through: &str) -> Result<(), String> {
    if original == ours {
        return Ok(());
    }
    Err(format!(
        "changed by {through}:\n      official: {original}\n      ours:     {ours}"
    ))
}

fn parse(example: &Value) -> Result<Message, String> {
    jsonrpc::parse_message(&example.to_string()).map_err(|e| format!("not a JSON-RPC message: {e}"))
}

fn raw_json(raw: &RawValue) -> Result<Value, String> {
    serde_json::from_str(raw.get()).map_err(|e| format!("unreadable member: {e}"))
}

fn text_json(text: &str) -> Value {
    serde_json::from_str(text).expect("our writer writes JSON")
}

fn expect_method(actual: &str, expected: &str) -> Result<(), String> {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("method {actual:?}, expected {expected:?}"))
    }
}

/// A request: the envelope survives our parser and writer, `_meta` reads as the
/// dispatcher's [`RequestMeta`], and the params pass `params`.
fn request(example: &Value, method: &str, params: Check) -> Result<(), String> {
    let Message::Request(request) = parse(example)? else {
        return Err("not a request".into());
    };
    expect_method(&request.method, method)?;
    let body = request.params.as_deref().map(raw_json).transpose()?;
    let written = jsonrpc::request_text(&request.id, &request.method, body.as_ref());
    unchanged(example, &text_json(&written), "the request envelope")?;
    let body = body.ok_or("a request without params")?;
    request_meta(&body)?;
    params(&body)
}

/// A notification: the envelope survives our parser and writer, and the params pass
/// `params`.
fn notification(example: &Value, method: &str, params: Check) -> Result<(), String> {
    let Message::Notification(notification) = parse(example)? else {
        return Err("not a notification".into());
    };
    expect_method(&notification.method, method)?;
    let body = notification.params.as_deref().map(raw_json).transpose()?;
    let written = jsonrpc::notification_text(&notification.method, body.as_ref());
    unchanged(example, &text_json(&written), "the notification envelope")?;
    params(&body.ok_or("a notification without params")?)
}

/// A result response: the envelope survives our parser and writer, and the result passes
/// `result`.
fn response(example: &Value, result: Check) -> Result<(), String> {
    let Message::Response(response) = parse(example)? else {
        return Err("not a response".into());
    };
    let raw = response
        .outcome
        .map_err(|error| format!("an error response: {error}"))?;
    let written = jsonrpc::raw_result_text(&response.id, raw.get());
    unchanged(example, &text_json(&written), "the response envelope")?;
    result(&raw_json(&raw)?)
}

/// An error response: the envelope and the error object survive our parser and writer.
fn error_response(example: &Value) -> Result<(), String> {
    let Message::Response(response) = parse(example)? else {
        return Err("not a response".into());
    };
    let Err(error) = response.outcome else {
        return Err("a result response, not an error".into());
    };
    let written = jsonrpc::error_text(Some(&response.id), &error);
    unchanged(example, &text_json(&written), "the error envelope and ErrorObject")
}

/// A request the server needs answered, as 2026-07-28 embeds it in `inputRequests`:
/// `method` and `params` round-trip through [`InputRequest`]. Envelope members that the
/// schema allows but an input request does not use (`jsonrpc`, `id`) must be well formed,
/// and are set aside.
fn input_request(example: &Value) -> Result<(), String> {
    let mut body = example.as_object().ok_or("not an object")?.clone();
    if let Some(id) = body.remove("id") {
        serde_json::from_value::<RequestId>(id).map_err(|e| format!("bad id: {e}"))?;
    }
    if let Some(version) = body.remove("jsonrpc") {
        if version != "2.0" {
            return Err(format!("bad jsonrpc member {version}"));
        }
    }
    round_trip::<InputRequest>(&Value::Object(body))
}

/// A request's `_meta`, as the dispatcher reads it: every member is one it knows.
fn request_meta(params: &Value) -> Result<(), String> {
    match params.get("_meta") {
        Some(meta) => round_trip::<RequestMeta>(meta),
        None => Ok(()),
    }
}

/// Params with nothing but `_meta` (list-changed notifications, `server/discover`).
fn meta_only(params: &Value) -> Result<(), String> {
    only_members(params, &["_meta"])
}

/// Params of a paginated list request: `_meta` and an optional string `cursor`.
fn paginated(params: &Value) -> Result<(), String> {
    only_members(params, &["_meta", "cursor"])?;
    match params.get("cursor") {
        None | Some(Value::String(_)) => Ok(()),
        Some(other) => Err(format!("cursor must be a string, not {other}")),
    }
}

fn only_members(params: &Value, allowed: &[&str]) -> Result<(), String> {
    let object = params.as_object().ok_or("params must be an object")?;
    if let Some(meta) = object.get("_meta") {
        round_trip::<Map<String, Value>>(meta)?;
    }
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => Err(format!("unexpected member {key:?}: only {allowed:?} are expected")),
        None => Ok(()),
    }
}

/// One property of an elicitation form: a JSON map for us, a primitive schema for the spec.
fn primitive_schema(example: &Value, schema: &Schema) -> Result<(), String> {
    round_trip::<Map<String, Value>>(example)?;
    let errors = schema.errors("PrimitiveSchemaDefinition", example);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

#[test]
fn every_official_example_round_trips_through_our_types() {
    let schema = Schema::load(LATEST);
    let examples = examples();
    assert!(!examples.is_empty(), "no examples under {}", spec_dir().display());
    let mut failures = Vec::new();
    for Example { type_name, file, json } in &examples {
        // The example itself must be what the schema says, or the round trip proves little.
        let mut problems = schema.errors(type_name, json);
        problems.extend(check_example(type_name, json, &schema).err());
        failures.extend(
            problems
                .into_iter()
                .map(|problem| format!("{type_name}/{file}: {problem}")),
        );
    }
    assert!(
        failures.is_empty(),
        "{} problems in {} examples:\n  {}",
        failures.len(),
        examples.len(),
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------
// Test 2: what our server writes validates against the negotiated revision's schema
// ---------------------------------------------------------------------------------------

/// The static resource of the test server.
const README: &str = "file:///readme.md";

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
    sum: i64,
}

/// Completions from a fixed list of words.
fn words(
    words: &'static [&'static str],
) -> impl Fn(String, BTreeMap<String, String>) -> std::future::Ready<Vec<String>> + Send + Sync + 'static {
    move |prefix, _| {
        std::future::ready(
            words
                .iter()
                .filter(|w| w.starts_with(&prefix))
                .map(|w| w.to_string())
                .collect(),
        )
    }
}

/// A server with a typed tool (with the display fields later revisions added), a
/// structured-output tool, a failing tool, a tool that reports progress and logs, a
/// static resource, a template and a prompt.
fn server() -> Server {
    let icon = Icon {
        src: "https://example.com/echo.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: None,
    };
    Server::builder("schema-test", "1.0.0")
        .instructions("Checks the wire against the official schemas.")
        .tool(
            ToolDef::new("echo")
                .title("Echo")
                .description("Sends the text back")
                .icons(vec![icon])
                .annotations(ToolAnnotations {
                    read_only_hint: Some(true),
                    ..Default::default()
                })
                .typed(|args: EchoArgs, _ctx: Context| async move { args.text }),
        )
        .tool(
            ToolDef::new("add")
                .description("Adds two integers")
                .structured_output::<Sum>()
                .typed(|args: AddArgs, _ctx: Context| async move { Json(Sum { sum: args.a + args.b }) }),
        )
        .tool(
            ToolDef::new("fail")
                .description("Fails as a tool execution error")
                .handler(|_, _| async { Err::<String, _>(HandlerError::message("failed on purpose")) }),
        )
        .tool(
            ToolDef::new("report")
                .description("Reports progress and logs a message")
                .handler(|_, ctx: Context| async move {
                    ctx.progress(1.0, Some(2.0), Some("halfway".into())).await;
                    ctx.log(LoggingLevel::Info, Some("schema-test"), json!({ "step": 1 }))
                        .await;
                    "reported"
                }),
        )
        .resource(
            ResourceDef::new(README, "readme")
                .title("Read me")
                .mime_type("text/markdown")
                .handler(|_, _, _| async { "# Hello" }),
        )
        .resource_template(
            ResourceTemplateDef::new("greeting://{name}", "greeting")
                .mime_type("text/plain")
                .handler(|_, vars: BTreeMap<String, String>, _| async move { format!("Hello, {}!", vars["name"]) })
                .complete("name", words(&["ada", "alan", "grace"])),
        )
        .prompt(
            PromptDef::new("review")
                .title("Code review")
                .description("Reviews a piece of code")
                .argument("code", "The code to review", true)
                .argument("language", "Its language", false)
                .handler(|args: BTreeMap<String, String>, _| async move { format!("Please review:\n{}", args["code"]) })
                .complete("language", words(&["python", "rust"])),
        )
        .build()
        .expect("the test server is well defined")
}

/// Request methods: the request's definition and its result's.
const METHODS: &[(&str, &str, &str)] = &[
    ("initialize", "InitializeRequest", "InitializeResult"),
    ("ping", "PingRequest", "EmptyResult"),
    ("server/discover", "DiscoverRequest", "DiscoverResult"),
    ("tools/list", "ListToolsRequest", "ListToolsResult"),
    ("tools/call", "CallToolRequest", "CallToolResult"),
    ("resources/list", "ListResourcesRequest", "ListResourcesResult"),
    (
        "resources/templates/list",
        "ListResourceTemplatesRequest",
        "ListResourceTemplatesResult",
    ),
    ("resources/read", "ReadResourceRequest", "ReadResourceResult"),
    ("resources/subscribe", "SubscribeRequest", "EmptyResult"),
    ("prompts/list", "ListPromptsRequest", "ListPromptsResult"),
    ("prompts/get", "GetPromptRequest", "GetPromptResult"),
    ("completion/complete", "CompleteRequest", "CompleteResult"),
    ("logging/setLevel", "SetLevelRequest", "EmptyResult"),
    (
        "subscriptions/listen",
        "SubscriptionsListenRequest",
        "SubscriptionsListenResult",
    ),
];

/// Notification methods and their definitions.
const NOTIFICATIONS: &[(&str, &str)] = &[
    ("notifications/initialized", "InitializedNotification"),
    ("notifications/cancelled", "CancelledNotification"),
    ("notifications/progress", "ProgressNotification"),
    ("notifications/message", "LoggingMessageNotification"),
    ("notifications/tools/list_changed", "ToolListChangedNotification"),
    ("notifications/prompts/list_changed", "PromptListChangedNotification"),
    (
        "notifications/resources/list_changed",
        "ResourceListChangedNotification",
    ),
    ("notifications/resources/updated", "ResourceUpdatedNotification"),
    (
        "notifications/subscriptions/acknowledged",
        "SubscriptionsAcknowledgedNotification",
    ),
];

/// Error codes and the definitions of their error objects (2026-07-28 names them).
const ERRORS: &[(i64, &str)] = &[
    (code::PARSE_ERROR, "ParseError"),
    (code::INVALID_REQUEST, "InvalidRequestError"),
    (code::METHOD_NOT_FOUND, "MethodNotFoundError"),
    (code::INVALID_PARAMS, "InvalidParamsError"),
    (code::INTERNAL_ERROR, "InternalError"),
];

fn lookup<K: PartialEq + Copy, V: Copy>(table: &[(K, V)], key: K) -> Option<V> {
    table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// The request and result definitions of `method`.
fn definitions(method: &str) -> Option<(&'static str, &'static str)> {
    METHODS
        .iter()
        .find(|(m, ..)| *m == method)
        .map(|&(_, request, result)| (request, result))
}

/// What a request must get back.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A successful result.
    Result,
    /// A result with `isError: true`.
    ToolError,
    /// An error response with this code.
    Error(i64),
}

/// One request of the conversation.
struct Step {
    method: &'static str,
    params: Value,
    expect: Expect,
}

fn step(method: &'static str, params: Value, expect: Expect) -> Step {
    Step { method, params, expect }
}

/// The requests every revision gets, with era-specific extras and outcomes.
fn steps(revision: &str) -> Vec<Step> {
    let modern = revision == LATEST;
    // SEP-1303: invalid tool arguments are a tool execution error from 2025-11-25 on.
    let invalid_arguments = if revision >= "2025-11-25" {
        Expect::ToolError
    } else {
        Expect::Error(code::INVALID_PARAMS)
    };
    let (missing_resource, ping) = if modern {
        (
            Expect::Error(code::INVALID_PARAMS),
            Expect::Error(code::METHOD_NOT_FOUND),
        )
    } else {
        (Expect::Error(code::RESOURCE_NOT_FOUND), Expect::Result)
    };
    let report_meta = if modern {
        json!({ "progressToken": "report-1", "io.modelcontextprotocol/logLevel": "debug" })
    } else {
        json!({ "progressToken": "report-1" })
    };
    let mut steps = Vec::new();
    if modern {
        steps.push(step("server/discover", json!({}), Expect::Result));
    } else {
        steps.push(step("logging/setLevel", json!({ "level": "debug" }), Expect::Result));
    }
    steps.extend([
        step("tools/list", json!({}), Expect::Result),
        step("tools/call", json!({ "name": "echo", "arguments": { "text": "hi" } }), Expect::Result),
        step("tools/call", json!({ "name": "add", "arguments": { "a": 1, "b": 2 } }), Expect::Result),
        step("tools/call", json!({ "name": "fail", "arguments": {} }), Expect::ToolError),
        step("tools/call", json!({ "name": "echo", "arguments": { "text": 3 } }), invalid_arguments),
        step("tools/call", json!({ "name": "nope" }), Expect::Error(code::INVALID_PARAMS)),
        step("tools/call", json!({ "name": "report", "_meta": report_meta }), Expect::Result),
        step("resources/list", json!({}), Expect::Result),
        step("resources/templates/list", json!({}), Expect::Result),
        step("resources/read", json!({ "uri": README }), Expect::Result),
        step("resources/read", json!({ "uri": "greeting://ada" }), Expect::Result),
        step("resources/read", json!({ "uri": "file:///missing" }), missing_resource),
        step("prompts/list", json!({}), Expect::Result),
        step("prompts/get", json!({ "name": "review", "arguments": { "code": "x = 1" } }), Expect::Result),
        step("prompts/get", json!({ "name": "review" }), Expect::Error(code::INVALID_PARAMS)),
        step(
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "review" }, "argument": { "name": "language", "value": "r" } }),
            Expect::Result,
        ),
        step(
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "greeting://{name}" }, "argument": { "name": "name", "value": "a" } }),
            Expect::Result,
        ),
        step("ping", json!({}), ping),
        step("no/such/method", json!({}), Expect::Error(code::METHOD_NOT_FOUND)),
    ]);
    steps
}

/// Whether `response` is what `expect` asks for.
fn verdict(response: &Value, expect: Expect) -> Result<(), String> {
    let is_error = response.pointer("/result/isError") == Some(&Value::Bool(true));
    let fine = match expect {
        Expect::Result => response.get("result").is_some() && !is_error,
        Expect::ToolError => is_error,
        Expect::Error(code) => response.pointer("/error/code") == Some(&json!(code)),
    };
    if fine {
        Ok(())
    } else {
        Err(format!("expected {expect:?}, got {response}"))
    }
}

/// A raw conversation with a served [`Server`]: newline-delimited JSON over an in-memory
/// duplex, so that the test sees exactly the bytes the server writes. Every message in
/// either direction is validated against the revision's schema as it passes.
struct Wire<'s> {
    schema: &'s Schema,
    /// The `_meta` every modern request carries; `None` in the legacy era.
    era_meta: Option<Value>,
    writer: Option<DuplexStream>,
    reader: Lines<BufReader<DuplexStream>>,
    serving: JoinHandle<()>,
    next_id: i64,
    /// The method of every request sent, by id.
    methods: HashMap<i64, &'static str>,
    /// Requests that still need a response.
    unanswered: BTreeSet<i64>,
    /// Responses not yet taken by [`Wire::response`].
    responses: HashMap<i64, Value>,
    /// Notifications not yet taken by [`Wire::notification`].
    notifications: Vec<Value>,
    failures: Vec<String>,
}

/// How long to wait for the server's next message before calling it stuck.
const PATIENCE: Duration = Duration::from_secs(10);

impl<'s> Wire<'s> {
    fn connect(schema: &'s Schema, server: &Server) -> Wire<'s> {
        let (client_out, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_in) = tokio::io::duplex(1 << 16);
        let transport = from_streams(server_in, server_out, DEFAULT_MAX_MESSAGE_SIZE);
        let server = server.clone();
        let serving = tokio::spawn(async move {
            server.serve(transport).await.expect("the server stops cleanly");
        });
        let modern = schema.revision == LATEST;
        let era_meta = modern.then(|| {
            json!({
                "io.modelcontextprotocol/protocolVersion": LATEST,
                "io.modelcontextprotocol/clientCapabilities": {},
            })
        });
        Wire {
            schema,
            era_meta,
            writer: Some(client_out),
            reader: BufReader::new(client_in).lines(),
            serving,
            next_id: 0,
            methods: HashMap::new(),
            unanswered: BTreeSet::new(),
            responses: HashMap::new(),
            notifications: Vec::new(),
            failures: Vec::new(),
        }
    }

    fn fail(&mut self, context: &str, problems: impl IntoIterator<Item = String>) {
        let revision = self.schema.revision;
        self.failures.extend(
            problems
                .into_iter()
                .map(|problem| format!("{revision} {context}: {problem}")),
        );
    }

    /// Validates `instance` against each definition the revision has; `context` says what
    /// it is.
    fn validate(&mut self, context: &str, definitions: &[&str], instance: &Value) {
        for definition in definitions.iter().filter(|d| self.schema.has(d)) {
            let errors = self.schema.errors(definition, instance);
            self.fail(context, errors.into_iter().map(|e| format!("{e}\n      in {instance}")));
        }
    }

    async fn send(&mut self, message: &Value) {
        let writer = self.writer.as_mut().expect("the input is open");
        let line = format!("{message}\n");
        writer
            .write_all(line.as_bytes())
            .await
            .expect("the server reads its input");
    }

    /// Sends a request (with the era's `_meta`) without waiting for the response.
    async fn start(&mut self, method: &'static str, mut params: Value) -> i64 {
        if let Some(era_meta) = &self.era_meta {
            let meta = params
                .as_object_mut()
                .unwrap()
                .entry("_meta")
                .or_insert_with(|| json!({}));
            for (key, value) in era_meta.as_object().unwrap() {
                meta.as_object_mut().unwrap().insert(key.clone(), value.clone());
            }
        }
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if let Some((definition, _)) = definitions(method) {
            self.validate(&format!("the test's own {method} request"), &[definition], &message);
        }
        self.methods.insert(id, method);
        self.unanswered.insert(id);
        self.send(&message).await;
        id
    }

    /// Sends a request and waits for its response.
    async fn request(&mut self, method: &'static str, params: Value) -> Option<Value> {
        let id = self.start(method, params).await;
        self.response(id).await
    }

    async fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut message = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        let definition = lookup(NOTIFICATIONS, method).expect("a known notification");
        self.validate(&format!("the test's own {method}"), &[definition], &message);
        self.send(&message).await;
    }

    /// Cancels request `id`, which then needs no response (one that comes anyway is still
    /// validated).
    async fn cancel(&mut self, id: i64) {
        self.unanswered.remove(&id);
        let params = json!({ "requestId": id, "reason": "no longer needed" });
        self.notify("notifications/cancelled", Some(params)).await;
    }

    /// The response to request `id`, once it arrives.
    async fn response(&mut self, id: i64) -> Option<Value> {
        loop {
            if let Some(response) = self.responses.remove(&id) {
                return Some(response);
            }
            if !self.receive().await {
                self.fail(&format!("request {id}"), ["no response".to_owned()]);
                return None;
            }
        }
    }

    /// The next notification of `method`, once it arrives.
    async fn notification(&mut self, method: &str) -> Option<Value> {
        loop {
            if let Some(index) = self.notifications.iter().position(|n| n["method"] == method) {
                return Some(self.notifications.remove(index));
            }
            if !self.receive().await {
                self.fail(method, ["never sent".to_owned()]);
                return None;
            }
        }
    }

    /// Reads and checks one message; `false` at the end of the output or after waiting
    /// too long.
    async fn receive(&mut self) -> bool {
        let line = match tokio::time::timeout(PATIENCE, self.reader.next_line()).await {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => return false,
            Ok(Err(e)) => panic!("reading the server's output: {e}"),
            Err(_) => {
                self.fail("the server", [format!("silent for {PATIENCE:?}")]);
                return false;
            }
        };
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(e) => {
                self.fail("the server", [format!("wrote a line that is not JSON ({e}): {line}")]);
                return true;
            }
        };
        self.check(&message);
        match message.get("id").and_then(Value::as_i64) {
            Some(id) if message.get("method").is_none() => {
                self.unanswered.remove(&id);
                self.responses.insert(id, message);
            }
            _ => self.notifications.push(message),
        }
        true
    }

    /// Validates one message from the server against every definition that describes it.
    fn check(&mut self, message: &Value) {
        let schema = self.schema;
        if let Some(method) = message["method"].as_str() {
            let context = format!("server notification {method}");
            if message.get("id").is_some() {
                self.fail(&context, [format!("the server sent a request: {message}")]);
            }
            let Some(definition) = lookup(NOTIFICATIONS, method) else {
                return self.fail(&context, [format!("unexpected notification: {message}")]);
            };
            return self.validate(
                &context,
                &["JSONRPCMessage", "JSONRPCNotification", definition],
                message,
            );
        }
        let method = message["id"]
            .as_i64()
            .and_then(|id| self.methods.get(&id).copied())
            .unwrap_or("?");
        if let Some(code) = message.pointer("/error/code").and_then(Value::as_i64) {
            let context = format!("error response to {method}");
            let envelopes: &[&str] = if schema.has("JSONRPCErrorResponse") {
                &["JSONRPCMessage", "JSONRPCResponse", "JSONRPCErrorResponse"]
            } else {
                &["JSONRPCMessage", "JSONRPCError"]
            };
            self.validate(&context, envelopes, message);
            if let Some(definition) = lookup(ERRORS, code) {
                self.validate(&context, &[definition], &message["error"]);
            }
            return;
        }
        let context = format!("result of {method}");
        let envelopes: &[&str] = if schema.has("JSONRPCResultResponse") {
            &["JSONRPCMessage", "JSONRPCResponse", "JSONRPCResultResponse"]
        } else {
            &["JSONRPCMessage", "JSONRPCResponse"]
        };
        self.validate(&context, envelopes, message);
        let Some((_, definition)) = definitions(method) else {
            return self.fail(&context, [format!("a result for an unknown request: {message}")]);
        };
        self.validate(&context, &[definition], &message["result"]);
        self.validate(&context, &[&format!("{definition}Response")], message);
    }

    /// Sends `step` and checks the outcome.
    async fn run(&mut self, step: Step) {
        let Some(response) = self.request(step.method, step.params).await else {
            return;
        };
        if let Err(problem) = verdict(&response, step.expect) {
            self.fail(step.method, [problem]);
        }
    }

    /// Closes the input, reads everything the server still writes, and returns every
    /// problem seen in the conversation.
    async fn finish(mut self) -> Vec<String> {
        self.writer = None;
        while self.receive().await {}
        match tokio::time::timeout(PATIENCE, &mut self.serving).await {
            Ok(joined) => joined.expect("the server task does not panic"),
            Err(_) => self.fail("the server", ["still serving after its input closed".to_owned()]),
        }
        let unanswered: Vec<String> = self
            .unanswered
            .iter()
            .map(|id| format!("{} #{id}", self.methods[id]))
            .collect();
        if !unanswered.is_empty() {
            self.fail("the server", [format!("never answered {unanswered:?}")]);
        }
        let unclaimed = self
            .notifications
            .iter()
            .map(|n| format!("unexpected notification {n}"))
            .collect::<Vec<_>>();
        self.fail("the server", unclaimed);
        self.failures
    }
}

/// The legacy handshake: `initialize` with the revision, then `notifications/initialized`.
async fn handshake(wire: &mut Wire<'_>) {
    let revision = wire.schema.revision;
    let params = json!({
        "protocolVersion": revision,
        "capabilities": {},
        "clientInfo": { "name": "schema-test", "version": "1.0.0" },
    });
    if let Some(response) = wire.request("initialize", params).await {
        if response.pointer("/result/protocolVersion") != Some(&json!(revision)) {
            wire.fail("initialize", [format!("did not agree to {revision}: {response}")]);
        }
    }
    wire.notify("notifications/initialized", None).await;
}

/// Progress and log messages from the `report` tool, which every era asked for.
async fn reported_notifications(wire: &mut Wire<'_>) {
    wire.notification("notifications/progress").await;
    wire.notification("notifications/message").await;
}

/// Legacy change notifications: a subscribed resource changes, then the tool list does.
async fn legacy_change_notifications(wire: &mut Wire<'_>, server: &Server) {
    wire.run(step("resources/subscribe", json!({ "uri": README }), Expect::Result))
        .await;
    server.notify_resource_updated(README);
    wire.notification("notifications/resources/updated").await;
    server.add_tool(late_tool()).expect("a new tool name");
    wire.notification("notifications/tools/list_changed").await;
}

/// Modern change notifications: one `subscriptions/listen` stream for list changes, which
/// the client cancels, and one for a resource, which the server answers when the input ends.
async fn modern_change_notifications(wire: &mut Wire<'_>, server: &Server) {
    let lists = listen(wire, json!({ "toolsListChanged": true })).await;
    server.add_tool(late_tool()).expect("a new tool name");
    if let Some(changed) = wire.notification("notifications/tools/list_changed").await {
        expect_subscription(wire, &changed, lists);
    }
    wire.cancel(lists).await;

    let resource = listen(wire, json!({ "resourceSubscriptions": [README] })).await;
    server.notify_resource_updated(README);
    if let Some(updated) = wire.notification("notifications/resources/updated").await {
        expect_subscription(wire, &updated, resource);
    }
}

/// Opens a `subscriptions/listen` stream and waits for its acknowledgement.
async fn listen(wire: &mut Wire<'_>, filter: Value) -> i64 {
    let id = wire
        .start("subscriptions/listen", json!({ "notifications": filter }))
        .await;
    if let Some(ack) = wire.notification("notifications/subscriptions/acknowledged").await {
        expect_subscription(wire, &ack, id);
    }
    id
}

/// A notification on a subscription stream must name the stream.
fn expect_subscription(wire: &mut Wire<'_>, notification: &Value, id: i64) {
    let tag = notification.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId");
    if tag != Some(&json!(id)) {
        wire.fail(
            "subscription",
            [format!("expected subscription id {id} on {notification}")],
        );
    }
}

/// A tool added while a conversation is open.
fn late_tool() -> ToolDef {
    ToolDef::new("late").handler(|_, _| async { "late" })
}

/// Talks to a fresh server in `revision` and asserts that all it wrote was valid.
async fn conversation(revision: &'static str) {
    let schema = Schema::load(revision);
    let server = server();
    let mut wire = Wire::connect(&schema, &server);
    let modern = revision == LATEST;
    if !modern {
        handshake(&mut wire).await;
    }
    for step in steps(revision) {
        wire.run(step).await;
    }
    reported_notifications(&mut wire).await;
    if modern {
        modern_change_notifications(&mut wire, &server).await;
    } else {
        legacy_change_notifications(&mut wire, &server).await;
    }
    let failures = wire.finish().await;
    assert!(
        failures.is_empty(),
        "{} problems in the {revision} conversation:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[tokio::test]
async fn server_output_validates_against_2024_11_05() {
    conversation("2024-11-05").await;
}

#[tokio::test]
async fn server_output_validates_against_2025_03_26() {
    conversation("2025-03-26").await;
}

#[tokio::test]
async fn server_output_validates_against_2025_06_18() {
    conversation("2025-06-18").await;
}

#[tokio::test]
async fn server_output_validates_against_2025_11_25() {
    conversation("2025-11-25").await;
}

#[tokio::test]
async fn server_output_validates_against_2026_07_28() {
    conversation("2026-07-28").await;
}
