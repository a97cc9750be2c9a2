//! The `oxmcp` command: inspect, call and debug any MCP server, in either protocol era,
//! over stdio or Streamable HTTP. One implementation on the core, reached as the `oxmcp`
//! binary, and from the Python and Node packages through [`run`].
//!
//! - `args`: the command line (clap).
//! - `target`: where the server is: a URL, a command, an entry of an `mcpServers` config.
//! - `connect`: the client, with the era, headers, token (or `sign_in`, `--oauth`) and
//!   timeout asked for;
//!   `answers` answers the server's questions (terminal, `--answers`, `--no-input`),
//!   `feedback` shows its logs and progress on stderr.
//! - `verbs`: what each verb asks the server and prints; `tasks` the calls run as tasks,
//!   `render` the human output, `coerce` the `KEY=VALUE` arguments.
//! - `bench`: `bench`, the benchmark suite's load driver.
//! - `auth_check`: `auth check`, a protected server's discovery walked and judged.
//! - `inspect`: `inspect`, the web page embedded in the binary and its API; `browser`
//!   opens pages.
//! - `failure`: why a run failed, as a stable exit code.

use std::ffi::OsString;
use std::io::Write;

use clap::error::ErrorKind;
use clap::Parser;

mod answers;
mod args;
mod auth_check;
mod bench;
mod browser;
mod coerce;
mod connect;
mod failure;
mod feedback;
mod inspect;
mod render;
mod sign_in;
mod target;
mod tasks;
mod verbs;

use args::{AuthVerb, Cli, Verb};
use failure::Failure;

/// Runs the command line `args` (the program name first) and gives the exit code: 0
/// success, 1 usage, 2 cannot connect, 3 authorization, 4 protocol or JSON-RPC error, 5
/// the tool returned `isError`.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return match error.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => Failure::Usage(String::new()).exit_code(),
            };
        }
    };
    let outcome = match &cli.verb {
        // One thread: the driver's own CPU time stays small and steady, as the suite measures it.
        Verb::Bench(bench) => runtime(false).and_then(|runtime| runtime.block_on(bench::run(bench))),
        verb => runtime(true).and_then(|runtime| runtime.block_on(run_verb(verb))),
    };
    finish(outcome, cli.verb.json())
}

/// A runtime with worker threads, or one running on this thread alone.
fn runtime(threads: bool) -> Result<tokio::runtime::Runtime, Failure> {
    let mut builder = match threads {
        true => tokio::runtime::Builder::new_multi_thread(),
        false => tokio::runtime::Builder::new_current_thread(),
    };
    builder
        .enable_all()
        .build()
        .map_err(|error| Failure::Connect(format!("cannot start: {error}")))
}

/// Runs a verb other than `bench`.
async fn run_verb(verb: &Verb) -> Result<(), Failure> {
    let target = match verb {
        Verb::Auth(AuthVerb::Check(target)) => return auth_check::check(target).await,
        Verb::Inspect(inspect) => return inspect::inspect(inspect).await,
        verb => verb
            .target()
            .ok_or_else(|| Failure::Usage("this verb takes no server".into()))?,
    };
    let client = connect::connect(target).await?;
    let logs = feedback::print_logs(&client, target.json);
    if client.server_details().capabilities.logging.is_some() {
        // A server that cannot set the level still sends what it sends.
        let _ = client.set_log_level(target.log_level).await;
    }
    let outcome = verbs::run(verb, &client).await;
    logs.finish().await;
    let _ = client.close().await;
    outcome
}

/// Prints one line on stdout. A reader that went away (`oxmcp tools | head -1`) is not a
/// failure of the command: what it no longer reads is dropped.
pub(crate) fn say(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Reports a failure on stderr and gives the exit code.
fn finish(outcome: Result<(), Failure>, json: bool) -> i32 {
    let _ = std::io::stdout().flush();
    match outcome {
        Ok(()) => 0,
        Err(failure) => {
            if let Some(report) = failure.report(json) {
                eprintln!("{report}");
            }
            failure.exit_code()
        }
    }
}
