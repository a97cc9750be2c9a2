//! The POSTs of the Streamable HTTP transport: the first request that settles which wire
//! the server speaks, each request's exchange up to its final response (JSON or SSE, with
//! the authorizer's retries and the HeaderMismatch retry), and the one-way POST of a
//! notification or response.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Method, Response, StatusCode};
use tokio_util::sync::CancellationToken;

use super::body::is_event_stream;
use super::error::{failed_answer, session_expired, transport_error};
use super::get_stream::GetFailure;
use super::message::{body_headers, classify, error_of, Classified, Outgoing};
use super::reconnect::Reconnects;
use super::{Mode, Shared, ONE_WAY_TIMEOUT};
use crate::protocol::headers::names;
use crate::protocol::{code, methods, ErrorObject, RequestId};
use crate::transport::http::sse::{SseItem, SseParser};
use crate::transport::Frame;

/// How long the first request may wait for the answer's headers when no request
/// timeout is set (later messages queue behind it).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// How many times a refused POST is sent again after its authorizer acted: once for
/// new tokens, once more for what the new tokens may need (a DPoP nonce, a step-up).
const AUTHORIZATION_RETRIES: u32 = 2;
const JSON_AND_SSE: &str = "application/json, text/event-stream";

/// An HTTP answer and the session id its request carried.
pub(super) struct Sent {
    response: Response,
    session: Option<HeaderValue>,
}

