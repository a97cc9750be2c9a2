//! The messages the driver sends, prepared once, and the cheap checks of the answers.

use serde_json::json;

use crate::Era;

/// The `_meta` a modern request carries.
fn modern_meta() -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-load", "version": "1"}
    })
}

/// The legacy handshake request.
pub fn initialize(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "mcp-load", "version": "1"}
    }})
    .to_string()
}

/// The notification that completes the legacy handshake.
pub fn initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

/// A `tools/call` of the echo tool split around its id, so each request is one concat.
pub struct CallTemplate {
    head: String,
    tail: String,
}

impl CallTemplate {
    /// The call of `tool` with `text`, in `era`.
    pub fn new(era: Era, tool: &str, text: &str) -> Self {
        let mut params = json!({"name": tool, "arguments": {"text": text}});
        if era == Era::Modern {
            params["_meta"] = modern_meta();
        }
        let full = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": params}).to_string();
        let (head, tail) = full.split_once("\"id\":0").expect("the id is in the template");
        CallTemplate {
            head: format!("{head}\"id\":"),
            tail: tail.to_owned(),
        }
    }

    /// The request with `id`.
    pub fn with_id(&self, id: u64) -> String {
        let mut text = String::with_capacity(self.head.len() + self.tail.len() + 20);
        text.push_str(&self.head);
        text.push_str(&id.to_string());
        text.push_str(&self.tail);
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
        let template = CallTemplate::new(Era::Modern, "echo", "hi");
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
}
