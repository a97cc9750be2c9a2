//! A `tools/call` round trip against the example server as a child process over stdio:
//! one call at a time, and 32 in flight. `cargo bench -p oxmcp-examples`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures::future::join_all;
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::transport::child::{StderrMode, StdioCommand};
use serde_json::json;

const IN_FLIGHT: usize = 32;

fn stdio_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("tools_call_stdio");
    for (name, era) in [("legacy", EraMode::Legacy), ("modern", EraMode::Modern)] {
        let client = runtime.block_on(async {
            let command = StdioCommand::new(env!("CARGO_BIN_EXE_server")).stderr(StderrMode::Null);
            Client::spawn(command, ClientOptions::new("bench", "1.0.0").era(era))
                .await
                .expect("the example server starts")
        });
        let arguments = json!({"text": "hello"});
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("{name}_sequential"), |b| {
            b.to_async(&runtime)
                .iter(|| async { client.call_tool("echo", &arguments).await.expect("an answer") })
        });
        group.throughput(Throughput::Elements(IN_FLIGHT as u64));
        group.bench_function(format!("{name}_{IN_FLIGHT}_in_flight"), |b| {
            b.to_async(&runtime).iter(|| async {
                let calls = (0..IN_FLIGHT).map(|_| client.call_tool("echo", &arguments));
                for result in join_all(calls).await {
                    result.expect("an answer");
                }
            })
        });
        runtime.block_on(client.close()).expect("the server stops");
    }
    group.finish();
}

criterion_group!(benches, stdio_round_trip);
criterion_main!(benches);
