//! Streamable HTTP: the server's endpoint settings ([`HttpOptions`], the core's
//! [`HttpConfig`]) and its running listener ([`NativeHttpListener`]); the client's
//! transport settings ([`HttpSettings`], the core's [`HttpClientOptions`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::FnArgs;
use napi_derive::napi;
use serde_json::Value;
use tokio::sync::watch;

use oxmcp::server::auth::{ResourceServer, TokenVerifier};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::transport::http::client::{Certificate, HeaderName, HeaderValue, HttpClientOptions};

use crate::client::ClientCallback;
use crate::convert::{self, count, duration_ms, Failure};
use crate::error::invalid;
use crate::runtime;

/// The endpoint's path unless told otherwise (the core's default too).
const DEFAULT_PATH: &str = "/mcp";

/// Where and how a server listens over HTTP. Every setting is optional and keeps the
/// core's default.
#[napi(object)]
pub struct HttpOptions {
    /// The address to bind (default `127.0.0.1`).
    pub host: Option<String>,
    /// The port (default 0: the system picks a free one).
    pub port: Option<u32>,
    /// The endpoint's path (default `/mcp`).
    pub path: Option<String>,
    /// `Origin` values allowed to call (default: pages served from loopback hosts).
    pub allowed_origins: Option<Vec<String>>,
    /// `Host` names accepted (default: loopback names); empty accepts any.
    pub allowed_hosts: Option<Vec<String>>,
    /// Legacy era without sessions.
    pub stateless: Option<bool>,
    /// Answer with one JSON object, never SSE.
    pub json_response: Option<bool>,
    /// How long an idle legacy session lives, in milliseconds.
    pub session_idle_timeout_ms: Option<f64>,
    /// How long a legacy session lives when its client sends nothing after `initialize`,
    /// in milliseconds.
    pub new_session_timeout_ms: Option<f64>,
    /// The most sessions at once, legacy and `/sse` together.
    pub max_sessions: Option<f64>,
    /// The largest request body accepted, in bytes.
    pub body_limit: Option<f64>,
    /// How long a client may take to send a request's headers (also how long a kept-alive
    /// connection may stay idle), in milliseconds.
    pub header_read_timeout_ms: Option<f64>,
    /// How long a client may take to send a request's body, in milliseconds.
    pub body_read_timeout_ms: Option<f64>,
    /// The most connections open at once.
    pub max_connections: Option<f64>,
    /// The most requests in flight at once outside sessions (modern ones, stateless
    /// legacy ones).
    pub max_in_flight: Option<f64>,
    /// How many bytes of SSE events are kept for resumption, per session and in all.
    pub event_bytes_kept: Option<EventBytesKept>,
    /// How long `close()` lets requests in flight finish before it cancels them, in
    /// milliseconds.
    pub shutdown_timeout_ms: Option<f64>,
    /// Also serve the 2024-11-05 HTTP+SSE endpoints (`/sse`, `/messages`).
    pub legacy_sse: Option<bool>,
    /// How many events each legacy SSE stream keeps for resumption.
    pub events_kept: Option<f64>,
    /// The reconnection delay suggested to legacy SSE clients, in milliseconds.
    pub retry_ms: Option<f64>,
    /// Origins allowed by CORS.
    pub cors_origins: Option<Vec<String>>,
    /// For a server with `auth`: its public URL, what tokens must be meant for (default:
    /// the bound URL; its path must be the endpoint's).
    pub resource_url: Option<String>,
    /// For a server with `auth`: the issuers clients are sent to (default: the verifier's).
    pub authorization_servers: Option<Vec<String>>,
    /// For a server with `auth`: the scopes every request's token must grant.
    pub required_scopes: Option<Vec<String>>,
    /// For a server with `auth`: scope hierarchies, each scope with those it implies.
    pub scope_implies: Option<HashMap<String, Vec<String>>>,
    /// For a server with `auth`: list only what the caller's scopes permit (default off).
    pub list_only_permitted: Option<bool>,
    /// For a server with `auth`: DPoP proofs must carry the server's nonce (default off).
    pub dpop_nonces: Option<bool>,
    /// For a server with `auth`: a token must name the resource in its audience (default
    /// on; off only for a verifier that checks it itself).
    pub check_audience: Option<bool>,
}

