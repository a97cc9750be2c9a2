//! Streamable HTTP, the server side: the core's endpoint settings ([`HttpConfig`]) built
//! from Python keyword arguments, and a running listener ([`HttpServer`]) that Python
//! can ask for its URL, wait on and close.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tokio::sync::watch;

use oxmcp::server::auth::{ResourceServer, TokenVerifier};
use oxmcp::server::http::{HttpConfig as CoreHttpConfig, HttpServerHandle};

use crate::event_loop::LoopSlot;
use crate::{convert, error, runtime};

/// The endpoint's path unless told otherwise (the core's default too).
const DEFAULT_PATH: &str = "/mcp";

/// Settings of the HTTP endpoint: each is optional and keeps the core's default when None.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct HttpConfig {
    core: CoreHttpConfig,
    path: String,
    auth: AuthSettings,
    /// What checks this endpoint's tokens in place of the server's verifier (a low-level
    /// server given its auth with the app, as the official SDK's are).
    verifier: Option<Py<PyAny>>,
}

/// The resource-server settings, applied when the server has a verifier.
#[derive(Default)]
struct AuthSettings {
    resource_url: Option<String>,
    authorization_servers: Option<Vec<String>>,
    required_scopes: Option<Vec<String>>,
    scope_implies: Option<BTreeMap<String, Vec<String>>>,
    list_only_permitted: Option<bool>,
    dpop_nonces: Option<bool>,
    check_audience: Option<bool>,
}

impl AuthSettings {
    /// Whether any setting was given (they need a server with a verifier).
    fn any(&self) -> bool {
        self.resource_url.is_some()
            || self.authorization_servers.is_some()
            || self.required_scopes.is_some()
            || self.scope_implies.is_some()
            || self.list_only_permitted.is_some()
            || self.dpop_nonces.is_some()
            || self.check_audience.is_some()
    }
}

