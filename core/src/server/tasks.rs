//! Tasks: a tool call the server answers at once with a task, runs in the background, and
//! reports on when asked. Both forms MCP has are served, each to its own era, from one
//! handler API:
//!
//! - 2025-11-25 (SEP-1686): the client asks with `params.task`; the answer is a nested
//!   `CreateTaskResult`; `tasks/get`, `tasks/result` (which waits for the end), `tasks/list`
//!   and `tasks/cancel`; `notifications/tasks/status` on the session. A handler's requests
//!   to the client go out on the session, tagged with the task, and the task is
//!   `input_required` until they are answered.
//! - 2026-07-28, the extension `io.modelcontextprotocol/tasks` (SEP-2663): the server makes
//!   a task whenever the request's capabilities name the extension; the flat result says
//!   `resultType: "task"`; `tasks/get` carries the result, error or pending input requests,
//!   `tasks/update` answers them (the handler runs again with the answers, as in a multi
//!   round-trip request), `tasks/cancel` stops it.
//!
//! A tool declares once whether it may or must run as a task ([`TaskSupport`]). Records live
//! in a [`TaskStore`] (in memory unless the server was given another); what runs them stays
//! in this process, and stops when the task ends in the store (cancelled on a replica that
//! shares the store and the subscription bus). A task is visible only to its owner: the principal on a protected
//! endpoint, else the legacy session that made it.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, Notify};
use tokio_util::sync::CancellationToken;

use super::dispatch::{finish, parse_params, CursorParams, Outcome};
use super::mrtr::{InputRound, Run};
use super::reply::Reply;
use super::stamp::Stamp;
use crate::protocol::result::protocol_result;
use crate::protocol::{
    code, jsonrpc, meta, methods, CallToolResult, ClientCapabilities, EmptyResult, Era, ErrorObject, InputRequest,
    InputResponse, Meta, ResultType, TaskStatus,
};
use crate::state::{ServerEvent, SubscriptionBus, TaskOutcome, TaskRecord, TaskStore};
use crate::{lock, BoxFuture};

pub use crate::protocol::TASKS_EXTENSION as EXTENSION;

/// The status message of a cancelled task.
const CANCELLED: &str = "the task was cancelled";

/// How long tasks live, how often clients poll them, and how many are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// How long a task is kept after it was created (default one hour); a 2025-11-25
    /// client may ask for less, never for more.
    pub ttl: Duration,
    /// How often clients are asked to poll (default 500 ms).
    pub poll_interval: Duration,
    /// The most tasks kept at once (default 10,000); past it the oldest ended ones go
    /// first, and a new task is refused while every kept one is still running.
    pub max_tasks: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            ttl: Duration::from_secs(60 * 60),
            poll_interval: Duration::from_millis(500),
            max_tasks: 10_000,
        }
    }
}

/// Whether a tool runs as a task when the client supports tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never: every call is answered in place (the default).
    #[default]
    Forbidden,
    /// As a task for clients that ask for one (2025-11-25) or support tasks (2026-07-28),
    /// in place for the others.
    Optional,
    /// Only as a task: a 2025-11-25 call without `task` gets -32601, a 2026-07-28 client
    /// without the extension -32021.
    Required,
}

impl TaskSupport {
    /// The name the wire and the bindings use: `forbidden`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// Read from its name, as bindings pass it: `forbidden`, `optional` or `required`.
impl std::str::FromStr for TaskSupport {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        [TaskSupport::Forbidden, TaskSupport::Optional, TaskSupport::Required]
            .into_iter()
            .find(|support| support.as_str() == name)
            .ok_or_else(|| format!("task support is forbidden, optional or required, not {name:?}"))
    }
}

/// Runs the task's handler once, with the answers so far (a fresh round each time), until
/// it ends or asks for input; it stops when the token is cancelled. Takes the task's id.
pub(crate) type TaskRun = Box<
    dyn Fn(&str, Arc<InputRound>, CancellationToken) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>>
        + Send
        + Sync,
>;

