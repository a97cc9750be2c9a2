//! [`HttpClientOptions`]: where the transport connects and how it behaves (headers,
//! authorization, time limits, message size, reconnection, the HTTP+SSE fallback).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Certificate;

use super::authorization::{HttpAuthorizer, TokenSource};
use super::reconnect::Backoff;
use crate::transport::DEFAULT_MAX_MESSAGE_SIZE;

/// Where and how to connect.
///
/// ```
/// use std::time::Duration;
/// use oxmcp::transport::http::client::{HeaderName, HeaderValue, HttpClientOptions};
///
/// let options = HttpClientOptions::new("https://example.com/mcp")
///     .header(HeaderName::from_static("x-tenant"), HeaderValue::from_static("acme"))
///     .request_timeout(Some(Duration::from_secs(30)))
///     .reconnect(Duration::from_millis(200), Duration::from_secs(10), 5);
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpClientOptions {
    pub(super) url: String,
    pub(super) headers: HeaderMap,
    pub(super) bearer_token: Option<TokenSource>,
    pub(super) authorizer: Option<Arc<dyn HttpAuthorizer>>,
    pub(super) request_timeout: Option<Duration>,
    pub(super) connect_timeout: Duration,
    pub(super) max_message_size: usize,
    pub(super) reconnect: Backoff,
    pub(super) legacy_sse_fallback: bool,
    pub(super) tls: TlsTrust,
}

/// Which servers' certificates the transport trusts over https.
#[derive(Clone)]
pub(super) enum TlsTrust {
    /// What the platform trusts, and these roots too.
    Platform(Vec<Certificate>),
    /// These roots only (a private CA, a self-signed server).
    Only(Vec<Certificate>),
    /// Any certificate: no verification at all.
    Anything,
}

impl std::fmt::Debug for HttpClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClientOptions")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("bearer_token", &self.bearer_token.is_some())
            .field("authorizer", &self.authorizer.is_some())
            .field("request_timeout", &self.request_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_size", &self.max_message_size)
            .field("reconnect", &self.reconnect)
            .field("legacy_sse_fallback", &self.legacy_sse_fallback)
            .field(
                "tls",
                &match &self.tls {
                    TlsTrust::Platform(extra) => format!("platform and {} roots", extra.len()),
                    TlsTrust::Only(roots) => format!("{} roots", roots.len()),
                    TlsTrust::Anything => "anything".to_owned(),
                },
            )
            .finish()
    }
}

impl HttpClientOptions {
    /// Options for the MCP endpoint at `url` (e.g. `http://127.0.0.1:8000/mcp`): no
    /// extra headers, no token, no request timeout (the client's per-request timeout
    /// applies), a 10 s connect timeout, 4 MiB messages, reconnection after 250 ms
    /// doubling up to 5 s (a server's `retry:` counted up to 5 s) for at most 4 attempts
    /// without an event, and the HTTP+SSE fallback on.
    pub fn new(url: impl Into<String>) -> Self {
        HttpClientOptions {
            url: url.into(),
            headers: HeaderMap::new(),
            bearer_token: None,
            authorizer: None,
            request_timeout: None,
            connect_timeout: Duration::from_secs(10),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            reconnect: Backoff {
                initial: Duration::from_millis(250),
                max: Duration::from_secs(5),
                attempts: 4,
            },
            legacy_sse_fallback: true,
            tls: TlsTrust::Platform(Vec::new()),
        }
    }

    /// Adds a header to every HTTP request (replacing an earlier one of the same name).
    /// The protocol's own headers (`Mcp-*`, `Accept`, `Content-Type`) take precedence.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Asks `source` for a token before every HTTP request and sends it as
    /// `Authorization: Bearer {token}` (nothing when it returns `None`).
    pub fn bearer_token<F, Fut>(mut self, source: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<String>> + Send + 'static,
    {
        self.bearer_token = Some(Arc::new(move || Box::pin(source())));
        self
    }

    /// Lets `authorizer` (e.g. an [`OAuthProvider`](crate::client::auth::OAuthProvider))
    /// authorize every request, in place of a [`bearer_token`](Self::bearer_token):
    /// a POST refused with 401 (or 403 `insufficient_scope`) is sent again after it
    /// authorized anew, at most twice.
    pub fn authorizer(mut self, authorizer: impl HttpAuthorizer + 'static) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Limits how long a POST may take until its answer is complete, for JSON answers
    /// and until the headers of an SSE answer (a stream itself may last as long as the
    /// request). `None` (the default) leaves the limit to the client's request timeout.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Limits how long opening a TCP (and TLS) connection may take.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The largest message accepted from the server; a larger answer to a request becomes
    /// an error for that request, a larger SSE event an oversized frame.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How a broken SSE stream is reconnected (legacy era): wait `initial` (or the
    /// server's `retry:`, up to `max`), doubling up to `max`, for at most `attempts` tries
    /// in a row that bring no event. The waits start over only after the stream stayed
    /// open `max` or longer: a server that keeps closing it sees at most one
    /// reconnection per `max`.
    pub fn reconnect(mut self, initial: Duration, max: Duration, attempts: u32) -> Self {
        self.reconnect = Backoff {
            initial,
            max: max.max(initial),
            attempts,
        };
        self
    }

    /// Trusts only the certificates `roots` lead to, in place of what the platform trusts
    /// (a server of a private CA, or self-signed). An empty list keeps the platform's.
    pub fn trust_only(mut self, roots: Vec<Certificate>) -> Self {
        self.tls = if roots.is_empty() {
            TlsTrust::Platform(Vec::new())
        } else {
            TlsTrust::Only(roots)
        };
        self
    }

    /// Trusts the certificates `roots` lead to as well as what is trusted already (as
    /// Node's `NODE_EXTRA_CA_CERTS` adds to its roots).
    pub fn trust_also(mut self, roots: Vec<Certificate>) -> Self {
        match &mut self.tls {
            TlsTrust::Platform(extra) | TlsTrust::Only(extra) => extra.extend(roots),
            TlsTrust::Anything => {}
        }
        self
    }

    /// Accepts any certificate, whoever holds it: only for a server under test, as anyone
    /// on the path may then read and change the traffic (and the tokens it carries).
    pub fn danger_accept_invalid_certs(mut self, accept: bool) -> Self {
        if accept {
            self.tls = TlsTrust::Anything;
        } else if matches!(self.tls, TlsTrust::Anything) {
            self.tls = TlsTrust::Platform(Vec::new());
        }
        self
    }

    /// Whether a server that refuses the first POST may be tried as an HTTP+SSE
    /// (2024-11-05) server. On by default.
    pub fn legacy_sse_fallback(mut self, enabled: bool) -> Self {
        self.legacy_sse_fallback = enabled;
        self
    }
}