#[pymethods]
impl HttpConfig {
    /// `path` of the endpoint; `allowed_origins` / `allowed_hosts` guard against
    /// cross-site requests and DNS rebinding (an empty host list accepts any); `stateless`
    /// serves the legacy era without sessions; `json_response` answers with JSON, never
    /// SSE; `legacy_sse` also serves the 2024-11-05 HTTP+SSE endpoints; `cors_origins` get
    /// CORS headers. The bounds against hostile clients: durations in seconds
    /// (`session_idle_timeout`, `new_session_timeout`, `header_read_timeout`,
    /// `body_read_timeout`, `shutdown_timeout`, and `sse_retry`, how long a client whose
    /// SSE stream ended waits before it reconnects), counts (`max_sessions`, `max_connections`,
    /// `max_in_flight`), sizes in bytes (`body_limit`, and `event_bytes_kept` as
    /// `(per_session, total)`). For a server with `auth`: its public `resource_url`, the
    /// `authorization_servers` it names, the `required_scopes` of every request, the scopes
    /// each scope implies (`scope_implies`), whether lists show only what the caller may
    /// use (`list_only_permitted`), whether DPoP proofs need the server's nonce
    /// (`dpop_nonces`), whether a token must name the resource in its audience
    /// (`check_audience`, on by default as the spec asks; off only for a verifier that
    /// checks it itself), and the `verifier` of this endpoint, when it is not the server's.
    #[new]
    #[pyo3(signature = (
        path=None, allowed_origins=None, allowed_hosts=None, stateless=None, json_response=None,
        session_idle_timeout=None, max_sessions=None, body_limit=None, legacy_sse=None, cors_origins=None,
        new_session_timeout=None, header_read_timeout=None, body_read_timeout=None, shutdown_timeout=None,
        max_connections=None, max_in_flight=None, event_bytes_kept=None, sse_retry=None,
        resource_url=None, authorization_servers=None, required_scopes=None, scope_implies=None,
        list_only_permitted=None, dpop_nonces=None, check_audience=None, verifier=None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        path: Option<String>,
        allowed_origins: Option<Vec<String>>,
        allowed_hosts: Option<Vec<String>>,
        stateless: Option<bool>,
        json_response: Option<bool>,
        session_idle_timeout: Option<f64>,
        max_sessions: Option<usize>,
        body_limit: Option<usize>,
        legacy_sse: Option<bool>,
        cors_origins: Option<Vec<String>>,
        new_session_timeout: Option<f64>,
        header_read_timeout: Option<f64>,
        body_read_timeout: Option<f64>,
        shutdown_timeout: Option<f64>,
        max_connections: Option<usize>,
        max_in_flight: Option<usize>,
        event_bytes_kept: Option<(usize, usize)>,
        sse_retry: Option<f64>,
        resource_url: Option<String>,
        authorization_servers: Option<Vec<String>>,
        required_scopes: Option<Vec<String>>,
        scope_implies: Option<BTreeMap<String, Vec<String>>>,
        list_only_permitted: Option<bool>,
        dpop_nonces: Option<bool>,
        check_audience: Option<bool>,
        verifier: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let path = path.unwrap_or_else(|| DEFAULT_PATH.to_owned());
        if !path.starts_with('/') {
            return Err(PyValueError::new_err(format!(
                "the path must start with '/', not {path:?}"
            )));
        }
        let seconds = |value: Option<f64>, what| value.map(|value| convert::seconds(value, what)).transpose();
        let session_idle_timeout = seconds(session_idle_timeout, "session_idle_timeout")?;
        let new_session_timeout = seconds(new_session_timeout, "new_session_timeout")?;
        let header_read_timeout = seconds(header_read_timeout, "header_read_timeout")?;
        let body_read_timeout = seconds(body_read_timeout, "body_read_timeout")?;
        let shutdown_timeout = seconds(shutdown_timeout, "shutdown_timeout")?;
        let sse_retry = seconds(sse_retry, "sse_retry")?;
        let config = CoreHttpConfig::default().path(path.clone());
        let config = set(config, allowed_origins, CoreHttpConfig::allowed_origins);
        let config = set(config, allowed_hosts, CoreHttpConfig::allowed_hosts);
        let config = set(config, stateless, CoreHttpConfig::stateless);
        let config = set(config, json_response, CoreHttpConfig::json_response);
        let config = set(config, session_idle_timeout, CoreHttpConfig::session_idle_timeout);
        let config = set(config, new_session_timeout, CoreHttpConfig::new_session_timeout);
        let config = set(config, header_read_timeout, CoreHttpConfig::header_read_timeout);
        let config = set(config, body_read_timeout, CoreHttpConfig::body_read_timeout);
        let config = set(config, shutdown_timeout, CoreHttpConfig::shutdown_timeout);
        let config = set(config, sse_retry, CoreHttpConfig::retry);
        let config = set(config, max_sessions, CoreHttpConfig::max_sessions);
        let config = set(config, max_connections, CoreHttpConfig::max_connections);
        let config = set(config, max_in_flight, CoreHttpConfig::max_in_flight);
        let config = set(config, body_limit, CoreHttpConfig::body_limit);
        let config = set(config, event_bytes_kept, |config, (per_session, total)| {
            config.event_bytes_kept(per_session, total)
        });
        let config = set(config, legacy_sse, CoreHttpConfig::legacy_sse);
        let config = set(config, cors_origins, CoreHttpConfig::cors_origins);
        let auth = AuthSettings {
            resource_url,
            authorization_servers,
            required_scopes,
            scope_implies,
            list_only_permitted,
            dpop_nonces,
            check_audience,
        };
        Ok(HttpConfig {
            core: config,
            path,
            auth,
            verifier,
        })
    }

    /// The endpoint's path.
    #[getter]
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl HttpConfig {
    /// The core's settings, for a server whose tokens `verifier` checks (if any), unless
    /// the endpoint has a verifier of its own (whose callbacks run on `slot`'s loop).
    pub fn core(
        &self,
        py: Python<'_>,
        verifier: Option<Arc<dyn TokenVerifier>>,
        slot: &LoopSlot,
    ) -> PyResult<CoreHttpConfig> {
        let own = self
            .verifier
            .as_ref()
            .map(|object| crate::auth::verifier(object.bind(py), slot.clone()));
        let Some(verifier) = own.or(verifier) else {
            if self.auth.any() {
                return Err(PyValueError::new_err(
                    "resource_url, required_scopes and the other token settings need a server with auth: Server(..., auth=...)",
                ));
            }
            return Ok(self.core.clone());
        };
        let mut auth = ResourceServer::with_verifier(verifier);
        if let Some(url) = &self.auth.resource_url {
            auth = auth.resource_url(url);
        }
        if let Some(issuers) = &self.auth.authorization_servers {
            auth = auth.authorization_servers(issuers.iter().cloned());
        }
        if let Some(scopes) = &self.auth.required_scopes {
            auth = auth.required_scopes(scopes.iter().cloned());
        }
        for (broader, narrower) in self.auth.scope_implies.iter().flatten() {
            auth = auth.scope_implies(broader, narrower.iter().cloned());
        }
        if let Some(on) = self.auth.list_only_permitted {
            auth = auth.list_only_permitted(on);
        }
        if let Some(on) = self.auth.dpop_nonces {
            auth = auth.dpop_nonces(on);
        }
        if let Some(on) = self.auth.check_audience {
            auth = auth.check_audience(on);
        }
        Ok(self.core.clone().auth(auth))
    }
}

