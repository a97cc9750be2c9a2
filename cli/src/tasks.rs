//! Tool calls run as tasks: `call --task` starts one and follows it, `oxmcp task` looks at
//! one later (in the 2026-07-28 era over HTTP, where a task outlives the connection that
//! started it).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use oxmcp::client::{Client, ToolTask};
use oxmcp::protocol::{CallToolResult, Task, TaskStatus};
use serde_json::{json, Map, Value};

use crate::args::{TaskAction, TaskVerb};
use crate::failure::Failure;
use crate::verbs::{print_call_result, printed};

/// How often the status line asks the server how the task is doing.
const STATUS_POLL: Duration = Duration::from_millis(500);

/// Calls `tool` as a task, tells its id on stderr, and follows it to its result.
pub async fn call_as_task(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
    json: bool,
) -> Result<(), Failure> {
    let task = client.call_tool_as_task(tool, arguments).await?;
    if let Some(id) = task.id() {
        match json {
            true => eprintln!("{}", json!({ "taskId": id })),
            false => eprintln!("task {id}"),
        }
    }
    let result = follow(&task).await?;
    print_call_result(&result, json)
}

/// `oxmcp task ACTION ID`.
pub async fn run(client: &Client, verb: &TaskVerb) -> Result<(), Failure> {
    let json = verb.target.json;
    let task = client.tool_task(&verb.id);
    match verb.action {
        TaskAction::Status => print_status(&task, json).await,
        TaskAction::Result => print_call_result(&follow(&task).await?, json),
        TaskAction::Cancel => {
            task.cancel().await?;
            print_status(&task, json).await
        }
    }
}

async fn print_status(task: &ToolTask, json: bool) -> Result<(), Failure> {
    let Some(status) = task.status().await? else {
        return Err(Failure::Protocol(
            "the server answered the call in place: no task".into(),
            None,
        ));
    };
    crate::say(printed(json, &status, || describe(&status)));
    Ok(())
}

/// A task as people read it.
fn describe(task: &Task) -> String {
    let mut lines = vec![
        format!("task     {}", task.task_id),
        format!("status   {}", status_name(task.status)),
    ];
    if let Some(message) = &task.status_message {
        lines.push(format!("message  {message}"));
    }
    lines.push(format!("created  {}", task.created_at));
    lines.push(format!("updated  {}", task.last_updated_at));
    lines.join("\n")
}

fn status_name(status: TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|name| name.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The task's result once it ends; meanwhile a status line at the terminal says how it is
/// doing.
async fn follow(task: &ToolTask) -> Result<CallToolResult, Failure> {
    let line = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
        line.set_style(style);
    }
    let watching = (!line.is_hidden()).then(|| {
        let (task, line) = (task.clone(), line.clone());
        tokio::spawn(async move {
            while let Ok(Some(status)) = task.status().await {
                let message = status.status_message.unwrap_or_default();
                line.set_message(format!("{} {message}", status_name(status.status)));
                line.tick();
                tokio::time::sleep(STATUS_POLL).await;
            }
        })
    });
    let result = task.result().await;
    if let Some(watching) = watching {
        watching.abort();
    }
    line.finish_and_clear();
    Ok(result?)
}
