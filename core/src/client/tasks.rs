//! Requests the server runs as tasks (the 2026-07-28 tasks extension, SEP-2663), followed to
//! their result: `tasks/get` at the interval the server asks for, what the task asks for
//! answered by the client's handlers through `tasks/update`, and `tasks/cancel` when the
//! call is cancelled.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::send::CallOptions;
use super::{decode, to_value, Client};
use crate::error::{Error, Result};
use crate::protocol::{methods, ErrorObject, InputRequests, InputResponses};

/// The polling interval when the server names none, and the bounds of one it names.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(30);

/// What the client reads of a task: a `CreateTaskResult` or a `tasks/get` result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskState {
    task_id: String,
    status: String,
    #[serde(default)]
    poll_interval_ms: Option<u64>,
    #[serde(default)]
    input_requests: Option<InputRequests>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

impl Client {
    /// Follows the task `created` made for a `method` request to its result (the raw
    /// result of the request, as if it had been answered in place).
    pub(super) async fn follow_task(
        &self,
        method: &str,
        created: &RawValue,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        let mut task: TaskState = decode(created)?;
        let id = task.task_id.clone();
        // Each poll has the call's timeout; the task may run far longer than one request.
        let poll = CallOptions {
            timeout: options.timeout,
            ..CallOptions::default()
        };
        let cancellation = options.cancellation.clone().unwrap_or_default();
        // Keys answered already: a poll may still list them.
        let mut answered = BTreeSet::new();
        loop {
            match task.status.as_str() {
                "completed" => {
                    return task
                        .result
                        .ok_or_else(|| Error::InvalidResponse(format!("task {id} completed without a result")))
                }
                "failed" => {
                    let error = task
                        .error
                        .unwrap_or_else(|| ErrorObject::internal(format!("task {id} failed")));
                    return Err(Error::Remote(error));
                }
                "cancelled" => return Err(Error::Cancelled),
                "input_required" => {
                    let asked: InputRequests = task
                        .input_requests
                        .take()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if !asked.is_empty() {
                        let responses = self.answer_round(method, asked).await?;
                        answered.extend(responses.keys().cloned());
                        self.task_request(methods::TASKS_UPDATE, &id, Some(&responses), &poll)
                            .await?;
                        task = decode(&self.task_request(methods::TASKS_GET, &id, None, &poll).await?)?;
                        continue;
                    }
                }
                _ => {}
            }
            let wait = task
                .poll_interval_ms
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            if !self.wait_or_cancel(&id, wait, &cancellation).await {
                return Err(Error::Cancelled);
            }
            task = decode(&self.task_request(methods::TASKS_GET, &id, None, &poll).await?)?;
        }
    }

    /// Waits `wait`; when `cancellation` fires first, cancels the task and says so (false).
    async fn wait_or_cancel(&self, id: &str, wait: Duration, cancellation: &CancellationToken) -> bool {
        tokio::select! {
            _ = cancellation.cancelled() => {
                // Best effort: the call ends cancelled whatever the server answers.
                let _ = self.task_request(methods::TASKS_CANCEL, id, None, &CallOptions::default()).await;
                false
            }
            _ = tokio::time::sleep(wait) => true,
        }
    }

    /// `tasks/get`, `tasks/update` (with `responses`) or `tasks/cancel` of task `id`.
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
