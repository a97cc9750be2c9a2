//! Streamable HTTP, the server side: the core's endpoint settings ([`HttpConfig`]) built
//! from Python keyword arguments, and a running listener ([`HttpServer`]) that Python
//! can ask for its URL, wait on and close.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tokio::sync::watch;

use oxmcp::server::http::{HttpConfig as CoreHttpConfig, HttpServerHandle};

use crate::{convert, error, runtime};

/// How long `close()` waits for open requests and streams (such as a legacy client's GET
/// stream) to end; the listener stops accepting at once either way.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// The endpoint's path unless told otherwise (the core's default too).
const DEFAULT_PATH: &str = "/mcp";

/// Settings of the HTTP endpoint: each is optional and keeps the core's default when None.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct HttpConfig {
    core: CoreHttpConfig,
    path: String,
}

#[pymethods]
impl HttpConfig {
    /// `path` of the endpoint; `allowed_origins` / `allowed_hosts` guard against
    /// cross-site requests and DNS rebinding (an empty host list accepts any); `stateless`
    /// serves the legacy era without sessions; `json_response` answers with JSON, never
    /// SSE; `session_idle_timeout` in seconds; `body_limit` in bytes; `legacy_sse` also
    /// serves the 2024-11-05 HTTP+SSE endpoints; `cors_origins` get CORS headers.
    #[new]
    #[pyo3(signature = (
        path=None, allowed_origins=None, allowed_hosts=None, stateless=None, json_response=None,
        session_idle_timeout=None, max_sessions=None, body_limit=None, legacy_sse=None, cors_origins=None,
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
    ) -> PyResult<Self> {
        let path = path.unwrap_or_else(|| DEFAULT_PATH.to_owned());
        if !path.starts_with('/') {
            return Err(PyValueError::new_err(format!(
                "the path must start with '/', not {path:?}"
            )));
        }
        let timeout = session_idle_timeout.map(convert::seconds).transpose()?;
        let config = CoreHttpConfig::default().path(path.clone());
        let config = set(config, allowed_origins, CoreHttpConfig::allowed_origins);
        let config = set(config, allowed_hosts, CoreHttpConfig::allowed_hosts);
        let config = set(config, stateless, CoreHttpConfig::stateless);
        let config = set(config, json_response, CoreHttpConfig::json_response);
        let config = set(config, timeout, CoreHttpConfig::session_idle_timeout);
        let config = set(config, max_sessions, CoreHttpConfig::max_sessions);
        let config = set(config, body_limit, CoreHttpConfig::body_limit);
        let config = set(config, legacy_sse, CoreHttpConfig::legacy_sse);
        let config = set(config, cors_origins, CoreHttpConfig::cors_origins);
        Ok(HttpConfig { core: config, path })
    }

    /// The endpoint's path.
    #[getter]
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl HttpConfig {
    /// The core's settings.
    pub fn core(&self) -> CoreHttpConfig {
        self.core.clone()
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

    /// Stops accepting connections, gives open requests and streams a short grace period
    /// to end, and resolves when that is done. Closing again does nothing.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let handle = self.handle.lock().unwrap_or_else(|e| e.into_inner()).take();
        let closed = self.closed.clone();
        runtime::future_into_py(py, async move {
            let Some(handle) = handle else { return Ok(()) };
            let outcome = tokio::time::timeout(CLOSE_GRACE, handle.shutdown()).await;
            closed.send_replace(true);
            match outcome {
                Ok(Err(e)) => Err(error::raise(e.into())),
                // Past the grace period the listener is closed; what streams remain end
                // with the process.
                Ok(Ok(())) | Err(_) => Ok(()),
            }
        })
    }
}
