//! Sending one request: the per-call options (timeout, progress, cancellation), the
//! era's `_meta`, the `input_required` rounds of the 2026-07-28 era, and telling the
//! server to stop a request the client gave up on.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{decode, lock, to_value, Client};
use crate::connection::await_reply;
use crate::error::{Error, Result};
use crate::protocol::headers::HeaderParam;
use crate::protocol::jsonrpc;
use crate::protocol::{
    meta, methods, ClientCapabilities, Era, ErrorObject, InputRequest, InputRequiredResult, InputResponse,
    LoggingMessageNotificationParams, ProgressNotificationParams, ProtocolVersion, RequestId, ResultType,
};
use crate::transport::Envelope;
use crate::BoxFuture;

/// How many `input_required` rounds one request may take before the client gives up,
/// unless [`ClientOptions::max_input_rounds`](super::ClientOptions::max_input_rounds) says.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// Called with each progress notification of a request.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Answers a question a server of 2025-11-25 or earlier asks (sampling, elicitation,
/// roots) in place of the client's handlers (see [`CallOptions::asker`]).
pub type Asker =
    Arc<dyn Fn(InputRequest) -> BoxFuture<'static, std::result::Result<InputResponse, ErrorObject>> + Send + Sync>;

/// Called with each log message the server sends about a request (see
/// [`CallOptions::on_log`]).
pub type LogCallback = Arc<dyn Fn(LoggingMessageNotificationParams) + Send + Sync>;

/// Per-call settings.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Overrides the client's default timeout (`Some(None)`: no timeout).
    pub timeout: Option<Option<Duration>>,
    /// Receives progress notifications; the request then carries a progress token.
    pub on_progress: Option<ProgressCallback>,
    /// Restart the timeout whenever progress arrives.
    pub reset_timeout_on_progress: bool,
    /// Cancel the request when this fires.
    pub cancellation: Option<CancellationToken>,
    /// Metadata for the request's `_meta` (beside what the protocol puts there: the
    /// progress token, the 2026-07-28 fields).
    pub meta: Option<Map<String, Value>>,
    /// Answers the questions a server of 2025-11-25 or earlier asks for this request, in
    /// place of the client's handlers (a proxy asks its own caller): those sent on the
    /// request's Streamable HTTP stream, and, over a connection that cannot tell which
    /// request a question belongs to (stdio), those asked while it is the only request
    /// pending.
    pub asker: Option<Asker>,
    /// Receives the log messages the server sends about this request, found as the
    /// [`asker`](Self::asker)'s questions are (a proxy passes them on to its caller). They
    /// reach the client's notifications too.
    pub on_log: Option<LogCallback>,
}

/// Where a pending request wants the server's questions and log messages about it.
#[derive(Clone)]
pub(super) struct Relay {
    pub(super) asker: Option<Asker>,
    pub(super) on_log: Option<LogCallback>,
}

impl Client {
    /// The relay of the request a message from the server is about: the request whose
    /// stream carried it (`answering`), or, over a connection that cannot tell, the one
    /// request pending (`subscriptions/listen` streams aside).
    pub(super) fn relay_of(&self, answering: Option<&RequestId>) -> Option<Relay> {
        let relays = lock(&self.inner.relays);
        let listens = self.inner.listens.load(Ordering::Relaxed);
        match answering {
            Some(id) => relays.get(id).cloned(),
            None if self.inner.connection.pending().count().saturating_sub(listens) == 1 => {
                relays.values().next().cloned()
            }
            None => None,
        }
    }
}

impl CallOptions {
    /// Whether the call was given up before it started: it is then not made at all.
    pub(super) fn given_up(&self) -> bool {
        self.cancellation.as_ref().is_some_and(CancellationToken::is_cancelled)
    }
}

/// A request that wants progress: its callback, and the signal that restarts its timeout.
pub(super) struct ProgressWatch {
    pub(super) callback: Option<ProgressCallback>,
    pub(super) arrived: Arc<Notify>,
}

