//! The example server over stdio: `cargo run -p oxmcp-examples --bin server`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs go to stderr: stdout carries only protocol messages.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let server = oxmcp_examples::example_server()?;
    oxmcp_examples::add_runtime_tools(&server)?;
    server.serve_stdio().await?;
    Ok(())
}
