//! Why a run failed, as the exit code scripts rely on and the message people read.

use oxmcp::protocol::ErrorObject;
use oxmcp::transport::http::client::HTTP_STATUS_KEY;
use serde_json::{json, Value};

/// A failed run. Each kind has its stable exit code.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong (exit 1).
    Usage(String),
    /// The server could not be reached or started, or went away (exit 2).
    Connect(String),
    /// The server refused the credentials, or asked for some (exit 3).
    Authorization(String),
    /// The server broke the protocol or answered with a JSON-RPC error (exit 4).
    Protocol(String, Option<Box<ErrorObject>>),
    /// The tool ran and reported an error (exit 5); its result was printed.
    ToolError,
}

impl Failure {
    /// The exit code of this failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => 1,
            Failure::Connect(_) => 2,
            Failure::Authorization(_) => 3,
            Failure::Protocol(..) => 4,
            Failure::ToolError => 5,
        }
    }

    /// A failure while connecting: anything but an authorization failure is a connection
    /// failure.
    pub fn connecting(error: oxmcp::Error) -> Failure {
        match Failure::from(error) {
            Failure::Protocol(message, _) => Failure::Connect(message),
            other => other,
        }
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        match self {
            Failure::Usage(message)
            | Failure::Connect(message)
            | Failure::Authorization(message)
            | Failure::Protocol(message, _) => message,
            Failure::ToolError => "the tool returned an error",
        }
    }

    /// What stderr gets: a line for people, or with `json` the failure as an object.
    pub fn report(&self, json: bool) -> Option<String> {
        let (kind, rpc) = match self {
            Failure::Usage(_) => ("usage", None),
            Failure::Connect(_) => ("connect", None),
            Failure::Authorization(_) => ("authorization", None),
            Failure::Protocol(_, rpc) => ("protocol", rpc.as_deref()),
            // The result is on stdout already; its `isError` says it all.
            Failure::ToolError => return None,
        };
        let message = self.message();
        if !json {
            return Some(format!("oxmcp: {message}"));
        }
        let mut error = json!({"kind": kind, "exitCode": self.exit_code(), "message": message});
        if let Some(rpc) = rpc {
            error["rpc"] = serde_json::to_value(rpc).unwrap_or(Value::Null);
        }
        Some(json!({ "error": error }).to_string())
    }
}

impl From<oxmcp::Error> for Failure {
    fn from(error: oxmcp::Error) -> Self {
        match error {
            oxmcp::Error::Remote(rpc) if refused_credentials(&rpc) => Failure::Authorization(rpc.message),
            oxmcp::Error::Remote(rpc) => {
                Failure::Protocol(format!("the server answered: {}", rpc.message), Some(Box::new(rpc)))
            }
            oxmcp::Error::ConnectionClosed => Failure::Connect("the server closed the connection".into()),
            oxmcp::Error::Io(error) => Failure::Connect(error.to_string()),
            other => Failure::Protocol(other.to_string(), None),
        }
    }
}

/// Whether the error came with HTTP 401 or 403.
fn refused_credentials(rpc: &ErrorObject) -> bool {
    let status = rpc
        .data
        .as_ref()
        .and_then(|data| data.get(HTTP_STATUS_KEY))
        .and_then(Value::as_u64);
    matches!(status, Some(401 | 403))
}
