//! The `oxmcp` command, for the console script the Python package installs.

use pyo3::prelude::*;

/// Runs the `oxmcp` command line `argv` (the program name first) and gives its exit code;
/// the interpreter lock is released while it runs.
#[pyfunction]
pub fn run_cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| oxmcp_cli::run(argv))
}
