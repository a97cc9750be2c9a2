//! `NativeClient`: the core's [`Client`], answering the server's requests (sampling,
//! elicitation, roots) with JavaScript handlers.
//!
//! The facade hands each client one callback, `(kind, payload) => outcome`, for
//! everything that flows from the server to it: `sampling`, `elicitation` and `roots`
//! requests (answered with an outcome envelope), `notification` events and per-call
//! `progress` (answers ignored).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::{Buffer, FnArgs, PromiseRaw};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::Env;
use napi_derive::napi;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use oxmcp::client::auth::OAuthProvider;
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, Subscription, ToolTask};
use oxmcp::protocol::skills::Skill;
use oxmcp::protocol::{LoggingLevel, SubscriptionFilter};
use oxmcp::transport::child::{StderrMode, StdioCommand};
use oxmcp::transport::{http, memory, Transport};

use crate::convert::{self, decode_js, from_js, to_value};
use crate::error::{client_error, invalid};
use crate::handler::JsAnswerer;
use crate::http::HttpSettings;
use crate::runtime::Callback;
use crate::server::NativeServer;

/// `(kind, payload) => outcome | Promise<outcome> | undefined`.
pub(crate) type ClientCallback = Callback<FnArgs<(String, Value)>>;

/// How to start a server process.
#[napi(object)]
pub struct SpawnOptions {
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Option<Vec<String>>,
    /// Environment variables on top of this process's.
    pub env: Option<HashMap<String, String>>,
    /// Its working directory.
    pub cwd: Option<String>,
    /// `inherit` (default: the server's logs show on this process's stderr) or `ignore`.
    #[napi(ts_type = "'inherit' | 'ignore'")]
    pub stderr: Option<String>,
    /// The largest line accepted from the server, in bytes (default 4 MiB); a larger one
    /// is dropped.
    pub max_message_size: Option<f64>,
}

/// How the client presents itself and what it can answer.
#[napi(object)]
pub struct ClientConfig {
    /// The client's name.
    pub name: String,
    /// The client's version.
    pub version: String,
    /// `auto` (default), `legacy` or `modern`.
    #[napi(ts_type = "'auto' | 'legacy' | 'modern'")]
    pub era: Option<String>,
    /// Default request timeout in milliseconds (default 60 000; `Infinity`: none).
    pub timeout_ms: Option<f64>,
    /// Answer sampling requests.
    pub sampling: Option<bool>,
    /// Declare support for tools in sampling requests.
    pub sampling_tools: Option<bool>,
    /// Answer elicitation requests (form mode).
    pub elicitation: Option<bool>,
    /// Answer URL-mode elicitation requests too.
    pub elicitation_url: Option<bool>,
    /// Answer roots requests.
    pub roots: Option<bool>,
    /// How many pages re-listing the tools (after a header mismatch) follows at most
    /// (default 100).
    pub max_list_pages: Option<f64>,
    /// How many of the server's requests are answered at once (default 16); more are
    /// refused.
    pub max_server_requests: Option<f64>,
    /// How many sampling requests one 2026-07-28 `input_required` round may ask for
    /// (default 8).
    pub max_sampling_per_round: Option<f64>,
    /// Declare the 2026-07-28 tasks extension (default on): tool calls answered with a
    /// task are followed to their result.
    pub tasks: Option<bool>,
    /// Keep full listings while the server says they are fresh (its `ttlMs`; default on).
    pub cache_lists: Option<bool>,
    /// How many `input_required` rounds (2026-07-28) one request may take (default 8).
    pub max_input_rounds: Option<f64>,
}

/// Per-call settings.
#[napi(object)]
pub struct CallSettings {
    /// Identifies the call for `cancel(callId)` and for its `progress` events.
    pub call_id: Option<u32>,
    /// Overrides the client's timeout (`Infinity`: none).
    pub timeout_ms: Option<f64>,
    /// Ask for progress notifications; they arrive as `progress` events with `callId`.
    pub progress: Option<bool>,
    /// Restart the timeout whenever progress arrives.
    pub reset_timeout_on_progress: Option<bool>,
}

