//! The MCP headers of a Streamable HTTP request: their names, the values a request implies
//! (`Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` headers that mirror a tool's
//! `x-mcp-header` arguments, 2026-07-28), how values are encoded, and the rules a tool's
//! input schema must follow to use them. The client sends and the server checks what
//! [`request_headers`] computes.

use std::borrow::Cow;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Value};

use super::methods;

/// The HTTP header names of MCP, lowercase as the `http` crate spells them. The client
/// sends and the server checks the same names.
pub mod names {
    /// `MCP-Protocol-Version`.
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// `Mcp-Session-Id` (legacy era).
    pub const SESSION_ID: &str = "mcp-session-id";
    /// `Mcp-Method` (2026-07-28).
    pub const METHOD: &str = "mcp-method";
    /// `Mcp-Name` (2026-07-28).
    pub const NAME: &str = "mcp-name";
    /// The prefix of the `Mcp-Param-{Name}` headers (2026-07-28).
    pub const PARAM_PREFIX: &str = "mcp-param-";
    /// `Last-Event-ID`.
    pub const LAST_EVENT_ID: &str = "last-event-id";
}

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

/// Opens a Base64-encoded header value.
const SENTINEL_PREFIX: &str = "=?base64?";
/// Closes a Base64-encoded header value.
const SENTINEL_SUFFIX: &str = "?=";

/// The header value that carries `value`: as is when it is safe plain ASCII, else the
/// Base64 sentinel form. Empty values and values that look like the sentinel are
/// encoded too, so that the server always reads back exactly `value`.
pub fn encode_header_value(value: &str) -> String {
    if is_plain(value) {
        return value.to_owned();
    }
    let mut encoded = String::with_capacity(SENTINEL_PREFIX.len() + value.len().div_ceil(3) * 4 + 2);
    encoded.push_str(SENTINEL_PREFIX);
    STANDARD.encode_string(value.as_bytes(), &mut encoded);
    encoded.push_str(SENTINEL_SUFFIX);
    encoded
}

/// Reads a header value written by [`encode_header_value`]: decodes the sentinel form,
/// returns anything else as is. `None` when the sentinel holds invalid Base64 or UTF-8.
/// For the server's `Mcp-Name` / `Mcp-Param-*` validation.
pub fn decode_header_value(value: &str) -> Option<Cow<'_, str>> {
    match value
        .strip_prefix(SENTINEL_PREFIX)
        .and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX))
    {
        Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok().map(Cow::Owned),
        None => Some(Cow::Borrowed(value)),
    }
}

/// The text form of a tool argument mirrored into a header: strings as they are,
/// integers in decimal, booleans as `true` / `false`. `None` (no header) for null and
/// for values a header cannot carry (numbers with a fraction or outside JavaScript's safe
/// integer range, arrays, objects).
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                // A range, not `abs()`: the peer's i64::MIN has no absolute value.
                return (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER)
                    .contains(&i)
                    .then(|| i.to_string());
            }
            // 42.0 is the integer 42.
            let f = n.as_f64()?;
            let safe = f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64;
            safe.then(|| (f as i64).to_string())
        }
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Visible ASCII, spaces and tabs, not empty, no whitespace at either end, and not
/// mistakable for the sentinel.
fn is_plain(value: &str) -> bool {
    let bytes = value.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    let blank = |b: u8| b == b' ' || b == b'\t';
    let sentinel_like = value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX);
    let visible = bytes.iter().all(|&b| (0x20..=0x7e).contains(&b) || b == b'\t');
    visible && !blank(first) && !blank(last) && !sentinel_like
}

/// One MCP header a modern request implies: its name, and the value it must carry. Borrows
/// what it can from the request: the server computes these for every modern request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestHeader<'a> {
    /// The header name, lowercase.
    pub name: Cow<'static, str>,
    /// How error messages spell it (`Mcp-Param-Region`).
    pub label: Cow<'static, str>,
    /// The value, before [`encode_header_value`]; `None` when the body has none.
    pub value: Option<Cow<'a, str>>,
    /// Whether the header must be sent even without a value in the body (then the request
    /// cannot be sent correctly): `Mcp-Method` and `Mcp-Name`. An `Mcp-Param-*` header is
    /// sent exactly when its argument is present.
    pub required: bool,
    /// The argument as a number, when it is one: `42.0` in a header matches `42`.
    pub number: Option<f64>,
}

/// The `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers of a request: `name` is
/// `params.name` of `tools/call` and `prompts/get`, `params.uri` of `resources/read`, or
/// `params.taskId` of `tasks/get`, `tasks/update` and `tasks/cancel`;
/// `arguments` and `params` (the tool's [`header_params`]) matter to `tools/call` only.
pub fn request_headers<'a>(
    method: &'a str,
    name: Option<&'a str>,
    arguments: Option<&Map<String, Value>>,
    params: &[HeaderParam],
) -> Vec<RequestHeader<'a>> {
    let mut headers = vec![RequestHeader {
        name: Cow::Borrowed(names::METHOD),
        label: Cow::Borrowed("Mcp-Method"),
        value: Some(Cow::Borrowed(method)),
        required: true,
        number: None,
    }];
    if matches!(
        method,
        methods::TOOLS_CALL
            | methods::RESOURCES_READ
            | methods::PROMPTS_GET
            | methods::TASKS_GET
            | methods::TASKS_UPDATE
            | methods::TASKS_CANCEL
    ) {
        headers.push(RequestHeader {
            name: Cow::Borrowed(names::NAME),
            label: Cow::Borrowed("Mcp-Name"),
            value: name.map(Cow::Borrowed),
            required: true,
            number: None,
        });
    }
    if method != methods::TOOLS_CALL {
        return headers;
    }
    for param in params {
        let value = arguments
            .and_then(|arguments| value_at(arguments, &param.path))
            .filter(|value| !value.is_null());
        headers.push(RequestHeader {
            name: Cow::Owned(format!("{}{}", names::PARAM_PREFIX, param.name.to_ascii_lowercase())),
            label: Cow::Owned(format!("Mcp-Param-{}", param.name)),
            value: value.and_then(header_text).map(Cow::Owned),
            required: false,
            number: value.and_then(Value::as_f64),
        });
    }
    headers
}