/// How many bytes of SSE events legacy sessions keep for resumption.
#[napi(object)]
pub struct EventBytesKept {
    /// What one session keeps (past it the oldest go first).
    pub per_session: f64,
    /// What all sessions keep together (past it events are sent but not kept).
    pub total: f64,
}

impl HttpOptions {
    /// The address to bind, and the core's endpoint settings for a server whose tokens
    /// `verifier` checks (if any).
    pub(crate) fn into_core(
        mut self,
        verifier: Option<Arc<dyn TokenVerifier>>,
    ) -> napi::Result<((String, u16), HttpConfig, String)> {
        let auth = self.resource_server(verifier)?;
        let path = self.path.unwrap_or_else(|| DEFAULT_PATH.to_owned());
        if !path.starts_with('/') {
            return Err(invalid(format!("the path must start with '/', not {path:?}")));
        }
        let port = u16::try_from(self.port.unwrap_or(0)).map_err(|_| invalid("the port must be below 65536"))?;
        let host = self.host.unwrap_or_else(|| "127.0.0.1".to_owned());
        let mut config = HttpConfig::default().path(path.clone());
        if let Some(origins) = self.allowed_origins {
            config = config.allowed_origins(origins);
        }
        if let Some(hosts) = self.allowed_hosts {
            config = config.allowed_hosts(hosts);
        }
        if let Some(on) = self.stateless {
            config = config.stateless(on);
        }
        if let Some(on) = self.json_response {
            config = config.json_response(on);
        }
        if let Some(ms) = self.session_idle_timeout_ms {
            config = config.session_idle_timeout(duration_ms(ms, "sessionIdleTimeout")?);
        }
        if let Some(ms) = self.new_session_timeout_ms {
            config = config.new_session_timeout(duration_ms(ms, "newSessionTimeout")?);
        }
        if let Some(sessions) = self.max_sessions {
            config = config.max_sessions(count(sessions, "maxSessions")?);
        }
        if let Some(bytes) = self.body_limit {
            config = config.body_limit(count(bytes, "bodyLimit")?);
        }
        if let Some(ms) = self.header_read_timeout_ms {
            config = config.header_read_timeout(duration_ms(ms, "headerReadTimeout")?);
        }
        if let Some(ms) = self.body_read_timeout_ms {
            config = config.body_read_timeout(duration_ms(ms, "bodyReadTimeout")?);
        }
        if let Some(connections) = self.max_connections {
            config = config.max_connections(count(connections, "maxConnections")?);
        }
        if let Some(requests) = self.max_in_flight {
            config = config.max_in_flight(count(requests, "maxInFlight")?);
        }
        if let Some(kept) = self.event_bytes_kept {
            config = config.event_bytes_kept(
                count(kept.per_session, "eventBytesKept.perSession")?,
                count(kept.total, "eventBytesKept.total")?,
            );
        }
        if let Some(ms) = self.shutdown_timeout_ms {
            config = config.shutdown_timeout(duration_ms(ms, "shutdownTimeout")?);
        }
        if let Some(on) = self.legacy_sse {
            config = config.legacy_sse(on);
        }
        if let Some(events) = self.events_kept {
            config = config.events_kept(count(events, "eventsKept")?);
        }
        if let Some(ms) = self.retry_ms {
            config = config.retry(duration_ms(ms, "retry")?);
        }
        if let Some(origins) = self.cors_origins {
            config = config.cors_origins(origins);
        }
        if let Some(auth) = auth {
            config = config.auth(auth);
        }
        Ok(((host, port), config, path))
    }
}