/// Connects to a server process started with `spawn`.
#[napi(
    ts_args_type = "spawn: SpawnOptions, config: ClientConfig, callback: (kind: string, payload: unknown) => unknown",
    ts_return_type = "Promise<NativeClient>"
)]
pub async fn connect_stdio(
    spawn: SpawnOptions,
    config: ClientConfig,
    callback: ClientCallback,
) -> napi::Result<NativeClient> {
    let mut command = StdioCommand::new(spawn.command).args(spawn.args.unwrap_or_default());
    for (key, value) in spawn.env.unwrap_or_default() {
        command = command.env(key, value);
    }
    if let Some(cwd) = spawn.cwd {
        command = command.cwd(cwd);
    }
    command = command.stderr(match spawn.stderr.as_deref() {
        Some("ignore") => StderrMode::Null,
        _ => StderrMode::Inherit,
    });
    if let Some(bytes) = spawn.max_message_size {
        command = command.max_message_size(convert::count(bytes, "maxMessageSize")?);
    }
    let callback = Arc::new(callback);
    let closed = CancellationToken::new();
    let options = client_options(config, &callback, &closed)?;
    let client = Client::spawn(command, options).await.map_err(client_error)?;
    Ok(NativeClient::start(client, callback, closed))
}

/// Connects to `server` in this process, over an in-memory transport.
#[napi(
    ts_args_type = "server: NativeServer, config: ClientConfig, callback: (kind: string, payload: unknown) => unknown",
    ts_return_type = "Promise<NativeClient>"
)]
pub fn connect_in_process<'env>(
    env: &'env Env,
    server: &NativeServer,
    config: ClientConfig,
    callback: ClientCallback,
) -> napi::Result<PromiseRaw<'env, NativeClient>> {
    let core = server.core().clone();
    let stopped = server.stopped();
    env.spawn_future(async move {
        let (client_end, server_end) = memory::pair();
        tokio::spawn(async move {
            tokio::select! {
                _ = core.serve(server_end) => {}
                _ = stopped.cancelled() => {}
            }
        });
        NativeClient::connect(client_end, config, Arc::new(callback)).await
    })
}

/// Connects to the Streamable HTTP endpoint at `url` (an old HTTP+SSE endpoint works too).
#[napi(
    ts_args_type = "url: string, http: HttpSettings, config: ClientConfig, callback: (kind: string, payload: unknown) => unknown",
    ts_return_type = "Promise<NativeClient>"
)]
pub async fn connect_http(
    url: String,
    http: HttpSettings,
    config: ClientConfig,
    callback: ClientCallback,
) -> napi::Result<NativeClient> {
    connect_http_with(url, http, config, callback, None).await
}

/// [`connect_http`], signing in with `oauth` when there is one.
pub(crate) async fn connect_http_with(
    url: String,
    http: HttpSettings,
    config: ClientConfig,
    callback: ClientCallback,
    oauth: Option<OAuthProvider>,
) -> napi::Result<NativeClient> {
    let callback = Arc::new(callback);
    let mut options = http.into_core(url, &callback)?;
    if let Some(provider) = oauth {
        options = options.authorizer(provider);
    }
    let transport = http::client::connect(options).map_err(|e| client_error(e.into()))?;
    NativeClient::connect(transport, config, callback).await
}

/// A connection to an MCP server.
#[napi]
pub struct NativeClient {
    client: Client,
    callback: Arc<ClientCallback>,
    /// Calls that may be cancelled, by the facade's call id.
    calls: Arc<Mutex<HashMap<u32, CancellationToken>>>,
    /// Open `subscriptions/listen` streams, by id.
    subscriptions: Mutex<HashMap<u32, Subscription>>,
    next_subscription: AtomicU32,
    /// Fires on `close()`: stops forwarding notifications.
    closed: CancellationToken,
}

impl NativeClient {
    /// The core's client, for what forwards through it (a proxy).
    pub(crate) fn core(&self) -> &Client {
        &self.client
    }

    /// Connects over `transport` as `config` says, with `callback` answering the server.
    async fn connect(transport: Transport, config: ClientConfig, callback: Arc<ClientCallback>) -> napi::Result<Self> {
        let closed = CancellationToken::new();
        let options = client_options(config, &callback, &closed)?;
        let client = Client::connect(transport, options).await.map_err(client_error)?;
        Ok(NativeClient::start(client, callback, closed))
    }

    /// Wraps a connected client whose notifications go to `callback` until `closed`.
    fn start(client: Client, callback: Arc<ClientCallback>, closed: CancellationToken) -> Self {
        NativeClient {
            client,
            callback,
            calls: Arc::default(),
            subscriptions: Mutex::default(),
            next_subscription: AtomicU32::new(0),
            closed,
        }
    }

