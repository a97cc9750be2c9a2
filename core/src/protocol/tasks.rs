//! Tasks on the wire, as both revisions that have them show one: 2025-11-25 (`ttl`,
//! `pollInterval`) and the 2026-07-28 tasks extension (`ttlMs`, `pollIntervalMs`).

use serde::{Deserialize, Serialize};

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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

impl TaskStatus {
    /// Whether the task ended: a terminal status never changes.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The status as the wire writes it (`input_required`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task as `tasks/get` shows it, read from either revision's form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id.
    pub task_id: String,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// What its status means, for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub last_updated_at: String,
    /// How long the server keeps it after its creation, in milliseconds (`None`: for ever).
    #[serde(default, alias = "ttl", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// How often the server would like it polled, in milliseconds.
    #[serde(default, alias = "pollInterval", skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}
