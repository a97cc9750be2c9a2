//! Reading the bodies of HTTP answers: a JSON answer within the message size and time
//! limits, the start of an error body, and whether an answer is an SSE stream.

use bytes::{Bytes, BytesMut};
use reqwest::header::CONTENT_TYPE;
use reqwest::Response;

use super::error::transport_error;
use super::{Shared, EVENT_STREAM, ONE_WAY_TIMEOUT};
use crate::protocol::{code, ErrorObject};

/// The most of an HTTP error body that is read to explain the error.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

impl Shared {
    /// Reads a JSON answer, at most `max_message_size` bytes of it.
    pub(super) async fn read_body(&self, response: Response) -> Result<Bytes, ErrorObject> {
        let limit = self.options.max_message_size;
        match self.within_request_timeout(read_limited(response, limit)).await? {
            Ok(Some(body)) => Ok(body),
            Ok(None) => Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                format!("the server's answer is larger than the {limit}-byte limit"),
            )),
            Err(e) => Err(transport_error(&e)),
        }
    }

    /// Reads (the start of) an error body; empty when it cannot be read.
    pub(super) async fn read_error_body(&self, response: Response) -> Bytes {
        let read = tokio::time::timeout(
            self.options.request_timeout.unwrap_or(ONE_WAY_TIMEOUT),
            read_limited(response, ERROR_BODY_LIMIT),
        );
        match read.await {
            Ok(Ok(Some(body))) => body,
            _ => Bytes::new(),
        }
    }
}

/// Whether an answer is an SSE stream (`Content-Type: text/event-stream`).
pub(super) fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(EVENT_STREAM))
}

/// The whole body, or `None` when it passes `limit` bytes.
async fn read_limited(mut response: Response, limit: usize) -> reqwest::Result<Option<Bytes>> {
    let mut body = BytesMut::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body.freeze()))
}
