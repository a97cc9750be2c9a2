//! Progress reports of a request ([`ProgressUpdate`]). Mirrors `oxmcp::protocol::progress`.

use oxmcp::protocol as core;

/// One progress report of a request.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ProgressUpdate {
    /// Progress so far; increases with every report.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening.
    pub message: Option<String>,
}

impl From<core::ProgressNotificationParams> for ProgressUpdate {
    fn from(p: core::ProgressNotificationParams) -> Self {
        ProgressUpdate {
            progress: p.progress,
            total: p.total,
            message: p.message,
        }
    }
}