impl HttpOptions {
    /// The resource-server settings (taken out of the options) for a server whose tokens
    /// `verifier` checks; `None` for a server without one, which must have none of them.
    fn resource_server(&mut self, verifier: Option<Arc<dyn TokenVerifier>>) -> napi::Result<Option<ResourceServer>> {
        let resource_url = self.resource_url.take();
        let authorization_servers = self.authorization_servers.take();
        let required_scopes = self.required_scopes.take();
        let scope_implies = self.scope_implies.take();
        let list_only_permitted = self.list_only_permitted.take();
        let dpop_nonces = self.dpop_nonces.take();
        let check_audience = self.check_audience.take();
        let Some(verifier) = verifier else {
            let given = resource_url.is_some()
                || authorization_servers.is_some()
                || required_scopes.is_some()
                || scope_implies.is_some()
                || list_only_permitted.is_some()
                || dpop_nonces.is_some()
                || check_audience.is_some();
            return match given {
                true => Err(invalid(
                    "resourceUrl, requiredScopes and the other token settings need a server with auth",
                )),
                false => Ok(None),
            };
        };
        let mut auth = ResourceServer::with_verifier(verifier);
        if let Some(url) = resource_url {
            auth = auth.resource_url(url);
        }
        if let Some(issuers) = authorization_servers {
            auth = auth.authorization_servers(issuers);
        }
        if let Some(scopes) = required_scopes {
            auth = auth.required_scopes(scopes);
        }
        for (broader, narrower) in scope_implies.into_iter().flatten() {
            auth = auth.scope_implies(broader, narrower);
        }
        if let Some(on) = list_only_permitted {
            auth = auth.list_only_permitted(on);
        }
        if let Some(on) = dpop_nonces {
            auth = auth.dpop_nonces(on);
        }
        if let Some(on) = check_audience {
            auth = auth.check_audience(on);
        }
        Ok(Some(auth))
    }
}

/// A server's running HTTP listener.
#[napi]
pub struct NativeHttpListener {
    url: String,
    host: String,
    port: u32,
    handle: Mutex<Option<HttpServerHandle>>,
    closed: watch::Sender<bool>,
}

impl NativeHttpListener {
    /// Wraps a bound listener whose endpoint is at `path`.
    pub(crate) fn new(handle: HttpServerHandle, path: &str) -> Self {
        let address = handle.local_addr();
        NativeHttpListener {
            url: handle.url(path),
            host: address.ip().to_string(),
            port: u32::from(address.port()),
            handle: Mutex::new(Some(handle)),
            closed: watch::Sender::new(false),
        }
    }
}

#[napi]
impl NativeHttpListener {
    /// The endpoint's URL, such as `http://127.0.0.1:8000/mcp`.
    #[napi(getter)]
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The address the listener is bound to.
    #[napi(getter)]
    pub fn host(&self) -> String {
        self.host.clone()
    }

    /// The port the listener is bound to (the one the system chose, for port 0).
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        self.port
    }

    /// Resolves when the listener is closed. While it is pending, the Node process stays
    /// alive (as a listening `node:http` server keeps it).
    #[napi]
    pub async fn wait(&self) {
        let mut closed = self.closed.subscribe();
        // The sender lives as long as this object, which the caller holds.
        let _ = closed.wait_for(|closed| *closed).await;
    }

    /// Stops serving: the listener closes, streams that only wait for events end, requests
    /// in flight may finish until the options' `shutdownTimeoutMs`, then they are
    /// cancelled and every connection is closed. Resolves once all of that is done;
    /// closing again does nothing.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        let handle = self.handle.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(handle) = handle else { return Ok(()) };
        let outcome = handle.shutdown().await;
        self.closed.send_replace(true);
        outcome.map_err(|e| invalid(format!("the HTTP listener failed: {e}")))
    }
}

/// How a client reaches an HTTP endpoint, beyond its URL.
#[napi(object)]
pub struct HttpSettings {
    /// Headers sent with every HTTP request.
    pub headers: Option<HashMap<String, String>>,
    /// Ask the client callback (`token` events) for a bearer token before each request.
    pub bearer: Option<bool>,
    /// How long opening a connection may take, in milliseconds (default 10 000).
    pub connect_timeout_ms: Option<f64>,
    /// How long one HTTP request may take until its JSON answer is complete (or an SSE
    /// answer's headers arrive), in milliseconds (default: only the request timeout).
    pub request_timeout_ms: Option<f64>,
    /// Fall back to the 2024-11-05 HTTP+SSE transport (default on).
    pub legacy_sse_fallback: Option<bool>,
    /// The largest message accepted from the server, in bytes (default 4 MiB); a larger
    /// answer fails its request.
    pub max_message_size: Option<f64>,
    /// How broken SSE streams are reconnected (default: after 250 ms, doubling up to 5 s,
    /// 4 tries).
    pub reconnect: Option<ReconnectPolicy>,
    /// The CA certificates (PEM) trusted over https in place of the platform's, as Node's
    /// `https` `ca` option.
    pub ca: Option<Vec<String>>,
    /// `false` accepts any certificate (a server under test only), as Node's option.
    pub reject_unauthorized: Option<bool>,
}

