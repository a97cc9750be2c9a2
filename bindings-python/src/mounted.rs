//! The HTTP endpoint inside a Python web app: the core's [`HttpEndpoint`], which the
//! facade's ASGI app hands each request to. Python reads the request from the ASGI server
//! and writes the answer back; the core does everything between.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use oxmcp::server::http::{HttpEndpoint as CoreEndpoint, HttpExchange as CoreExchange, RequestHead};

use crate::{error, runtime};

/// The endpoint of one server, served by the web app that mounts it.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct HttpEndpoint {
    core: CoreEndpoint,
}

impl HttpEndpoint {
    /// Wraps the core's endpoint.
    pub fn new(core: CoreEndpoint) -> Self {
        HttpEndpoint { core }
    }
}

#[pymethods]
impl HttpEndpoint {
    /// Starts answering one request: its `method`, `path` within the app (with `?query`),
    /// `headers` as `(name, value)` byte pairs, and the ASGI `client` (host and port)
    /// when the server knows it. Its body follows through the exchange.
    #[pyo3(signature = (method, path, headers, client=None))]
    fn exchange(
        &self,
        method: String,
        path: String,
        headers: &Bound<'_, PyAny>,
        client: Option<(String, u16)>,
    ) -> PyResult<HttpExchange> {
        let head = RequestHead {
            method,
            path_and_query: path,
            headers: header_pairs(headers)?,
            caller: None,
            // A client named other than by an IP address (a Unix socket's) is left out.
            peer: client.and_then(|(host, port)| Some(SocketAddr::new(host.parse().ok()?, port))),
        };
        let _runtime = runtime::handle().ok_or_else(error::exiting)?.enter();
        Ok(HttpExchange {
            core: Arc::new(self.core.exchange(head)),
        })
    }

    /// Stops serving: streams that only wait for events end, requests in flight may finish
    /// until the config's `shutdown_timeout`, then every session ends and whatever still
    /// runs is cancelled.
    fn shutdown<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let core = self.core.clone();
        runtime::future_into_py(py, async move {
            core.shutdown().await;
            Ok(())
        })
    }
}

/// One request on its way through the endpoint.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct HttpExchange {
    core: Arc<CoreExchange>,
}

#[pymethods]
impl HttpExchange {
    /// Gives the endpoint the next chunk of the request body; resolves to False when it
    /// reads no more (it answered already).
    fn send_body<'py>(&self, py: Python<'py>, chunk: Bytes) -> PyResult<Bound<'py, PyAny>> {
        let core = Arc::clone(&self.core);
        runtime::future_into_py(py, async move { Ok(core.send_body(chunk).await) })
    }

    /// The request body is complete.
    fn end_body(&self) {
        self.core.end_body();
    }

    /// Resolves to the answer's `(status, headers, ready, ended)`: headers as `(name, value)`
    /// byte pairs, the chunks of body there already, and whether they are all of it; None
    /// when the exchange was cancelled first.
    fn response<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let core = Arc::clone(&self.core);
        runtime::future_into_py(py, async move {
            Ok(core.response().await.map(|head| {
                let headers: Vec<(Bytes, Bytes)> = head
                    .headers
                    .into_iter()
                    .map(|(name, value)| (Bytes::from(name), Bytes::from(value)))
                    .collect();
                (head.status, headers, head.ready, head.ended)
            }))
        })
    }

    /// Gives the endpoint the whole request body at once, without waiting (before any other
    /// chunk).
    fn send_whole_body(&self, body: Bytes) {
        self.core.send_whole_body(body);
    }

    /// Resolves to the answer's next chunk of body; None once it ended.
    fn next_chunk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let core = Arc::clone(&self.core);
        runtime::future_into_py(py, async move { Ok(core.next_chunk().await) })
    }

    /// The client went away: the answer is dropped, which cancels the request it answers.
    fn cancel(&self) {
        self.core.cancel();
    }
}

/// ASGI's headers (an iterable of two-item sequences of bytes, tuples or lists) as pairs.
fn header_pairs(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(Vec<u8>, Vec<u8>)>> {
    let bytes = |pair: &Bound<'_, PyAny>, index: usize| -> PyResult<Vec<u8>> {
        Ok(pair.get_item(index)?.cast::<PyBytes>()?.as_bytes().to_vec())
    };
    headers
        .try_iter()?
        .map(|pair| {
            let pair = pair?;
            Ok((bytes(&pair, 0)?, bytes(&pair, 1)?))
        })
        .collect()
}
