//! CORS: headers for the configured origins only (the request's `Origin` is reflected when
//! it is one of them), `Vary: Origin`, and preflight answers.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode};

use super::endpoint::Endpoint;

pub(super) async fn handle_preflight() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// Adds CORS headers for configured origins, and answers preflights.
pub(super) async fn apply_cors(
    State(endpoint): State<Arc<Endpoint>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let origin = request
        .headers()
        .get(http::header::ORIGIN)
        .filter(|o| {
            o.to_str()
                .is_ok_and(|o| endpoint.config.cors_origins.iter().any(|a| a == o || a == "*"))
        })
        .cloned();
    let mut response = next.run(request).await;
    if !endpoint.config.cors_origins.is_empty() {
        // The answer depends on the Origin: caches must not hand one origin's to another.
        response
            .headers_mut()
            .append(http::header::VARY, HeaderValue::from_static("Origin"));
    }
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.insert(http::header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("mcp-session-id"),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE"),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("*"),
        );
    }
    response
}
