//! `oxmcp._native`: the Python binding of the oxmcp core.
//!
//! An adapter, not an implementation: the core does the protocol; this crate converts
//! values at the boundary and calls Python handlers. The public API is the pure-Python
//! package `oxmcp` (under `python/`), which wraps these classes.
//!
//! - `cli`: the `oxmcp` command, for the package's console script.
//! - `server`: `Server`, the core's server with Python handlers, served over stdio, HTTP or
//!   in memory.
//! - `context`: `Context`, the per-request context handed to those handlers.
//! - `client`: `Client`, the core's client; server requests answered by Python handlers.
//! - `handler`: calling Python handlers (on the user's asyncio loop, or a worker thread), as
//!   the core's handler traits.
//! - `convert`: values across the boundary: Python objects as JSON and the core's types.
//! - `http`: Streamable HTTP settings of the server, and its listener.
//! - `mounted`: the HTTP endpoint inside a Python web app (the facade's ASGI app).
//! - `auth`: the token verifiers of a server that requires tokens over HTTP.
//! - `oauth`: the OAuth client of the HTTP client.
//! - `error`: failures as Python sees them, both ways.
//! - `runtime`: the tokio runtime the binding owns (shut down at exit, rebuilt after fork).

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod auth;
mod cli;
mod client;
mod context;
mod convert;
mod error;
mod event_loop;
mod handler;
mod http;
mod mounted;
mod oauth;
mod runtime;
mod server;
mod workers;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<server::Server>()?;
    m.add_class::<context::Context>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<client::ClientConfig>()?;
    m.add_class::<client::ToolTask>()?;
    m.add_class::<client::Subscription>()?;
    m.add_class::<http::HttpConfig>()?;
    m.add_class::<http::HttpServer>()?;
    m.add_class::<mounted::HttpEndpoint>()?;
    m.add_class::<mounted::HttpExchange>()?;
    m.add_class::<auth::JwtVerifier>()?;
    m.add_class::<auth::IntrospectionVerifier>()?;
    m.add_class::<oauth::OAuth>()?;
    m.add_class::<event_loop::PendingCall>()?;
    m.add_class::<event_loop::StartBatch>()?;
    m.add_class::<event_loop::Reporting>()?;
    m.add_class::<error::PendingInput>()?;
    m.add_class::<handler::NextCall>()?;
    m.add_class::<handler::NotifiedCall>()?;
    m.add("InputRequired", m.py().get_type::<error::InputRequired>())?;
    m.add_function(wrap_pyfunction!(event_loop::runs_in_one_step, m)?)?;
    m.add_function(wrap_pyfunction!(event_loop::run_to_end, m)?)?;
    m.add_function(wrap_pyfunction!(server::uri_template_variables, m)?)?;
    m.add_function(wrap_pyfunction!(server::skill_entry, m)?)?;
    m.add_function(wrap_pyfunction!(server::name_in, m)?)?;
    m.add_function(wrap_pyfunction!(server::uri_in, m)?)?;
    m.add_function(wrap_pyfunction!(server::uri_template_match, m)?)?;
    m.add_function(wrap_pyfunction!(server::name_from, m)?)?;
    m.add_function(wrap_pyfunction!(server::uri_from, m)?)?;
    m.add_function(wrap_pyfunction!(oauth::request_id_jag, m)?)?;
    for (name, code) in oxmcp::protocol::code::NAMED {
        m.add(name, code)?;
    }
    let versions = PyDict::new(m.py());
    for version in oxmcp::protocol::ProtocolVersion::ALL {
        versions.set_item(version.as_str(), context::era_name(version.era()))?;
    }
    m.add("PROTOCOL_VERSIONS", versions)?;
    m.add("PROTOCOL_REQUESTS", oxmcp::protocol::methods::SERVER_REQUESTS.to_vec())?;
    m.add_function(wrap_pyfunction!(cli::run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::after_fork_in_child, m)?)?;
    Ok(())
}
