//! Tasks: a tool call the server runs in the background, as `tasks/get` shows it.

use oxmcp::protocol as core;

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer what the task asked.
    InputRequired,
    /// Ended with a result.
    Completed,
    /// Ended with an error.
    Failed,
    /// Stopped by the client.
    Cancelled,
}

impl From<core::TaskStatus> for TaskStatus {
    fn from(status: core::TaskStatus) -> Self {
        match status {
            core::TaskStatus::Working => TaskStatus::Working,
            core::TaskStatus::InputRequired => TaskStatus::InputRequired,
            core::TaskStatus::Completed => TaskStatus::Completed,
            core::TaskStatus::Failed => TaskStatus::Failed,
            core::TaskStatus::Cancelled => TaskStatus::Cancelled,
        }
    }
}

/// A tool call the server runs in the background.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Task {
    /// The task's id.
    pub task_id: String,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// What its status means, for a person.
    pub status_message: Option<String>,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub last_updated_at: String,
    /// How long the server keeps it after its creation, in milliseconds (`None`: for ever).
    pub ttl_ms: Option<i64>,
    /// How often the server would like it polled, in milliseconds.
    pub poll_interval_ms: Option<i64>,
}

impl From<core::Task> for Task {
    fn from(task: core::Task) -> Self {
        let millis = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        Task {
            task_id: task.task_id,
            status: task.status.into(),
            status_message: task.status_message,
            created_at: task.created_at,
            last_updated_at: task.last_updated_at,
            ttl_ms: task.ttl_ms.map(millis),
            poll_interval_ms: task.poll_interval_ms.map(millis),
        }
    }
}
