//! [`RedisTaskStore`]: tasks in Redis, seen by every replica.
//!
//! Each task is one JSON value at `{prefix}task:{id}`, expiring with the task. Three sorted
//! sets index them: every kept task (`tasks:all`, by expiry, for the bound), the ended ones
//! (`tasks:ended`, by expiry, the first to go when room is needed) and each owner's
//! (`tasks:owner:{owner}`, by creation, for lists); each index lives as long as its
//! longest-lived task. Creating and updating run as Lua scripts, so that the bound and "an
//! ended task never changes" hold across replicas.
//!
//! Each task also names the replica that runs it (`{prefix}task-runner:{id}`), and each
//! replica keeps a heartbeat key (`{prefix}replica:{id}`) alive while it runs: a task read
//! while it runs on a replica whose heartbeat stopped (killed, or cut off from Redis longer
//! than its liveness) fails, rather than stay `working` until it expires.

use std::io;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::{AsyncCommands, Script};
use tokio::task::JoinHandle;

use super::{failed, RedisStore};
use crate::protocol::{ErrorObject, TaskStatus};
use crate::state::tasks::{TaskOutcome, TaskRecord, TaskStore};
use crate::BoxFuture;

/// Keeps a new task unless the store is full of running ones (then it answers 0): expired
/// index entries go first, then the ended tasks closest to their expiry.
/// KEYS: all, ended, the task, the owner's index, the task's runner, the runner's heartbeat.
/// ARGV: now, capacity, the task's JSON, its TTL, its creation, its id, its expiry, the
/// prefix of task keys, whether it ended, the replica that runs it, its liveness.
const CREATE: &str = r"
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local kept = redis.call('ZCARD', KEYS[1])
local capacity = tonumber(ARGV[2])
while kept >= capacity do
  local ended = redis.call('ZPOPMIN', KEYS[2])
  if #ended == 0 then return 0 end
  redis.call('ZREM', KEYS[1], ended[1])
  redis.call('DEL', ARGV[8] .. ended[1])
  kept = kept - 1
end
local ttl = tonumber(ARGV[4])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ttl)
redis.call('SET', KEYS[5], ARGV[10], 'PX', ttl)
-- The replica that makes a task is alive: a Redis that lost its heartbeat (restarted
-- empty) must not fail the task before the replica's next beat.
redis.call('SET', KEYS[6], 1, 'PX', ARGV[11])
redis.call('ZADD', KEYS[1], ARGV[7], ARGV[6])
keep(KEYS[1], ttl)
if ARGV[9] == '1' then
  redis.call('ZADD', KEYS[2], ARGV[7], ARGV[6])
  keep(KEYS[2], ttl)
end
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6])
keep(KEYS[4], ttl)
return 1
";

