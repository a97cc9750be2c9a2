//! The echo tool written with rmcp, as its users would, served in rmcp's default and best
//! configurations:
//!
//! ```text
//! rmcp-echo stdio          # rmcp::transport::stdio(): blocking-pool stdin/stdout (the default)
//! rmcp-echo stdio-pipes    # rmcp::transport::stdio_pipes(): non-blocking pipes on the reactor
//! rmcp-echo http           # Streamable HTTP with sessions, TCP_NODELAY set; prints LISTENING <url>
//! rmcp-echo http-default   # the same with the listener's default socket options (Nagle on)
//! rmcp-echo stateless      # Streamable HTTP without sessions, one JSON answer per POST
//! ```

use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    #[tool(description = "Send the text back.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {}

fn echo() -> Echo {
    Echo {
        tool_router: Echo::tool_router(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "stdio".into());
    match mode.as_str() {
        "stdio" => echo().serve(rmcp::transport::stdio()).await?.waiting().await?,
        "stdio-pipes" => echo().serve(rmcp::transport::stdio_pipes()).await?.waiting().await?,
        "http" => return http(true, true).await,
        "http-default" => return http(true, false).await,
        "stateless" => return http(false, true).await,
        other => return Err(format!("unknown mode {other}").into()),
    };
    Ok(())
}

/// Serves Streamable HTTP on a free loopback port, with or without sessions.
async fn http(sessions: bool, nodelay: bool) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = StreamableHttpServerConfig::default().with_legacy_session_mode(sessions);
    if !sessions {
        config = config.with_json_response(true);
    }
    let service: StreamableHttpService<Echo, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(echo()), Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    eprintln!("LISTENING http://{}/mcp", listener.local_addr()?);
    if nodelay {
        axum::serve(
            listener.tap_io(|tcp| {
                // Without it, Nagle's algorithm holds each SSE answer for the client's delayed ACK.
                let _ = tcp.set_nodelay(true);
            }),
            router,
        )
        .await?;
    } else {
        axum::serve(listener, router).await?;
    }
    Ok(())
}
