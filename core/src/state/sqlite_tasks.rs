//! [`SqliteTaskStore`]: tasks kept in an SQLite file, so that a restarted server still
//! answers for them.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

use super::tasks::{TaskOutcome, TaskRecord, TaskStore};
use crate::protocol::{ErrorObject, TaskStatus};
use crate::{lock, BoxFuture};

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    CREATE TABLE IF NOT EXISTS tasks (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tasks_by_owner ON tasks (owner, created_at, id);
    CREATE INDEX IF NOT EXISTS tasks_by_expiry ON tasks (expires_at);
";

/// Tasks kept in one SQLite file (embedded: no server to run), for a single server
/// process. What a task ended with survives a restart; a task that was still running
/// when the process stopped is `failed` with [`INTERRUPTED`](Self::INTERRUPTED) after it, never `working`
/// forever.
///
/// Writes are durable once the operating system has them (WAL, `synchronous = NORMAL`):
/// a killed process loses nothing; a power cut may lose the last updates.
///
/// ```no_run
/// use std::sync::Arc;
/// use oxmcp::server::Server;
/// use oxmcp::state::SqliteTaskStore;
///
/// # fn main() -> std::io::Result<()> {
/// let server = Server::builder("builds", "1.0.0")
///     .task_store(Arc::new(SqliteTaskStore::open("tasks.db")?))
///     .build();
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteTaskStore {
    connection: Arc<Mutex<Connection>>,
}

impl SqliteTaskStore {
    /// What a task that was running when its server stopped says after the restart.
    pub const INTERRUPTED: &'static str = "the server stopped while the task was running";

    /// Opens (or creates) the store in the file at `path`, and fails the tasks a previous
    /// process left running.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let connection = Connection::open(path).map_err(io::Error::other)?;
        connection.execute_batch(SCHEMA).map_err(io::Error::other)?;
        fail_interrupted(&connection).map_err(io::Error::other)?;
        Ok(SqliteTaskStore {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Runs `work` on the connection, off the async threads (SQLite blocks on the disk).
    fn run<T, F>(&self, work: F) -> BoxFuture<'static, io::Result<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || work(&lock(&connection)).map_err(io::Error::other))
                .await
                .map_err(io::Error::other)?
        })
    }
}

impl TaskStore for SqliteTaskStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, capacity: usize) -> BoxFuture<'a, io::Result<bool>> {
        let task = task.clone();
        self.run(move |connection| {
            let now = nanos(SystemTime::now());
            connection.execute("DELETE FROM tasks WHERE expires_at < ?1", params![now])?;
            let kept: i64 = connection.query_row("SELECT count(*) FROM tasks", [], |row| row.get(0))?;
            let excess = kept.saturating_sub(i64::try_from(capacity).unwrap_or(i64::MAX)) + 1;
            if excess > 0 {
                let forgotten = connection.execute(
                    "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks
                     WHERE status IN ('completed', 'failed', 'cancelled')
                     ORDER BY created_at, id LIMIT ?1)",
                    params![excess],
                )?;
                if i64::try_from(forgotten).unwrap_or(i64::MAX) < excess {
                    return Ok(false);
                }
            }
            connection.execute(
                "INSERT INTO tasks (id, owner, status, created_at, expires_at, record)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    task.id,
                    task.owner,
                    task.status.as_str(),
                    nanos(task.created_at),
                    nanos(task.expires_at()),
                    encode(&task)?
                ],
            )?;
            Ok(true)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, io::Result<Option<TaskRecord>>> {
        let id = id.to_owned();
        self.run(move |connection| {
            connection
                .query_row(
                    "SELECT record FROM tasks WHERE id = ?1 AND expires_at >= ?2",
                    params![id, nanos(SystemTime::now())],
                    |row| decode(&row.get::<_, String>(0)?),
                )
                .optional()
        })
    }

    fn update<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, io::Result<bool>> {
        let task = task.clone();
        self.run(move |connection| {
            let changed = connection.execute(
                "UPDATE tasks SET status = ?2, record = ?3
                 WHERE id = ?1 AND status NOT IN ('completed', 'failed', 'cancelled')",
                params![task.id, task.status.as_str(), encode(&task)?],
            )?;
            Ok(changed == 1)
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<&'a TaskRecord>,
        limit: usize,
    ) -> BoxFuture<'a, io::Result<Vec<TaskRecord>>> {
        let owner = owner.to_owned();
        let (after_created, after_id) = after.map_or((i64::MIN, String::new()), |after| {
            (nanos(after.created_at), after.id.clone())
        });
        self.run(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT record FROM tasks
                 WHERE owner = ?1 AND expires_at >= ?2 AND (created_at, id) > (?3, ?4)
                 ORDER BY created_at, id LIMIT ?5",
            )?;
            let rows = statement.query_map(
                params![
                    owner,
                    nanos(SystemTime::now()),
                    after_created,
                    after_id,
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                |row| decode(&row.get::<_, String>(0)?),
            )?;
            rows.collect()
        })
    }
}

