//! Where tasks are kept: the [`TaskStore`] trait, [`TaskRecord`] (one task as a store keeps
//! it), and [`InMemoryTaskStore`], the default.
//!
//! A store keeps what a task *is*: its owner, status, result or error, and the input it
//! waits for. What *runs* it (the handler's future, its cancellation) stays in the process
//! that started it; a store only has to answer for the record.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{ErrorObject, InputRequest, InputResponse, TaskStatus};
use crate::{lock, BoxFuture};

/// How a task ended: the result of the request it runs, or its JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// The request's result (for a tool call, its `CallToolResult`).
    Result(Value),
    /// The request's error.
    Error(ErrorObject),
}

/// One task, as a store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's unguessable id.
    pub id: String,
    /// Who may see it: the principal or session that created it (empty: anyone).
    pub owner: String,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// What its status means, for a person.
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When its status, result or input last changed.
    pub last_updated_at: SystemTime,
    /// How long it is kept after `created_at`.
    pub ttl: Duration,
    /// How often clients are asked to poll it.
    pub poll_interval: Duration,
    /// Its result or error, once it ended (a cancelled task has none).
    pub outcome: Option<TaskOutcome>,
    /// The input requests it waits for, by key (2026-07-28: answered by `tasks/update`).
    pub input_requests: BTreeMap<String, InputRequest>,
    /// Every answer it got so far, by key.
    pub input_responses: BTreeMap<String, InputResponse>,
}

impl TaskRecord {
    /// When the store may forget it.
    pub fn expires_at(&self) -> SystemTime {
        self.created_at + self.ttl
    }

    /// Whether it is past its time to live at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        now > self.expires_at()
    }

    /// Ends the task with `status`: what it ended with (if anything), and why. Its pending
    /// input requests go: nothing waits for them any more.
    pub fn end(&mut self, status: TaskStatus, outcome: Option<TaskOutcome>, message: Option<String>) {
        self.status = status;
        self.outcome = outcome;
        self.status_message = message;
        self.input_requests.clear();
    }

    /// The order of [`TaskStore::list`]: by creation, then id.
    fn list_key(&self) -> (SystemTime, &str) {
        (self.created_at, &self.id)
    }
}

/// Where a server keeps its tasks. Set one with
/// [`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store); without it the
/// server keeps them as [`InMemoryTaskStore`] does.
///
/// A store never hands out a task past its time to live, and forgets such tasks when it
/// makes room. Terminal statuses never change: [`update`](TaskStore::update) leaves a task
/// that ended as it is. The server checks who asks; a store only keys by id and owner.
pub trait TaskStore: Send + Sync {
    /// Keeps a new task when fewer than `capacity` are kept, making room first by
    /// forgetting expired tasks, then the ended ones, oldest first. Gives false when every
    /// kept task is still running.
    fn create<'a>(&'a self, task: &'a TaskRecord, capacity: usize) -> BoxFuture<'a, io::Result<bool>>;

    /// Task `id`, unless unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<Option<TaskRecord>>>;

    /// Replaces the kept task of the same id with `task`: its status, result or error, and
    /// input. Gives false, changing nothing, when that task ended already or is gone.
    fn update<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, io::Result<bool>>;

    /// At most `limit` unexpired tasks of `owner`, in order of creation (then id), after
    /// the task `after` when given.
    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a TaskRecord>,
        limit: usize,
    ) -> BoxFuture<'a, io::Result<Vec<TaskRecord>>>;
}

impl fmt::Debug for dyn TaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TaskStore")
    }
}

/// Tasks kept in memory: lost when the process ends.
///
/// Making room costs what it removes, not what is kept: the tasks are indexed by when they
/// expire, and the ended ones by when they were created.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    tasks: HashMap<String, TaskRecord>,
    /// Every task by the time it expires.
    expiries: BTreeSet<(SystemTime, String)>,
    /// The tasks that ended, oldest first ([`TaskRecord::list_key`]).
    ended: BTreeSet<(SystemTime, String)>,
}

impl Kept {
    fn insert(&mut self, task: TaskRecord) {
        self.expiries.insert((task.expires_at(), task.id.clone()));
        if task.status.is_terminal() {
            self.ended.insert((task.created_at, task.id.clone()));
        }
        self.tasks.insert(task.id.clone(), task);
    }

    fn remove(&mut self, id: &str) {
        if let Some(task) = self.tasks.remove(id) {
            self.expiries.remove(&(task.expires_at(), task.id.clone()));
            self.ended.remove(&(task.created_at, task.id));
        }
    }

