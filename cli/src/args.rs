//! The command line: the verbs, the target each talks to, and the options they share.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use oxmcp::protocol::LoggingLevel;

/// What `--help` adds about targets.
const TARGETS: &str = "\
A target is --url URL (Streamable HTTP, falling back to HTTP+SSE), --server NAME (an entry of an
mcpServers config: --config FILE, else the Claude Desktop, Claude Code, Cursor and VS Code configs
found), or a command after `--` (stdio):

  oxmcp tools -- python server.py
  oxmcp call add a=1 b=2 --url http://127.0.0.1:8000/mcp
  oxmcp read greeting://Ada --server notes --json

Exit codes: 0 success, 1 usage, 2 cannot connect, 3 authorization, 4 protocol or JSON-RPC error,
5 the tool returned isError.";

/// Inspect, call and debug any MCP server, in either protocol era.
#[derive(Debug, Parser)]
#[command(name = "oxmcp", version, after_help = TARGETS)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub verb: Verb,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Verb {
    /// The server's name and version, the negotiated era and protocol version, its
    /// capabilities and instructions.
    #[command(after_help = TARGETS)]
    Info(Target),
    /// The server's tools.
    #[command(after_help = TARGETS)]
    Tools(Target),
    /// The server's resources.
    #[command(after_help = TARGETS)]
    Resources(Target),
    /// The server's resource templates.
    #[command(after_help = TARGETS)]
    Templates(Target),
    /// The server's prompts.
    #[command(after_help = TARGETS)]
    Prompts(Target),
    /// Calls a tool; KEY=VALUE arguments are read as its input schema types them.
    #[command(after_help = TARGETS)]
    Call(Call),
    /// Reads a resource.
    #[command(after_help = TARGETS)]
    Read(Read),
    /// Gets a prompt with KEY=VALUE arguments.
    #[command(after_help = TARGETS)]
    Prompt(GetPrompt),
    /// Suggests values for an argument of a prompt (--prompt) or a resource template
    /// (--template).
    #[command(after_help = TARGETS)]
    Complete(Complete),
    /// Checks that the server answers, and how fast.
    #[command(after_help = TARGETS)]
    Ping(Target),
    /// Follows a task a tool call started (`call --task`): its status, its result, or
    /// cancels it.
    #[command(after_help = TARGETS)]
    Task(TaskVerb),
    /// Authorization: `auth check --url URL` walks a protected server's discovery as a
    /// client would and reports each misconfiguration.
    #[command(subcommand)]
    Auth(AuthVerb),
    /// Drives the server's echo tool (the benchmark suite's load driver) and reports
    /// throughput, latency, the server's CPU time per call and peak memory.
    Bench(Bench),
    /// Serves a web page on 127.0.0.1 (its URL, with a random token, printed and opened)
    /// to look at the server in a browser: call tools through forms, read resources, get
    /// prompts, answer its questions, follow progress, logs and every protocol message.
    #[command(after_help = TARGETS)]
    Inspect(Inspect),
}