/// What a new task is, besides its handler.
pub(crate) struct NewTask {
    /// Who may see it.
    pub(crate) owner: String,
    /// The era of the request that made it: the wire form it is shown in.
    pub(crate) era: Era,
    /// The time to live the client asked for (2025-11-25).
    pub(crate) ttl: Option<Duration>,
    /// Where its status notifications go (a 2025-11-25 session).
    pub(crate) channel: Option<Reply>,
    /// Cancelled when whatever the task is bound to ends (its session).
    pub(crate) bound_to: Option<CancellationToken>,
    /// What its handler was answered before it became a task.
    pub(crate) answers: BTreeMap<String, InputResponse>,
}

/// Every task of a server: the store of records, and the runs in this process.
#[derive(Clone)]
pub(crate) struct Tasks {
    shared: Arc<Shared>,
}

struct Shared {
    limits: TaskLimits,
    store: Arc<dyn TaskStore>,
    /// Where changes are announced, for `subscriptions/listen` streams.
    bus: Arc<dyn SubscriptionBus>,
    running: Mutex<HashMap<String, Arc<Running>>>,
    /// Stops the runs here of tasks that ended elsewhere (see `watch_ends`), once started.
    watching: std::sync::Once,
}

/// A task running in this process.
struct Running {
    era: Era,
    cancel: CancellationToken,
    /// Signalled after each change of the record made here.
    changed: Notify,
    /// Changes made here go one at a time (read, edit, write).
    writing: tokio::sync::Mutex<()>,
    channel: Option<Reply>,
}

/// What names a task in the params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Named {
    task_id: String,
}

/// Whether the request's client capabilities name the tasks extension.
pub(crate) fn requested(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(EXTENSION))
}

/// The -32021 error of a request that needs the extension the client did not declare.
pub(crate) fn extension_required() -> ErrorObject {
    let mut extensions = Map::new();
    extensions.insert(EXTENSION.to_owned(), Value::Object(Map::new()));
    ErrorObject::missing_required_client_capability(&ClientCapabilities {
        extensions: Some(extensions),
        ..Default::default()
    })
}

/// What a client that cannot reach the store is told; the detail goes to the log.
fn store_failed(error: std::io::Error) -> ErrorObject {
    tracing::error!(%error, "the task store failed");
    ErrorObject::internal("the task store is unavailable")
}

impl Tasks {
    pub(crate) fn new(limits: TaskLimits, store: Arc<dyn TaskStore>, bus: Arc<dyn SubscriptionBus>) -> Self {
        Tasks {
            shared: Arc::new(Shared {
                limits,
                store,
                bus,
                running: Mutex::new(HashMap::new()),
                watching: std::sync::Once::new(),
            }),
        }
    }

