//! `oxmcp inspect`: a web page on 127.0.0.1, embedded in the binary, to look at a server
//! in a browser: connect, browse and call tools through forms made from their schemas,
//! read resources and templates, get prompts, answer the server's questions, follow
//! progress, logs and notifications, and see every protocol message of the exchange.
//!
//! The page talks to this process only, with a random token in its URL; the Host and
//! Origin of every request must be this listener's own, against other sites' pages and
//! DNS rebinding.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use oxmcp::client::{CallOptions, Client, ClientOptions, MessageDirection, ServerNotification};
use oxmcp::protocol::{CreateMessageResult, ElicitAction, ElicitResult, ErrorObject, LoggingLevel};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

use crate::args::{EraChoice, Inspect, Target};
use crate::browser;
use crate::connect::{base_options, connect_with};
use crate::failure::Failure;
use crate::verbs::connection;

/// The page.
const PAGE: &str = include_str!("inspect/page.html");
/// Events kept for a page that reads slowly; past them it misses some.
const EVENTS_KEPT: usize = 1024;
/// How often the page is told how a task goes.
const TASK_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// What every request of the page shares.
struct Inspector {
    token: String,
    /// This listener's own address, `127.0.0.1:<port>`: the only Host (and Origin) served.
    address: String,
    /// What the page is told, as JSON texts.
    events: broadcast::Sender<String>,
    client: tokio::sync::Mutex<Option<Client>>,
    /// The server's questions waiting for the page's answer, by id.
    questions: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
    next_question: AtomicU64,
    /// The command line's target, which the page connects to first.
    target: Target,
}

/// Serves the inspector until the process ends.
pub async fn inspect(args: &Inspect) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|e| Failure::Connect(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::Connect(e.to_string()))?
        .to_string();
    let token = random_token()?;
    let inspector = Arc::new(Inspector {
        token: token.clone(),
        address: address.clone(),
        events: broadcast::channel(EVENTS_KEPT).0,
        client: tokio::sync::Mutex::new(None),
        questions: Mutex::default(),
        next_question: AtomicU64::new(1),
        target: args.target.clone(),
    });
    let url = format!("http://{address}/?token={token}");
    eprintln!("oxmcp: inspector at {url}");
    if !args.no_open {
        browser::open(&url);
    }
    axum::serve(listener, router(inspector))
        .await
        .map_err(|e| Failure::Connect(e.to_string()))
}

fn router(inspector: Arc<Inspector>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/events", get(events))
        .route("/api/defaults", post(defaults))
        .route("/api/connect", post(connect))
        .route("/api/lists", post(lists))
        .route("/api/request", post(request))
        .route("/api/answer", post(answer))
        .route("/api/task", post(task))
        .route("/api/task-cancel", post(cancel_task))
        .layer(middleware::from_fn_with_state(Arc::clone(&inspector), guard))
        .with_state(inspector)
}

/// A random token for the page's URL: 128 bits from the system's CSPRNG, as hex.
fn random_token() -> Result<String, Failure> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Failure::Connect(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Every request carries the token, and comes for this listener's own host from no other
/// site's page.
async fn guard(
    State(inspector): State<Arc<Inspector>>,
    query: Query<TokenQuery>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let own_host =
        |value: &str| value == inspector.address || value == inspector.address.replacen("127.0.0.1", "localhost", 1);
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(own_host);
    let origin_ok = match headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
        None => true,
        Some(origin) => origin.strip_prefix("http://").is_some_and(own_host),
    };
    let token_ok = query
        .token
        .as_deref()
        .is_some_and(|token| constant_time_eq(token, &inspector.token));
    if host_ok && origin_ok && token_ok {
        next.run(request).await
    } else {
        (StatusCode::FORBIDDEN, "forbidden: open the URL the inspector printed").into_response()
    }
}

/// Compares the token without telling, by the time it takes, how much of it matched.
fn constant_time_eq(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
}