impl Client {
    /// Sends a request in the connection's era and decodes its final result. In the
    /// 2026-07-28 era an `input_required` answer is handled here: each input request goes
    /// to the registered handler, and the request is retried with the answers and the
    /// server's `requestState`, for at most the rounds the options allow; a task (the tasks
    /// extension) is followed to its result.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<R> {
        match self.request_to_task(method, params, options).await? {
            Answered::Done(raw) => decode(&raw),
            Answered::Task(created) => decode(&self.follow_task(&created, options).await?),
        }
    }

    /// Sends a request, answering `input_required` rounds, until it has a result or a task
    /// (2026-07-28: a server may ask for input before it makes a task).
    pub(super) async fn request_to_task(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Answered> {
        let mut raw = self.request_raw(method, params.clone(), options).await?;
        let rounds = self.inner.options.max_input_rounds;
        for _ in 0..rounds {
            let head: ResultHead = decode(&raw)?;
            match head.result_type {
                Some(ResultType::InputRequired) => {}
                Some(ResultType::Task) => return Ok(Answered::Task(raw)),
                _ => return Ok(Answered::Done(raw)),
            }
            let input: InputRequiredResult = decode(&raw)?;
            let mut retry = params.clone();
            let responses = self
                .answer_round(method, input.input_requests.unwrap_or_default())
                .await?;
            if !responses.is_empty() {
                retry.insert("inputResponses".into(), to_value(&responses));
            }
            if let Some(state) = input.request_state {
                retry.insert("requestState".into(), state.into());
            }
            raw = self.request_raw(method, retry, options).await?;
        }
        Err(Error::Protocol(format!(
            "{method}: still no result after {rounds} input rounds"
        )))
    }

    /// Sends one round of a request whose input the caller gathers itself (a proxy asks
    /// its own client): the result, a task followed to its end, or the server's
    /// `input_required`, returned for the caller to answer.
    /// The questions go to a client of `capabilities`, which the request declares in place of
    /// this client's.
    pub(crate) async fn request_round(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
        capabilities: &ClientCapabilities,
    ) -> Result<Round> {
        let version = self.protocol_version();
        let mut params = self.era_params(with_meta(params, options.meta.as_ref()), version);
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.insert(meta::CLIENT_CAPABILITIES.into(), to_value(capabilities));
        }
        let raw = self.send_in_era(method, params, options, version).await?;
        let head: ResultHead = decode(&raw)?;
        Ok(match head.result_type {
            Some(ResultType::InputRequired) => Round::Input(decode(&raw)?),
            Some(ResultType::Task) => Round::Done(self.follow_task(&raw, options).await?),
            _ => Round::Done(raw),
        })
    }

    /// Sends one request in the connection's era and returns its raw result: an
    /// `input_required` result is returned as is, for callers that drive multi round-trip
    /// requests themselves.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<Box<RawValue>> {
        let version = self.protocol_version();
        let params = self.era_params(with_meta(params, options.meta.as_ref()), version);
        self.send_in_era(method, params, options, version).await
    }

    /// Sends a request whose params are `version`'s era's already.
    async fn send_in_era(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        options: &CallOptions,
        version: ProtocolVersion,
    ) -> Result<Box<RawValue>> {
        if version.era() == Era::Modern && method == methods::TOOLS_CALL {
            return self.call_tool_raw(&mut params, options, version).await;
        }
        self.send_request(method, &mut params, options, Some(version), &[])
            .await
    }

    /// A request's params as `version`'s era sends them (the modern era's `_meta`).
    pub(super) fn era_params(&self, params: Map<String, Value>, version: ProtocolVersion) -> Map<String, Value> {
        match version.era() {
            Era::Modern => self.modern_params(params, version, *lock(&self.inner.log_level)),
            Era::Legacy => params,
        }
    }

    /// Sends a request as is, with timeout, progress and cancellation handling. Its
    /// [`Envelope`] tells the transport it is sent under `version` (`None` before one is
    /// settled: `initialize`) and, for a modern `tools/call`, carries the `Mcp-Param-*`
    /// headers of the tool's `header_params`. `params` is borrowed so that a request sent
    /// again (after a HeaderMismatch) needs no copy; only its progress token changes. A
    /// request whose legacy session the server no longer knows is sent again in a new one.
    pub(super) async fn send_request(
        &self,
        method: &str,
        params: &mut Map<String, Value>,
        options: &CallOptions,
        version: Option<ProtocolVersion>,
        header_params: &[HeaderParam],
    ) -> Result<Box<RawValue>> {
        let session = self.inner.session.current();
        match self.send_once(method, params, options, version, header_params).await {
            Err(error) if Self::renews_session(&error, method, version) => {
                // Boxed: beginning a session sends requests itself.
                Box::pin(self.renew_session(session)).await?;
                self.send_once(method, params, options, version, header_params).await
            }
            outcome => outcome,
        }
    }

    /// Sends a request once (see [`Client::send_request`]).
    async fn send_once(
        &self,
        method: &str,
        params: &mut Map<String, Value>,
        options: &CallOptions,
        version: Option<ProtocolVersion>,
        header_params: &[HeaderParam],
    ) -> Result<Box<RawValue>> {
        if options.given_up() {
            return Err(Error::Cancelled);
        }
        let connection = &self.inner.connection;
        let (id, reply) = connection.pending().register()?;
        let arrived = Arc::new(Notify::new());
        let wants_progress = options.on_progress.is_some() || options.reset_timeout_on_progress;
        if wants_progress {
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(meta::PROGRESS_TOKEN.into(), to_value(&id));
            }
            lock(&self.inner.progress).insert(
                id.clone(),
                ProgressWatch {
                    callback: options.on_progress.clone(),
                    arrived: Arc::clone(&arrived),
                },
            );
        }
        let guard = PendingGuard {
            client: self,
            id: id.clone(),
            version,
            armed: true,
            relays: options.asker.is_some() || options.on_log.is_some(),
        };
        if guard.relays {
            let relay = Relay {
                asker: options.asker.clone(),
                on_log: options.on_log.clone(),
            };
            lock(&self.inner.relays).insert(id.clone(), relay);
        }
        let text = jsonrpc::request_text(&id, method, Some(&*params));
        connection
            .send_described(text, || Envelope::request(id, method, params, version, header_params))
            .await?;
        let timeout = options.timeout.unwrap_or(self.inner.options.timeout);
        let cancellation = options.cancellation.clone().unwrap_or_default();
        let mut reply = std::pin::pin!(await_reply(reply));
        let outcome = loop {
            let deadline = async {
                match timeout {
                    Some(timeout) => tokio::time::sleep(timeout).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                outcome = &mut reply => break outcome,
                _ = deadline => break Err(Error::Timeout(timeout.unwrap_or_default())),
                _ = cancellation.cancelled() => break Err(Error::Cancelled),
                _ = arrived.notified(), if options.reset_timeout_on_progress => continue,
            }
        };
        let mut guard = guard;
        guard.armed = matches!(outcome, Err(Error::Timeout(_)) | Err(Error::Cancelled));
        drop(guard);
        outcome
    }
}

