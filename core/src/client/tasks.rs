//! Tool calls the server runs as tasks, in both forms: 2025-11-25 (the client asks with
//! `params.task`; the server's requests arrive on the connection and the client's handlers
//! answer them; `tasks/result` gives the call's own answer) and the 2026-07-28 tasks
//! extension (the server makes a task for a client that declares the extension; what it
//! asks for is answered with `tasks/update`; `tasks/get` carries the result).
//!
//! [`Client::call_tool`] follows a task to its result, polling at the interval the server
//! asks for; [`Client::call_tool_as_task`] gives a [`ToolTask`] to poll, wait for, read or
//! cancel.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::send::{Answered, CallOptions, ProgressWatch};
use super::{decode, lock, to_value, Client};
use crate::error::{Error, Result};
use crate::protocol::{
    code, meta, methods, CallToolResult, Era, ErrorObject, InputRequests, InputResponses, RequestId, Task, TaskStatus,
};

/// The polling interval when the server names none, and the bounds of one it names.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(30);

/// What the client reads of a `tasks/get` result: the task, and in the modern era what its
/// status carries.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Polled {
    #[serde(flatten)]
    task: Task,
    #[serde(default)]
    input_requests: Option<InputRequests>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

/// A 2025-11-25 `CreateTaskResult`: the task, nested.
#[derive(Deserialize)]
struct Created {
    task: Task,
}

/// A tool call made with [`Client::call_tool_as_task`]: a task on the server, or the answer
/// of a server that ran the call in place (one without tasks, or a tool that never runs as
/// one). Cheap to clone; clones refer to the same task.
#[derive(Clone)]
pub struct ToolTask {
    client: Client,
    call: Call,
}

/// What the server made of the call.
#[derive(Debug, Clone)]
enum Call {
    /// A task.
    Task(TaskRef),
    /// The answer, in place.
    Answered(std::sync::Arc<RawValue>),
}

/// What a [`ToolTask`] knows of its task before it asks: its id, and how often the server
/// said to poll.
#[derive(Debug, Clone)]
struct TaskRef {
    id: String,
    poll_interval_ms: Option<u64>,
}

impl From<Task> for TaskRef {
    fn from(task: Task) -> Self {
        TaskRef {
            id: task.task_id,
            poll_interval_ms: task.poll_interval_ms,
        }
    }
}

impl std::fmt::Debug for ToolTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolTask").field("call", &self.call).finish()
    }
}

impl ToolTask {
    /// The task's id; `None` when the server answered the call in place.
    pub fn id(&self) -> Option<&str> {
        self.task().map(|task| task.id.as_str())
    }

    fn task(&self) -> Option<&TaskRef> {
        match &self.call {
            Call::Task(task) => Some(task),
            Call::Answered(_) => None,
        }
    }

    /// The task as the server shows it now (`tasks/get`); `None` when the call was
    /// answered in place.
    pub async fn status(&self) -> Result<Option<Task>> {
        match self.task() {
            Some(task) => Ok(Some(self.poll(&task.id, &CallOptions::default()).await?.task)),
            None => Ok(None),
        }
    }

    /// Waits until the task ends, answering what it asks for with the client's handlers,
    /// and gives it as it ended; `None` when the call was answered in place.
    pub async fn wait(&self) -> Result<Option<Task>> {
        match self.task() {
            Some(task) => Ok(Some(self.follow(task, &CallOptions::default()).await?.task)),
            None => Ok(None),
        }
    }

    /// What the tool returned, once the task ended (waiting for it as [`wait`](Self::wait)
    /// does). A task that failed with an error gives it; one that was cancelled gives
    /// [`Error::Cancelled`].
    pub async fn result(&self) -> Result<CallToolResult> {
        self.result_with(&CallOptions::default()).await
    }

    /// [`result`](Self::result) with a timeout for each poll and a cancellation that
    /// cancels the task.
    pub async fn result_with(&self, options: &CallOptions) -> Result<CallToolResult> {
        decode(&self.raw_result(options).await?)
    }

    /// Asks the server to stop the task. A task that ended already stays as it ended.
    pub async fn cancel(&self) -> Result<()> {
        let Some(task) = self.task() else {
            return Ok(());
        };
        match self
            .client
            .task_request(methods::TASKS_CANCEL, &task.id, None, &CallOptions::default())
            .await
        {
            // 2025-11-25 refuses to cancel a task that ended: nothing is left to stop.
            Err(Error::Remote(error)) if error.code == code::INVALID_PARAMS && self.legacy() => {
                match self.status().await? {
                    Some(now) if now.status.is_terminal() => Ok(()),
                    _ => Err(Error::Remote(error)),
                }
            }
            outcome => outcome.map(drop),
        }
    }