impl Inspector {
    fn questions(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Value>>> {
        self.questions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn tell(&self, event: Value) {
        let _ = self.events.send(event.to_string());
    }

    /// Asks the page; `None` when it never answers (the question is dropped).
    async fn ask(&self, kind: &str, params: Value) -> Option<Value> {
        let id = self.next_question.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        self.questions().insert(id, answer);
        self.tell(json!({"type": "question", "kind": kind, "id": id, "params": params}));
        answered.await.ok()
    }
}

async fn events(State(inspector): State<Arc<Inspector>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = BroadcastStream::new(inspector.events.subscribe())
        .filter_map(|event| event.ok())
        .map(|text| Ok(Event::default().data(text)));
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn defaults(State(inspector): State<Arc<Inspector>>) -> Json<Value> {
    let target = &inspector.target;
    let shown = match (&target.url, target.command.is_empty()) {
        (Some(url), _) => url.clone(),
        (None, false) => target.command.join(" "),
        (None, true) => String::new(),
    };
    Json(json!({"target": shown, "era": target.era}))
}

/// A failure as the page reads it.
fn refused(status: StatusCode, message: impl std::fmt::Display) -> Response {
    (status, Json(json!({"error": message.to_string()}))).into_response()
}

#[derive(Deserialize)]
struct ConnectBody {
    target: String,
    era: EraChoice,
}

async fn connect(State(inspector): State<Arc<Inspector>>, Json(body): Json<ConnectBody>) -> Response {
    let mut target = inspector.target.clone();
    target.era = body.era;
    let given = body.target.trim();
    if given.starts_with("http://") || given.starts_with("https://") {
        (target.url, target.command, target.server) = (Some(given.to_owned()), Vec::new(), None);
    } else if !given.is_empty() {
        let command = given.split_whitespace().map(str::to_owned).collect();
        (target.url, target.command, target.server) = (None, command, None);
    }
    let mut current = inspector.client.lock().await;
    if let Some(previous) = current.take() {
        let _ = previous.close().await;
    }
    let options = match base_options(&target) {
        Ok(options) => asking_the_page(options, &inspector),
        Err(failure) => return refused(StatusCode::BAD_REQUEST, failure.message()),
    };
    let client = match connect_with(&target, options).await {
        Ok(client) => client,
        Err(failure) => return refused(StatusCode::BAD_GATEWAY, failure.message()),
    };
    forward_notifications(&client, &inspector);
    let details = client.server_details();
    if details.capabilities.logging.is_some() {
        // The page shows every log message; a server that cannot set the level sends its own.
        let _ = client.set_log_level(LoggingLevel::Debug).await;
    }
    let shown = connection(&client);
    *current = Some(client);
    Json(shown).into_response()
}

/// `options` that show the page every protocol message, and ask it the server's
/// questions.
fn asking_the_page(options: ClientOptions, inspector: &Arc<Inspector>) -> ClientOptions {
    let watching = Arc::clone(inspector);
    let eliciting = Arc::clone(inspector);
    let sampling = Arc::clone(inspector);
    options
        .on_message(move |direction, text| {
            let direction = match direction {
                MessageDirection::Outgoing => "out",
                MessageDirection::Incoming => "in",
            };
            watching.tell(json!({"type": "message", "direction": direction, "text": text}));
        })
        .on_elicitation(
            move |params| {
                let inspector = Arc::clone(&eliciting);
                async move {
                    let asked = serde_json::to_value(&params).unwrap_or_default();
                    let answer = inspector.ask("elicitation", asked).await;
                    Ok(answer
                        .and_then(|answer| serde_json::from_value(answer).ok())
                        .unwrap_or(ElicitResult {
                            action: ElicitAction::Cancel,
                            content: None,
                            meta: None,
                        }))
                }
            },
            true,
        )
        .on_sampling(
            move |params| {
                let inspector = Arc::clone(&sampling);
                async move {
                    let asked = serde_json::to_value(&params).unwrap_or_default();
                    match inspector.ask("sampling", asked).await {
                        Some(answer) if !answer.is_null() => serde_json::from_value::<CreateMessageResult>(answer)
                            .map_err(|e| ErrorObject::invalid_params(format!("the page's answer: {e}"))),
                        _ => Err(ErrorObject::new(-1, "the user declined to answer")),
                    }
                }
            },
            false,
        )
}

/// The server's notifications, to the page, until the client closes.
fn forward_notifications(client: &Client, inspector: &Arc<Inspector>) {
    let mut notifications = client.notifications();
    let inspector = Arc::clone(inspector);
    tokio::spawn(async move {
        while let Ok(notification) = notifications.recv().await {
            if matches!(notification, ServerNotification::Progress(_)) {
                continue;
            }
            let (method, params) = notification.parts();
            let params = params.unwrap_or(Value::Null);
            inspector.tell(json!({"type": "notification", "method": method, "params": params}));
        }
    });
}

/// The connected client, as an extractor: a handler that needs one answers 409 without it.
struct Connected(Client);

impl FromRequestParts<Arc<Inspector>> for Connected {
    type Rejection = Response;

    async fn from_request_parts(_: &mut Parts, inspector: &Arc<Inspector>) -> Result<Self, Response> {
        let client = inspector.client.lock().await.clone();
        client
            .map(Connected)
            .ok_or_else(|| refused(StatusCode::CONFLICT, "not connected"))
    }
}

async fn lists(Connected(client): Connected) -> Response {
    // A server without one of the lists has it empty.
    let tools = client.list_all_tools().await.unwrap_or_default();
    let resources = client.list_all_resources().await.unwrap_or_default();
    let templates = client.list_all_resource_templates().await.unwrap_or_default();
    let prompts = client.list_all_prompts().await.unwrap_or_default();
    Json(json!({"tools": tools, "resources": resources, "templates": templates, "prompts": prompts})).into_response()
}

#[derive(Deserialize)]
struct RequestBody {
    method: String,
    #[serde(default)]
    params: serde_json::Map<String, Value>,
}

async fn request(
    State(inspector): State<Arc<Inspector>>,
    Connected(client): Connected,
    Json(body): Json<RequestBody>,
) -> Response {
    let watching = Arc::clone(&inspector);
    let options = CallOptions {
        on_progress: Some(Arc::new(move |update| {
            watching.tell(json!({"type": "progress", "progress": update.progress, "total": update.total, "message": update.message}));
        })),
        ..CallOptions::default()
    };
    match client.request::<Value>(&body.method, body.params, &options).await {
        Ok(result) => Json(result).into_response(),
        Err(error) => refused(StatusCode::BAD_GATEWAY, error),
    }
}

#[derive(Deserialize)]
struct TaskBody {
    name: String,
    #[serde(default)]
    arguments: serde_json::Map<String, Value>,
}

/// Calls a tool as a task when the server runs it as one, tells the page how the task goes
/// until it ends, and answers with its result.
async fn task(
    State(inspector): State<Arc<Inspector>>,
    Connected(client): Connected,
    Json(body): Json<TaskBody>,
) -> Response {
    let task = match client.call_tool_as_task(&body.name, body.arguments).await {
        Ok(task) => task,
        Err(error) => return refused(StatusCode::BAD_GATEWAY, error),
    };
    let watching = {
        let (task, inspector) = (task.clone(), Arc::clone(&inspector));
        tokio::spawn(async move {
            while let Ok(Some(status)) = task.status().await {
                let ended = status.status.is_terminal();
                inspector.tell(json!({"type": "task", "task": status}));
                if ended {
                    return;
                }
                tokio::time::sleep(TASK_POLL).await;
            }
        })
    };
    let result = task.result().await;
    let _ = watching.await;
    match result {
        Ok(result) => Json(result).into_response(),
        Err(error) => refused(StatusCode::BAD_GATEWAY, error),
    }
}

#[derive(Deserialize)]
struct CancelBody {
    id: String,
}

async fn cancel_task(Connected(client): Connected, Json(body): Json<CancelBody>) -> Response {
    match client.tool_task(body.id).cancel().await {
        Ok(()) => Json(json!({})).into_response(),
        Err(error) => refused(StatusCode::BAD_GATEWAY, error),
    }
}

#[derive(Deserialize)]
struct AnswerBody {
    id: u64,
    #[serde(default)]
    result: Value,
}

async fn answer(State(inspector): State<Arc<Inspector>>, Json(body): Json<AnswerBody>) -> Response {
    match inspector.questions().remove(&body.id) {
        Some(waiting) => {
            let _ = waiting.send(body.result);
            Json(json!({})).into_response()
        }
        None => refused(StatusCode::NOT_FOUND, "no such question"),
    }
}
