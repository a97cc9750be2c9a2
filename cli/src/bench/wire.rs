//! The messages the driver sends, prepared once, and the cheap checks of the answers.

use serde_json::json;

use super::Era;

/// The `_meta` a modern request carries.
fn modern_meta() -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "oxmcp-bench", "version": "1"}
    })
}

/// The legacy handshake request.
pub fn initialize(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "oxmcp-bench", "version": "1"}
    }})
    .to_string()
}

/// The notification that completes the legacy handshake.
pub fn initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

/// Where the request id goes in a call template (a JSON string, so it cannot clash).
const ID_MARKER: &str = "\"@id@\"";

/// A `tools/call` of the echo tool split around its id (which is also its progress token
/// when progress is asked for), so each request is a few concats.
pub struct CallTemplate {
    tool: String,
    parts: Vec<String>,
}

impl CallTemplate {
    /// The call of `tool` with `text`, in `era`; with `progress`, the call asks for
    /// progress reports (its id is its progress token).
    pub fn new(era: Era, tool: &str, text: &str, progress: bool) -> Self {
        let marker = serde_json::Value::String("@id@".into());
        let mut params = json!({"name": tool, "arguments": {"text": text}});
        if era == Era::Modern {
            params["_meta"] = modern_meta();
        }
        if progress {
            params["_meta"]["progressToken"] = marker.clone();
        }
        let full = json!({"jsonrpc": "2.0", "id": marker, "method": "tools/call", "params": params}).to_string();
        CallTemplate {
            tool: tool.to_owned(),
            parts: full.split(ID_MARKER).map(str::to_owned).collect(),
        }
    }

    /// The tool called (the modern era's `Mcp-Name` header).
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The request with `id`.
    pub fn with_id(&self, id: u64) -> String {
        let id = id.to_string();
        let length = self.parts.iter().map(String::len).sum::<usize>() + self.parts.len() * id.len();
        let mut text = String::with_capacity(length);
        for (index, part) in self.parts.iter().enumerate() {
            if index > 0 {
                text.push_str(&id);
            }
            text.push_str(part);
        }
        text
    }
}

/// The numeric id of a response line, found without a full parse.
pub fn response_id(line: &str) -> Option<u64> {
    let start = line.find("\"id\":")? + 5;
    let digits: String = line[start..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Whether an answer is a successful echo of `text`.
pub fn is_echo(line: &str, text: &str) -> bool {
    line.contains("\"result\"") && !line.contains("\"isError\":true") && contains_text(line, text)
}

/// `line.contains(text)`, fast for long texts: a substring search with a 64 KiB pattern cost
/// the driver as much CPU as the servers spent answering, so find a short head and compare
/// the rest in place.
fn contains_text(line: &str, text: &str) -> bool {
    let head_len = (1..=text.len().min(32))
        .rev()
        .find(|&n| text.is_char_boundary(n))
        .unwrap_or(0);
    line.match_indices(&text[..head_len])
        .any(|(at, _)| line[at..].starts_with(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_make_valid_requests_and_ids_are_found() {
        let template = CallTemplate::new(Era::Modern, "echo", "hi", false);
        let request: serde_json::Value = serde_json::from_str(&template.with_id(42)).unwrap();
        assert_eq!(request["id"], 42);
        assert_eq!(request["params"]["arguments"]["text"], "hi");
        assert_eq!(response_id(r#"{"jsonrpc":"2.0","id":42,"result":{}}"#), Some(42));
        assert_eq!(response_id(r#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert!(is_echo(
            r#"{"id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#,
            "hi"
        ));
        assert!(!is_echo(r#"{"id":1,"error":{"code":-1,"message":"hi"}}"#, "hi"));
        let long = "y".repeat(100);
        assert!(is_echo(&format!(r#"{{"result":{{"text":"{long}"}}}}"#), &long));
        assert!(!is_echo(&format!(r#"{{"result":{{"text":"{}"}}}}"#, &long[1..]), &long));
    }

    #[test]
    fn a_call_asking_for_progress_uses_its_id_as_the_token() {
        let template = CallTemplate::new(Era::Legacy, "echo_with_progress", "hi", true);
        let request: serde_json::Value = serde_json::from_str(&template.with_id(7)).unwrap();
        assert_eq!(request["id"], 7);
        assert_eq!(request["params"]["_meta"]["progressToken"], 7);
    }
}
