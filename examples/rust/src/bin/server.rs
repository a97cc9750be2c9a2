//! The example server: over stdio by default, or Streamable HTTP with `--http ADDR`
//! (both eras on `/mcp`). `cargo run -p oxmcp-examples --bin server -- --http 127.0.0.1:8000`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = oxmcp_examples::example_server()?;
    oxmcp_examples::serve_from_command_line(server).await
}