impl Shared {
    /// The first request: Streamable HTTP, or the HTTP+SSE fallback when the server
    /// refuses the POST the way an old server does.
    pub(super) async fn probe(self: &Arc<Self>, message: Outgoing) {
        let Some(id) = message.envelope.request_id().cloned() else {
            return;
        };
        let cancel = self.register(&message);
        // Later messages wait for this answer's headers: bound the wait.
        let limit = self.options.request_timeout.unwrap_or(PROBE_TIMEOUT);
        let sent = tokio::select! {
            sent = tokio::time::timeout(limit, self.send_post(&message)) => sent.unwrap_or_else(|_| {
                Err(ErrorObject::new(code::INTERNAL_ERROR, format!("no answer from the server within {limit:?}")))
            }),
            _ = cancel.cancelled() => return self.unregister(&id),
        };
        let sent = match sent {
            Ok(sent) => sent,
            Err(error) => {
                // Nothing learned: the next request probes again.
                self.unregister(&id);
                return self.deliver_error(&id, error).await;
            }
        };
        let status = sent.response.status();
        let refused = matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        );
        if !(refused && self.options.legacy_sse_fallback) {
            self.state().mode = Mode::Streamable;
            return self.spawn_exchange(Arc::new(message), Some(sent), cancel);
        }
        let body = self.read_error_body(sent.response).await;
        let body_error = error_of(&body);
        let modern = body_error.as_ref().is_some_and(|e| {
            matches!(
                e.code,
                code::HEADER_MISMATCH
                    | code::MISSING_REQUIRED_CLIENT_CAPABILITY
                    | code::UNSUPPORTED_PROTOCOL_VERSION
                    | code::METHOD_NOT_FOUND
            )
        });
        if !modern {
            if let Some(endpoint) = self.open_legacy_sse().await {
                tracing::debug!(%endpoint, "the server speaks the HTTP+SSE transport (2024-11-05)");
                self.unregister(&id);
                self.state().mode = Mode::LegacySse {
                    endpoint: endpoint.clone(),
                };
                return self.send_legacy_sse(message, endpoint).await;
            }
        }
        self.state().mode = Mode::Streamable;
        self.unregister(&id);
        let error = failed_answer(status, &body);
        self.deliver_error(&id, error).await;
    }

    /// Runs a request until its answer is delivered, it is cancelled, or the transport
    /// closes; a request that fails gets an error response.
    pub(super) fn spawn_exchange(
        self: &Arc<Self>,
        message: Arc<Outgoing>,
        first: Option<Sent>,
        cancel: CancellationToken,
    ) {
        let shared = Arc::clone(self);
        let Some(id) = message.envelope.request_id().cloned() else {
            return;
        };
        tokio::spawn(async move {
            let outcome = tokio::select! {
                outcome = shared.exchange(&message, first) => Some(outcome),
                _ = cancel.cancelled() => None,
            };
            shared.unregister(&id);
            if let Some(Err(error)) = outcome {
                shared.deliver_error(&id, error).await;
            }
        });
    }

    /// POSTs a request and delivers what comes back, up to its final response.
    async fn exchange(&self, message: &Outgoing, first: Option<Sent>) -> Result<(), ErrorObject> {
        let sent = match first {
            Some(sent) => sent,
            None => self.send_post(message).await?,
        };
        let reply = self.read_reply(message, sent).await?;
        self.deliver(Frame::Message(reply)).await;
        Ok(())
    }

    /// Builds and sends the POST of a message; resolves when the answer's headers arrive.
    pub(super) async fn send_post(&self, message: &Outgoing) -> Result<Sent, ErrorObject> {
        let (headers, session) = {
            let state = self.state();
            let mut headers = body_headers(&message.envelope);
            let mut session = None;
            if !message.envelope.is_modern() && message.method() != methods::INITIALIZE {
                if state.session_lost {
                    return Err(session_expired());
                }
                if let Some(id) = &state.session_id {
                    headers.push((HeaderName::from_static(names::SESSION_ID), id.clone()));
                    session = Some(id.clone());
                }
            }
            (headers, session)
        };
        let mut protocol = vec![
            (ACCEPT, HeaderValue::from_static(JSON_AND_SSE)),
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        ];
        protocol.extend(headers);
        let mut retries = 0;
        loop {
            let headers = self.headers(&Method::POST, &self.url, protocol.clone()).await;
            let request = self
                .http
                .post(self.url.clone())
                .headers(headers.clone())
                .body(message.body.clone());
            let response = self
                .within_request_timeout(request.send())
                .await?
                .map_err(|e| transport_error(&e))?;
            let status = response.status();
            let refused = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
            match &self.options.authorizer {
                Some(authorizer) if refused && retries < AUTHORIZATION_RETRIES => {
                    let sent = headers.get(AUTHORIZATION);
                    match authorizer.refused(&self.url, status, response.headers(), sent).await {
                        Ok(true) => retries += 1,
                        Ok(false) => return Ok(Sent { response, session }),
                        Err(e) => {
                            return Err(ErrorObject::new(
                                code::INTERNAL_ERROR,
                                format!("HTTP {status}: authorization failed: {e}"),
                            ))
                        }
                    }
                }
                _ => return Ok(Sent { response, session }),
            }
        }
    }

    /// Reads the answer of a request up to its final response, which it returns without
    /// delivering; what comes before it is delivered.
    async fn read_reply(&self, message: &Outgoing, sent: Sent) -> Result<Bytes, ErrorObject> {
        let Sent { response, session } = sent;
        let Some(id) = message.envelope.request_id() else {
            return Err(ErrorObject::internal("not a request"));
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && session.is_some() {
            self.session_gone(session.as_ref());
            return Err(session_expired());
        }
        if !status.is_success() {
            let body = self.read_error_body(response).await;
            return Err(failed_answer(status, &body));
        }
        if message.method() == methods::INITIALIZE {
            self.start_session(response.headers().get(names::SESSION_ID).cloned());
        }
        if is_event_stream(&response) {
            return self.read_event_stream(message, response).await;
        }
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                format!("HTTP {status}: the server accepted the request but sent no response"),
            ));
        }
        let body = self.read_body(response).await?;
        match classify(id, body) {
            Classified::Final(reply) => Ok(reply),
            Classified::StrayError(error, _) => Err(error),
            Classified::Other(text) => {
                if !text.trim_ascii().is_empty() {
                    self.deliver(Frame::Message(text)).await;
                }
                Err(ErrorObject::new(
                    code::INTERNAL_ERROR,
                    "the server's JSON answer held no response to the request",
                ))
            }
        }
    }

    /// Reads an SSE answer up to the request's final response; in the legacy era a
    /// stream that breaks first is resumed with `Last-Event-ID`.
    async fn read_event_stream(&self, message: &Outgoing, response: Response) -> Result<Bytes, ErrorObject> {
        let Some(id) = message.envelope.request_id() else {
            return Err(ErrorObject::internal("not a request"));
        };
        let mut parser = SseParser::new(self.options.max_message_size);
        let mut items = Vec::new();
        let mut response = response;
        let mut reconnects = Reconnects::new(self.options.reconnect);
        loop {
            let started = Instant::now();
            let mut events = false;
            let mut body = response.bytes_stream();
            let ended = loop {
                let chunk = match body.next().await {
                    Some(Ok(chunk)) => chunk,
                    Some(Err(e)) => break format!("the response stream broke: {e}"),
                    None => break "the server ended the response stream before the response".to_owned(),
                };
                parser.feed(&chunk, &mut items);
                for item in items.drain(..) {
                    events = true;
                    let data = match item {
                        SseItem::Event(event) if event.event == "message" && !event.data.is_empty() => event.data,
                        SseItem::Event(_) => continue,
                        SseItem::Oversized => {
                            self.deliver(self.oversized()).await;
                            continue;
                        }
                    };
                    match classify(id, data) {
                        Classified::Final(reply) => return Ok(reply),
                        Classified::StrayError(_, text) | Classified::Other(text) => {
                            let frame = Frame::Answering {
                                message: text,
                                request: id.clone(),
                            };
                            self.deliver(frame).await
                        }
                    }
                }
            };
            let resumable = !message.envelope.is_modern() && matches!(self.state().mode, Mode::Streamable);
            let last_event_id = match parser.last_event_id() {
                Some(last) if resumable => last.to_owned(),
                _ => return Err(ErrorObject::new(code::INTERNAL_ERROR, ended)),
            };
            tracing::debug!(%last_event_id, reason = %ended, "resuming a response stream");
            let mut lasted = started.elapsed();
            response = loop {
                let Some(wait) = reconnects.after(events, lasted, parser.retry()) else {
                    return Err(ErrorObject::new(
                        code::INTERNAL_ERROR,
                        format!("{ended}; resuming it failed {} times", reconnects.attempts()),
                    ));
                };
                (events, lasted) = (false, Duration::ZERO);
                tokio::time::sleep(wait).await;
                match self.open_get_stream(Some(&last_event_id)).await {
                    Ok(response) => break response,
                    Err(GetFailure::Fatal(error)) => return Err(error),
                    Err(GetFailure::Retry(reason)) => tracing::debug!(%reason, "resuming failed"),
                }
            };
            parser.reconnected();
        }
    }

    /// `notifications/cancelled` of `request`: the modern era closes the request's stream
    /// (that is the cancellation); the legacy era sends the notification, then stops reading.
    pub(super) async fn cancel(&self, request: &RequestId, message: Outgoing) {
        let target = {
            let state = self.state();
            state
                .in_flight
                .get(request)
                .map(|entry| (entry.cancel.clone(), entry.modern))
        };
        match target {
            Some((cancel, true)) => cancel.cancel(),
            Some((cancel, false)) => {
                self.post_one_way(&message).await;
                cancel.cancel();
            }
            // Already answered: nothing to stop.
            None => {}
        }
    }

    /// POSTs a notification or response; the server answers 202.
    pub(super) async fn post_one_way(&self, message: &Outgoing) {
        let outcome = tokio::time::timeout(self.options.request_timeout.unwrap_or(ONE_WAY_TIMEOUT), async {
            let Sent { response, session } = self.send_post(message).await?;
            let status = response.status();
            if status == StatusCode::NOT_FOUND && session.is_some() {
                self.session_gone(session.as_ref());
                return Err(session_expired());
            }
            let body = self.read_error_body(response).await;
            if status.is_success() {
                Ok(())
            } else {
                Err(failed_answer(status, &body))
            }
        })
        .await;
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(method = message.method(), %error, "the server refused a message"),
            Err(_) => tracing::warn!(method = message.method(), "sending a message timed out"),
        }
    }
}
