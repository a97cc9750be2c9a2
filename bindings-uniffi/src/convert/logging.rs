//! Log levels ([`LoggingLevel`]). Mirrors `oxmcp::protocol::logging`.

use oxmcp::protocol as core;

/// Syslog severities, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical condition.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl From<core::LoggingLevel> for LoggingLevel {
    fn from(level: core::LoggingLevel) -> Self {
        use core::LoggingLevel as L;
        match level {
            L::Debug => LoggingLevel::Debug,
            L::Info => LoggingLevel::Info,
            L::Notice => LoggingLevel::Notice,
            L::Warning => LoggingLevel::Warning,
            L::Error => LoggingLevel::Error,
            L::Critical => LoggingLevel::Critical,
            L::Alert => LoggingLevel::Alert,
            L::Emergency => LoggingLevel::Emergency,
        }
    }
}

impl From<LoggingLevel> for core::LoggingLevel {
    fn from(level: LoggingLevel) -> Self {
        use core::LoggingLevel as L;
        match level {
            LoggingLevel::Debug => L::Debug,
            LoggingLevel::Info => L::Info,
            LoggingLevel::Notice => L::Notice,
            LoggingLevel::Warning => L::Warning,
            LoggingLevel::Error => L::Error,
            LoggingLevel::Critical => L::Critical,
            LoggingLevel::Alert => L::Alert,
            LoggingLevel::Emergency => L::Emergency,
        }
    }
}