    /// The core's call options for `settings`, and the guard that forgets the call id
    /// when the call ends.
    fn call_options(&self, settings: Option<CallSettings>) -> (CallOptions, Option<CallGuard>) {
        let Some(settings) = settings else {
            return (CallOptions::default(), None);
        };
        let mut options = CallOptions {
            timeout: settings.timeout_ms.map(duration_from_ms),
            reset_timeout_on_progress: settings.reset_timeout_on_progress.unwrap_or(false),
            ..Default::default()
        };
        let Some(call_id) = settings.call_id else {
            return (options, None);
        };
        let cancellation = CancellationToken::new();
        lock(&self.calls).insert(call_id, cancellation.clone());
        options.cancellation = Some(cancellation);
        if settings.progress == Some(true) {
            let callback = Arc::clone(&self.callback);
            options.on_progress = Some(Arc::new(move |progress| {
                let event = json!({ "callId": call_id, "progress": to_value(&progress) });
                callback.call(
                    FnArgs::from(("progress".to_owned(), event)),
                    ThreadsafeFunctionCallMode::NonBlocking,
                );
            }));
        }
        let guard = CallGuard {
            calls: Arc::clone(&self.calls),
            call_id,
        };
        (options, Some(guard))
    }
}

#[napi]
impl NativeClient {
    /// What the connection settled on: `{ protocolVersion, serverInfo, capabilities,
    /// instructions }`.
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn server_details(&self) -> Value {
        let details = self.client.server_details();
        json!({
            "protocolVersion": details.protocol_version.as_str(),
            "serverInfo": to_value(&details.server_info),
            "capabilities": to_value(&details.capabilities),
            "instructions": details.instructions,
        })
    }

