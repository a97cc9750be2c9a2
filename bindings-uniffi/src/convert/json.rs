//! JSON text helpers for apps without a JSON library at hand: read a value at a JSON
//! pointer, quote a string, build an object.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{json_text, parse_json};
use crate::error::McpError;

/// The value at `pointer` (RFC 6901, e.g. `/user/name`; empty for the whole document) in
/// the JSON text `json`, as JSON text; `None` when there is no such value.
#[uniffi::export]
pub fn json_pointer(json: String, pointer: String) -> Result<Option<String>, McpError> {
    let value = parse_json(&json, "the document")?;
    Ok(value.pointer(&pointer).map(json_text))
}

/// The string at `pointer` in the JSON text `json`; `None` when there is no value there or
/// it is not a string.
#[uniffi::export]
pub fn json_pointer_string(json: String, pointer: String) -> Result<Option<String>, McpError> {
    let value = parse_json(&json, "the document")?;
    Ok(value.pointer(&pointer).and_then(Value::as_str).map(str::to_owned))
}

/// `text` as a JSON string literal, quoted and escaped.
#[uniffi::export]
pub fn json_string(text: String) -> String {
    json_text(&text)
}

/// A JSON object as text, from member names and their values as JSON text (e.g. from
/// [`json_string`]); fails when a value is not JSON.
#[uniffi::export]
pub fn json_object(members: HashMap<String, String>) -> Result<String, McpError> {
    let object = members
        .into_iter()
        .map(|(name, value)| {
            let value = parse_json(&value, &format!("member {name:?}"))?;
            Ok((name, value))
        })
        .collect::<Result<Map<String, Value>, McpError>>()?;
    Ok(json_text(&object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_helpers_read_and_build_json_text() {
        let doc = r#"{"user":{"name":"ada","age":36}}"#.to_owned();
        assert_eq!(
            json_pointer(doc.clone(), "/user/age".into()).unwrap(),
            Some("36".into())
        );
        assert_eq!(
            json_pointer_string(doc.clone(), "/user/name".into()).unwrap(),
            Some("ada".into())
        );
        assert_eq!(json_pointer_string(doc.clone(), "/user/age".into()).unwrap(), None);
        assert_eq!(json_pointer(doc, "/missing".into()).unwrap(), None);
        let quoted = json_string("say \"hi\"".into());
        assert_eq!(quoted, r#""say \"hi\"""#);
        let object = json_object(HashMap::from([("text".to_owned(), quoted)])).unwrap();
        assert_eq!(object, r#"{"text":"say \"hi\""}"#);
        assert!(json_object(HashMap::from([("x".to_owned(), "nope".to_owned())])).is_err());
    }
}
