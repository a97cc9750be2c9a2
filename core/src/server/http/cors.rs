//! CORS: headers for the configured origins only (the request's `Origin` is reflected when
//! it is one of them), `Vary: Origin`, and preflight answers.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode};

use super::endpoint::Endpoint;

/// The answer headers scripts of allowed origins may read.
const EXPOSED_HEADERS: &str = "mcp-session-id, www-authenticate, dpop-nonce";
/// The request headers they may send: any (`*`), and `Authorization` by name, which the
/// wildcard leaves out (Fetch standard), with the `DPoP` proof beside it.
const ALLOWED_HEADERS: &str = "*, authorization, dpop";

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
        // What a browser page's script may read: the session, and, on a protected
        // endpoint, the challenge and the DPoP nonce it must answer.
        headers.insert(
            http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSED_HEADERS),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE"),
        );
        headers.insert(
            http::header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOWED_HEADERS),
        );
    }
    response
}
