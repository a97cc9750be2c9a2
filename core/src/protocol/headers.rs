//! `x-mcp-header`: tool parameters mirrored into `Mcp-Param-*` HTTP headers (2026-07-28),
//! and the rules a tool's input schema must follow to use them.

use serde_json::{Map, Value};

/// The largest integer a header value may carry: JavaScript's safe range.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A parameter a client mirrors into the header `Mcp-Param-{name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The header name's suffix.
    pub name: String,
    /// The chain of `properties` keys from the schema root to the parameter.
    pub path: Vec<String>,
}

/// Schema keywords whose values are data, not schemas: an `x-mcp-header` key inside them
/// is not an annotation.
const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "default", "examples"];

/// The header parameters of a tool's input schema, or why the schema breaks the rules
/// (then the tool must be left out of the client's tool list).
pub fn header_params(input_schema: &Map<String, Value>) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    collect(input_schema, Some(&mut Vec::new()), &mut found)?;
    let mut lowered: Vec<String> = found.iter().map(|p| p.name.to_ascii_lowercase()).collect();
    lowered.sort();
    if let Some(pair) = lowered.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!("x-mcp-header {:?} is used twice", pair[0]));
    }
    Ok(found)
}

/// Walks one schema object. `path` is `Some` while the node is reachable from the root
/// through `properties` keys alone.
fn collect(
    schema: &Map<String, Value>,
    path: Option<&mut Vec<String>>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    let reachable = path.as_ref().is_some_and(|p| !p.is_empty());
    if let Some(annotation) = schema.get("x-mcp-header") {
        if !reachable {
            return Err("x-mcp-header is only allowed on properties reachable through `properties` alone".into());
        }
        let name = annotation.as_str().ok_or("x-mcp-header must be a string")?;
        check_header_name(name)?;
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => return Err(format!("x-mcp-header {name:?} is on a parameter of type {other:?}; only string, integer and boolean are allowed")),
        }
        let path = path.as_ref().map(|p| p.to_vec()).unwrap_or_default();
        found.push(HeaderParam {
            name: name.to_owned(),
            path,
        });
    }
    let mut path = path;
    for (keyword, value) in schema {
        if DATA_KEYWORDS.contains(&keyword.as_str()) {
            continue;
        }
        match (keyword.as_str(), value, path.as_deref_mut()) {
            ("properties", Value::Object(properties), Some(chain)) => {
                for (property, sub) in properties {
                    if let Value::Object(sub) = sub {
                        chain.push(property.clone());
                        let outcome = collect(sub, Some(chain), found);
                        chain.pop();
                        outcome?;
                    }
                }
            }
            _ => walk_unreachable(value, found)?,
        }
    }
    Ok(())
}

/// Any schema below a non-`properties` keyword: annotations there are errors.
fn walk_unreachable(value: &Value, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    match value {
        Value::Object(schema) => collect(schema, None, found),
        Value::Array(items) => items.iter().try_for_each(|item| walk_unreachable(item, found)),
        _ => Ok(()),
    }
}

/// RFC 9110 token characters, at least one.
fn check_header_name(name: &str) -> Result<(), String> {
    let is_tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(is_tchar) {
        return Err(format!("x-mcp-header {name:?} is not an HTTP token"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(schema: Value) -> Result<Vec<HeaderParam>, String> {
        header_params(schema.as_object().unwrap())
    }

    #[test]
    fn finds_annotations_on_statically_reachable_primitives() {
        let found = params(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "filter": {"type": "object", "properties": {"tenant": {"type": "integer", "x-mcp-header": "Tenant"}}},
            "query": {"type": "string", "default": {"x-mcp-header": "not an annotation"}}
        }}))
        .unwrap();
        assert_eq!(
            found,
            // In key order: JSON objects are read into sorted maps.
            [
                HeaderParam {
                    name: "Tenant".into(),
                    path: vec!["filter".into(), "tenant".into()]
                },
                HeaderParam {
                    name: "Region".into(),
                    path: vec!["region".into()]
                },
            ]
        );
    }

    #[test]
    fn rejects_what_the_spec_forbids() {
        let cases = [
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\r\n"}}}),
            json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Dup"}, "b": {"type": "string", "x-mcp-header": "dup"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"type": "object", "$defs": {"a": {"type": "string", "x-mcp-header": "A"}}}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ];
        for case in cases {
            assert!(params(case.clone()).is_err(), "{case}");
        }
    }
}
