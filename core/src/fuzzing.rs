//! Entry points for the fuzz targets in `core/fuzz` (nightly, `make fuzz`), one per parser
//! or state machine that reads what a peer sends. Each takes arbitrary bytes, must never
//! panic, and checks what must hold for any input. The tests below replay the committed
//! corpus and every crash reproducer on the stable toolchain, in `make test`.

use std::collections::BTreeMap;
use std::io;
use std::sync::OnceLock;

use bytes::{Bytes, BytesMut};
use serde_json::{json, Map, Value};
use tokio_util::codec::Decoder;

use crate::protocol::headers::{decode_header_value, encode_header_value, header_params, request_headers};
use crate::server::uri_template::UriTemplate;
use crate::server::{Context, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use crate::state::{KeyRing, SealingKey};
use crate::transport::{Frame, JsonLinesCodec, Transport};

/// Lines of JSON-RPC (one frame each) through an in-memory server with a tool, a
/// resource, a template and a prompt, as one connection; every answer must be JSON.
pub fn jsonrpc_frames(data: &[u8]) {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
    }
    let frames: Vec<io::Result<Frame>> = data
        .split(|b| *b == b'\n')
        .map(|line| Ok(Frame::Message(Bytes::copy_from_slice(line))))
        .collect();
    let answers = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink_answers = std::sync::Arc::clone(&answers);
    let sink = futures::sink::unfold((), move |(), text: String| {
        crate::lock(&sink_answers).push(text);
        futures::future::ready(Ok::<_, io::Error>(()))
    });
    let transport = Transport::new(futures::stream::iter(frames), sink);
    RUNTIME.with(|runtime| {
        let _ = runtime.block_on(fuzz_server().serve(transport));
    });
    for answer in crate::lock(&answers).iter() {
        assert!(serde_json::from_str::<Value>(answer).is_ok(), "not JSON: {answer}");
    }
}

fn fuzz_server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {
            "text": {"type": "string", "x-mcp-header": "Text"}}, "required": ["text"]});
        Server::builder("fuzz", "1.0.0")
            .page_size(1)
            .end_grace(std::time::Duration::ZERO)
            .tool(
                ToolDef::new("echo")
                    .input_schema(schema.as_object().cloned().unwrap_or_default())
                    .handler(|args, _| async move { Value::Object(args).to_string() }),
            )
            .tool(ToolDef::new("roots").handler(|_, ctx: Context| async move {
                ctx.list_roots().await.map(|roots| roots.roots.len().to_string())
            }))
            .resource(ResourceDef::new("fuzz://static", "static").handler(|_, _, _| async { "static" }))
            .resource_template(
                ResourceTemplateDef::new("fuzz://items/{id}{?q}", "item").handler(|uri, _, _| async move { uri }),
            )
            .prompt(PromptDef::new("greet").handler(|_, _| async { "hello" }))
            .build()
            .expect("the fuzz server builds")
    })
}

/// Bytes through the stdio codec in two chunks split at the first byte's value: every
/// frame is within the limit, and the same bytes give the same frames however split.
pub fn stdio_codec(data: &[u8]) {
    const LIMIT: usize = 64;
    let decode = |chunks: &[&[u8]]| {
        let mut codec = JsonLinesCodec::new(LIMIT);
        let mut buffer = BytesMut::new();
        let mut frames = Vec::new();
        for chunk in chunks {
            buffer.extend_from_slice(chunk);
            while let Ok(Some(frame)) = codec.decode(&mut buffer) {
                frames.push(frame);
            }
        }
        frames
    };
    let split = data.first().map_or(0, |b| usize::from(*b)).min(data.len());
    let whole = decode(&[data]);
    assert_eq!(whole, decode(&[&data[..split], &data[split..]]));
    for frame in whole {
        if let Frame::Message(bytes) = frame {
            assert!(bytes.len() <= LIMIT);
        }
    }
}

/// Bytes through the SSE parser, whole and split at every 7th byte: the same events.
#[cfg(feature = "http-client")]
pub fn sse(data: &[u8]) {
    use crate::transport::http::sse::SseParser;
    let parse = |chunks: &mut dyn Iterator<Item = &[u8]>| {
        let mut parser = SseParser::new(256);
        let mut items = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut items);
        }
        (items, parser.last_event_id().map(str::to_owned), parser.retry())
    };
    let whole = parse(&mut std::iter::once(data));
    assert_eq!(whole, parse(&mut data.chunks(7)));
}

