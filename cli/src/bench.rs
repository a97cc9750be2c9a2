//! `oxmcp bench`: the load driver of the benchmark suite (tests/bench/run.py runs it), for
//! any server. It drives the server's echo tool with requests prepared once and answers
//! checked by a cheap scan, speaking the protocol itself so that it is not the bottleneck,
//! and reports throughput, latency, the server's CPU time per call and peak memory, and its
//! own CPU time: as a table for people, or as one JSON line (`--json`).
//!
//! ```text
//! oxmcp bench --era legacy --in-flight 32 -- python server.py
//! oxmcp bench --url http://127.0.0.1:8000/mcp --era modern --concurrency 32 --server-pid 1234
//! ```

use std::time::{Duration, Instant};

use clap::ValueEnum;
use comfy_table::{presets, Table};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::json;

use crate::args::Bench;
use crate::failure::Failure;

mod http;
mod measure;
mod plot;
mod stdio;
mod wire;

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
    pub fn expired(&self, started: Instant) -> bool {
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

/// Runs the benchmark `args` describe and prints its figures; calls that failed fail the
/// run (exit 4).
pub async fn run(args: &Bench) -> Result<(), Failure> {
    let failed = |e: Box<dyn std::error::Error>| Failure::Connect(e.to_string());
    if let Some(sessions) = args.idle_sessions {
        let (Some(url), Some(pid)) = (&args.url, args.server_pid) else {
            return Err(Failure::Usage("--idle-sessions needs --url and --server-pid".into()));
        };
        let kib = http::idle_session_kib(url, sessions, pid).await.map_err(failed)?;
        let line = json!({"server": args.name, "sessions": sessions, "idle_session_kib": kib});
        match args.json {
            true => crate::say(line),
            false => crate::say(format!("{kib:.1} KiB per idle session")),
        }
        return Ok(());
    }
    let text = "x".repeat(args.payload);
    let plan = Plan {
        warmup: args.warmup,
        calls: args.calls,
        limit: args.seconds.map(Duration::from_secs_f64),
    };
    let bar = running_bar(args.seconds);
    let (transport, concurrency, sessions, run) = match (&args.url, args.command.is_empty()) {
        (Some(url), true) => {
            let run = http::run(
                url,
                args.bearer.as_deref(),
                args.era,
                &args.tool,
                &text,
                args.progress,
                args.concurrency,
                args.sessions,
                args.server_pid,
                plan,
            )
            .await;
            ("http", args.concurrency, args.sessions, run)
        }
        (None, false) => {
            let run = stdio::run(
                &args.command,
                args.era,
                &args.tool,
                &text,
                args.progress,
                args.in_flight,
                plan,
            )
            .await;
            ("stdio", args.in_flight, 1, run)
        }
        _ => {
            return Err(Failure::Usage(
                "give --url URL or a command after `--`, not both".into(),
            ))
        }
    };
    bar.finish_and_clear();
    let mut run = run.map_err(failed)?;
    run.latencies.sort_unstable();
    let latencies = args.plot.as_ref().map(|_| run.latencies.clone());
    let report = report(args, transport, concurrency, sessions, run);
    if let (Some(path), Some(latencies)) = (&args.plot, latencies) {
        plot::plot(path, &report, &latencies).map_err(|why| Failure::Usage(format!("--plot: {why}")))?;
    }
    match args.json {
        true => crate::say(serde_json::to_string(&report).unwrap_or_default()),
        false => crate::say(summary(&report)),
    }
    match report.errors {
        0 => Ok(()),
        n => Err(Failure::Protocol(format!("{n} calls got no or a wrong answer"), None)),
    }
}

/// A bar at the terminal while the run goes: its time, against `--seconds` when given.
fn running_bar(seconds: Option<f64>) -> ProgressBar {
    let bar = match seconds {
        Some(seconds) => ProgressBar::new((seconds * 10.0).ceil() as u64),
        None => ProgressBar::new_spinner(),
    };
    let template = match seconds {
        Some(_) => "{bar:30} {elapsed} measuring",
        None => "{spinner} {elapsed} measuring",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    // Not at a terminal the bar is hidden: no thread then, to tick in the driver's process
    // and add to the CPU time it reports as its own.
    if bar.is_hidden() {
        return bar;
    }
    let ticking = bar.clone();
    std::thread::spawn(move || {
        while !ticking.is_finished() {
            ticking.inc(1);
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    bar
}

/// The figures of `run`, whose latencies are sorted.
fn report(args: &Bench, transport: &'static str, concurrency: usize, sessions: usize, run: Run) -> Report {
    let latencies = run.latencies;
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

/// The figures as a table for people.
fn summary(report: &Report) -> String {
    let optional = |value: Option<f64>, unit: &str| value.map_or("-".to_owned(), |v| format!("{v:.1} {unit}"));
    let era = match report.era {
        Some(Era::Modern) => "modern",
        _ => "legacy",
    };
    let rows = [
        (
            "server",
            format!("{} over {} ({era} era)", report.server, report.transport),
        ),
        (
            "calls",
            format!("{} in {:.2} s, {} failed", report.calls, report.seconds, report.errors),
        ),
        ("throughput", format!("{:.0} calls/s", report.calls_per_s)),
        (
            "latency",
            format!(
                "p50 {:.0} µs, p90 {:.0} µs, p99 {:.0} µs",
                report.p50_us, report.p90_us, report.p99_us
            ),
        ),
        ("server CPU", optional(report.server_cpu_us_per_call, "µs per call")),
        (
            "server peak RSS",
            optional(report.server_peak_rss_kib.map(|kib| kib as f64 / 1024.0), "MiB"),
        ),
        ("start-up", optional(report.startup_ms, "ms")),
        (
            "driver CPU",
            format!("{:.1} µs per call", report.driver_cpu_us_per_call),
        ),
    ];
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    for (name, value) in rows {
        table.add_row([name.to_owned(), value]);
    }
    table.trim_fmt()
}