/// `config` with `apply(value)` when a value was given.
fn set<T>(config: CoreHttpConfig, value: Option<T>, apply: fn(CoreHttpConfig, T) -> CoreHttpConfig) -> CoreHttpConfig {
    match value {
        Some(value) => apply(config, value),
        None => config,
    }
}

/// A running HTTP listener of a server.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct HttpServer {
    url: String,
    host: String,
    port: u16,
    handle: Mutex<Option<HttpServerHandle>>,
    closed: watch::Sender<bool>,
}

impl HttpServer {
    /// Wraps a bound listener whose endpoint is at `path`.
    pub fn new(handle: HttpServerHandle, path: &str) -> Self {
        let address = handle.local_addr();
        HttpServer {
            url: handle.url(path),
            host: address.ip().to_string(),
            port: address.port(),
            handle: Mutex::new(Some(handle)),
            closed: watch::Sender::new(false),
        }
    }
}

#[pymethods]
impl HttpServer {
    /// The endpoint's URL, e.g. `http://127.0.0.1:8000/mcp`.
    #[getter]
    fn url(&self) -> &str {
        &self.url
    }

    /// The address the listener is bound to.
    #[getter]
    fn host(&self) -> &str {
        &self.host
    }

    /// The port the listener is bound to (the one the system chose, for port 0).
    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    /// Resolves when the listener is closed.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut closed = self.closed.subscribe();
        runtime::future_into_py(py, async move {
            // The sender lives as long as this object, which the caller holds.
            let _ = closed.wait_for(|closed| *closed).await;
            Ok(())
        })
    }

    /// Stops serving: the listener closes, streams that only wait for events end, requests
    /// in flight may finish until the config's `shutdown_timeout`, then they are cancelled
    /// and every connection is closed. Resolves once all of that is done; closing again
    /// does nothing.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let handle = self.handle.lock().unwrap_or_else(|e| e.into_inner()).take();
        let closed = self.closed.clone();
        runtime::future_into_py(py, async move {
            let Some(handle) = handle else { return Ok(()) };
            let outcome = handle.shutdown().await;
            closed.send_replace(true);
            outcome.map_err(|e| error::raise(e.into()))
        })
    }
}