/// `oxmcp bench`: a server over stdio (its command after `--`) or at `--url`.
#[derive(Debug, Args)]
pub struct Bench {
    /// A name for the server in the report.
    #[arg(long, default_value = "server")]
    pub name: String,
    /// The protocol era to speak.
    #[arg(long, value_enum, default_value_t = BenchEra::Legacy)]
    pub era: BenchEra,
    /// Measured calls (after the warm-up).
    #[arg(long, default_value_t = 20_000)]
    pub calls: usize,
    /// Warm-up calls, not measured.
    #[arg(long, default_value_t = 1_000)]
    pub warmup: usize,
    /// Stop starting measured calls after this many seconds (`--calls` is then a cap).
    #[arg(long, value_name = "SECONDS")]
    pub seconds: Option<f64>,
    /// Bytes of text echoed per call.
    #[arg(long, value_name = "BYTES", default_value_t = 64)]
    pub payload: usize,
    /// The echo tool's name.
    #[arg(long, default_value = "echo")]
    pub tool: String,
    /// Ask for progress with every call.
    #[arg(long)]
    pub progress: bool,
    /// Requests in flight at once (stdio).
    #[arg(long, default_value_t = 1)]
    pub in_flight: usize,
    /// Concurrent workers (HTTP).
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Legacy sessions the workers share (HTTP, legacy era).
    #[arg(long, default_value_t = 1)]
    pub sessions: usize,
    /// The HTTP server's process id, to read its CPU time and memory.
    #[arg(long, value_name = "PID")]
    pub server_pid: Option<u32>,
    /// Instead of calls: open this many idle legacy sessions and report the server's
    /// memory per session (with --url and --server-pid).
    #[arg(long, value_name = "SESSIONS")]
    pub idle_sessions: Option<usize>,
    /// A running Streamable HTTP server.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A bearer token sent with every request (HTTP: a server that requires one).
    #[arg(long, value_name = "TOKEN", requires = "url")]
    pub bearer: Option<String>,
    /// Print the figures as one JSON line.
    #[arg(long)]
    pub json: bool,
    /// Also draw the latencies as a histogram into this PNG file.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// The server's command (stdio), after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The era `bench` speaks.
pub use crate::bench::Era as BenchEra;

/// `oxmcp inspect`.
#[derive(Debug, Args)]
pub struct Inspect {
    /// The port to serve the page on (default: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Print the page's URL without opening a browser.
    #[arg(long)]
    pub no_open: bool,
    /// The server the page connects to first (the page may connect to others).
    #[command(flatten)]
    pub target: Target,
}

/// `oxmcp auth …`.
#[derive(Debug, Subcommand)]
pub enum AuthVerb {
    /// Walks the discovery of the server at --url as a client would: the 401 challenge,
    /// the Protected Resource Metadata and its `resource`, the authorization server's
    /// metadata, PKCE, registration; exits 3 when something would stop clients.
    Check(Target),
}

impl Verb {
    /// The target and options the verb was given (`bench` takes its own).
    pub fn target(&self) -> Option<&Target> {
        match self {
            Verb::Info(target)
            | Verb::Tools(target)
            | Verb::Resources(target)
            | Verb::Templates(target)
            | Verb::Prompts(target)
            | Verb::Ping(target)
            | Verb::Auth(AuthVerb::Check(target)) => Some(target),
            Verb::Call(call) => Some(&call.target),
            Verb::Read(read) => Some(&read.target),
            Verb::Prompt(prompt) => Some(&prompt.target),
            Verb::Complete(complete) => Some(&complete.target),
            Verb::Task(task) => Some(&task.target),
            Verb::Inspect(inspect) => Some(&inspect.target),
            Verb::Bench(_) => None,
        }
    }

    /// Whether output (and a failure) is JSON.
    pub fn json(&self) -> bool {
        match self {
            Verb::Bench(bench) => bench.json,
            verb => verb.target().is_some_and(|target| target.json),
        }
    }
}

/// `oxmcp call TOOL [KEY=VALUE…]`.
#[derive(Debug, Args)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// The tool's arguments; values are read as the input schema types them (JSON for
    /// arrays and objects).
    #[arg(value_name = "KEY=VALUE")]
    pub arguments: Vec<String>,
    /// The arguments as one JSON object; KEY=VALUE pairs are set on it.
    #[arg(long = "args", value_name = "JSON")]
    pub json_arguments: Option<String>,
    /// Run the call as a task when the server can, tell its id on stderr, and follow it
    /// to its result.
    #[arg(long)]
    pub task: bool,
    #[command(flatten)]
    pub target: Target,
}

/// `oxmcp task status|result|cancel ID`.
#[derive(Debug, Args)]
pub struct TaskVerb {
    /// What to do with the task.
    #[arg(value_enum)]
    pub action: TaskAction,
    /// The task's id, as `call --task` told it.
    pub id: String,
    #[command(flatten)]
    pub target: Target,
}