    /// The call's raw result, as if the server had answered it in place.
    async fn raw_result(&self, options: &CallOptions) -> Result<Box<RawValue>> {
        let task = match &self.call {
            Call::Task(task) => task,
            Call::Answered(answer) => return Ok(answer.as_ref().to_owned()),
        };
        let ended = self.follow(task, options).await?;
        let id = &task.id;
        match ended.task.status {
            TaskStatus::Cancelled => Err(Error::Cancelled),
            // 2025-11-25 gives the call's own answer, result or error, on request.
            _ if self.legacy() => {
                let poll = per_poll(options);
                self.client.task_request(methods::TASKS_RESULT, id, None, &poll).await
            }
            TaskStatus::Failed => Err(Error::Remote(
                ended
                    .error
                    .unwrap_or_else(|| ErrorObject::internal(format!("task {id} failed"))),
            )),
            _ => ended
                .result
                .ok_or_else(|| Error::InvalidResponse(format!("task {id} completed without a result"))),
        }
    }

    fn legacy(&self) -> bool {
        self.client.protocol_version().era() == Era::Legacy
    }

    async fn poll(&self, id: &str, options: &CallOptions) -> Result<Polled> {
        decode(&self.client.task_request(methods::TASKS_GET, id, None, options).await?)
    }

    /// Polls the task until it ends: at once (it may have ended already: a quick tool, or
    /// a task its caller saw end), then at the interval the server asks for. In the modern era
    /// what it asks for is answered with `tasks/update`; in the legacy era the server's
    /// requests reach the client's handlers on the connection, and polling goes on. When
    /// `options`' cancellation fires, the task is cancelled.
    async fn follow(&self, created: &TaskRef, options: &CallOptions) -> Result<Polled> {
        let client = &self.client;
        let id = &created.id;
        let poll = per_poll(options);
        let cancellation = options.cancellation.clone().unwrap_or_default();
        // Keys answered already: a poll may still list them.
        let mut answered = BTreeSet::new();
        let mut interval = created.poll_interval_ms;
        let mut wait = Duration::ZERO;
        loop {
            if !client.wait_or_cancel(id, wait, &cancellation).await {
                return Err(Error::Cancelled);
            }
            let mut polled = self.poll(id, &poll).await?;
            interval = polled.task.poll_interval_ms.or(interval);
            wait = interval
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            match polled.task.status {
                status if status.is_terminal() => return Ok(polled),
                TaskStatus::InputRequired => {
                    let asked: InputRequests = polled
                        .input_requests
                        .take()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if !asked.is_empty() {
                        let responses = client.answer_round(methods::TOOLS_CALL, asked).await?;
                        answered.extend(responses.keys().cloned());
                        client
                            .task_request(methods::TASKS_UPDATE, id, Some(&responses), &poll)
                            .await?;
                        // Answered: look again at once.
                        wait = Duration::ZERO;
                    }
                }
                _ => {}
            }
        }
    }
}

/// Each poll has the call's timeout; the task may run far longer than one request.
fn per_poll(options: &CallOptions) -> CallOptions {
    CallOptions {
        timeout: options.timeout,
        ..CallOptions::default()
    }
}

impl Client {
    /// Calls a tool as a task, when the server runs it as one: in the 2026-07-28 era the
    /// server decides (the client declares the tasks extension unless
    /// [`ClientOptions::tasks`](super::ClientOptions::tasks) is off); in 2025-11-25 the call
    /// asks for one when the server declares tasks for tool calls. A server that answers
    /// in place gives a [`ToolTask`] that holds the answer.
    pub async fn call_tool_as_task(&self, name: &str, arguments: impl serde::Serialize) -> Result<ToolTask> {
        let params = tool_call_params(name, arguments)?;
        let options = CallOptions::default();
        if self.protocol_version().era() == Era::Legacy {
            if !self.server_runs_tool_tasks() {
                return Ok(self.answered(self.request_raw(methods::TOOLS_CALL, params, &options).await?));
            }
            let mut as_task = params.clone();
            as_task.insert("task".into(), Value::Object(Map::new()));
            // -32601: the tool never runs as a task, and is called in place.
            return match self.request_raw(methods::TOOLS_CALL, as_task, &options).await {
                Err(Error::Remote(error)) if error.code == code::METHOD_NOT_FOUND => {
                    Ok(self.answered(self.request_raw(methods::TOOLS_CALL, params, &options).await?))
                }
                answer => Ok(self.legacy_answer(answer?)),
            };
        }
        match self.request_to_task(methods::TOOLS_CALL, params, &options).await? {
            Answered::Done(raw) => Ok(self.answered(raw)),
            Answered::Task(raw) => Ok(self.task_of(decode::<Task>(&raw)?.into())),
        }
    }

    /// A 2025-11-25 tool call's answer: a `CreateTaskResult`, or the call's result.
    fn legacy_answer(&self, raw: Box<RawValue>) -> ToolTask {
        match decode::<Created>(&raw) {
            Ok(created) => self.task_of(created.task.into()),
            Err(_) => self.answered(raw),
        }
    }

