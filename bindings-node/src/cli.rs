//! The `oxmcp` command, for the `bin` the npm package installs.

use napi_derive::napi;

/// Runs the `oxmcp` command line `argv` (the program name first) and gives its exit code.
/// It blocks the calling thread until done, as a command does.
#[napi]
pub fn run_cli(argv: Vec<String>) -> i32 {
    oxmcp_cli::run(argv)
}
