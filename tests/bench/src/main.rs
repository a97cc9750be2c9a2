//! `mcp-load`: drives an MCP server's `echo` tool and reports throughput, latency, and the
//! server's CPU time and peak memory, as one JSON line.
//!
//! It speaks the protocol itself, with requests prepared once and answers checked by a
//! cheap scan, so that it is not the bottleneck; its own CPU time is reported too.
//!
//! ```text
//! mcp-load stdio --era legacy --in-flight 32 -- python server.py
//! mcp-load http --url http://127.0.0.1:8000/mcp --era modern --concurrency 32 --server-pid 1234
//! ```

use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use serde::Serialize;

mod http;
mod measure;
mod stdio;
mod wire;

/// Drive an MCP server's echo tool.
#[derive(Parser)]
struct Args {
    #[command(subcommand)]
    transport: Transport,
    /// A name for the server in the report.
    #[arg(long, global = true, default_value = "server")]
    name: String,
    /// Protocol era to speak.
    #[arg(long, global = true, value_enum, default_value_t = Era::Legacy)]
    era: Era,
    /// Measured calls (after warm-up).
    #[arg(long, global = true, default_value_t = 20_000)]
    calls: usize,
    /// Warm-up calls, not measured.
    #[arg(long, global = true, default_value_t = 1_000)]
    warmup: usize,
    /// Stop starting measured calls after this many seconds (then `--calls` is a cap), so
    /// that slow and fast servers each take about the same time.
    #[arg(long, global = true)]
    seconds: Option<f64>,
    /// Bytes of text echoed per call.
    #[arg(long, global = true, default_value_t = 64)]
    payload: usize,
    /// The echo tool's name.
    #[arg(long, global = true, default_value = "echo")]
    tool: String,
    /// Ask for progress with every call (HTTP: a server that reports progress answers with
    /// an SSE stream rather than one JSON body).
    #[arg(long, global = true)]
    progress: bool,
}

#[derive(Subcommand)]
enum Transport {
    /// Spawn the server and talk over its stdin and stdout.
    Stdio {
        /// Requests in flight at once.
        #[arg(long, default_value_t = 1)]
        in_flight: usize,
        /// The server command and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// POST to a running Streamable HTTP server.
    Http {
        /// The endpoint URL.
        #[arg(long)]
        url: String,
        /// Concurrent workers.
        #[arg(long, default_value_t = 32)]
        concurrency: usize,
        /// Legacy sessions shared by the workers (ignored in the modern era).
        #[arg(long, default_value_t = 1)]
        sessions: usize,
        /// The server's process id, to read its CPU time and memory.
        #[arg(long)]
        server_pid: Option<u32>,
    },
    /// Open idle legacy sessions on a running server and report its memory per session.
    IdleSessions {
        /// The endpoint URL.
        #[arg(long)]
        url: String,
        /// How many sessions to open.
        #[arg(long, default_value_t = 1_000)]
        sessions: usize,
        /// The server's process id.
        #[arg(long)]
        server_pid: u32,
    },
}

/// The protocol era the driver speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` handshake (2025-11-25).
    Legacy,
    /// Per-request `_meta` (2026-07-28).
    Modern,
}

/// One run's figures.
#[derive(Serialize, Default)]
pub struct Report {
    server: String,
    transport: &'static str,
    era: Option<Era>,
    payload: usize,
    concurrency: usize,
    sessions: usize,
    calls: usize,
    errors: usize,
    seconds: f64,
    calls_per_s: f64,
    p50_us: f64,
    p90_us: f64,
    p99_us: f64,
    startup_ms: Option<f64>,
    server_cpu_us_per_call: Option<f64>,
    server_peak_rss_kib: Option<u64>,
    driver_cpu_us_per_call: f64,
}

/// How many calls a run makes.
#[derive(Clone, Copy)]
pub struct Plan {
    /// Calls before the measurement, not measured.
    pub warmup: usize,
    /// At most this many measured calls.
    pub calls: usize,
    /// No measured call starts later than this after the measurement began.
    pub limit: Option<Duration>,
}

impl Plan {
    /// Warm-up plus measured calls, the most a run sends.
    pub fn total(&self) -> usize {
        self.warmup + self.calls
    }

    /// Whether the measurement that began at `started` is out of time.
    pub fn expired(&self, started: std::time::Instant) -> bool {
        self.limit.is_some_and(|limit| started.elapsed() >= limit)
    }
}

/// What a run measured, before it is reported.
pub struct Run {
    /// Each measured call's latency.
    pub latencies: Vec<Duration>,
    /// Calls whose answer was wrong or missing.
    pub errors: usize,
    /// Wall time of the measured calls.
    pub elapsed: Duration,
    /// Server CPU time spent on the measured calls.
    pub server_cpu: Option<Duration>,
    /// The server's peak resident memory.
    pub server_peak_rss_kib: Option<u64>,
    /// Spawn to first answer.
    pub startup: Option<Duration>,
    /// The driver's own CPU time spent on the measured calls.
    pub driver_cpu: Duration,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if let Transport::IdleSessions {
        url,
        sessions,
        server_pid,
    } = &args.transport
    {
        let kib = http::idle_session_kib(url, *sessions, *server_pid).await?;
        let line = serde_json::json!({"server": args.name, "sessions": sessions, "idle_session_kib": kib});
        println!("{line}");
        return Ok(());
    }
    let text = "x".repeat(args.payload);
    let plan = Plan {
        warmup: args.warmup,
        calls: args.calls,
        limit: args.seconds.map(Duration::from_secs_f64),
    };
    let (transport, concurrency, sessions, run) = match &args.transport {
        Transport::Stdio { in_flight, command } => {
            let run = stdio::run(command, args.era, &args.tool, &text, args.progress, *in_flight, plan).await?;
            ("stdio", *in_flight, 1, run)
        }
        Transport::Http {
            url,
            concurrency,
            sessions,
            server_pid,
        } => {
            let run = http::run(
                url,
                args.era,
                &args.tool,
                &text,
                args.progress,
                *concurrency,
                *sessions,
                *server_pid,
                plan,
            )
            .await?;
            ("http", *concurrency, *sessions, run)
        }
        Transport::IdleSessions { .. } => unreachable!("handled above"),
    };
    let report = report(&args, transport, concurrency, sessions, run);
    println!("{}", serde_json::to_string(&report)?);
    if report.errors > 0 {
        std::process::exit(1);
    }
    Ok(())
}

fn report(args: &Args, transport: &'static str, concurrency: usize, sessions: usize, run: Run) -> Report {
    let mut latencies = run.latencies;
    latencies.sort_unstable();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    let calls = latencies.len();
    let per_call = |cpu: Duration| cpu.as_secs_f64() * 1e6 / calls.max(1) as f64;
    Report {
        server: args.name.clone(),
        transport,
        era: Some(args.era),
        payload: args.payload,
        concurrency,
        sessions,
        calls,
        errors: run.errors,
        seconds: run.elapsed.as_secs_f64(),
        calls_per_s: calls as f64 / run.elapsed.as_secs_f64().max(f64::EPSILON),
        p50_us: percentile(0.50),
        p90_us: percentile(0.90),
        p99_us: percentile(0.99),
        startup_ms: run.startup.map(|d| d.as_secs_f64() * 1e3),
        server_cpu_us_per_call: run.server_cpu.map(per_call),
        server_peak_rss_kib: run.server_peak_rss_kib,
        driver_cpu_us_per_call: per_call(run.driver_cpu),
    }
}