    /// One page of tools (`ListToolsResult`).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn list_tools(&self, cursor: Option<String>) -> napi::Result<Value> {
        encode(self.client.list_tools(cursor).await)
    }

    /// One page of resources (`ListResourcesResult`).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn list_resources(&self, cursor: Option<String>) -> napi::Result<Value> {
        encode(self.client.list_resources(cursor).await)
    }

    /// One page of resource templates (`ListResourceTemplatesResult`).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn list_resource_templates(&self, cursor: Option<String>) -> napi::Result<Value> {
        encode(self.client.list_resource_templates(cursor).await)
    }

    /// One page of prompts (`ListPromptsResult`).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn list_prompts(&self, cursor: Option<String>) -> napi::Result<Value> {
        encode(self.client.list_prompts(cursor).await)
    }

    /// Calls a tool (`CallToolResult`).
    #[napi(
        ts_args_type = "name: string, args: Record<string, unknown> | undefined | null, settings?: CallSettings",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn call_tool(
        &self,
        name: String,
        args: Option<Value>,
        settings: Option<CallSettings>,
    ) -> napi::Result<Value> {
        let (options, _guard) = self.call_options(settings);
        encode(self.client.call_tool_with(&name, args.map(from_js), &options).await)
    }

    /// Calls a tool as a task, when the server runs it as one.
    #[napi(ts_args_type = "name: string, args: Record<string, unknown> | undefined | null")]
    pub async fn call_tool_as_task(&self, name: String, args: Option<Value>) -> napi::Result<NativeToolTask> {
        let task = self
            .client
            .call_tool_as_task(&name, args.map(from_js))
            .await
            .map_err(client_error)?;
        Ok(NativeToolTask { task })
    }

    /// A handle on task `id`, made by an earlier tool call of the same caller.
    #[napi]
    pub fn tool_task(&self, id: String) -> NativeToolTask {
        NativeToolTask {
            task: self.client.tool_task(id),
        }
    }

    /// Sends any request with these params in the connection's era (`resources/read`,
    /// `prompts/get`, `completion/complete`…) and resolves to its result.
    #[napi(
        ts_args_type = "method: string, params: Record<string, unknown>, settings?: CallSettings",
        ts_return_type = "Promise<Record<string, unknown>>"
    )]
    pub async fn request(&self, method: String, params: Value, settings: Option<CallSettings>) -> napi::Result<Value> {
        let Value::Object(params) = from_js(params) else {
            return Err(invalid(format!("{method}: params must be an object")));
        };
        let (options, _guard) = self.call_options(settings);
        self.client
            .request::<Value>(&method, params, &options)
            .await
            .map_err(client_error)
    }

    /// Checks the server answers.
    #[napi]
    pub async fn ping(&self) -> napi::Result<()> {
        self.client.ping().await.map_err(client_error)
    }

    /// Every skill the server lists.
    #[napi(ts_return_type = "Promise<Array<Record<string, unknown>>>")]
    pub async fn list_skills(&self) -> napi::Result<Value> {
        let skills = self.client.list_skills().await.map_err(client_error)?;
        Ok(to_value(&skills).unwrap_or_default())
    }

    /// The skill whose `SKILL.md` is at `uri` (`skills/get`), listed or not.
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn get_skill(&self, uri: String) -> napi::Result<Value> {
        let skill = self.client.get_skill(&uri).await.map_err(client_error)?;
        Ok(to_value(&skill).unwrap_or_default())
    }

    /// Loads `skill`: its SKILL.md's text, once it matches the entry.
    #[napi(ts_args_type = "skill: Record<string, unknown>")]
    pub async fn load_skill(&self, skill: Value) -> napi::Result<String> {
        let skill: Skill = decode_js(skill, "skill")?;
        self.client.load_skill(&skill).await.map_err(client_error)
    }

    /// Reads file `uri` of `skill`: its bytes, once they match the entry.
    #[napi(ts_args_type = "skill: Record<string, unknown>, uri: string")]
    pub async fn read_skill_file(&self, skill: Value, uri: String) -> napi::Result<Buffer> {
        let skill: Skill = decode_js(skill, "skill")?;
        let bytes = self.client.read_skill_file(&skill, &uri).await.map_err(client_error)?;
        Ok(bytes.into())
    }

    /// Sends notification `method` with `params` (an object, or none).
    #[napi(ts_args_type = "method: string, params?: Record<string, unknown>")]
    pub async fn notify(&self, method: String, params: Option<Value>) -> napi::Result<()> {
        let params = match params.map(from_js) {
            None | Some(Value::Null) => None,
            Some(Value::Object(params)) => Some(params),
            Some(_) => return Err(invalid(format!("{method}: params must be an object"))),
        };
        self.client.notify(&method, params).await.map_err(client_error)
    }

    /// Tells the server the roots changed (legacy era; nothing to send in 2026-07-28).
    #[napi]
    pub async fn send_roots_list_changed(&self) -> napi::Result<()> {
        self.client.notify_roots_list_changed().await.map_err(client_error)
    }

    /// Sets the lowest level of log messages to receive.
    #[napi(ts_args_type = "level: string")]
    pub async fn set_log_level(&self, level: Value) -> napi::Result<()> {
        let level: LoggingLevel = decode_js(level, "log level")?;
        self.client.set_log_level(level).await.map_err(client_error)
    }

    /// Asks for `notifications/resources/updated` about `uri`.
    #[napi]
    pub async fn subscribe_resource(&self, uri: String) -> napi::Result<()> {
        self.client.subscribe_resource(&uri).await.map_err(client_error)
    }

    /// Stops updates about `uri`.
    #[napi]
    pub async fn unsubscribe_resource(&self, uri: String) -> napi::Result<()> {
        self.client.unsubscribe_resource(&uri).await.map_err(client_error)
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28 era) for the notifications in
    /// `filter` (a `SubscriptionFilter`); resolves, once the server acknowledged it, to
    /// `{ id, acknowledged }`: an id for `unlisten` and the filter the server agreed to. The
    /// notifications arrive as `notification` events.
    #[napi(
        ts_args_type = "filter: Record<string, unknown>",
        ts_return_type = "Promise<{ id: number; acknowledged: Record<string, unknown> }>"
    )]
    pub async fn listen(&self, filter: Value) -> napi::Result<Value> {
        let filter: SubscriptionFilter = decode_js(filter, "subscription filter")?;
        let subscription = self.client.listen(filter).await.map_err(client_error)?;
        let acknowledged = serde_json::to_value(subscription.acknowledged()).unwrap_or_default();
        let id = self.next_subscription.fetch_add(1, Ordering::Relaxed);
        lock(&self.subscriptions).insert(id, subscription);
        Ok(json!({ "id": id, "acknowledged": acknowledged }))
    }

    /// Ends the stream `listen` opened.
    #[napi]
    pub fn unlisten(&self, id: u32) {
        lock(&self.subscriptions).remove(&id);
    }

    /// Cancels the call `callId` (the server is told); its promise rejects with kind
    /// `cancelled`.
    #[napi]
    pub fn cancel(&self, call_id: u32) {
        if let Some(cancellation) = lock(&self.calls).remove(&call_id) {
            cancellation.cancel();
        }
    }

    /// Closes the connection; a spawned server process is shut down.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.closed.cancel();
        lock(&self.subscriptions).clear();
        self.client.close().await.map_err(client_error)
    }
}

