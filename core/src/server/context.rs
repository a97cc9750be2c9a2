//! The per-request [`Context`] every handler receives.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::handler::HandlerError;
use super::session::{Exchange, Session};
use crate::protocol::{
    methods, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Era, Implementation, ListRootsResult, LoggingLevel, LoggingMessageNotificationParams, Meta,
    ProgressNotificationParams, ProgressToken, ProtocolVersion, RequestId,
};

/// What a handler knows about the request it serves, and how it talks back: progress,
/// log messages, cancellation, and requests to the client.
///
/// Cheap to clone; every clone refers to the same request.
#[derive(Clone)]
pub struct Context {
    inner: Arc<RequestState>,
}

struct RequestState {
    session: Arc<Session>,
    request_id: RequestId,
    exchange: Exchange,
    progress_token: Option<ProgressToken>,
    meta: Option<Meta>,
    cancellation: CancellationToken,
    last_progress: Mutex<Option<f64>>,
    /// Set once the response is sent: nothing more may be sent for the request.
    finished: AtomicBool,
}

impl Context {
    pub(crate) fn new(
        session: Arc<Session>,
        request_id: RequestId,
        exchange: Exchange,
        meta: Option<Meta>,
        cancellation: CancellationToken,
    ) -> Self {
        let progress_token = meta
            .as_ref()
            .and_then(|m| m.get(crate::protocol::meta::PROGRESS_TOKEN))
            .and_then(|token| serde_json::from_value(token.clone()).ok());
        Context {
            inner: Arc::new(RequestState {
                session,
                request_id,
                exchange,
                progress_token,
                meta,
                cancellation,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
            }),
        }
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol version of this request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.exchange.version
    }

    /// The era of this request.
    pub fn era(&self) -> Era {
        self.inner.exchange.version.era()
    }

    /// Who the client says it is, when it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.exchange.client_info.as_deref()
    }

    /// What the client declared it can do (for this request, in the modern era).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.exchange.client_capabilities
    }

    /// The request's raw `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.as_ref()
    }

    /// Fires when the client cancels the request (or the connection ends). The handler's
    /// future is dropped then anyway; use this to stop work it spawned elsewhere.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the client cancelled the request.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Reports progress, when the client asked for it with a progress token. Values must
    /// increase: a value not above the last one is dropped, and nothing is sent after the
    /// response.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        {
            let mut last = self.inner.last_progress.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|last| progress <= last) {
                tracing::warn!(progress, "progress must increase; dropped");
                return;
            }
            *last = Some(progress);
        }
        let params = ProgressNotificationParams {
            progress_token: token.clone(),
            progress,
            total,
            message,
            meta: None,
        };
        self.notify(methods::PROGRESS, &params).await;
    }

    /// Sends a log message to the client, if the client wants messages of this level:
    /// in the legacy era as set by `logging/setLevel`, in the modern era only when the
    /// request carried a log level.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        let threshold = match self.era() {
            Era::Legacy => self.inner.session.log_level(),
            Era::Modern => match self.inner.exchange.log_level {
                Some(level) => Some(level),
                None => return,
            },
        };
        if threshold.is_some_and(|threshold| level < threshold) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data: data.into(),
            meta: None,
        };
        self.notify(methods::MESSAGE, &params).await;
    }

    /// Asks the client's user for input (`elicitation/create`).
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, HandlerError> {
        let capability = self.client_capabilities().elicitation.as_ref();
        let supported = match &params {
            ElicitRequestParams::Form(_) => capability.is_some_and(|c| c.supports_form()),
            ElicitRequestParams::Url(_) => capability.is_some_and(|c| c.supports_url()),
        };
        if !supported {
            return Err(HandlerError::message(
                "the client does not support this mode of elicitation",
            ));
        }
        self.ask_client(methods::ELICITATION_CREATE, &params).await
    }

    /// Asks the client's LLM for a completion (`sampling/createMessage`).
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, HandlerError> {
        let capability = self.client_capabilities().sampling.as_ref();
        let Some(capability) = capability else {
            return Err(HandlerError::message("the client does not support sampling"));
        };
        if (params.tools.is_some() || params.tool_choice.is_some()) && capability.tools.is_none() {
            return Err(HandlerError::message("the client does not support tools in sampling"));
        }
        self.ask_client(methods::SAMPLING_CREATE_MESSAGE, &params).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, HandlerError> {
        if self.client_capabilities().roots.is_none() {
            return Err(HandlerError::message("the client does not support roots"));
        }
        self.ask_client(methods::ROOTS_LIST, &serde_json::Map::new()).await
    }

    /// Sends a request to the client and awaits its answer (legacy era).
    async fn ask_client<P: Serialize, R: DeserializeOwned>(&self, method: &str, params: &P) -> Result<R, HandlerError> {
        if self.era() == Era::Modern {
            return Err(HandlerError::message(format!(
                "{method} in the modern era needs a multi round-trip request, which this server does not offer yet"
            )));
        }
        let raw = self
            .inner
            .session
            .connection()
            .request(method, Some(params))
            .await
            .map_err(|e| HandlerError::message(format!("{method} failed: {e}")))?;
        serde_json::from_str(raw.get()).map_err(|e| HandlerError::message(format!("invalid {method} answer: {e}")))
    }

    /// Marks the response as sent; later notifications for the request are dropped.
    pub(crate) fn finish(&self) {
        self.inner.finished.store(true, Ordering::Release);
    }

    async fn notify<P: Serialize>(&self, method: &str, params: &P) {
        if self.inner.finished.load(Ordering::Acquire) || self.is_cancelled() {
            return;
        }
        // A closed connection only means nobody is listening any more.
        let _ = self.inner.session.connection().notify(method, Some(params)).await;
    }
}