/// The value at a chain of property names in the call's arguments.
pub fn value_at<'a>(arguments: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(arguments.get(first)?, |value, key| value.as_object()?.get(key))
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
            // In the schema's order.
            [
                HeaderParam {
                    name: "Region".into(),
                    path: vec!["region".into()]
                },
                HeaderParam {
                    name: "Tenant".into(),
                    path: vec!["filter".into(), "tenant".into()]
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

    #[test]
    fn encodes_the_spec_examples() {
        // The Value Encoding table of the 2026-07-28 Streamable HTTP transport.
        let table = [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ];
        for (original, encoded) in table {
            assert_eq!(encode_header_value(original), encoded, "{original:?}");
            assert_eq!(decode_header_value(encoded).as_deref(), Some(original), "{encoded:?}");
        }
    }

    #[test]
    fn encodes_what_a_header_cannot_carry_plainly() {
        for value in ["", "\t", "tab\tinside ", "a\rb", "nul\0", "del\x7f", "é", "=?base64??="] {
            let encoded = encode_header_value(value);
            assert!(encoded.starts_with(SENTINEL_PREFIX), "{value:?} -> {encoded:?}");
            assert_eq!(decode_header_value(&encoded).as_deref(), Some(value));
        }
        for value in ["a b", "tab\tinside", "file:///x?y=1", "=?base64?unterminated", "x?="] {
            assert_eq!(encode_header_value(value), value);
        }
        assert_eq!(decode_header_value("=?base64?!!!?="), None);
    }

    #[test]
    fn converts_argument_types() {
        assert_eq!(header_text(&json!("x")).as_deref(), Some("x"));
        assert_eq!(header_text(&json!(42)).as_deref(), Some("42"));
        assert_eq!(header_text(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(header_text(&json!(42.0)).as_deref(), Some("42"));
        assert_eq!(header_text(&json!(true)).as_deref(), Some("true"));
        assert_eq!(header_text(&json!(false)).as_deref(), Some("false"));
        assert_eq!(
            header_text(&json!(MAX_SAFE_INTEGER)).as_deref(),
            Some("9007199254740991")
        );
        for none in [
            json!(null),
            json!(1.5),
            json!(MAX_SAFE_INTEGER + 1),
            json!(-MAX_SAFE_INTEGER - 1),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(u64::MAX),
            json!([1]),
            json!({}),
        ] {
            assert_eq!(header_text(&none), None, "{none}");
        }
    }

    #[test]
    fn values_are_found_by_property_path() {
        let args = json!({"a": {"b": 42}, "s": "x", "t": true, "f": 2.5, "n": null});
        let args = args.as_object().unwrap();
        let at = |path: &[&str]| value_at(args, &path.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(at(&["a", "b"]).and_then(header_text), Some("42".into()));
        assert_eq!(at(&["t"]).and_then(header_text), Some("true".into()));
        assert_eq!(at(&["f"]).and_then(header_text), None);
        assert_eq!(at(&["n"]).and_then(header_text), None);
        assert_eq!(at(&["a", "missing"]), None);
    }

    #[test]
    fn a_request_implies_its_method_name_and_parameter_headers() {
        let plain = |headers: Vec<RequestHeader>| -> Vec<(String, Option<String>)> {
            headers
                .into_iter()
                .map(|h| (h.name.into_owned(), h.value.map(Cow::into_owned)))
                .collect()
        };
        let own = |name: &str, value: Option<&str>| (name.to_owned(), value.map(str::to_owned));
        assert_eq!(
            plain(request_headers("tools/list", None, None, &[])),
            vec![own("mcp-method", Some("tools/list"))]
        );
        assert_eq!(
            plain(request_headers("resources/read", Some("file:///a"), None, &[])),
            vec![
                own("mcp-method", Some("resources/read")),
                own("mcp-name", Some("file:///a"))
            ]
        );
        let params = params(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "limit": {"type": "integer", "x-mcp-header": "Limit"}
        }}))
        .unwrap();
        let arguments = json!({"region": "eu", "limit": 42.0});
        let headers = request_headers("tools/call", Some("query"), arguments.as_object(), &params);
        let limit = headers.iter().find(|h| h.name == "mcp-param-limit").unwrap();
        assert_eq!(
            (limit.value.as_deref(), limit.number, limit.required),
            (Some("42"), Some(42.0), false)
        );
        let region = headers.iter().find(|h| h.name == "mcp-param-region").unwrap();
        assert_eq!(
            (region.label.as_ref(), region.value.as_deref()),
            ("Mcp-Param-Region", Some("eu"))
        );
        let without = request_headers("tools/call", Some("query"), json!({}).as_object(), &params);
        assert!(without
            .iter()
            .filter(|h| h.name.starts_with("mcp-param-"))
            .all(|h| h.value.is_none()));
        assert_eq!(
            request_headers("prompts/get", Some("p"), arguments.as_object(), &params).len(),
            2
        );
    }
}
