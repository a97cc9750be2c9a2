//! The example server: over stdio by default, or Streamable HTTP with `--http ADDR`
//! (both eras on `/mcp`). `cargo run -p oxmcp-examples --bin server -- --http 127.0.0.1:8000`.

use oxmcp::server::http::HttpConfig;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs go to stderr: stdout carries only protocol messages.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let server = oxmcp_examples::example_server()?;
    oxmcp_examples::add_runtime_tools(&server)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => server.serve_stdio().await?,
        [flag, addr] if flag == "--http" => {
            let handle = server.bind_http(addr.as_str(), HttpConfig::default()).await?;
            // Tests and scripts read the address from this line (port 0 picks a free one).
            eprintln!("LISTENING {}", handle.url("/mcp"));
            handle.wait().await?;
        }
        _ => return Err("usage: server [--http 127.0.0.1:PORT]".into()),
    }
    Ok(())
}