/// Replaces a task unless it ended or is gone (then it answers 0); an ended task joins the
/// ended index. KEYS: the task, ended. ARGV: the task's JSON, whether it ended, its expiry,
/// its id.
const UPDATE: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept then return 0 end
local status = cjson.decode(kept)['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  local ttl = redis.call('PTTL', KEYS[1])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1
";

/// Tasks in Redis: any replica sees (and cancels) a task another one runs, a task outlives
/// the replica that did not run it, and fails when the one that did is gone. Made by
/// [`RedisStore::task_store`].
#[derive(Debug)]
pub struct RedisTaskStore {
    redis: RedisStore,
    create: Script,
    update: Script,
    heartbeat: JoinHandle<()>,
}

impl RedisTaskStore {
    pub(super) fn new(redis: RedisStore) -> Self {
        RedisTaskStore {
            heartbeat: tokio::spawn(beat(redis.clone())),
            redis,
            create: Script::new(CREATE),
            update: Script::new(UPDATE),
        }
    }

    fn task_key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}"))
    }

    fn runner_key(&self, id: &str) -> String {
        self.redis.key(&format!("task-runner:{id}"))
    }

    /// Fails `task`, which runs on `runner`, when that replica's heartbeat stopped; gives
    /// the task as it is now.
    async fn unless_orphaned(&self, task: TaskRecord, runner: &str) -> io::Result<TaskRecord> {
        let mut connection = self.redis.connection.clone();
        let alive: bool = connection
            .exists(heartbeat_key(&self.redis, runner))
            .await
            .map_err(failed)?;
        if alive {
            return Ok(task);
        }
        let mut orphaned = task.clone();
        let error = ErrorObject::internal("the replica that ran the task stopped");
        orphaned.end(
            TaskStatus::Failed,
            Some(TaskOutcome::Error(error)),
            Some("the replica that ran the task stopped".to_owned()),
        );
        orphaned.last_updated_at = SystemTime::now();
        if self.update(&orphaned).await? {
            tracing::warn!(task = %task.id, runner, "failed a task whose replica stopped");
            return Ok(orphaned);
        }
        // It ended meanwhile, or is gone: as it is now.
        Ok(self.read(&task.id).await?.map_or(task, |(task, _)| task))
    }

    /// Task `id` and the replica that runs it, unless unknown or expired.
    async fn read(&self, id: &str) -> io::Result<Option<(TaskRecord, Option<String>)>> {
        let (text, runner): (Option<String>, Option<String>) = redis::pipe()
            .get(self.task_key(id))
            .get(self.runner_key(id))
            .query_async(&mut self.redis.connection.clone())
            .await
            .map_err(failed)?;
        let task = text.as_deref().map(decode).transpose()?;
        Ok(task
            .filter(|task| !task.is_expired(SystemTime::now()))
            .map(|task| (task, runner)))
    }

    fn owner_key(&self, owner: &str) -> String {
        self.redis.key(&format!("tasks:owner:{owner}"))
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, capacity: usize) -> BoxFuture<'a, io::Result<bool>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let kept: i64 = self
                .create
                .key(self.redis.key("tasks:all"))
                .key(self.redis.key("tasks:ended"))
                .key(self.task_key(&task.id))
                .key(self.owner_key(&task.owner))
                .key(self.runner_key(&task.id))
                .key(heartbeat_key(&self.redis, &self.redis.replica))
                .arg(millis_since_epoch(SystemTime::now()))
                .arg(capacity)
                .arg(encode(task)?)
                .arg(millis(task.ttl).max(1))
                .arg(millis_since_epoch(task.created_at))
                .arg(&task.id)
                .arg(millis_since_epoch(task.expires_at()))
                .arg(self.redis.key("task:"))
                .arg(ended_flag(task))
                .arg(&*self.redis.replica)
                .arg(millis(self.redis.liveness).max(1))
                .invoke_async(&mut connection)
                .await
                .map_err(failed)?;
            Ok(kept == 1)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<Option<TaskRecord>>> {
        Box::pin(async move {
            match self.read(id).await? {
                Some((task, Some(runner))) if !task.status.is_terminal() && *runner != *self.redis.replica => {
                    self.unless_orphaned(task, &runner).await.map(Some)
                }
                read => Ok(read.map(|(task, _)| task)),
            }
        })
    }

    fn update<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, io::Result<bool>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let updated: i64 = self
                .update
                .key(self.task_key(&task.id))
                .key(self.redis.key("tasks:ended"))
                .arg(encode(task)?)
                .arg(ended_flag(task))
                .arg(millis_since_epoch(task.expires_at()))
                .arg(&task.id)
                .invoke_async(&mut connection)
                .await
                .map_err(failed)?;
            Ok(updated == 1)
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a TaskRecord>,
        limit: usize,
    ) -> BoxFuture<'a, io::Result<Vec<TaskRecord>>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let index = self.owner_key(owner);
            let ids: Vec<String> = connection.zrange(&index, 0, -1).await.map_err(failed)?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
            let texts: Vec<Option<String>> = connection.mget(&keys).await.map_err(failed)?;
            let gone: Vec<&String> = ids
                .iter()
                .zip(&texts)
                .filter(|(_, text)| text.is_none())
                .map(|(id, _)| id)
                .collect();
            if !gone.is_empty() {
                let _: i64 = connection.zrem(&index, gone).await.map_err(failed)?;
            }
            let now = SystemTime::now();
            let mut tasks = texts
                .iter()
                .flatten()
                .map(|text| decode(text))
                .collect::<io::Result<Vec<TaskRecord>>>()?;
            tasks.retain(|task| {
                task.owner == owner
                    && !task.is_expired(now)
                    && after.is_none_or(|after| (task.created_at, &task.id) > (after.created_at, &after.id))
            });
            tasks.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
            tasks.truncate(limit);
            Ok(tasks)
        })
    }
}

impl Drop for RedisTaskStore {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}

fn heartbeat_key(redis: &RedisStore, replica: &str) -> String {
    redis.key(&format!("replica:{replica}"))
}

/// Keeps this replica's heartbeat key alive: set for its liveness, a third of it apart.
async fn beat(redis: RedisStore) {
    let key = heartbeat_key(&redis, &redis.replica);
    let liveness = millis(redis.liveness).max(1);
    let mut connection = redis.connection.clone();
    loop {
        let set: redis::RedisResult<()> = redis::cmd("SET")
            .arg(&key)
            .arg(1)
            .arg("PX")
            .arg(liveness)
            .query_async(&mut connection)
            .await;
        if let Err(error) = set {
            tracing::warn!(%error, "could not tell Redis this replica is alive");
        }
        tokio::time::sleep(redis.liveness / 3).await;
    }
}

/// Whether `task` ended, as the scripts read it.
fn ended_flag(task: &TaskRecord) -> &'static str {
    if task.status.is_terminal() {
        "1"
    } else {
        "0"
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn millis_since_epoch(time: SystemTime) -> u64 {
    millis(time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO))
}

fn encode(task: &TaskRecord) -> io::Result<String> {
    serde_json::to_string(task).map_err(io::Error::other)
}

fn decode(text: &str) -> io::Result<TaskRecord> {
    serde_json::from_str(text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