/// How a broken SSE stream is reconnected: wait `initialMs` (or the server's `retry:`, up
/// to `maxMs`), doubling up to `maxMs`, for at most `attempts` tries in a row that bring
/// no event.
#[napi(object)]
pub struct ReconnectPolicy {
    /// The first wait, in milliseconds.
    pub initial_ms: f64,
    /// The longest wait, in milliseconds.
    pub max_ms: f64,
    /// How many tries in a row may bring no event.
    pub attempts: u32,
}

impl HttpSettings {
    /// The core's transport options for `url`; `callback` answers `token` requests.
    pub(crate) fn into_core(self, url: String, callback: &Arc<ClientCallback>) -> napi::Result<HttpClientOptions> {
        let mut options = HttpClientOptions::new(url);
        for (name, value) in self.headers.unwrap_or_default() {
            let name =
                HeaderName::try_from(name.as_str()).map_err(|e| invalid(format!("header name {name:?}: {e}")))?;
            let value = HeaderValue::try_from(value.as_str()).map_err(|e| invalid(format!("header {name}: {e}")))?;
            options = options.header(name, value);
        }
        if let Some(ms) = self.connect_timeout_ms {
            options = options.connect_timeout(duration_ms(ms, "connectTimeout")?);
        }
        if let Some(ms) = self.request_timeout_ms {
            options = options.request_timeout(Some(duration_ms(ms, "requestTimeout")?));
        }
        if let Some(on) = self.legacy_sse_fallback {
            options = options.legacy_sse_fallback(on);
        }
        if let Some(bytes) = self.max_message_size {
            options = options.max_message_size(count(bytes, "maxMessageSize")?);
        }
        if let Some(policy) = self.reconnect {
            options = options.reconnect(
                duration_ms(policy.initial_ms, "reconnect.initialMs")?,
                duration_ms(policy.max_ms, "reconnect.maxMs")?,
                policy.attempts,
            );
        }
        if let Some(pems) = self.ca {
            options = options.trust_only(certificates(pems.iter().map(String::as_bytes), "ca")?);
        }
        if let Some(extra) = extra_ca_certs() {
            options = options.trust_also(extra);
        }
        if self.reject_unauthorized == Some(false) {
            options = options.danger_accept_invalid_certs(true);
        }
        if self.bearer == Some(true) {
            let callback = Arc::clone(callback);
            options = options.bearer_token(move || {
                let callback = Arc::clone(&callback);
                async move { token(&callback).await }
            });
        }
        Ok(options)
    }
}

/// The certificates of PEM `bundles` (`what` names them in an error).
fn certificates<'a>(bundles: impl Iterator<Item = &'a [u8]>, what: &str) -> napi::Result<Vec<Certificate>> {
    let mut roots = Vec::new();
    for pem in bundles {
        roots.extend(Certificate::from_pem_bundle(pem).map_err(|e| invalid(format!("{what}: {e}")))?);
    }
    Ok(roots)
}

/// The certificates `NODE_EXTRA_CA_CERTS` names, which Node's own clients trust besides
/// its roots; as Node does, a file that cannot be read is warned of and left out.
fn extra_ca_certs() -> Option<Vec<Certificate>> {
    let path = std::env::var_os("NODE_EXTRA_CA_CERTS").filter(|path| !path.is_empty())?;
    let read = std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|pem| certificates(std::iter::once(pem.as_slice()), "NODE_EXTRA_CA_CERTS").map_err(|e| e.reason));
    match read {
        Ok(roots) => Some(roots),
        Err(error) => {
            eprintln!(
                "Warning: Ignoring extra certs from `{}`, load failed: {error}",
                path.to_string_lossy()
            );
            None
        }
    }
}

/// The token the client's callback gives (none when it gives none, or fails).
async fn token(callback: &ClientCallback) -> Option<String> {
    let answer = runtime::call(callback, FnArgs::from(("token".to_owned(), Value::Null)))
        .await
        .map_err(Failure::from)
        .and_then(convert::outcome);
    match answer {
        Ok(Value::String(token)) => Some(token),
        _ => None,
    }
}