/// `Mcp-Param` values: a decoded value encodes back to a header that decodes to it, and
/// the headers a request implies for arbitrary arguments never panic.
pub fn mcp_param(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(decoded) = decode_header_value(&text) {
        assert_eq!(
            decode_header_value(&encode_header_value(&decoded)),
            Some(decoded.clone())
        );
    }
    assert_eq!(
        decode_header_value(&encode_header_value(&text)).as_deref(),
        Some(&*text)
    );
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "A"},
        "n": {"type": "number", "x-mcp-header": "N"},
        "b": {"type": "boolean", "x-mcp-header": "B"}}});
    let params = header_params(schema.as_object().unwrap_or(&Map::new())).unwrap_or_default();
    for header in request_headers("tools/call", Some("tool"), Some(&arguments), &params) {
        if let Some(value) = header.value {
            assert_eq!(
                decode_header_value(&encode_header_value(&value)).as_deref(),
                Some(&*value)
            );
        }
    }
}

/// A URI template (the first line) and URIs (the other lines): matching never panics, and
/// what a template expands to from matched variables matches it again.
pub fn uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let Some(Ok(template)) = lines.next().map(UriTemplate::parse) else {
        return;
    };
    for uri in lines {
        if let Some(variables) = template.matches(uri) {
            let again: BTreeMap<String, String> = variables;
            let expanded = template.expand(&again);
            let _ = template.matches(&expanded);
        }
    }
}

/// Opening a sealed `requestState` that a client made up: refused, never a panic, and a
/// state sealed here opens to what was sealed.
pub fn request_state(data: &[u8]) {
    static KEYS: OnceLock<Option<KeyRing>> = OnceLock::new();
    let Some(keys) = KEYS.get_or_init(|| KeyRing::new(vec![SealingKey::from_bytes([7; 32])])) else {
        return;
    };
    let text = String::from_utf8_lossy(data);
    let _ = keys.open(&text, b"binding");
    if let Ok(sealed) = keys.seal(data, b"binding") {
        assert_eq!(keys.open(&sealed, b"binding").ok().as_deref(), Some(data));
        assert!(keys.open(&sealed, b"other").is_err());
    }
}

/// A `WWW-Authenticate` header value.
#[cfg(feature = "oauth")]
pub fn www_authenticate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(challenge) = crate::client::auth::BearerChallenge::parse(&text) {
        let _ = challenge.insufficient_scope();
    }
    let _ = crate::client::auth::BearerChallenge::from_headers(text.split('\n'));
}

/// OAuth metadata documents a server publishes: protected resource metadata and
/// authorization server metadata, read and used as the client uses them.
#[cfg(feature = "oauth")]
pub fn oauth_metadata(data: &[u8]) {
    use crate::client::auth::{
        authorization_server_metadata_urls, resource_covers, AuthorizationServerMetadata, ProtectedResourceMetadata,
    };
    let server = url::Url::parse("https://mcp.example.com/mcp").expect("a URL");
    if let Ok(resource) = serde_json::from_slice::<ProtectedResourceMetadata>(data) {
        if let Some(covered) = &resource.resource {
            let _ = resource_covers(covered, &server);
        }
        for issuer in &resource.authorization_servers {
            if let Ok(issuer) = url::Url::parse(issuer) {
                let _ = authorization_server_metadata_urls(&issuer);
            }
        }
    }
    if let Ok(metadata) = serde_json::from_slice::<AuthorizationServerMetadata>(data) {
        let _ = metadata.supports_s256();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Runs `target` on every committed corpus entry and crash reproducer of `name`.
    fn replay(name: &str, target: fn(&[u8])) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let mut replayed = 0;
        for dir in [root.join("corpus").join(name), root.join("artifacts").join(name)] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let data = std::fs::read(entry.path()).expect("a corpus file");
                target(&data);
                replayed += 1;
            }
        }
        assert!(replayed > 0, "no corpus for {name}");
    }

    #[test]
    fn jsonrpc_frames() {
        replay("jsonrpc_frames", super::jsonrpc_frames);
    }

    #[test]
    fn stdio_codec() {
        replay("stdio_codec", super::stdio_codec);
    }

    #[cfg(feature = "http-client")]
    #[test]
    fn sse() {
        replay("sse", super::sse);
    }

    #[test]
    fn mcp_param() {
        replay("mcp_param", super::mcp_param);
    }

    #[test]
    fn uri_template() {
        replay("uri_template", super::uri_template);
    }

    #[test]
    fn request_state() {
        replay("request_state", super::request_state);
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn www_authenticate() {
        replay("www_authenticate", super::www_authenticate);
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn oauth_metadata() {
        replay("oauth_metadata", super::oauth_metadata);
    }
}
