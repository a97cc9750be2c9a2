//! The deprecated HTTP+SSE transport (2024-11-05), as the fallback for old servers: a
//! GET opens one SSE stream whose first event, `endpoint`, names where to POST every
//! message; everything the server sends arrives on that stream.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Method, Url};

use super::body::is_event_stream;
use super::error::{failed_answer, transport_error};
use super::message::Outgoing;
use super::{Shared, EVENT_STREAM, ONE_WAY_TIMEOUT};
use crate::protocol::ErrorObject;
use crate::transport::http::sse::{SseItem, SseParser};
use crate::transport::Frame;

/// How long the server may take to open the stream and name the endpoint.
const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

impl Shared {
    /// GETs the MCP URL expecting an SSE stream that begins with an `endpoint` event. On
    /// success the stream is read from then on (its messages become frames; its end ends
    /// the transport) and the endpoint is returned.
    pub(super) async fn open_legacy_sse(self: &Arc<Self>) -> Option<Url> {
        let accept = vec![(ACCEPT, HeaderValue::from_static(EVENT_STREAM))];
        let request = self
            .http
            .get(self.url.clone())
            .headers(self.headers(&Method::GET, &self.url, accept).await);
        let response = tokio::time::timeout(ENDPOINT_TIMEOUT, request.send())
            .await
            .ok()?
            .ok()?;
        if !response.status().is_success() || !is_event_stream(&response) {
            return None;
        }
        let mut body: ByteStream = Box::pin(response.bytes_stream());
        let mut parser = SseParser::new(self.options.max_message_size);
        let mut items = Vec::new();
        let first = tokio::time::timeout(ENDPOINT_TIMEOUT, async {
            while items.is_empty() {
                let chunk = body.next().await?.ok()?;
                parser.feed(&chunk, &mut items);
            }
            match items.remove(0) {
                SseItem::Event(event) if event.event == "endpoint" => {
                    Some(String::from_utf8_lossy(&event.data).trim().to_owned())
                }
                _ => None,
            }
        });
        let endpoint = first.await.ok()??;
        let endpoint = match self.url.join(&endpoint) {
            Ok(url) if url.origin() == self.url.origin() => url,
            Ok(url) => {
                tracing::warn!(%url, "refused an HTTP+SSE endpoint on another origin");
                return None;
            }
            Err(e) => {
                tracing::warn!(%endpoint, error = %e, "the HTTP+SSE endpoint is no URL");
                return None;
            }
        };
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            let reason = tokio::select! {
                reason = shared.read_legacy_stream(parser, items, body) => reason,
                _ = shared.closing.cancelled() => return,
            };
            tracing::debug!(%reason, "the HTTP+SSE stream ended");
            let _ = shared
                .frames
                .send(Err(io::Error::new(io::ErrorKind::ConnectionAborted, reason)))
                .await;
        });
        Some(endpoint)
    }

    /// Delivers the stream's messages until it ends; returns why it ended.
    async fn read_legacy_stream(&self, mut parser: SseParser, mut items: Vec<SseItem>, mut body: ByteStream) -> String {
        loop {
            for item in items.drain(..) {
                match item {
                    SseItem::Event(event) if event.event == "message" && !event.data.is_empty() => {
                        self.deliver(Frame::Message(event.data)).await;
                    }
                    SseItem::Event(_) => {}
                    SseItem::Oversized => self.deliver(self.oversized()).await,
                }
            }
            match body.next().await {
                Some(Ok(chunk)) => parser.feed(&chunk, &mut items),
                Some(Err(e)) => return format!("the HTTP+SSE stream broke: {e}"),
                None => return "the server closed the HTTP+SSE stream".to_owned(),
            }
        }
    }

    /// POSTs one message to the HTTP+SSE endpoint. A request that cannot be delivered
    /// gets an error response; its answer otherwise comes on the stream.
    pub(super) async fn send_legacy_sse(self: &Arc<Self>, message: Outgoing, endpoint: Url) {
        if let Some(id) = message.envelope.request_id().cloned() {
            let shared = Arc::clone(self);
            tokio::spawn(async move {
                let outcome = tokio::select! {
                    outcome = shared.post_legacy(&message, endpoint) => outcome,
                    _ = shared.closing.cancelled() => return,
                };
                if let Err(error) = outcome {
                    shared.deliver_error(&id, error).await;
                }
            });
            return;
        }
        let limit = self.options.request_timeout.unwrap_or(ONE_WAY_TIMEOUT);
        match tokio::time::timeout(limit, self.post_legacy(&message, endpoint)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(method = message.method(), %error, "the server refused a message"),
            Err(_) => tracing::warn!(method = message.method(), "sending a message timed out"),
        }
    }

    async fn post_legacy(&self, message: &Outgoing, endpoint: Url) -> Result<(), ErrorObject> {
        let json = vec![(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
        let headers = self.headers(&Method::POST, &endpoint, json).await;
        let request = self.http.post(endpoint).headers(headers).body(message.body.clone());
        let response = self
            .within_request_timeout(request.send())
            .await?
            .map_err(|e| transport_error(&e))?;
        let status = response.status();
        let body = self.read_error_body(response).await;
        if status.is_success() {
            Ok(())
        } else {
            Err(failed_answer(status, &body))
        }
    }
}
