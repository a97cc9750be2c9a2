//! Driving a running Streamable HTTP server with concurrent workers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::wire::{self, CallTemplate};
use super::{measure, Era, Plan, Run};

type Error = Box<dyn std::error::Error>;

/// One endpoint conversation: a legacy session id, or none in the modern era.
struct Channel {
    session: Option<String>,
}

/// Runs the planned warm-up then measured echo calls spread over `concurrency` workers
/// sharing `sessions` legacy sessions (modern: no sessions), each request with the
/// `bearer` token when given.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    url: &str,
    bearer: Option<&str>,
    era: Era,
    tool: &str,
    text: &str,
    progress: bool,
    concurrency: usize,
    sessions: usize,
    server_pid: Option<u32>,
    plan: Plan,
) -> Result<Run, Error> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = bearer {
        let mut value = reqwest::header::HeaderValue::try_from(format!("Bearer {token}"))?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(concurrency)
        .default_headers(headers)
        .build()?;
    let mut channels = Vec::new();
    for _ in 0..sessions.max(1) {
        channels.push(Arc::new(open(&http, url, era).await?));
        if era == Era::Modern {
            break;
        }
    }
    let template = Arc::new(CallTemplate::new(era, tool, text, progress));
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let text: Arc<str> = text.into();
    let drive = |limit: usize, clock: Option<(Instant, Plan)>| {
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
                        // Out of time is checked first, so that every id handed out is a call made.
                        if clock.is_some_and(|(started, plan)| plan.expired(started)) {
                            return latencies;
                        }
                        let id = next.fetch_add(1, Ordering::Relaxed);
                        if id >= limit {
                            return latencies;
                        }
                        let started = Instant::now();
                        match call(&http, &url, era, &channel, &template, id as u64).await {
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
    drive(plan.warmup, None).await;
    next.store(0, Ordering::Relaxed);
    errors.store(0, Ordering::Relaxed);
    let cpu_start = server_pid.and_then(measure::cpu);
    let own_cpu_start = measure::own_cpu();
    let started = Instant::now();
    let latencies: Vec<Duration> = drive(plan.calls, Some((started, plan)))
        .await
        .into_iter()
        .filter_map(Result::ok)
        .flatten()
        .collect();
    let elapsed = started.elapsed();
    let driver_cpu = measure::own_cpu().saturating_sub(own_cpu_start);
    let server_cpu = server_pid
        .and_then(measure::cpu)
        .zip(cpu_start)
        .map(|(end, start)| end.saturating_sub(start));
    // Calls started (ids handed out below the cap) that neither answered nor failed are lost.
    let started_calls = next.load(Ordering::Relaxed).min(plan.calls);
    let errors = errors.load(Ordering::Relaxed);
    Ok(Run {
        errors: errors + started_calls.saturating_sub(latencies.len() + errors),
        latencies,
        elapsed,
        server_cpu,
        server_peak_rss_kib: server_pid.and_then(measure::peak_rss_kib),
        startup: None,
        driver_cpu,
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
    let answer = first_answer(response).await?;
    if !answer.contains("\"result\"") {
        return Err(format!("initialize failed: {answer}").into());
    }
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

async fn call(
    http: &reqwest::Client,
    url: &str,
    era: Era,
    channel: &Channel,
    template: &CallTemplate,
    id: u64,
) -> Result<String, Error> {
    let body = &template.with_id(id);
    let request = match era {
        Era::Legacy => post(http, url, channel.session.as_deref(), body, Some("2025-11-25")),
        Era::Modern => post(http, url, None, body, Some("2026-07-28"))
            .header("mcp-method", "tools/call")
            .header("mcp-name", template.tool()),
    };
    // The whole body (JSON, or an SSE stream that ends after the answer), so the connection
    // goes back to the pool; the caller checks the echo in it.
    Ok(request.send().await?.text().await?)
}

/// The JSON-RPC message answering a request: the whole body of a JSON answer, or the first
/// SSE event that carries a message. Some servers keep an SSE answer open after it (and send
/// an empty priming event before it), so the body is read only as far as needed and then
/// dropped, which closes that one stream; the session lives on.
async fn first_answer(mut response: reqwest::Response) -> Result<String, Error> {
    let is_sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        return Ok(response.text().await?);
    }
    let mut buffer = String::new();
    while let Some(chunk) = response.chunk().await? {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        // Lines may end in CRLF (the official Python SDK's do).
        let normalized = buffer.replace("\r\n", "\n");
        if let Some(message) = sse_message(&normalized) {
            return Ok(message.to_owned());
        }
    }
    Err(format!("the SSE answer ended without a message: {buffer}").into())
}

/// The data of the first complete SSE event in `buffer` that holds a JSON-RPC response
/// (one with an id: the progress notifications before it have none).
fn sse_message(buffer: &str) -> Option<&str> {
    let complete = &buffer[..buffer.rfind("\n\n")?];
    complete
        .split("\n\n")
        .flat_map(str::lines)
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| data.contains("\"id\""))
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

/// Memory per idle legacy session: opens `sessions` (handshake only, no GET stream), then
/// reads the server's resident memory growth per session.
pub async fn idle_session_kib(url: &str, sessions: usize, server_pid: u32) -> Result<f64, Error> {
    // A server that stops answering fails the probe instead of hanging it.
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .timeout(Duration::from_secs(10))
        .build()?;
    let before = measure::rss_kib(server_pid).ok_or("no such process")?;
    let mut open_sessions = Vec::with_capacity(sessions);
    for opened in 0..sessions {
        let session = open(&http, url, Era::Legacy)
            .await
            .map_err(|e| format!("opening session {} failed: {e}", opened + 1))?;
        open_sessions.push(session);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = measure::rss_kib(server_pid).ok_or("no such process")?;
    Ok(after.saturating_sub(before) as f64 / sessions as f64)
}

#[cfg(test)]
mod tests {
    use super::sse_message;

    #[test]
    fn the_first_message_event_is_found_past_a_priming_event() {
        let primed =
            "id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\n";
        assert_eq!(
            sse_message(primed),
            Some("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}")
        );
        assert_eq!(
            sse_message("data: {\"jsonrpc\":\"2.0\""),
            None,
            "an event is complete at its blank line"
        );
        assert_eq!(sse_message("id: 0\ndata:\n\n"), None);
    }

    #[test]
    fn progress_before_the_answer_is_passed_over() {
        let stream = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1}}\n\n\
                      data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n";
        assert_eq!(
            sse_message(stream),
            Some("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}")
        );
    }
}
