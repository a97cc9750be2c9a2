//! Tasks, as the 2026-07-28 extension `io.modelcontextprotocol/tasks` has them (SEP-2663): a
//! tool call the server answers at once with a task, runs in the background, and reports
//! through `tasks/get`; `tasks/update` answers what the task asks the client for (its
//! handler runs again with the answers, as in a multi round-trip request), `tasks/cancel`
//! stops it.
//!
//! The same handler serves a plain call and a task: a tool declares once whether it may or
//! must run as one ([`TaskSupport`]), and the server makes a task whenever the request's
//! client capabilities name the extension. Tasks are kept in memory, visible only to the
//! caller that made them (the same principal on a protected endpoint), and forgotten a
//! while after they end.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::dispatch::{finish, parse_params, Outcome};
use super::mrtr::{InputRound, Run};
use crate::protocol::result::protocol_result;
use crate::protocol::{
    CallToolResult, ClientCapabilities, EmptyResult, ErrorObject, InputRequest, InputResponse, Meta, ResultType,
};
use crate::{lock, BoxFuture};

/// What names a task in the params of `tasks/get` and `tasks/cancel`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Named {
    task_id: String,
}

pub use crate::protocol::TASKS_EXTENSION as EXTENSION;

/// How long tasks live, how often clients poll them, and how many are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// How long a task is kept after it was created, its `ttlMs` (default one hour).
    pub ttl: Duration,
    /// How often clients are asked to poll, `pollIntervalMs` (default 500 ms).
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never: every call is answered in place (the default).
    #[default]
    Forbidden,
    /// As a task for clients that support tasks, in place for the others.
    Optional,
    /// Only as a task: a client without task support gets -32021.
    Required,
}

