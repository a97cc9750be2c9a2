//! A `tools/call` round trip through the whole engine over the in-memory transport:
//! client serialization, framing, envelope parsing, dispatch, argument validation, the
//! handler, result serialization and the client's decoding. `cargo bench -p oxmcp`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::protocol::jsonrpc;
use oxmcp::server::{Context, Server, ToolDef};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

fn echo_server() -> Server {
    Server::builder("bench", "1.0.0")
        .tool(ToolDef::new("echo").typed(|args: Echo, _ctx: Context| async move { args.text }))
        .build()
        .expect("a valid server")
}

fn connect(runtime: &tokio::runtime::Runtime, era: EraMode) -> Client {
    runtime.block_on(async {
        let (client_end, server_end) = oxmcp::transport::memory::pair();
        let server = echo_server();
        tokio::spawn(async move { server.serve(server_end).await });
        Client::connect(client_end, ClientOptions::new("bench", "1.0.0").era(era))
            .await
            .expect("connects")
    })
}

fn in_memory_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("tools_call_in_memory");
    group.throughput(Throughput::Elements(1));
    for (name, era) in [("legacy", EraMode::Legacy), ("modern", EraMode::Modern)] {
        let client = connect(&runtime, era);
        let arguments = json!({"text": "hello"});
        group.bench_function(name, |b| {
            b.to_async(&runtime)
                .iter(|| async { client.call_tool("echo", &arguments).await.expect("an answer") })
        });
    }
    group.finish();
}

fn envelope_parse(c: &mut Criterion) {
    let frame =
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
    c.bench_function("envelope_parse", |b| {
        b.iter_batched(
            || frame.as_slice(),
            |frame| jsonrpc::parse(frame).expect("valid"),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, in_memory_round_trip, envelope_parse);
criterion_main!(benches);
