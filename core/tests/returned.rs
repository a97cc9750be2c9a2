//! The cross-language table of tool return values (`tests/returned/cases.json`) through a
//! Rust server: each case's tool returns the value the table names, and the wire result
//! must be the table's. The Python, Node and Kotlin suites run the same table.

use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode};
use oxmcp::protocol::{CallToolResult, ContentBlock};
use oxmcp::server::{HandlerError, Json, Returned, Server, ToolDef};
use serde_json::{json, Map, Value};

fn table() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/returned/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("reads the table")).expect("the table is JSON")
}

fn schema(table: &Value, name: &str) -> Map<String, Value> {
    table[name].as_object().expect("a schema").clone()
}

fn image() -> ContentBlock {
    ContentBlock::image("AAEC", "image/png")
}

/// A tool returning `value` as it is.
fn returning(name: &str, value: Returned) -> ToolDef {
    ToolDef::new(name).handler(move |_, _| {
        let value = value.clone();
        async move { value }
    })
}

/// The table's tools, written as a Rust user would.
fn server(table: &Value) -> Server {
    let ada = json!({"name": "Ada", "age": 36});
    Server::builder("returned", "1.0.0")
        .tool(ToolDef::new("text").handler(|_, _| async { "hello" }))
        .tool(returning("number", Returned::Data(json!(42))))
        .tool(returning("object", Returned::Data(ada.clone())))
        .tool(
            ToolDef::new("object_structured")
                .output_schema(schema(table, "objectSchema"))
                .handler(move |_, _| {
                    let ada = ada.clone();
                    async move { Json(ada) }
                }),
        )
        .tool(
            ToolDef::new("number_structured")
                .output_schema(schema(table, "numberSchema"))
                .handler(|_, _| async { Json(42) }),
        )
        .tool(returning(
            "list",
            Returned::List(vec![Returned::Text("a".into()), Returned::Data(json!(1))]),
        ))
        .tool(ToolDef::new("none").handler(|_, _| async {}))
        .tool(returning("bytes", Returned::Bytes(vec![0, 1, 2])))
        .tool(ToolDef::new("image").handler(|_, _| async { image() }))
        .tool(ToolDef::new("content_blocks").handler(|_, _| async { vec![ContentBlock::text("a"), image()] }))
        .tool(ToolDef::new("complete").handler(|_, _| async {
            CallToolResult {
                is_error: Some(true),
                ..CallToolResult::success(vec![ContentBlock::text("as is")])
            }
        }))
        .tool(ToolDef::new("error").handler(|_, _| async { Err::<String, _>(HandlerError::message("boom")) }))
        .build()
        .expect("a valid server")
}

#[tokio::test]
async fn every_case_gives_the_tables_wire_result_in_both_eras() {
    let table = table();
    let server = server(&table);
    for era in [EraMode::Legacy, EraMode::Modern] {
        let (client_end, server_end) = oxmcp::transport::memory::pair();
        let serving = server.clone();
        tokio::spawn(async move { serving.serve(server_end).await });
        let client = Client::connect(client_end, ClientOptions::new("returned", "1.0.0").era(era))
            .await
            .expect("connects");
        for case in table["cases"].as_array().expect("cases") {
            let name = case["name"].as_str().expect("a name");
            let params = Map::from_iter([("name".to_owned(), Value::from(name))]);
            let raw = client
                .request_raw("tools/call", params, &CallOptions::default())
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut result: Value = serde_json::from_str(raw.get()).expect("a JSON result");
            // What the era adds (`resultType`, the server's identity in `_meta`) is not the
            // handler's.
            if let Value::Object(result) = &mut result {
                result.shift_remove("resultType");
                result.shift_remove("_meta");
            }
            assert_eq!(result, case["result"], "{name} ({era:?})");
        }
    }
}
