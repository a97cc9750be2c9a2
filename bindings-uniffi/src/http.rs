//! Streamable HTTP: the server's endpoint settings ([`HttpOptions`], the core's
//! [`HttpConfig`]) and the client's transport settings ([`HttpSettings`], the core's
//! [`HttpClientOptions`]). The server's listeners are kept by [`crate::server::Server`],
//! which stops them on shutdown; Kotlin and Swift only see the endpoint's URL.

use std::collections::HashMap;
use std::sync::Arc;

use oxmcp::server::auth::{ResourceServer, TokenVerifier};
use oxmcp::server::http::HttpConfig;
use oxmcp::transport::http::client::{HeaderName, HeaderValue, HttpClientOptions};

use crate::convert::{duration_ms, size};
use crate::error::McpError;
use crate::handler::TokenProvider;
use crate::oauth::OAuth;

/// Settings of the HTTP endpoint; every field has a default. `None` in a numeric field
/// keeps the core's default, given in its description.
#[derive(Debug, Clone, uniffi::Record)]
pub struct HttpOptions {
    /// The endpoint's path (default `/mcp`).
    #[uniffi(default = "/mcp")]
    pub path: String,
    /// The `Host` names accepted (default: `localhost`, `127.0.0.1`, `[::1]`, against DNS
    /// rebinding). An empty list accepts any host: only behind a proxy that checks it.
    #[uniffi(default = None)]
    pub allowed_hosts: Option<Vec<String>>,
    /// The `Origin` values allowed, `scheme://host` with any port or `scheme://host:port`
    /// (default: pages served from loopback hosts). Requests without `Origin` pass; others
    /// get 403.
    #[uniffi(default = None)]
    pub allowed_origins: Option<Vec<String>>,
    /// Answer with one JSON object, never SSE (notifications during a request, progress
    /// among them, are then dropped).
    #[uniffi(default = false)]
    pub json_response: bool,
    /// Legacy era without sessions: no `Mcp-Session-Id`, no GET stream.
    #[uniffi(default = false)]
    pub stateless: bool,
    /// How long an idle legacy session lives, in milliseconds (default 30 minutes).
    #[uniffi(default = None)]
    pub session_idle_timeout_ms: Option<i64>,
    /// How long a legacy session lives when its client sends nothing after `initialize`,
    /// in milliseconds (default 30 000).
    #[uniffi(default = None)]
    pub new_session_timeout_ms: Option<i64>,
    /// The most sessions at once, legacy and `/sse` together (default 10 000); past it
    /// `initialize` gets 503.
    #[uniffi(default = None)]
    pub max_sessions: Option<i64>,
    /// The largest request body in bytes (default 4 MiB); a larger one gets 413.
    #[uniffi(default = None)]
    pub body_limit: Option<i64>,
    /// How long a client may take to send a request's headers, in milliseconds (default
    /// 10 000); a kept-alive connection idle this long is closed too.
    #[uniffi(default = None)]
    pub header_read_timeout_ms: Option<i64>,
    /// How long a client may take to send a request's body, in milliseconds (default
    /// 30 000); past it 408.
    #[uniffi(default = None)]
    pub body_read_timeout_ms: Option<i64>,
    /// The most connections open at once (default 1024); more wait in the listen backlog.
    #[uniffi(default = None)]
    pub max_connections: Option<i64>,
    /// The most requests in flight at once outside sessions: modern ones, and legacy ones
    /// when `stateless` (default 1024); past it a request gets an error at once. Each
    /// session's own bound is the server's (`ServerOptions.maxInFlight`).
    #[uniffi(default = None)]
    pub max_in_flight: Option<i64>,
    /// How many bytes of SSE events are kept for resumption (default `None`: 8 MiB per
    /// session, 256 MiB in all).
    #[uniffi(default = None)]
    pub event_bytes_kept: Option<EventBytesKept>,
    /// How long the server's `shutdown()` lets requests in flight finish before it cancels
    /// them and closes every connection, in milliseconds (default 10 000).
    #[uniffi(default = None)]
    pub shutdown_timeout_ms: Option<i64>,
    /// Also serve the deprecated HTTP+SSE transport of 2024-11-05 at `/sse` (the stream)
    /// and `/messages` (the POSTs).
    #[uniffi(default = false)]
    pub legacy_sse: bool,
    /// How many events each legacy SSE stream keeps for resumption (default 1024).
    #[uniffi(default = None)]
    pub events_kept: Option<i64>,
    /// The reconnection delay suggested to clients of legacy SSE streams, in milliseconds
    /// (default 1000).
    #[uniffi(default = None)]
    pub retry_ms: Option<i64>,
    /// Origins allowed by CORS (`*` for any); answers to them expose `Mcp-Session-Id`.
    #[uniffi(default)]
    pub cors_origins: Vec<String>,
    /// For a server with `auth`: its public URL, what tokens must be meant for (default:
    /// the bound URL; its path must be the endpoint's).
    #[uniffi(default = None)]
    pub resource_url: Option<String>,
    /// For a server with `auth`: the issuers clients are sent to (default: the verifier's).
    #[uniffi(default)]
    pub authorization_servers: Vec<String>,
    /// For a server with `auth`: the scopes every request's token must grant.
    #[uniffi(default)]
    pub required_scopes: Vec<String>,
    /// For a server with `auth`: scope hierarchies, each scope with those it implies.
    #[uniffi(default)]
    pub scope_implies: HashMap<String, Vec<String>>,
    /// For a server with `auth`: list only the tools, resources and prompts the caller's
    /// scopes permit (default off: everything is listed, and a call without its scopes gets
    /// `403 insufficient_scope` naming them, so that the client can step up).
    #[uniffi(default = false)]
    pub list_only_permitted: bool,
    /// For a server with `auth`: DPoP proofs must carry the server's nonce (default off).
    #[uniffi(default = false)]
    pub dpop_nonces: bool,
}

