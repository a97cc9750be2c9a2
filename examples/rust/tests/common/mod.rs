//! What the integration tests share: starting the example server as a real process.

use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::transport::child::{StderrMode, StdioCommand};

/// The example server binary, built by cargo for these tests.
pub const SERVER: &str = env!("CARGO_BIN_EXE_server");

/// The command that starts the example server.
pub fn server_command() -> StdioCommand {
    StdioCommand::new(SERVER).stderr(StderrMode::Null)
}

/// A client of a fresh example server process, in `era`.
pub async fn connect(era: EraMode) -> Client {
    connect_with(ClientOptions::new("oxmcp-tests", "1.0.0").era(era)).await
}

/// A client of a fresh example server process, with `options`.
pub async fn connect_with(options: ClientOptions) -> Client {
    Client::spawn(server_command(), options)
        .await
        .expect("the example server starts")
}