    /// Forgets the tasks expired at `now`.
    fn forget_expired(&mut self, now: SystemTime) {
        while let Some((expires_at, id)) = self.expiries.first().cloned() {
            if expires_at >= now {
                break;
            }
            self.remove(&id);
        }
    }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, capacity: usize) -> BoxFuture<'a, io::Result<bool>> {
        let mut kept = lock(&self.kept);
        kept.forget_expired(SystemTime::now());
        while kept.tasks.len() >= capacity {
            match kept.ended.first().cloned() {
                Some((_, oldest)) => kept.remove(&oldest),
                None => return Box::pin(std::future::ready(Ok(false))),
            }
        }
        kept.insert(task.clone());
        Box::pin(std::future::ready(Ok(true)))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<Option<TaskRecord>>> {
        let task = lock(&self.kept)
            .tasks
            .get(id)
            .filter(|task| !task.is_expired(SystemTime::now()))
            .cloned();
        Box::pin(std::future::ready(Ok(task)))
    }

    fn update<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, io::Result<bool>> {
        let mut kept = lock(&self.kept);
        let updatable = kept.tasks.get(&task.id).is_some_and(|kept| !kept.status.is_terminal());
        if updatable {
            kept.remove(&task.id);
            kept.insert(task.clone());
        }
        Box::pin(std::future::ready(Ok(updatable)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a TaskRecord>,
        limit: usize,
    ) -> BoxFuture<'a, io::Result<Vec<TaskRecord>>> {
        let now = SystemTime::now();
        let kept = lock(&self.kept);
        let mut listed: Vec<&TaskRecord> = kept
            .tasks
            .values()
            .filter(|task| task.owner == owner && !task.is_expired(now))
            .filter(|task| after.is_none_or(|after| task.list_key() > after.list_key()))
            .collect();
        listed.sort_by_key(|task| task.list_key());
        let page = listed.into_iter().take(limit).cloned().collect();
        Box::pin(std::future::ready(Ok(page)))
    }
}

/// Checks that `store` behaves as the server needs: bounds, terminal statuses, expiry,
/// lists. For the tests of a store of your own, on an empty store (it panics at the first
/// violation). Uses the ids `a`, `b`, `c`, `d`, `old`, `x`, `y` and `other` and the owners `o`
/// and `p`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// oxmcp::state::check_task_store(&oxmcp::state::InMemoryTaskStore::new()).await;
/// # }
/// ```
pub async fn check_task_store(store: &dyn TaskStore) {
    assert!(store.create(&record("a", "o", TaskStatus::Completed), 2).await.unwrap());
    assert!(store.create(&record("b", "o", TaskStatus::Working), 2).await.unwrap());
    assert!(store.create(&record("c", "o", TaskStatus::Working), 2).await.unwrap());
    assert!(store.get("a").await.unwrap().is_none(), "the ended task made room");
    assert!(!store.create(&record("d", "o", TaskStatus::Working), 2).await.unwrap());
    assert!(store.get("d").await.unwrap().is_none());

    let mut task = store.get("b").await.unwrap().unwrap();
    task.status = TaskStatus::Cancelled;
    assert!(store.update(&task).await.unwrap());
    task.status = TaskStatus::Completed;
    assert!(!store.update(&task).await.unwrap(), "a terminal status never changes");
    assert_eq!(store.get("b").await.unwrap().unwrap().status, TaskStatus::Cancelled);

    let mut old = record("old", "o", TaskStatus::Working);
    old.created_at -= Duration::from_secs(120);
    store.create(&old, 10).await.unwrap();
    assert!(store.get("old").await.unwrap().is_none(), "an expired task is gone");

    for (i, id) in ["x", "y"].into_iter().enumerate() {
        let mut task = record(id, "o", TaskStatus::Working);
        task.created_at += Duration::from_millis(10 + i as u64);
        store.create(&task, 10).await.unwrap();
    }
    store
        .create(&record("other", "p", TaskStatus::Working), 10)
        .await
        .unwrap();
    let first = store.list("o", None, 2).await.unwrap();
    assert_eq!(first.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["b", "c"]);
    let rest = store.list("o", first.last(), 10).await.unwrap();
    assert_eq!(rest.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["x", "y"]);
}

/// A task of `owner` made now, for [`check_task_store`].
pub(crate) fn record(id: &str, owner: &str, status: TaskStatus) -> TaskRecord {
    let now = SystemTime::now();
    TaskRecord {
        id: id.to_owned(),
        owner: owner.to_owned(),
        status,
        status_message: None,
        created_at: now,
        last_updated_at: now,
        ttl: Duration::from_secs(60),
        poll_interval: Duration::from_millis(100),
        outcome: None,
        input_requests: BTreeMap::new(),
        input_responses: BTreeMap::new(),
    }
}