/// Forgets a call id when its call ends.
struct CallGuard {
    calls: Arc<Mutex<HashMap<u32, CancellationToken>>>,
    call_id: u32,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        lock(&self.calls).remove(&self.call_id);
    }
}

/// The core's client options for `config`, with JavaScript answering the server's
/// requests the config says it answers.
/// The core's options for `config`, with `callback` answering the server and told of
/// each notification until `closed`.
fn client_options(
    config: ClientConfig,
    callback: &Arc<ClientCallback>,
    closed: &CancellationToken,
) -> napi::Result<ClientOptions> {
    let era = match config.era.as_deref() {
        None | Some("auto") => EraMode::Auto,
        Some("legacy") => EraMode::Legacy,
        Some("modern") => EraMode::Modern,
        Some(other) => return Err(invalid(format!("era must be auto, legacy or modern, not {other:?}"))),
    };
    let mut options = ClientOptions::new(config.name, config.version).era(era);
    if let Some(timeout) = config.timeout_ms {
        options = options.timeout(duration_from_ms(timeout));
    }
    if let Some(pages) = config.max_list_pages {
        options = options.max_list_pages(convert::count(pages, "maxListPages")?);
    }
    if let Some(requests) = config.max_server_requests {
        options = options.max_server_requests(convert::count(requests, "maxServerRequests")?);
    }
    if let Some(requests) = config.max_sampling_per_round {
        options = options.max_sampling_per_round(convert::count(requests, "maxSamplingPerRound")?);
    }
    if let Some(on) = config.tasks {
        options = options.tasks(on);
    }
    if let Some(on) = config.cache_lists {
        options = options.cache_lists(on);
    }
    if let Some(rounds) = config.max_input_rounds {
        options = options.max_input_rounds(convert::count(rounds, "maxInputRounds")?);
    }
    let answerer = || JsAnswerer::new(callback);
    if config.sampling == Some(true) {
        options = options.on_sampling(answerer(), config.sampling_tools == Some(true));
    }
    if config.elicitation == Some(true) {
        options = options.on_elicitation(answerer(), config.elicitation_url == Some(true));
    }
    if config.roots == Some(true) {
        options = options.on_roots(answerer());
    }
    // Queued from the read loop, so a notification the server sent before a response
    // reaches JavaScript before the awaited call settles.
    let forward_to = Arc::clone(callback);
    let closed = closed.clone();
    options = options.on_notification(move |notification| {
        if !closed.is_cancelled() {
            let event = convert::notification_event(notification);
            forward_to.call(
                FnArgs::from(("notification".to_owned(), event)),
                ThreadsafeFunctionCallMode::NonBlocking,
            );
        }
    });
    Ok(options)
}

/// A timeout in milliseconds; not finite (`Infinity`) means none.
fn duration_from_ms(ms: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(ms / 1000.0).ok()
}

/// A tool call the server runs as a task (or answered in place).
#[napi]
pub struct NativeToolTask {
    task: ToolTask,
}

#[napi]
impl NativeToolTask {
    /// The task's id; null when the call was answered in place.
    #[napi(getter)]
    pub fn id(&self) -> Option<String> {
        self.task.id().map(str::to_owned)
    }

    /// The task as the server shows it now (null when answered in place).
    #[napi(ts_return_type = "Promise<Record<string, unknown> | null>")]
    pub async fn status(&self) -> napi::Result<Value> {
        encode(self.task.status().await)
    }

    /// Waits until the task ends, and gives it as it ended.
    #[napi(ts_return_type = "Promise<Record<string, unknown> | null>")]
    pub async fn wait(&self) -> napi::Result<Value> {
        encode(self.task.wait().await)
    }

    /// What the tool returned, once the task ended (`CallToolResult`).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub async fn result(&self) -> napi::Result<Value> {
        encode(self.task.result().await)
    }

    /// Asks the server to stop the task.
    #[napi]
    pub async fn cancel(&self) -> napi::Result<()> {
        self.task.cancel().await.map_err(client_error)
    }
}

fn encode<T: serde::Serialize>(result: oxmcp::Result<T>) -> napi::Result<Value> {
    let value = result.map_err(client_error)?;
    serde_json::to_value(value).map_err(|e| invalid(format!("unserializable result: {e}")))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