/// How many bytes of SSE events legacy sessions keep for resumption.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct EventBytesKept {
    /// What one session keeps (past it the oldest go first).
    pub per_session: i64,
    /// What all sessions keep together (past it events are sent but not kept).
    pub total: i64,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            allowed_hosts: None,
            allowed_origins: None,
            json_response: false,
            stateless: false,
            session_idle_timeout_ms: None,
            new_session_timeout_ms: None,
            max_sessions: None,
            body_limit: None,
            header_read_timeout_ms: None,
            body_read_timeout_ms: None,
            max_connections: None,
            max_in_flight: None,
            event_bytes_kept: None,
            shutdown_timeout_ms: None,
            legacy_sse: false,
            events_kept: None,
            retry_ms: None,
            cors_origins: Vec::new(),
            resource_url: None,
            authorization_servers: Vec::new(),
            required_scopes: Vec::new(),
            scope_implies: HashMap::new(),
            list_only_permitted: false,
            dpop_nonces: false,
        }
    }
}

impl HttpOptions {
    /// The core's endpoint settings, for a server whose tokens `verifier` checks (if any).
    pub(crate) fn into_core(self, verifier: Option<Arc<dyn TokenVerifier>>) -> Result<HttpConfig, McpError> {
        let o = self;
        let mut config = HttpConfig::default()
            .path(o.path)
            .json_response(o.json_response)
            .stateless(o.stateless)
            .legacy_sse(o.legacy_sse)
            .cors_origins(o.cors_origins);
        if let Some(hosts) = o.allowed_hosts {
            config = config.allowed_hosts(hosts);
        }
        if let Some(origins) = o.allowed_origins {
            config = config.allowed_origins(origins);
        }
        if let Some(ms) = o.session_idle_timeout_ms {
            config = config.session_idle_timeout(duration_ms(ms, "sessionIdleTimeoutMs")?);
        }
        if let Some(ms) = o.new_session_timeout_ms {
            config = config.new_session_timeout(duration_ms(ms, "newSessionTimeoutMs")?);
        }
        if let Some(sessions) = o.max_sessions {
            config = config.max_sessions(size(sessions, "maxSessions")?);
        }
        if let Some(bytes) = o.body_limit {
            config = config.body_limit(size(bytes, "bodyLimit")?);
        }
        if let Some(ms) = o.header_read_timeout_ms {
            config = config.header_read_timeout(duration_ms(ms, "headerReadTimeoutMs")?);
        }
        if let Some(ms) = o.body_read_timeout_ms {
            config = config.body_read_timeout(duration_ms(ms, "bodyReadTimeoutMs")?);
        }
        if let Some(connections) = o.max_connections {
            config = config.max_connections(size(connections, "maxConnections")?);
        }
        if let Some(requests) = o.max_in_flight {
            config = config.max_in_flight(size(requests, "maxInFlight")?);
        }
        if let Some(kept) = o.event_bytes_kept {
            config = config.event_bytes_kept(
                size(kept.per_session, "eventBytesKept.perSession")?,
                size(kept.total, "eventBytesKept.total")?,
            );
        }
        if let Some(ms) = o.shutdown_timeout_ms {
            config = config.shutdown_timeout(duration_ms(ms, "shutdownTimeoutMs")?);
        }
        if let Some(events) = o.events_kept {
            config = config.events_kept(size(events, "eventsKept")?);
        }
        if let Some(ms) = o.retry_ms {
            config = config.retry(duration_ms(ms, "retryMs")?);
        }
        match verifier {
            Some(verifier) => {
                let mut auth = ResourceServer::with_verifier(verifier)
                    .required_scopes(o.required_scopes)
                    .authorization_servers(o.authorization_servers)
                    .list_only_permitted(o.list_only_permitted)
                    .dpop_nonces(o.dpop_nonces);
                if let Some(url) = o.resource_url {
                    auth = auth.resource_url(url);
                }
                for (broader, narrower) in o.scope_implies {
                    auth = auth.scope_implies(broader, narrower);
                }
                config = config.auth(auth);
            }
            None if o.resource_url.is_some()
                || !o.required_scopes.is_empty()
                || !o.authorization_servers.is_empty()
                || !o.scope_implies.is_empty()
                || o.list_only_permitted
                || o.dpop_nonces =>
            {
                return Err(McpError::invalid_input(
                    "resourceUrl, requiredScopes and the other token settings need a server with auth (ServerOptions.auth)",
                ));
            }
            None => {}
        }
        Ok(config)
    }
}