/// Marks every task still `working` or `input_required` as failed: whatever ran it is gone.
fn fail_interrupted(connection: &Connection) -> rusqlite::Result<()> {
    let mut statement = connection.prepare("SELECT record FROM tasks WHERE status IN ('working', 'input_required')")?;
    let interrupted: Vec<TaskRecord> = statement
        .query_map([], |row| decode(&row.get::<_, String>(0)?))?
        .collect::<rusqlite::Result<_>>()?;
    let now = SystemTime::now();
    for mut task in interrupted {
        task.end(
            TaskStatus::Failed,
            Some(TaskOutcome::Error(ErrorObject::internal(SqliteTaskStore::INTERRUPTED))),
            Some(SqliteTaskStore::INTERRUPTED.to_owned()),
        );
        task.last_updated_at = now;
        connection.execute(
            "UPDATE tasks SET status = ?2, record = ?3 WHERE id = ?1",
            params![task.id, task.status.as_str(), encode(&task)?],
        )?;
    }
    Ok(())
}

/// Nanoseconds since the epoch, as SQLite keeps integers (saturating in 2262).
fn nanos(time: SystemTime) -> i64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
}

fn encode(task: &TaskRecord) -> rusqlite::Result<String> {
    serde_json::to_string(task).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn decode(text: &str) -> rusqlite::Result<TaskRecord> {
    serde_json::from_str(text)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::check_task_store;
    use crate::state::tasks::record;

    #[tokio::test]
    async fn behaves_as_every_store_must() {
        let dir = tempfile::tempdir().unwrap();
        check_task_store(&SqliteTaskStore::open(dir.path().join("tasks.db")).unwrap()).await;
    }

    #[tokio::test]
    async fn a_reopened_store_keeps_ended_tasks_and_fails_the_running_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        {
            let store = SqliteTaskStore::open(&path).unwrap();
            let mut done = record("done", "o", TaskStatus::Working);
            store.create(&done, 10).await.unwrap();
            done.status = TaskStatus::Completed;
            done.outcome = Some(TaskOutcome::Result(serde_json::json!({"content": []})));
            store.update(&done).await.unwrap();
            store
                .create(&record("running", "o", TaskStatus::Working), 10)
                .await
                .unwrap();
        }
        let store = SqliteTaskStore::open(&path).unwrap();
        let done = store.get("done").await.unwrap().unwrap();
        assert_eq!(done.status, TaskStatus::Completed);
        assert_eq!(
            done.outcome,
            Some(TaskOutcome::Result(serde_json::json!({"content": []})))
        );
        let running = store.get("running").await.unwrap().unwrap();
        assert_eq!(running.status, TaskStatus::Failed);
        assert_eq!(running.status_message.as_deref(), Some(SqliteTaskStore::INTERRUPTED));
    }
}
