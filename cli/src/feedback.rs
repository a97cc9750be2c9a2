//! What the server tells while a verb runs, on stderr: its log messages, and the progress
//! of a tool call as a bar (drawn only at a terminal).

use std::sync::{Arc, Once};

use indicatif::{ProgressBar, ProgressStyle};
use oxmcp::client::{Client, ProgressCallback, ServerNotification};
use oxmcp::protocol::{LoggingMessageNotificationParams, ProgressNotificationParams};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Prints the server's log messages on stderr while a verb runs (see [`print_logs`]).
pub struct LogPrinter {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl LogPrinter {
    /// Prints what the server logged before the verb ended, then stops. (A log message the
    /// server sent before its answer is queued when the answer comes: stopping the printer
    /// at once lost it when the machine was busy.)
    pub async fn finish(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Prints the server's log messages on stderr until [`LogPrinter::finish`]; `json` prints
/// each as its notification's params, one per line.
pub fn print_logs(client: &Client, json: bool) -> LogPrinter {
    let mut notifications = client.notifications();
    let (stop, mut stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        loop {
            // Queued messages first: the stop is heard only once none is left.
            let next = tokio::select! {
                biased;
                next = notifications.recv() => next,
                _ = &mut stopped => return,
            };
            match next {
                Ok(ServerNotification::LogMessage(log)) => eprintln!("{}", log_line(&log, json)),
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            }
        }
    });
    LogPrinter { stop, task }
}

fn log_line(log: &LoggingMessageNotificationParams, json: bool) -> String {
    if json {
        return serde_json::to_string(log).unwrap_or_default();
    }
    let level = serde_json::to_value(log.level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned));
    let data = match &log.data {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match &log.logger {
        Some(logger) => format!("[{}] {logger}: {data}", level.unwrap_or_default()),
        None => format!("[{}] {data}", level.unwrap_or_default()),
    }
}

/// A progress bar on stderr (drawn only at a terminal), and the callback that moves it.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar drawn once the first progress arrives.
    pub fn new() -> Progress {
        Progress {
            bar: ProgressBar::no_length(),
        }
    }

    /// What a call's progress notifications go to. The first one sets the bar's look: a
    /// bar when it tells a total, a spinner when not.
    pub fn callback(&self) -> ProgressCallback {
        let bar = self.bar.clone();
        let styled = Arc::new(Once::new());
        Arc::new(move |update: ProgressNotificationParams| {
            styled.call_once(|| style(&bar, update.total.is_some()));
            show(&bar, &update);
        })
    }

    /// Takes the bar off the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn style(bar: &ProgressBar, with_total: bool) {
    let template = match with_total {
        true => "{bar:30} {pos}/{len} {msg}",
        false => "{spinner} {pos} {msg}",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
}

fn show(bar: &ProgressBar, update: &ProgressNotificationParams) {
    if let Some(total) = update.total {
        bar.set_length(total.max(0.0).round() as u64);
    }
    bar.set_position(update.progress.max(0.0).round() as u64);
    if let Some(message) = &update.message {
        bar.set_message(message.clone());
    }
}