/// How a broken SSE stream of the legacy era is reconnected: wait `initial_ms` (or the
/// server's `retry:`, up to `max_ms`), doubling up to `max_ms`, for at most `attempts` tries
/// in a row that bring no event. The waits start over only after the stream stayed open
/// `max_ms` or longer.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ReconnectPolicy {
    /// The first wait, in milliseconds.
    pub initial_ms: i64,
    /// The longest wait, in milliseconds.
    pub max_ms: i64,
    /// Tries in a row before the stream is given up.
    pub attempts: i64,
}

/// Settings of the HTTP transport; every field has a default.
#[derive(uniffi::Record)]
pub struct HttpSettings {
    /// Headers added to every HTTP request (the protocol's own headers take precedence).
    #[uniffi(default)]
    pub headers: HashMap<String, String>,
    /// Supplies `Authorization: Bearer …` before every HTTP request.
    #[uniffi(default = None)]
    pub token: Option<Arc<dyn TokenProvider>>,
    /// How long opening a connection may take, in milliseconds (default 10 000).
    #[uniffi(default = 10000)]
    pub connect_timeout_ms: i64,
    /// How long one HTTP request may take until its JSON answer is complete (or an SSE
    /// answer's headers arrive), in milliseconds (default `None`: only the client's request
    /// timeout applies).
    #[uniffi(default = None)]
    pub request_timeout_ms: Option<i64>,
    /// The largest message accepted from the server, in bytes (default `None`: 4 MiB); a
    /// larger answer fails its request.
    #[uniffi(default = None)]
    pub max_message_size: Option<i64>,
    /// How broken SSE streams are reconnected (default `None`: after 250 ms, doubling up
    /// to 5 s, 4 tries).
    #[uniffi(default = None)]
    pub reconnect: Option<ReconnectPolicy>,
    /// Fall back to the old HTTP+SSE transport (2024-11-05) when the server has no
    /// Streamable HTTP endpoint (default on).
    #[uniffi(default = true)]
    pub legacy_sse_fallback: bool,
    /// Signs in to a protected server with OAuth.
    #[uniffi(default = None)]
    pub auth: Option<Arc<OAuth>>,
}

impl HttpSettings {
    pub(crate) fn to_core(&self, url: String) -> Result<HttpClientOptions, McpError> {
        let request_timeout = self
            .request_timeout_ms
            .map(|ms| duration_ms(ms, "requestTimeoutMs"))
            .transpose()?;
        let mut options = HttpClientOptions::new(url)
            .connect_timeout(duration_ms(self.connect_timeout_ms, "connectTimeoutMs")?)
            .request_timeout(request_timeout)
            .legacy_sse_fallback(self.legacy_sse_fallback);
        if let Some(bytes) = self.max_message_size {
            options = options.max_message_size(size(bytes, "maxMessageSize")?);
        }
        if let Some(policy) = &self.reconnect {
            options = options.reconnect(
                duration_ms(policy.initial_ms, "reconnect.initialMs")?,
                duration_ms(policy.max_ms, "reconnect.maxMs")?,
                u32::try_from(size(policy.attempts, "reconnect.attempts")?).unwrap_or(u32::MAX),
            );
        }
        for (name, value) in &self.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|e| McpError::invalid_input(format!("header name {name:?}: {e}")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|e| McpError::invalid_input(format!("header {name}: {e}")))?;
            options = options.header(name, value);
        }
        if let Some(oauth) = &self.auth {
            options = options.authorizer(oauth.provider());
        }
        if let Some(provider) = &self.token {
            let provider = Arc::clone(provider);
            options = options.bearer_token(move || {
                let provider = Arc::clone(&provider);
                async move {
                    provider.token().await.unwrap_or_else(|e| {
                        tracing::warn!(error = %e, "the token provider failed");
                        None
                    })
                }
            });
        }
        Ok(options)
    }
}