    /// A handle on task `id`, made by an earlier tool call (of this client or of another
    /// connection of the same caller): to poll it, wait for it, read it or cancel it.
    pub fn tool_task(&self, id: impl Into<String>) -> ToolTask {
        self.task_of(TaskRef {
            id: id.into(),
            poll_interval_ms: None,
        })
    }

    fn task_of(&self, task: TaskRef) -> ToolTask {
        ToolTask {
            client: self.clone(),
            call: Call::Task(task),
        }
    }

    fn answered(&self, raw: Box<RawValue>) -> ToolTask {
        ToolTask {
            client: self.clone(),
            call: Call::Answered(raw.into()),
        }
    }

    /// Whether the server declared that it runs tool calls as tasks (2025-11-25).
    fn server_runs_tool_tasks(&self) -> bool {
        self.server_details()
            .capabilities
            .tasks
            .as_ref()
            .and_then(|tasks| tasks.get("requests")?.get("tools")?.get("call"))
            .is_some()
    }

    /// Follows the modern task `created` to its result (the raw result of the request, as
    /// if it had been answered in place).
    pub(super) async fn follow_task(&self, created: &RawValue, options: &CallOptions) -> Result<Box<RawValue>> {
        self.task_of(decode::<Task>(created)?.into()).raw_result(options).await
    }

    /// A 2025-11-25 tool call refused with -32601 by a server that runs tool calls as
    /// tasks is a tool that must run as one: it is called again as a task, followed to
    /// its result.
    pub(super) async fn call_legacy_tool(
        &self,
        mut params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        let _progress = self.task_progress(&mut params, options);
        let options = &CallOptions {
            on_progress: None,
            ..options.clone()
        };
        match self.request_raw(methods::TOOLS_CALL, params.clone(), options).await {
            Err(Error::Remote(error)) if error.code == code::METHOD_NOT_FOUND && self.server_runs_tool_tasks() => {
                let mut params = params;
                params.insert("task".into(), Value::Object(Map::new()));
                let created = self.request_raw(methods::TOOLS_CALL, params, options).await?;
                self.legacy_answer(created).raw_result(options).await
            }
            outcome => outcome,
        }
    }

    /// A 2025-11-25 call's progress token stays valid while its task runs: when `options`
    /// want progress, the call carries a token of the client's own, whose progress reaches
    /// the callback until the returned guard is dropped (the call and its task are over).
    fn task_progress(&self, params: &mut Map<String, Value>, options: &CallOptions) -> Option<ProgressGuard> {
        let callback = options.on_progress.clone()?;
        let token =
            RequestId::String(format!("task-progress-{}", NEXT_PROGRESS_TOKEN.fetch_add(1, Ordering::Relaxed)).into());
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(meta::PROGRESS_TOKEN.into(), to_value(&token));
        }
        let watch = ProgressWatch {
            callback: Some(callback),
            arrived: Default::default(),
        };
        lock(&self.inner.progress).insert(token.clone(), watch);
        Some(ProgressGuard {
            client: self.clone(),
            token,
        })
    }

    /// Waits `wait`; when `cancellation` fires first, cancels the task and says so (false).
    async fn wait_or_cancel(&self, id: &str, wait: Duration, cancellation: &CancellationToken) -> bool {
        tokio::select! {
            // A cancellation that came first wins over a wait that is over at once.
            biased;
            _ = cancellation.cancelled() => {
                // Best effort: the call ends cancelled whatever the server answers.
                let _ = self.task_request(methods::TASKS_CANCEL, id, None, &CallOptions::default()).await;
                false
            }
            _ = tokio::time::sleep(wait) => true,
        }
    }

    /// A request about task `id` (`tasks/update` with `responses`).
    async fn task_request(
        &self,
        method: &str,
        id: &str,
        responses: Option<&InputResponses>,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        let mut params = Map::from_iter([("taskId".to_owned(), Value::from(id))]);
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), to_value(responses));
        }
        self.request_raw(method, params, options).await
    }
}

/// The params of a `tools/call`: `arguments` must serialize to a JSON object (or null for
/// none).
pub(super) fn tool_call_params(name: &str, arguments: impl serde::Serialize) -> Result<Map<String, Value>> {
    let arguments = serde_json::to_value(arguments).map_err(|e| Error::Protocol(e.to_string()))?;
    let mut params = Map::new();
    params.insert("name".into(), name.into());
    match arguments {
        Value::Null => {}
        Value::Object(_) => {
            params.insert("arguments".into(), arguments);
        }
        _ => return Err(Error::Protocol("tool arguments must be a JSON object".into())),
    }
    Ok(params)
}

/// Numbers the progress tokens the client names itself.
static NEXT_PROGRESS_TOKEN: AtomicU64 = AtomicU64::new(1);

/// Stops following a progress token when dropped.
struct ProgressGuard {
    client: Client,
    token: RequestId,
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        lock(&self.client.inner.progress).remove(&self.token);
    }
}