/// Forgets a request that ended without its answer, and tells the server to stop it.
struct PendingGuard<'a> {
    client: &'a Client,
    id: RequestId,
    /// The version the request was sent under, which its cancellation is sent under too.
    version: Option<ProtocolVersion>,
    armed: bool,
    /// Whether the request has a relay to forget.
    relays: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.client.inner.progress).remove(&self.id);
        if self.relays {
            lock(&self.client.inner.relays).remove(&self.id);
        }
        if !self.armed {
            return;
        }
        let connection = Arc::clone(&self.client.inner.connection);
        connection.pending().forget(&self.id);
        let text = jsonrpc::cancellation_text(&self.id, "cancelled by the client");
        let (id, version) = (self.id.clone(), self.version);
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = connection
                    .send_described(text, || Envelope::cancellation(id, version))
                    .await;
            });
        }
    }
}

/// How one round of a request was answered (see [`Client::request_round`]).
pub(crate) enum Round {
    /// The result (raw).
    Done(Box<RawValue>),
    /// What the server needs first.
    Input(InputRequiredResult),
}

/// How a request was answered: with its result, or with a task that will give it.
pub(super) enum Answered {
    /// The result (raw).
    Done(Box<RawValue>),
    /// A `CreateTaskResult` (raw).
    Task(Box<RawValue>),
}

#[derive(serde::Deserialize)]
struct ResultHead {
    #[serde(rename = "resultType", default)]
    result_type: Option<ResultType>,
}

/// `params` with `meta` added to their `_meta` (what the params carry there already wins).
fn with_meta(mut params: Map<String, Value>, meta: Option<&Map<String, Value>>) -> Map<String, Value> {
    let Some(meta) = meta.filter(|meta| !meta.is_empty()) else {
        return params;
    };
    if let Value::Object(existing) = params.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
        for (key, value) in meta {
            existing.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    params
}