/// What `oxmcp task` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TaskAction {
    /// The task as the server shows it now.
    Status,
    /// Waits for the task to end and prints what the tool returned.
    Result,
    /// Asks the server to stop the task.
    Cancel,
}

/// `oxmcp read URI`.
#[derive(Debug, Args)]
pub struct Read {
    /// The resource's URI.
    pub uri: String,
    #[command(flatten)]
    pub target: Target,
}

/// `oxmcp prompt NAME [KEY=VALUE…]`.
#[derive(Debug, Args)]
pub struct GetPrompt {
    /// The prompt's name.
    pub name: String,
    /// The prompt's arguments.
    #[arg(value_name = "KEY=VALUE")]
    pub arguments: Vec<String>,
    #[command(flatten)]
    pub target: Target,
}

/// `oxmcp complete (--prompt NAME | --template URI) ARGUMENT [VALUE] [KEY=VALUE…]`.
#[derive(Debug, Args)]
pub struct Complete {
    /// The prompt whose argument to complete.
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "template",
        conflicts_with = "template"
    )]
    pub prompt: Option<String>,
    /// The resource template whose variable to complete.
    #[arg(long, value_name = "URI_TEMPLATE")]
    pub template: Option<String>,
    /// The argument (or variable) to complete.
    pub argument: String,
    /// What is typed so far.
    #[arg(default_value = "")]
    pub value: String,
    /// The values of the other arguments.
    #[arg(value_name = "KEY=VALUE")]
    pub context: Vec<String>,
    #[command(flatten)]
    pub target: Target,
}

/// Which server to talk to, and how: the options every verb takes.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// A Streamable HTTP endpoint (an HTTP+SSE one works too).
    #[arg(long, value_name = "URL", conflicts_with_all = ["server", "command"])]
    pub url: Option<String>,
    /// A server of an mcpServers config, by name.
    #[arg(long, value_name = "NAME", conflicts_with = "command")]
    pub server: Option<String>,
    /// The mcpServers config to find --server in (default: the Claude Desktop, Claude Code,
    /// Cursor and VS Code configs found).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The protocol era: the newest both sides speak, or one of them.
    #[arg(long, value_enum, default_value_t = EraChoice::Auto)]
    pub era: EraChoice,
    /// An HTTP header sent with every request, e.g. 'X-Tenant: acme'.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// A bearer token sent with every HTTP request.
    #[arg(long, value_name = "TOKEN", conflicts_with = "oauth")]
    pub bearer: Option<String>,
    /// Sign in to a protected HTTP server: the authorization code flow with PKCE, the
    /// browser coming back to a loopback address; tokens kept (0600) in the user's config
    /// directory and refreshed, so later runs need no sign-in.
    #[arg(long)]
    pub oauth: bool,
    /// Seconds to wait for the connection, and for each answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Print exactly the protocol's objects as JSON (and failures as a JSON object on
    /// stderr).
    #[arg(long)]
    pub json: bool,
    /// Answers to the server's questions (elicitation, sampling), taken in order: a JSON
    /// object with `elicitation` (results such as `{"action": "accept", "content": {…}}`)
    /// and `sampling` (`{"text": "…"}` or full results). Without it, questions are asked at
    /// the terminal, or declined when there is none.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Decline every question of the server.
    #[arg(long)]
    pub no_input: bool,
    /// The least severe log messages of the server to print on stderr: debug, info,
    /// notice, warning, error, critical, alert or emergency.
    #[arg(long, value_name = "LEVEL", default_value = "info", value_parser = log_level)]
    pub log_level: LoggingLevel,
    /// The server's command (stdio), after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `--era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EraChoice {
    /// The modern era when the server speaks it, else the legacy handshake.
    Auto,
    /// The `initialize` handshake (2025-11-25 and before).
    Legacy,
    /// The 2026-07-28 era: no handshake, no session.
    Modern,
}

/// A level of the protocol's log messages, by its name.
fn log_level(name: &str) -> Result<LoggingLevel, String> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).map_err(|_| format!("no log level {name:?}"))
}
