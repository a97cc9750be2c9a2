//! The GET stream of the legacy era: the standalone stream the server sends on once the
//! session is initialized, and the resumption (`Last-Event-ID`) of a broken response
//! stream.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue, ACCEPT};
use reqwest::{Method, Response, StatusCode};
use tokio::sync::oneshot;

use super::body::is_event_stream;
use super::error::{failed_answer, session_expired};
use super::reconnect::Reconnects;
use super::{Mode, Shared, EVENT_STREAM};
use crate::protocol::headers::names;
use crate::protocol::{Era, ErrorObject, ProtocolVersion};
use crate::transport::http::sse::{SseItem, SseParser};
use crate::transport::Frame;

/// Why a GET stream could not be (re)opened.
pub(super) enum GetFailure {
    /// Worth another try later (connection failure, 5xx).
    Retry(String),
    /// Not worth another try (405, 4xx, session gone).
    Fatal(ErrorObject),
}

impl Shared {
    /// A GET of the MCP endpoint for an SSE stream (legacy era): the standalone stream,
    /// or the resumption of a broken one after `last_event_id`.
    pub(super) async fn open_get_stream(&self, last_event_id: Option<&str>) -> Result<Response, GetFailure> {
        let (session, version) = {
            let state = self.state();
            (state.session_id.clone(), state.session_version.clone())
        };
        let mut protocol = vec![(ACCEPT, HeaderValue::from_static(EVENT_STREAM))];
        if let Some(session) = &session {
            protocol.push((HeaderName::from_static(names::SESSION_ID), session.clone()));
        }
        if let Some(version) = version {
            protocol.push((HeaderName::from_static(names::PROTOCOL_VERSION), version));
        }
        if let Some(last) = last_event_id.and_then(|last| HeaderValue::from_str(last).ok()) {
            protocol.push((HeaderName::from_static(names::LAST_EVENT_ID), last));
        }
        let request = self
            .http
            .get(self.url.clone())
            .headers(self.headers(&Method::GET, &self.url, protocol).await);
        let response = match self.within_request_timeout(request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Err(GetFailure::Retry(e.to_string())),
            Err(error) => return Err(GetFailure::Retry(error.message)),
        };
        let status = response.status();
        if status.is_success() && is_event_stream(&response) {
            return Ok(response);
        }
        if status == StatusCode::NOT_FOUND && session.is_some() {
            self.session_gone(session.as_ref());
            self.deliver(Frame::SessionExpired).await;
            return Err(GetFailure::Fatal(session_expired()));
        }
        let body = self.read_error_body(response).await;
        let error = failed_answer(status, &body);
        // 409: the server still holds the previous connection of the stream.
        if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::CONFLICT {
            Err(GetFailure::Retry(error.message))
        } else {
            Err(GetFailure::Fatal(error))
        }
    }

    /// Opens the legacy GET stream once the session is initialized under `version` (a
    /// server without one answers 405, which ends the attempt).
    /// The receiver resolves once the first GET is answered (or failed).
    pub(super) fn start_listener(self: &Arc<Self>, version: Option<ProtocolVersion>) -> Option<oneshot::Receiver<()>> {
        let version = version.filter(|version| version.era() == Era::Legacy)?;
        let token = {
            let mut state = self.state();
            if !matches!(state.mode, Mode::Streamable) {
                return None;
            }
            state.session_version = Some(HeaderValue::from_static(version.as_str()));
            let token = self.closing.child_token();
            if let Some(old) = state.listener.replace(token.clone()) {
                old.cancel();
            }
            token
        };
        let shared = Arc::clone(self);
        let (opened, opened_rx) = oneshot::channel();
        tokio::spawn(async move {
            tokio::select! {
                _ = shared.listen(opened) => {}
                _ = token.cancelled() => {}
            }
        });
        Some(opened_rx)
    }

    /// Reads the GET stream, reconnecting with `Last-Event-ID` when it breaks, as
    /// [`Reconnects`] says: backing off while it keeps closing, giving up after the
    /// configured number of attempts without an event.
    async fn listen(&self, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut parser = SseParser::new(self.options.max_message_size);
        let mut items = Vec::new();
        let mut reconnects = Reconnects::new(self.options.reconnect);
        loop {
            let last = parser.last_event_id().map(str::to_owned);
            let attempt = self.open_get_stream(last.as_deref()).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            let started = Instant::now();
            let mut events = false;
            match attempt {
                Ok(response) => {
                    parser.reconnected();
                    let mut body = response.bytes_stream();
                    while let Some(Ok(chunk)) = body.next().await {
                        parser.feed(&chunk, &mut items);
                        for item in items.drain(..) {
                            events = true;
                            match item {
                                SseItem::Event(event) if event.event == "message" && !event.data.is_empty() => {
                                    self.deliver(Frame::Message(event.data)).await;
                                }
                                SseItem::Event(_) => {}
                                SseItem::Oversized => self.deliver(self.oversized()).await,
                            }
                        }
                    }
                }
                Err(GetFailure::Fatal(error)) => {
                    tracing::debug!(%error, "no GET stream");
                    return;
                }
                Err(GetFailure::Retry(reason)) => tracing::debug!(%reason, "the GET stream failed"),
            }
            let Some(wait) = reconnects.after(events, started.elapsed(), parser.retry()) else {
                tracing::warn!("gave up reconnecting the GET stream");
                return;
            };
            tokio::time::sleep(wait).await;
        }
    }
}
