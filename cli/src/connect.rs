//! Connecting to the target with the options of the command line.

use std::time::Duration;

use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::transport::child::StdioCommand;
use oxmcp::transport::http::client::{connect as connect_http, HeaderName, HeaderValue, HttpClientOptions};

use crate::answers::answering;
use crate::args::{EraChoice, Target};
use crate::failure::Failure;
use crate::sign_in;
use crate::target::Endpoint;

/// The client's name as servers see it.
const CLIENT_NAME: &str = "oxmcp-cli";

/// Connects to what `target` names, within its timeout, the server's questions answered
/// as it says.
pub async fn connect(target: &Target) -> Result<Client, Failure> {
    connect_with(target, answering(base_options(target)?, target)?).await
}

/// The client's options `target` sets: its era and timeout.
pub fn base_options(target: &Target) -> Result<ClientOptions, Failure> {
    let era = match target.era {
        EraChoice::Auto => EraMode::Auto,
        EraChoice::Legacy => EraMode::Legacy,
        EraChoice::Modern => EraMode::Modern,
    };
    Ok(ClientOptions::new(CLIENT_NAME, env!("CARGO_PKG_VERSION"))
        .era(era)
        .timeout(Some(timeout_of(target)?)))
}

/// Connects to what `target` names with `options`, within the target's timeout.
pub async fn connect_with(target: &Target, options: ClientOptions) -> Result<Client, Failure> {
    let timeout = timeout_of(target)?;
    let connecting = async {
        match Endpoint::of(target)? {
            Endpoint::Http { url, headers } => {
                let configured = headers.iter().map(|(name, value)| (name.as_str(), value.as_str()));
                let given = target
                    .headers
                    .iter()
                    .map(|header| split_header(header))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut http = HttpClientOptions::new(url.clone()).request_timeout(Some(timeout));
                for (name, value) in configured.chain(given) {
                    http = http.header(header_name(name)?, header_value(name, value)?);
                }
                if let Some(token) = target.bearer.clone() {
                    http = http.bearer_token(move || std::future::ready(Some(token.clone())));
                }
                if target.oauth {
                    http = http.authorizer(sign_in::provider(&url)?);
                }
                let transport = connect_http(http).map_err(|e| Failure::Connect(e.to_string()))?;
                Client::connect(transport, options).await.map_err(Failure::connecting)
            }
            Endpoint::Stdio { command, env, cwd } => {
                if !target.headers.is_empty() || target.bearer.is_some() || target.oauth {
                    return Err(Failure::Usage(
                        "--header, --bearer and --oauth are for HTTP servers".into(),
                    ));
                }
                let (program, args) = command.split_first().expect("a command has a program");
                let mut stdio = StdioCommand::new(program).args(args);
                for (key, value) in env {
                    stdio = stdio.env(key, value);
                }
                if let Some(cwd) = cwd {
                    stdio = stdio.cwd(cwd);
                }
                Client::spawn(stdio, options).await.map_err(Failure::connecting)
            }
        }
    };
    tokio::time::timeout(timeout, connecting)
        .await
        .unwrap_or_else(|_| Err(Failure::Connect(format!("no connection within {timeout:?}"))))
}

fn timeout_of(target: &Target) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(target.timeout)
        .ok()
        .filter(|timeout| !timeout.is_zero())
        .ok_or_else(|| {
            Failure::Usage(format!(
                "--timeout {} is not a positive number of seconds",
                target.timeout
            ))
        })
}

/// `NAME: VALUE`.
fn split_header(header: &str) -> Result<(&str, &str), Failure> {
    header
        .split_once(':')
        .map(|(name, value)| (name.trim(), value.trim()))
        .ok_or_else(|| Failure::Usage(format!("--header {header:?} is not 'NAME: VALUE'")))
}

fn header_name(name: &str) -> Result<HeaderName, Failure> {
    HeaderName::try_from(name).map_err(|_| Failure::Usage(format!("{name:?} is not a header name")))
}

fn header_value(name: &str, value: &str) -> Result<HeaderValue, Failure> {
    HeaderValue::try_from(value).map_err(|_| Failure::Usage(format!("the value of header {name} is not valid")))
}
