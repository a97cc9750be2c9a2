//! The client side of the stdio transport: a server run as a child process.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio_util::codec::{FramedRead, FramedWrite};

use super::{JsonLinesCodec, Transport, DEFAULT_MAX_MESSAGE_SIZE};

/// Receives the child's stderr, one line at a time.
pub type StderrLines = std::sync::Arc<dyn Fn(String) + Send + Sync>;

/// What to do with the child's stderr.
#[derive(Clone, Default)]
pub enum StderrMode {
    /// Share this process's stderr (the default: server logs stay visible).
    #[default]
    Inherit,
    /// Discard it.
    Null,
    /// Capture it: each line goes to the callback.
    Capture(StderrLines),
}

impl std::fmt::Debug for StderrMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StderrMode::Inherit => "Inherit",
            StderrMode::Null => "Null",
            StderrMode::Capture(_) => "Capture",
        })
    }
}

/// How to start a server process.
#[derive(Debug, Clone)]
pub struct StdioCommand {
    program: OsString,
    args: Vec<OsString>,
    env: HashMap<OsString, OsString>,
    cwd: Option<PathBuf>,
    stderr: StderrMode,
    max_message_size: usize,
    shutdown_grace: Duration,
}

impl StdioCommand {
    /// Runs `program`.
    pub fn new(program: impl Into<OsString>) -> Self {
        StdioCommand {
            program: program.into(),
            args: Vec::new(),
            env: HashMap::new(),
            cwd: None,
            stderr: StderrMode::Inherit,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            shutdown_grace: Duration::from_secs(2),
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable (on top of this process's environment).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// What to do with the child's stderr.
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// The largest message accepted from the child (default 4 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How long each shutdown step waits: after closing stdin, and after SIGTERM.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Starts the process; returns the transport over its pipes and the process handle.
    pub fn spawn(&self) -> io::Result<(Transport, ChildProcess)> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(&self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match self.stderr {
                StderrMode::Inherit => Stdio::inherit(),
                StderrMode::Null => Stdio::null(),
                StderrMode::Capture(_) => Stdio::piped(),
            })
            .kill_on_drop(true);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn()?;
        let missing = || io::Error::other("child pipes were not set up");
        if let (StderrMode::Capture(lines), Some(stderr)) = (&self.stderr, child.stderr.take()) {
            let lines = std::sync::Arc::clone(lines);
            tokio::spawn(async move {
                use tokio::io::AsyncBufReadExt;
                let mut reader = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = reader.next_line().await {
                    lines(line);
                }
            });
        }
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let codec = JsonLinesCodec::new(self.max_message_size);
        let transport = Transport::new(FramedRead::new(stdout, codec.clone()), FramedWrite::new(stdin, codec));
        Ok((
            transport,
            ChildProcess {
                child,
                grace: self.shutdown_grace,
            },
        ))
    }
}

/// A running server process. Dropping it kills the process.
#[derive(Debug)]
pub struct ChildProcess {
    child: Child,
    grace: Duration,
}

impl ChildProcess {
    /// The process id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the process to exit after its stdin was closed; then SIGTERM, then
    /// SIGKILL, each after the grace period, as the stdio transport specifies.
    pub async fn shutdown(mut self) -> io::Result<std::process::ExitStatus> {
        if let Ok(status) = tokio::time::timeout(self.grace, self.child.wait()).await {
            return status;
        }
        #[cfg(unix)]
        if let Some(pid) = self.child.id() {
            // SAFETY: kill(2) with a pid we own and a valid signal number has no memory effects.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
            if let Ok(status) = tokio::time::timeout(self.grace, self.child.wait()).await {
                return status;
            }
        }
        self.child.start_kill()?;
        self.child.wait().await
    }
}
