//! Driving a server over its stdin and stdout, with a window of requests in flight.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{Notify, Semaphore};

use super::wire::{self, CallTemplate};
use super::{measure, Era, Plan, Run};

type Error = Box<dyn std::error::Error>;

/// The id of the first request, apart from the numbered calls (and within JSON's safe
/// integers, which some servers insist on).
const FIRST_ID: u64 = 1 << 40;

/// Spawns `command`, settles the era, runs the planned warm-up then measured echo calls
/// with `in_flight` outstanding, and stops the server.
pub async fn run(
    command: &[String],
    era: Era,
    tool: &str,
    text: &str,
    progress: bool,
    in_flight: usize,
    plan: Plan,
) -> Result<Run, Error> {
    let spawned = Instant::now();
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id().ok_or("the server exited at once")?;
    let mut stdin = BufWriter::new(child.stdin.take().ok_or("no stdin")?);
    let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let template = CallTemplate::new(era, tool, text, progress);
    // The first answer: the handshake in the legacy era, a first call in the modern era.
    let first = match era {
        Era::Legacy => wire::initialize(FIRST_ID),
        Era::Modern => template.with_id(FIRST_ID),
    };
    send(&mut stdin, &first).await?;
    loop {
        let line = lines.next_line().await?.ok_or("the server closed its output")?;
        if wire::response_id(&line) == Some(FIRST_ID) {
            break;
        }
    }
    let startup = spawned.elapsed();
    if era == Era::Legacy {
        send(&mut stdin, &wire::initialized()).await?;
    }
    let (warmup, total) = (plan.warmup, plan.total());
    let calls = Arc::new(Calls {
        sent_at: (0..total).map(|_| AtomicU64::new(0)).collect(),
        window: Semaphore::new(in_flight.max(1)),
        clock: Instant::now(),
        sent: AtomicUsize::new(total),
        stopped: Notify::new(),
    });
    let writer = tokio::spawn(write_calls(stdin, template, plan, Arc::clone(&calls)));

    let errors = AtomicUsize::new(0);
    let mut latencies = Vec::new();
    let mut answered = 0;
    let mut measured_start = None;
    let mut cpu_start = None;
    let mut own_cpu_start = Duration::ZERO;
    while answered < calls.sent.load(Ordering::Acquire) {
        // The writer may stop early (out of time) after the last answer came; its signal
        // ends the wait then.
        let line = tokio::select! {
            line = lines.next_line() => line?,
            () = calls.stopped.notified() => continue,
        };
        let Some(line) = line else { break };
        let Some(id) = wire::response_id(&line).filter(|id| (*id as usize) < total) else {
            continue;
        };
        let now = calls.clock.elapsed();
        answered += 1;
        calls.window.add_permits(1);
        if !wire::is_echo(&line, text) && errors.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!("oxmcp bench: unexpected answer: {line}");
        }
        if answered == warmup {
            measured_start = Some(Instant::now());
            cpu_start = measure::cpu(pid);
            own_cpu_start = measure::own_cpu();
        }
        if id as usize >= warmup {
            let sent = Duration::from_nanos(calls.sent_at[id as usize].load(Ordering::Relaxed));
            latencies.push(now.saturating_sub(sent));
        }
    }
    let elapsed = measured_start.map_or(Duration::ZERO, |start| start.elapsed());
    let server_cpu = measure::cpu(pid)
        .zip(cpu_start)
        .map(|(end, start)| end.saturating_sub(start));
    let server_peak_rss_kib = measure::peak_rss_kib(pid);
    let driver_cpu = measure::own_cpu().saturating_sub(own_cpu_start);
    writer.abort();
    drop(lines);
    let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
    let _ = child.kill().await;
    let missing = calls.sent.load(Ordering::Acquire).saturating_sub(answered);
    Ok(Run {
        latencies,
        errors: errors.into_inner() + missing,
        elapsed,
        server_cpu,
        server_peak_rss_kib,
        startup: Some(startup),
        driver_cpu,
    })
}

/// What the writer and the reader of a run share.
struct Calls {
    /// When each call was sent, in nanoseconds since `clock`.
    sent_at: Vec<AtomicU64>,
    /// Permits for calls in flight: the writer takes one per call, the reader returns it.
    window: Semaphore,
    clock: Instant,
    /// How many calls will have been sent: the plan's total until the writer stops early.
    sent: AtomicUsize,
    /// Signalled when the writer has stopped early.
    stopped: Notify,
}

/// Sends the calls as the window allows, flushing once per burst, until the plan's total
/// or its time limit.
async fn write_calls(
    mut stdin: BufWriter<ChildStdin>,
    template: CallTemplate,
    plan: Plan,
    calls: Arc<Calls>,
) -> std::io::Result<()> {
    let total = plan.total();
    let mut measured_from = None;
    let mut id = 0;
    while id < total {
        if measured_from.is_some_and(|started| plan.expired(started)) {
            calls.sent.store(id, Ordering::Release);
            calls.stopped.notify_one();
            break;
        }
        let Ok(permit) = calls.window.acquire().await else {
            return Ok(());
        };
        permit.forget();
        let mut burst = 1;
        while calls.window.try_acquire().map(|p| p.forget()).is_ok() {
            burst += 1;
        }
        for _ in 0..burst.min(total - id) {
            if id == plan.warmup {
                measured_from = Some(Instant::now());
            }
            calls.sent_at[id].store(calls.clock.elapsed().as_nanos() as u64, Ordering::Relaxed);
            stdin.write_all(template.with_id(id as u64).as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            id += 1;
        }
        stdin.flush().await?;
    }
    // Keep stdin open until the run ends (the task is aborted then): a server may take its
    // end as the signal to exit before it has answered the calls still in flight.
    std::future::pending::<()>().await;
    Ok(())
}

async fn send(stdin: &mut BufWriter<ChildStdin>, message: &str) -> std::io::Result<()> {
    stdin.write_all(message.as_bytes()).await?;
    stdin.write_all(b"\n").await?;
    stdin.flush().await
}
