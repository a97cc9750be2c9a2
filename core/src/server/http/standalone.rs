//! GET (a legacy session's standalone stream, or the resumption of any of its streams)
//! and DELETE (ending a legacy session). The modern era takes POST only.

use std::sync::Arc;

use axum::extract::{Extension, State};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::{HeaderMap, HeaderValue, StatusCode};

use super::auth::{HostCaller, Target};
use super::endpoint::Endpoint;
use super::header_names;
use super::legacy::logged_events;
use super::response::{header_str, rpc_error, sse_response, STREAM_CAPACITY};
use super::streams::{parse_event_id, STANDALONE};
use crate::protocol::ErrorObject;

pub(super) async fn handle_get(
    State(endpoint): State<Arc<Endpoint>>,
    vouched: Option<Extension<HostCaller>>,
    headers: HeaderMap,
) -> Response {
    let target = Target {
        method: "GET",
        path: &endpoint.config.path,
        vouched: vouched.as_deref(),
    };
    let caller = match endpoint.admit(&headers, target).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    if endpoint.config.stateless || header_str(&headers, header_names::SESSION_ID).is_none() {
        return method_not_allowed();
    }
    let accepts_sse = header_str(&headers, http::header::ACCEPT).is_some_and(|a| a.contains("text/event-stream"));
    if !accepts_sse {
        let error = ErrorObject::invalid_request("GET needs Accept: text/event-stream");
        return rpc_error(StatusCode::NOT_ACCEPTABLE, None, error);
    }
    let session = match endpoint.find_session(&headers, caller.as_deref()).await {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let resume = header_str(&headers, header_names::LAST_EVENT_ID).and_then(parse_event_id);
    let (stream, after) = match resume {
        Some(position) => position,
        None => {
            if session.hub.is_attached(STANDALONE) {
                let error = ErrorObject::invalid_request("this session already has a GET stream");
                return rpc_error(StatusCode::CONFLICT, None, error);
            }
            (STANDALONE, u64::MAX)
        }
    };
    match session.hub.attach(stream, after, STREAM_CAPACITY).await {
        // The standalone stream only waits for events: it ends when the server shuts down.
        Some(attached) if stream == STANDALONE => sse_response(
            logged_events(stream, attached, endpoint.config.retry)
                .take_until(endpoint.closing.clone().cancelled_owned()),
        ),
        Some(attached) => sse_response(logged_events(stream, attached, endpoint.config.retry)),
        None => rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("unknown stream"),
        ),
    }
}

pub(super) async fn handle_delete(
    State(endpoint): State<Arc<Endpoint>>,
    vouched: Option<Extension<HostCaller>>,
    headers: HeaderMap,
) -> Response {
    let target = Target {
        method: "DELETE",
        path: &endpoint.config.path,
        vouched: vouched.as_deref(),
    };
    let caller = match endpoint.admit(&headers, target).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let Some(id) = header_str(&headers, header_names::SESSION_ID).filter(|_| !endpoint.config.stateless) else {
        return method_not_allowed();
    };
    if let Err(refused) = endpoint.find_session(&headers, caller.as_deref()).await {
        return refused.into_response();
    }
    match endpoint.end_session(id).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(refused) => refused.into_response(),
    }
}

fn method_not_allowed() -> Response {
    let mut response = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorObject::invalid_request("this endpoint takes POST"),
    );
    response
        .headers_mut()
        .insert(http::header::ALLOW, HeaderValue::from_static("POST"));
    response
}