/// Read from its name, as bindings pass it: `forbidden`, `optional` or `required`.
impl std::str::FromStr for TaskSupport {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "forbidden" => Ok(TaskSupport::Forbidden),
            "optional" => Ok(TaskSupport::Optional),
            "required" => Ok(TaskSupport::Required),
            other => Err(format!(
                "task support is forbidden, optional or required, not {other:?}"
            )),
        }
    }
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn ended(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// Runs the task's handler once, with the answers so far (a fresh round each time), until
/// it ends or asks for input; it stops when the token is cancelled.
pub(crate) type TaskRun = Box<
    dyn Fn(Arc<InputRound>, CancellationToken) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> + Send + Sync,
>;

/// Every task of a server.
pub(crate) struct Tasks {
    limits: TaskLimits,
    table: Mutex<HashMap<String, Arc<Task>>>,
}

/// One task: who made it, and its state.
struct Task {
    id: String,
    owner: String,
    created_at: SystemTime,
    cancel: CancellationToken,
    state: Mutex<TaskState>,
    /// Signalled when answers arrive.
    answered: Notify,
}

struct TaskState {
    status: Status,
    last_updated_at: SystemTime,
    result: Option<Value>,
    error: Option<ErrorObject>,
    /// The input requests not answered yet, by key.
    pending: BTreeMap<String, InputRequest>,
    /// Every answer so far, by key.
    answers: BTreeMap<String, InputResponse>,
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

impl Tasks {
    pub(crate) fn new(limits: TaskLimits) -> Self {
        Tasks {
            limits,
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Starts a task of `owner` that runs `run` in the background, and gives its
    /// `CreateTaskResult` (the task is stored before: a `tasks/get` for it resolves).
    pub(crate) fn start(&self, owner: String, run: TaskRun, stamp: Option<&Value>) -> Outcome {
        let now = SystemTime::now();
        let task = Arc::new(Task {
            id: super::random_id().map_err(ErrorObject::internal)?,
            owner,
            created_at: now,
            cancel: CancellationToken::new(),
            state: Mutex::new(TaskState {
                status: Status::Working,
                last_updated_at: now,
                result: None,
                error: None,
                pending: BTreeMap::new(),
                answers: BTreeMap::new(),
            }),
            answered: Notify::new(),
        });
        self.keep(Arc::clone(&task))?;
        let created = task.view(&self.limits, ResultType::Task, false, stamp);
        tokio::spawn(drive(task, run));
        created
    }

    /// Keeps `task`, making room first: expired tasks go, then ended ones, oldest first.
    fn keep(&self, task: Arc<Task>) -> Result<(), ErrorObject> {
        let mut table = lock(&self.table);
        let now = SystemTime::now();
        table.retain(|_, kept| !kept.expired(self.limits.ttl, now));
        if table.len() >= self.limits.max_tasks {
            let oldest_ended = table
                .values()
                .filter(|kept| lock(&kept.state).status.ended())
                .min_by_key(|kept| kept.created_at)
                .map(|kept| kept.id.clone());
            match oldest_ended {
                Some(id) => {
                    table.remove(&id);
                }
                None => return Err(ErrorObject::internal("too many tasks are running; try again later")),
            }
        }
        table.insert(task.id.clone(), task);
        Ok(())
    }

    /// Task `task_id`, when `owner` made it and it has not expired.
    fn find(&self, owner: &str, task_id: &str) -> Result<Arc<Task>, ErrorObject> {
        let table = lock(&self.table);
        table
            .get(task_id)
            .filter(|task| task.owner == owner && !task.expired(self.limits.ttl, SystemTime::now()))
            .cloned()
            .ok_or_else(|| ErrorObject::invalid_params(format!("unknown task: {task_id}")))
    }

    /// `tasks/get`: the task, with its result, error or pending input requests.
    pub(crate) fn get(
        &self,
        owner: &str,
        params: Option<&serde_json::value::RawValue>,
        stamp: Option<&Value>,
    ) -> Outcome {
        let Named { task_id } = parse_params(params)?;
        self.find(owner, &task_id)?
            .view(&self.limits, ResultType::Complete, true, stamp)
    }

    /// `tasks/update`: records the answers to pending input requests (others are ignored)
    /// before it acknowledges, so that the next `tasks/get` no longer lists them.
    pub(crate) fn update(
        &self,
        owner: &str,
        params: Option<&serde_json::value::RawValue>,
        stamp: Option<&Value>,
    ) -> Outcome {
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
        let task = self.find(owner, &task_id)?;
        {
            let mut state = lock(&task.state);
            let mut answered = Vec::new();
            for (key, response) in input_responses {
                if state.pending.contains_key(&key) {
                    let response: InputResponse = serde_json::from_value(response)
                        .map_err(|e| ErrorObject::invalid_params(format!("inputResponses.{key}: {e}")))?;
                    answered.push((key, response));
                }
            }
            for (key, response) in answered {
                state.pending.remove(&key);
                state.answers.insert(key, response);
            }
            state.last_updated_at = SystemTime::now();
        }
        task.answered.notify_one();
        finish(EmptyResult::default(), stamp)
    }

    /// `tasks/cancel`: stops the task if it is still running; a task that ended is left as
    /// it is, and acknowledged all the same.
    pub(crate) fn cancel(
        &self,
        owner: &str,
        params: Option<&serde_json::value::RawValue>,
        stamp: Option<&Value>,
    ) -> Outcome {
        let Named { task_id } = parse_params(params)?;
        let task = self.find(owner, &task_id)?;
        task.settle(Status::Cancelled, None, None);
        task.cancel.cancel();
        finish(EmptyResult::default(), stamp)
    }
}

impl Task {
    fn expired(&self, ttl: Duration, now: SystemTime) -> bool {
        now.duration_since(self.created_at).is_ok_and(|age| age > ttl)
    }

    /// Ends the task with `status`, unless it ended already.
    fn settle(&self, status: Status, result: Option<Value>, error: Option<ErrorObject>) {
        let mut state = lock(&self.state);
        if state.status.ended() {
            return;
        }
        state.status = status;
        state.result = result;
        state.error = error;
        state.pending.clear();
        state.last_updated_at = SystemTime::now();
    }

    /// The task on the wire: a `CreateTaskResult` (`resultType: "task"`), or a `tasks/get`
    /// result with what its status carries (`detailed`).
    fn view(&self, limits: &TaskLimits, result_type: ResultType, detailed: bool, stamp: Option<&Value>) -> Outcome {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct View<'a> {
            result_type: Option<ResultType>,
            task_id: &'a str,
            status: Status,
            created_at: String,
            last_updated_at: String,
            ttl_ms: u64,
            poll_interval_ms: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            input_requests: Option<&'a BTreeMap<String, InputRequest>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a ErrorObject>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<Meta>,
        }
        protocol_result!(View<'_>);
        let state = lock(&self.state);
        let view = View {
            result_type: Some(result_type),
            task_id: &self.id,
            status: state.status,
            created_at: humantime::format_rfc3339_millis(self.created_at).to_string(),
            last_updated_at: humantime::format_rfc3339_millis(state.last_updated_at).to_string(),
            ttl_ms: millis(limits.ttl),
            poll_interval_ms: millis(limits.poll_interval),
            input_requests: (detailed && state.status == Status::InputRequired).then_some(&state.pending),
            result: state.result.as_ref().filter(|_| detailed),
            error: state.error.as_ref().filter(|_| detailed),
            meta: None,
        };
        finish(view, stamp)
    }
}

/// Runs the task's handler until it ends: again with the answers each time it asked for
/// input and they all came; stopped at once by `tasks/cancel`.
async fn drive(task: Arc<Task>, run: TaskRun) {
    loop {
        let answers = lock(&task.state).answers.clone();
        let round = Arc::new(InputRound::with_answers(answers));
        let ran = until_cancelled(&task.cancel, round.run(run(Arc::clone(&round), task.cancel.clone()))).await;
        match ran {
            None => return task.settle(Status::Cancelled, None, None),
            Some(Run::Done(Ok(result))) => {
                let result = serde_json::to_value(&result).ok();
                return task.settle(Status::Completed, result, None);
            }
            Some(Run::Done(Err(error))) => return task.settle(Status::Failed, None, Some(error)),
            Some(Run::NeedsInput) => {
                {
                    let mut state = lock(&task.state);
                    if state.status.ended() {
                        return;
                    }
                    state.pending = round.take_asked();
                    state.status = Status::InputRequired;
                    state.last_updated_at = SystemTime::now();
                }
                if until_cancelled(&task.cancel, all_answered(&task)).await.is_none() {
                    return task.settle(Status::Cancelled, None, None);
                }
                let mut state = lock(&task.state);
                state.status = Status::Working;
                state.last_updated_at = SystemTime::now();
            }
        }
    }
}

/// Waits until no input request of the task is pending.
async fn all_answered(task: &Task) {
    loop {
        let answered = task.answered.notified();
        if lock(&task.state).pending.is_empty() {
            return;
        }
        answered.await;
    }
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
