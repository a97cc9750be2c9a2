//! Driving a running Streamable HTTP server with concurrent workers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::wire::{self, CallTemplate};
use crate::{measure, Era, Run};

type Error = Box<dyn std::error::Error>;

/// One endpoint conversation: a legacy session id, or none in the modern era.
struct Channel {
    session: Option<String>,
}

/// Runs `warmup` then `calls` echo calls spread over `concurrency` workers sharing
/// `sessions` legacy sessions (modern: no sessions).
#[allow(clippy::too_many_arguments)]
pub async fn run(
    url: &str,
    era: Era,
    tool: &str,
    text: &str,
    concurrency: usize,
    sessions: usize,
    server_pid: Option<u32>,
    warmup: usize,
    calls: usize,
) -> Result<Run, Error> {
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(concurrency)
        .build()?;
    let mut channels = Vec::new();
    for _ in 0..sessions.max(1) {
        channels.push(Arc::new(open(&http, url, era).await?));
        if era == Era::Modern {
            break;
        }
    }
    let template = Arc::new(CallTemplate::new(era, tool, text));
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let text: Arc<str> = text.into();
    let drive = |limit: usize| {
        let workers: Vec<_> = (0..concurrency.max(1))
            .map(|worker| {
                let (http, url, template, next, errors, text) = (
                    http.clone(),
                    url.to_owned(),
                    Arc::clone(&template),
                    Arc::clone(&next),
                    Arc::clone(&errors),
                    Arc::clone(&text),
                );
                let channel = Arc::clone(&channels[worker % channels.len()]);
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    loop {
                        let id = next.fetch_add(1, Ordering::Relaxed);
                        if id >= limit {
                            return latencies;
                        }
                        let started = Instant::now();
                        match call(&http, &url, era, &channel, &template.with_id(id as u64)).await {
                            Ok(body) if wire::is_echo(&body, &text) => latencies.push(started.elapsed()),
                            _ => {
                                errors.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        futures::future::join_all(workers)
    };
    drive(warmup).await;
    next.store(0, Ordering::Relaxed);
    errors.store(0, Ordering::Relaxed);
    let cpu_start = server_pid.and_then(measure::cpu);
    let started = Instant::now();
    let latencies: Vec<Duration> = drive(calls)
        .await
        .into_iter()
        .filter_map(Result::ok)
        .flatten()
        .collect();
    let elapsed = started.elapsed();
    let server_cpu = server_pid
        .and_then(measure::cpu)
        .zip(cpu_start)
        .map(|(end, start)| end.saturating_sub(start));
    Ok(Run {
        errors: errors.load(Ordering::Relaxed) + calls.saturating_sub(latencies.len() + errors.load(Ordering::Relaxed)),
        latencies,
        elapsed,
        server_cpu,
        server_peak_rss_kib: server_pid.and_then(measure::peak_rss_kib),
        startup: None,
    })
}

/// Opens a legacy session (modern: nothing to open).
async fn open(http: &reqwest::Client, url: &str, era: Era) -> Result<Channel, Error> {
    if era == Era::Modern {
        return Ok(Channel { session: None });
    }
    let response = post(http, url, None, &wire::initialize(0), None).send().await?;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    response.bytes().await?;
    let channel = Channel { session };
    post(
        http,
        url,
        channel.session.as_deref(),
        &wire::initialized(),
        Some("2025-11-25"),
    )
    .send()
    .await?
    .bytes()
    .await?;
    Ok(channel)
}

async fn call(http: &reqwest::Client, url: &str, era: Era, channel: &Channel, body: &str) -> Result<String, Error> {
    let request = match era {
        Era::Legacy => post(http, url, channel.session.as_deref(), body, Some("2025-11-25")),
        Era::Modern => post(http, url, None, body, Some("2026-07-28"))
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo"),
    };
    let body = request.send().await?.text().await?;
    // An SSE answer: the data line holding the response.
    Ok(body)
}

fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &str,
    version: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    if let Some(version) = version {
        request = request.header("mcp-protocol-version", version);
    }
    request
}

/// Memory per idle legacy session: opens `sessions`, then reads the server's resident
/// memory growth per session.
pub async fn idle_session_kib(url: &str, sessions: usize, server_pid: u32) -> Result<f64, Error> {
    let http = reqwest::Client::builder().tcp_nodelay(true).build()?;
    let before = measure::rss_kib(server_pid).ok_or("no such process")?;
    let mut open_sessions = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        open_sessions.push(open(&http, url, Era::Legacy).await?);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = measure::rss_kib(server_pid).ok_or("no such process")?;
    Ok(after.saturating_sub(before) as f64 / sessions as f64)
}