    /// Starts a task that runs `run` in the background, and gives its `CreateTaskResult`
    /// (the task is stored before: a `tasks/get` for it resolves).
    pub(crate) async fn start(&self, new: NewTask, run: TaskRun, stamp: Option<&Stamp>) -> Outcome {
        let limits = &self.shared.limits;
        let now = SystemTime::now();
        let record = TaskRecord {
            id: super::random_id().map_err(ErrorObject::internal)?,
            owner: new.owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: new.ttl.map_or(limits.ttl, |asked| asked.min(limits.ttl)),
            poll_interval: limits.poll_interval,
            outcome: None,
            input_requests: Default::default(),
            input_responses: new.answers,
        };
        let kept = self
            .shared
            .store
            .create(&record, limits.max_tasks)
            .await
            .map_err(store_failed)?;
        if !kept {
            return Err(ErrorObject::internal("too many tasks are running; try again later"));
        }
        let running = Arc::new(Running {
            era: new.era,
            cancel: new
                .bound_to
                .map_or_else(CancellationToken::new, |bound| bound.child_token()),
            changed: Notify::new(),
            writing: tokio::sync::Mutex::new(()),
            channel: new.channel,
        });
        self.watch_ends();
        lock(&self.shared.running).insert(record.id.clone(), Arc::clone(&running));
        tokio::spawn(self.clone().drive(record.id.clone(), running, run));
        match new.era {
            Era::Modern => finish(View::modern(&record, Some(ResultType::Task), false), stamp),
            Era::Legacy => {
                #[derive(Serialize)]
                struct CreateTaskResult<'a> {
                    task: View<'a>,
                }
                serde_json::to_string(&CreateTaskResult {
                    task: View::legacy(&record),
                })
                .map_err(ErrorObject::internal)
            }
        }
    }

    /// Task `task_id`, when `owner` made it and it has not expired.
    async fn find(&self, owner: &str, task_id: &str) -> Result<TaskRecord, ErrorObject> {
        self.shared
            .store
            .get(task_id)
            .await
            .map_err(store_failed)?
            .filter(|task| task.owner == owner)
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown task: {task_id}")))
    }

    /// `tasks/get`: the task as the era shows it; in the modern era with its result, error
    /// or pending input requests.
    pub(crate) async fn get(&self, era: Era, owner: &str, params: Option<&RawValue>, stamp: Option<&Stamp>) -> Outcome {
        let Named { task_id } = parse_params(params)?;
        let task = self.find(owner, &task_id).await?;
        match era {
            Era::Modern => finish(View::modern(&task, Some(ResultType::Complete), true), stamp),
            Era::Legacy => finish(View::legacy(&task), None),
        }
    }

    /// `tasks/update` (2026-07-28): records the answers to pending input requests (others
    /// are ignored) before it acknowledges, so that the next `tasks/get` no longer lists
    /// them.
    pub(crate) async fn update(&self, owner: &str, params: Option<&RawValue>, stamp: Option<&Stamp>) -> Outcome {
        // Responses stay raw until matched: those to keys not pending are ignored unread.
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Update {
            task_id: String,
            #[serde(default)]
            input_responses: Map<String, Value>,
        }
        let Update {
            task_id,
            input_responses,
        } = parse_params(params)?;
        let task = self.find(owner, &task_id).await?;
        let mut answers = Vec::new();
        for (key, response) in input_responses {
            if task.input_requests.contains_key(&key) {
                let response: InputResponse = serde_json::from_value(response)
                    .map_err(|e| ErrorObject::invalid_params(format!("inputResponses.{key}: {e}")))?;
                answers.push((key, response));
            }
        }
        self.change(&task_id, |task| {
            for (key, response) in answers {
                if task.input_requests.remove(&key).is_some() {
                    task.input_responses.insert(key, response);
                }
            }
            true
        })
        .await?;
        finish(EmptyResult::default(), stamp)
    }

    /// `tasks/cancel`: stops the task if it is still running. A task that ended is left as
    /// it is: acknowledged all the same in the modern era, refused with -32602 in the
    /// legacy one, whose answer is the cancelled task.
    pub(crate) async fn cancel(
        &self,
        era: Era,
        owner: &str,
        params: Option<&RawValue>,
        stamp: Option<&Stamp>,
    ) -> Outcome {
        let Named { task_id } = parse_params(params)?;
        let task = self.find(owner, &task_id).await?;
        let cancelled = self
            .change(&task_id, |task| {
                task.end(TaskStatus::Cancelled, None, Some(CANCELLED.to_owned()));
                true
            })
            .await?;
        if let Some(running) = self.running(&task_id) {
            running.cancel.cancel();
        }
        match (era, cancelled) {
            (Era::Modern, _) => finish(EmptyResult::default(), stamp),
            (Era::Legacy, Some(cancelled)) => finish(View::legacy(&cancelled), None),
            (Era::Legacy, None) => Err(ErrorObject::invalid_params(format!(
                "task {task_id} already ended: {}",
                task.status.as_str()
            ))),
        }
    }

    /// `tasks/result` (2025-11-25): waits until the task ends, then answers what its
    /// request would have: the result, tagged with the task, or the error.
    pub(crate) async fn result(&self, owner: &str, params: Option<&RawValue>) -> Outcome {
        let Named { task_id } = parse_params(params)?;
        self.find(owner, &task_id).await?;
        let task = self
            .wait_until(&task_id, |task| task.status.is_terminal())
            .await?
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown task: {task_id}")))?;
        match task.outcome {
            Some(TaskOutcome::Result(mut result)) => {
                meta::tag_related_task(&mut result, &task.id);
                serde_json::to_string(&result).map_err(ErrorObject::internal)
            }
            Some(TaskOutcome::Error(error)) => Err(error),
            _ => Err(ErrorObject::invalid_params(format!("task {task_id} was cancelled"))),
        }
    }

    /// `tasks/list` (2025-11-25): the owner's tasks, a page at a time; the cursor is the
    /// last task of the previous page. A caller who cannot be told apart from others
    /// (no token, no session) is shown none.
    pub(crate) async fn list(&self, owner: &str, params: Option<&RawValue>, page_size: usize) -> Outcome {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct ListTasksResult<'a> {
            tasks: Vec<View<'a>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            next_cursor: Option<&'a str>,
        }
        let CursorParams { cursor } = parse_params(params)?;
        let after = match cursor {
            Some(cursor) => Some(
                self.find(owner, &cursor)
                    .await
                    .map_err(|_| ErrorObject::invalid_params("invalid cursor"))?,
            ),
            None => None,
        };
        let mut tasks = if owner.is_empty() {
            Vec::new()
        } else {
            self.shared
                .store
                .list(owner, after.as_ref(), page_size + 1)
                .await
                .map_err(store_failed)?
        };
        let more = tasks.len() > page_size;
        tasks.truncate(page_size);
        let result = ListTasksResult {
            tasks: tasks.iter().map(View::legacy).collect(),
            next_cursor: tasks.last().filter(|_| more).map(|task| task.id.as_str()),
        };
        serde_json::to_string(&result).map_err(ErrorObject::internal)
    }

    /// Marks task `task_id` as waiting for the client (a legacy handler's request is out),
    /// or working again once it was answered.
    pub(crate) async fn set_waiting(&self, task_id: &str, waiting: bool) {
        let status = if waiting {
            TaskStatus::InputRequired
        } else {
            TaskStatus::Working
        };
        if let Err(error) = self
            .change(task_id, |task| {
                task.status = status;
                true
            })
            .await
        {
            tracing::warn!(%error, task_id, "could not record a task's status");
        }
    }

    /// Sets what task `task_id` says it is doing (its `statusMessage`), while it runs.
    pub(crate) async fn set_message(&self, task_id: &str, message: String) {
        if let Err(error) = self
            .change(task_id, |task| {
                task.status_message = Some(message);
                true
            })
            .await
        {
            tracing::warn!(%error, task_id, "could not record a task's status message");
        }
    }

    /// Of `task_ids`, those of `owner`'s tasks that are known: what a `subscriptions/listen`
    /// stream may follow.
    pub(crate) async fn owned(&self, owner: &str, task_ids: &[String]) -> Result<Vec<String>, ErrorObject> {
        let mut owned = Vec::new();
        for id in task_ids {
            let task = self.shared.store.get(id).await.map_err(store_failed)?;
            if task.is_some_and(|task| task.owner == owner) {
                owned.push(id.clone());
            }
        }
        Ok(owned)
    }

    /// The `notifications/tasks` params of task `task_id` as it is now (the detailed task),
    /// `None` once it is gone.
    pub(crate) async fn notification(&self, task_id: &str) -> Result<Option<Value>, ErrorObject> {
        let task = self.shared.store.get(task_id).await.map_err(store_failed)?;
        task.map(|task| serde_json::to_value(View::modern(&task, None, true)).map_err(ErrorObject::internal))
            .transpose()
    }

    /// From the first task on, stops the run here of a task that ended in the store: a
    /// `tasks/cancel` served by another replica sharing the store and the bus.
    fn watch_ends(&self) {
        self.shared.watching.call_once(|| {
            let mut events = self.shared.bus.subscribe();
            let shared = Arc::downgrade(&self.shared);
            tokio::spawn(async move {
                loop {
                    let task_id = match events.recv().await {
                        Ok(ServerEvent::TaskChanged(task_id)) => task_id,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => return,
                    };
                    let Some(shared) = shared.upgrade() else { return };
                    let Some(running) = lock(&shared.running).get(task_id.as_ref()).cloned() else {
                        continue;
                    };
                    if let Ok(Some(task)) = shared.store.get(&task_id).await {
                        if task.status.is_terminal() {
                            running.cancel.cancel();
                        }
                    }
                }
            });
        });
    }

    fn running(&self, task_id: &str) -> Option<Arc<Running>> {
        lock(&self.shared.running).get(task_id).cloned()
    }

    /// Edits task `task_id` unless it ended (or `edit` declines), one change at a time for
    /// the tasks running here; wakes whoever waits on the task, and tells a legacy session
    /// when its status changed. Gives the task as changed, `None` when it was not.
    async fn change(
        &self,
        task_id: &str,
        edit: impl FnOnce(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, ErrorObject> {
        let running = self.running(task_id);
        let _writing = match &running {
            Some(running) => Some(running.writing.lock().await),
            None => None,
        };
        let store = &self.shared.store;
        let Some(mut task) = store.get(task_id).await.map_err(store_failed)? else {
            return Ok(None);
        };
        let before = (task.status, task.status_message.clone());
        if before.0.is_terminal() || !edit(&mut task) {
            return Ok(None);
        }
        task.last_updated_at = SystemTime::now();
        if !store.update(&task).await.map_err(store_failed)? {
            return Ok(None);
        }
        self.shared
            .bus
            .publish(ServerEvent::TaskChanged(task.id.as_str().into()));
        if let Some(running) = &running {
            running.changed.notify_waiters();
            let shown_changed = (task.status, task.status_message.as_ref()) != (before.0, before.1.as_ref());
            if let (Some(channel), true) = (&running.channel, shown_changed) {
                let notification = jsonrpc::notification_text(methods::TASKS_STATUS, Some(&View::legacy(&task)));
                channel.send(notification).await;
            }
        }
        Ok(Some(task))
    }

    /// Runs the task's handler until it ends: in the modern era again with the answers
    /// each time it asked for input and they all came; stopped at once by `tasks/cancel`.
    async fn drive(self, task_id: String, running: Arc<Running>, run: TaskRun) {
        if let Err(error) = self.run_to_end(&task_id, &running, &run).await {
            tracing::error!(%error, task_id, "a task could not be recorded");
        }
        lock(&self.shared.running).remove(&task_id);
    }

    async fn run_to_end(&self, task_id: &str, running: &Running, run: &TaskRun) -> Result<(), ErrorObject> {
        let cancel = &running.cancel;
        loop {
            let Some(task) = self.shared.store.get(task_id).await.map_err(store_failed)? else {
                return Ok(());
            };
            let round = Arc::new(InputRound::with_answers(task.input_responses));
            let ran = until_cancelled(cancel, round.run(run(task_id, Arc::clone(&round), cancel.clone()))).await;
            let (status, outcome, message) = match ran {
                None => (TaskStatus::Cancelled, None, Some(CANCELLED.to_owned())),
                Some(Run::Done(Ok(result))) => {
                    // 2025-11-25 counts a tool's error as the task's failure; 2026-07-28
                    // keeps `failed` for JSON-RPC errors.
                    let failed = running.era == Era::Legacy && result.is_error == Some(true);
                    let outcome = serde_json::to_value(&result).map_err(ErrorObject::internal)?;
                    let status = if failed {
                        TaskStatus::Failed
                    } else {
                        TaskStatus::Completed
                    };
                    (status, Some(TaskOutcome::Result(outcome)), None)
                }
                Some(Run::Done(Err(error))) => {
                    let message = error.message.clone();
                    (TaskStatus::Failed, Some(TaskOutcome::Error(error)), Some(message))
                }
                // A task's rounds never let it begin again.
                Some(Run::BeginTask) => return Err(ErrorObject::internal("a task cannot begin again")),
                Some(Run::NeedsInput) => {
                    let asked = round.take_asked();
                    self.change(task_id, |task| {
                        task.status = TaskStatus::InputRequired;
                        task.input_requests = asked;
                        true
                    })
                    .await?;
                    match until_cancelled(cancel, self.all_answered(task_id)).await {
                        Some(Ok(true)) => {
                            self.set_waiting(task_id, false).await;
                            continue;
                        }
                        Some(Ok(false)) => return Ok(()),
                        Some(Err(error)) => return Err(error),
                        None => (TaskStatus::Cancelled, None, Some(CANCELLED.to_owned())),
                    }
                }
            };
            self.change(task_id, |task| {
                task.end(status, outcome, message);
                true
            })
            .await?;
            return Ok(());
        }
    }

    /// Waits until no input request of the task is pending (true), or the task ended or
    /// is gone (false).
    async fn all_answered(&self, task_id: &str) -> Result<bool, ErrorObject> {
        let answered = self
            .wait_until(task_id, |task| {
                task.status.is_terminal() || task.input_requests.is_empty()
            })
            .await?;
        Ok(answered.is_some_and(|task| !task.status.is_terminal()))
    }

    /// Task `task_id` once `ready` holds for it (`None` if it is gone first): read again
    /// after each change made here, and each poll interval for changes made elsewhere.
    async fn wait_until(
        &self,
        task_id: &str,
        ready: impl Fn(&TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, ErrorObject> {
        let running = self.running(task_id);
        loop {
            let changed = running.as_ref().map(|running| running.changed.notified());
            let Some(task) = self.shared.store.get(task_id).await.map_err(store_failed)? else {
                return Ok(None);
            };
            if ready(&task) {
                return Ok(Some(task));
            }
            let poll = tokio::time::sleep(task.poll_interval);
            match changed {
                Some(changed) => {
                    tokio::select! {
                        _ = changed => {}
                        _ = poll => {}
                    }
                }
                None => poll.await,
            }
        }
    }
}

/// A task on the wire. The modern era writes `ttlMs` and `pollIntervalMs`, the legacy one
/// `ttl` and `pollInterval`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct View<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    task_id: &'a str,
    status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a str>,
    created_at: String,
    last_updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    poll_interval_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    poll_interval: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<&'a std::collections::BTreeMap<String, InputRequest>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
}
protocol_result!(View<'_>);

impl<'a> View<'a> {
    fn base(task: &'a TaskRecord) -> Self {
        View {
            result_type: None,
            task_id: &task.id,
            status: task.status,
            status_message: task.status_message.as_deref(),
            created_at: humantime::format_rfc3339_millis(task.created_at).to_string(),
            last_updated_at: humantime::format_rfc3339_millis(task.last_updated_at).to_string(),
            ttl_ms: None,
            poll_interval_ms: None,
            ttl: None,
            poll_interval: None,
            input_requests: None,
            result: None,
            error: None,
            meta: None,
        }
    }

    /// The 2025-11-25 `Task`.
    fn legacy(task: &'a TaskRecord) -> Self {
        View {
            ttl: Some(millis(task.ttl)),
            poll_interval: Some(millis(task.poll_interval)),
            ..View::base(task)
        }
    }

    /// The 2026-07-28 task: a `CreateTaskResult`, or with what its status carries
    /// (`detailed`, for `tasks/get` and `notifications/tasks`).
    fn modern(task: &'a TaskRecord, result_type: Option<ResultType>, detailed: bool) -> Self {
        let (result, error) = match (&task.outcome, detailed) {
            (Some(TaskOutcome::Result(result)), true) => (Some(result), None),
            (Some(TaskOutcome::Error(error)), true) => (None, Some(error)),
            _ => (None, None),
        };
        View {
            result_type,
            ttl_ms: Some(millis(task.ttl)),
            poll_interval_ms: Some(millis(task.poll_interval)),
            input_requests: (detailed && task.status == TaskStatus::InputRequired).then_some(&task.input_requests),
            result,
            error,
            ..View::base(task)
        }
    }
}

/// The -32601 of a 2025-11-25 call whose `task` does not fit the tool.
pub(crate) fn unsupported(tool: &str, support: TaskSupport) -> ErrorObject {
    let message = match support {
        TaskSupport::Required => format!("tool {tool} must be called as a task"),
        _ => format!("tool {tool} cannot be called as a task"),
    };
    ErrorObject::new(code::METHOD_NOT_FOUND, message)
}

/// `future`'s output, or `None` once `cancel` fires.
async fn until_cancelled<F: Future>(cancel: &CancellationToken, future: F) -> Option<F::Output> {
    tokio::select! {
        biased;
        _ = cancel.cancelled() => None,
        output = future => Some(output),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
