//! `oxmcp._native`: the Python binding of the oxmcp core.
//!
//! An adapter, not an implementation: the core does the protocol; this crate converts
//! values at the boundary (`convert`, `error`), runs Python handlers on the user's
//! asyncio loop (`handler`) and owns the tokio runtime (`runtime`). The public API is
//! the pure-Python package `oxmcp` (under `python/`), which wraps these classes.

use pyo3::prelude::*;

mod client;
mod context;
mod convert;
mod error;
mod handler;
mod http;
mod runtime;
mod server;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<server::Server>()?;
    m.add_class::<context::Context>()?;
    m.add_class::<client::Client>()?;
    m.add_class::<client::ClientConfig>()?;
    m.add_class::<http::HttpConfig>()?;
    m.add_class::<http::HttpServer>()?;
    m.add_class::<handler::PendingCall>()?;
    m.add_class::<error::PendingInput>()?;
    m.add("InputRequired", m.py().get_type::<error::InputRequired>())?;
    m.add_function(wrap_pyfunction!(server::uri_template_variables, m)?)?;
    for (name, code) in oxmcp::protocol::code::NAMED {
        m.add(name, code)?;
    }
    m.add_function(wrap_pyfunction!(runtime::shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::after_fork_in_child, m)?)?;
    Ok(())
}
