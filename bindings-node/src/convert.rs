//! Conversions between the JSON values JavaScript handlers return and the core's types,
//! and the numbers JavaScript gives as durations and counts.
//!
//! Values cross the boundary as JSON: plain data as the text `JSON.stringify` writes
//! ([`Settled`]), anything else as a `serde_json::Value` napi-rs reads from it. What each
//! becomes on the wire is the core's [`Returned`] table, the same in every language; this
//! module only says which JavaScript values are which:
//!
//! | handler | returns | is |
//! |---|---|---|
//! | any | `null` / `undefined`, string, array | nothing, text, a list |
//! | any | `{ type: "text" | "image" | … }` | a content block |
//! | any | a `Uint8Array` (marked by the facade) | bytes |
//! | tool | object with a `content` array | a complete `CallToolResult` |
//! | resource | object with a `contents` array | a complete `ReadResourceResult` |
//! | resource | `{ text }` or `{ blob }` | contents (`uri` and `mimeType` filled in) |
//! | prompt | object with a `messages` array | a complete `GetPromptResult` |
//! | any | anything else | data |
//! | completion | array of strings, or `{ values }` | the candidate values |

use std::time::Duration;

use napi::bindgen_prelude::{FromNapiValue, Object};
use napi::{check_status, sys};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use base64::Engine as _;
use oxmcp::client::ServerNotification;
use oxmcp::protocol::{CallToolResult, ErrorObject, GetPromptResult, InputRequiredResult, ReadResourceResult};
use oxmcp::server::returned::{self, Returned, ToolOutput};
use oxmcp::server::HandlerError;

/// A failure a JavaScript handler reported: `message`, plus a JSON-RPC `code` (and
/// `data`) when the handler threw an error that carries one, or the `input_required`
/// result (`{ inputRequests, requestState }`) when it threw `InputRequired`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub(crate) struct Failure {
    message: String,
    #[serde(default)]
    code: Option<i64>,
    // Boxed: failures travel in `Result`s, which stay small for the values that succeed.
    #[serde(default)]
    data: Option<Box<Value>>,
    #[serde(default, rename = "inputRequired")]
    input_required: Option<Box<Value>>,
    /// The URI of a thrown `ResourceNotFoundError`, which the core words per era.
    #[serde(default, rename = "resourceNotFound")]
    resource_not_found: Option<String>,
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: None,
            data: None,
            input_required: None,
            resource_not_found: None,
        }
    }

    /// For server handlers: a plain message (a tool execution error for tools, an
    /// internal error elsewhere), or exactly the JSON-RPC error the handler threw.
    pub(crate) fn into_handler_error(self) -> HandlerError {
        if let Some(input_required) = self.input_required {
            return match serde_json::from_value::<InputRequiredResult>(*input_required) {
                Ok(result) => HandlerError::InputRequired(Box::new(result)),
                Err(e) => HandlerError::message(format!("invalid input requests: {e}")),
            };
        }
        if let Some(uri) = self.resource_not_found {
            return HandlerError::resource_not_found(uri);
        }
        match self.code {
            Some(code) => HandlerError::rpc(self.into_error_object(code)),
            None => HandlerError::message(self.message),
        }
    }

    /// For client handlers (sampling, elicitation, roots): the JSON-RPC error sent back
    /// to the server; internal error unless the handler chose a code.
    pub(crate) fn into_rpc_error(self) -> ErrorObject {
        let code = self.code.unwrap_or(oxmcp::protocol::code::INTERNAL_ERROR);
        self.into_error_object(code)
    }

    fn into_error_object(self, code: i64) -> ErrorObject {
        let error = ErrorObject::new(code, self.message);
        match self.data {
            Some(data) => error.with_data(*data),
            None => error,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::new(message)
    }
}

/// What a facade callback answered (`ts/outcome.ts`).
pub enum Settled {
    /// The JSON text of the value: how plain data comes, since `JSON.stringify` writes a
    /// small object in one native call where reading it through N-API takes one per key
    /// and value.
    Json(String),
    /// The outcome envelope: `{ "ok": value }` or `{ "error": { message, code?, data? } }`.
    Envelope(Value),
}

impl FromNapiValue for Settled {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        let mut kind = sys::ValueType::napi_undefined;
        // SAFETY: `env` and `value` come from N-API for this call.
        check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
        if kind == sys::ValueType::napi_string {
            // SAFETY: as above; the value was just checked to be a string.
            return Ok(Settled::Json(unsafe { String::from_napi_value(env, value)? }));
        }
        // The envelope's members are read one by one, so that the value in it has
        // napi-rs's whole depth budget (128 levels, serde_json's, as in every binding)
        // rather than one level less.
        // SAFETY: as above.
        let object = unsafe { Object::from_napi_value(env, value)? };
        let mut members = Map::new();
        for key in ["ok", "error"] {
            if let Some(member) = object.get::<Value>(key)? {
                members.insert(key.to_owned(), member);
            }
        }
        Ok(Settled::Envelope(Value::Object(members)))
    }
}

/// The value a facade callback produced, or how it failed.
pub(crate) fn outcome(settled: Settled) -> Result<Value, Failure> {
    let envelope = match settled {
        Settled::Json(text) => {
            return serde_json::from_str(&text).map_err(|e| Failure::new(format!("unreadable value: {e}")))
        }
        Settled::Envelope(envelope) => from_js(envelope),
    };
    let Value::Object(mut envelope) = envelope else {
        return Err(Failure::new("the handler bridge returned no outcome"));
    };
    if let Some(error) = envelope.remove("error") {
        return Err(serde_json::from_value(error).unwrap_or_else(|e| Failure::new(format!("unreadable failure: {e}"))));
    }
    Ok(envelope.remove("ok").unwrap_or(Value::Null))
}

/// The value a handler settled with, or the error it failed with.
fn value(settled: Settled) -> Result<Value, HandlerError> {
    outcome(settled).map_err(Failure::into_handler_error)
}

/// A complete result read straight from a value's JSON text, when the text is an object
/// whose first member is `key`'s array (as `{ content: [...] }` is written): such a value is
/// the method's complete result ([`returned`]), which then is not built as a `Value` first.
/// `None` leaves it to the usual way, which also says what is wrong with one that does not
/// read.
fn complete<T: DeserializeOwned>(settled: &Settled, key: &str) -> Option<T> {
    let Settled::Json(text) = settled else {
        return None;
    };
    let rest = text.strip_prefix("{\"")?.strip_prefix(key)?;
    if !rest.starts_with("\":[") {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// The key of the object the facade puts in place of a `Uint8Array`: `{ [key]: base64 }`.
const BYTES_KEY: &str = "$oxmcp.bytes";

/// A JavaScript value as the core's [`Returned`]; `complete` names the member (`content`,
/// `contents`, `messages`) whose array makes an object the method's complete result (only
/// the handler's value itself can be one, not an item of a list).
fn returned(value: Value, complete: Option<&str>) -> Returned {
    match value {
        Value::Object(object) if complete.is_some_and(|key| object.get(key).is_some_and(Value::is_array)) => {
            Returned::Result(Value::Object(object))
        }
        Value::Object(object) => match bytes(&object) {
            Some(bytes) => Returned::Bytes(bytes),
            None => Returned::from_json(Value::Object(object)),
        },
        Value::Array(items) => Returned::List(items.into_iter().map(|item| returned(item, None)).collect()),
        other => Returned::from_json(other),
    }
}

/// The bytes of a marked `Uint8Array`.
fn bytes(object: &Map<String, Value>) -> Option<Vec<u8>> {
    let encoded = object.get(BYTES_KEY)?.as_str()?;
    base64::engine::general_purpose::STANDARD.decode(encoded).ok()
}

/// What a tool handler settled with, as a tool result.
pub(crate) fn tool_result(settled: Settled, output: ToolOutput) -> Result<CallToolResult, HandlerError> {
    if let Some(result) = complete(&settled, "content") {
        return Ok(result);
    }
    returned(value(settled)?, Some("content")).into_tool_result(output)
}

/// What a resource handler settled with for `uri`, as a read result.
pub(crate) fn read_result(
    settled: Settled,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<ReadResourceResult, HandlerError> {
    let value = match value(settled)? {
        Value::Object(object) if object.contains_key("text") || object.contains_key("blob") => {
            Returned::Contents(returned::contents_from_json(object, uri, mime_type)?)
        }
        other => returned(other, Some("contents")),
    };
    value.into_read_result(uri, mime_type)
}

/// What a prompt handler settled with, as a prompt result.
pub(crate) fn prompt_result(settled: Settled) -> Result<GetPromptResult, HandlerError> {
    if let Some(result) = complete(&settled, "messages") {
        return Ok(result);
    }
    returned(value(settled)?, Some("messages")).into_prompt_result()
}

/// What a handler settled with, read as `T` (`what` names it in the error).
pub(crate) fn decoded<T: DeserializeOwned>(settled: Settled, what: &str) -> Result<T, HandlerError> {
    serde_json::from_value(value(settled)?).map_err(|e| HandlerError::message(format!("invalid {what}: {e}")))
}

/// A custom request's result: the object the handler settled with (`{}` for nothing).
pub(crate) fn result_object(settled: Settled) -> Result<Value, HandlerError> {
    match value(settled)? {
        Value::Null => Ok(Value::Object(Map::new())),
        object @ Value::Object(_) => Ok(object),
        _ => Err(HandlerError::message(
            "a request handler must settle with an object (the result)",
        )),
    }
}

/// What a completion handler settled with, as candidate values.
pub(crate) fn completion_values(settled: Settled) -> Result<Vec<String>, HandlerError> {
    let values = match value(settled)? {
        Value::Object(mut object) => object.remove("values").unwrap_or(Value::Null),
        other => other,
    };
    decode(values, "completion values (an array of strings)")
}

/// The largest magnitude below which every whole `f64` is an exact integer (2^53).
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// A value from JavaScript, whose numbers all arrive as `f64`: whole ones become integers
/// again, so that `50` is written as `50`, not `50.0` (and parsed back exactly).
pub(crate) fn from_js(mut value: Value) -> Value {
    whole_numbers(&mut value);
    value
}

/// Reads a value from JavaScript as `T`; `what` names it in the error.
pub(crate) fn decode_js<T: DeserializeOwned>(value: Value, what: &str) -> napi::Result<T> {
    serde_json::from_value(from_js(value)).map_err(|e| crate::error::invalid(format!("{what}: {e}")))
}

/// `given` decoded as `what` (as [`decode_js`] does); the empty value when nothing was given.
pub(crate) fn decoded_or_default<T: DeserializeOwned + Default>(given: Option<Value>, what: &str) -> napi::Result<T> {
    given.map_or_else(|| Ok(T::default()), |given| decode_js(given, what))
}

fn whole_numbers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(float) = number.as_f64() {
                if float.fract() == 0.0 && float.abs() < EXACT_INTEGER_LIMIT {
                    // Exact: whole and within the range where the cast loses nothing.
                    *number = (float as i64).into();
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(members) => members.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// A duration in milliseconds; `what` names it in the error.
pub(crate) fn duration_ms(ms: f64, what: &str) -> napi::Result<Duration> {
    Duration::try_from_secs_f64(ms / 1000.0)
        .map_err(|_| crate::error::invalid(format!("{what} must be a finite, non-negative number of milliseconds")))
}

/// A count (a bound, a size in bytes): a whole, non-negative number; `what` names it in
/// the error.
pub(crate) fn count(n: f64, what: &str) -> napi::Result<usize> {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 {
        // Whole and non-negative; past usize::MAX the cast saturates.
        Ok(n as usize)
    } else {
        Err(crate::error::invalid(format!(
            "{what} must be a whole, non-negative number"
        )))
    }
}

/// A server notification as the facade's `{ method, params }` event.
pub(crate) fn notification_event(notification: &ServerNotification) -> Value {
    let (method, params) = notification.parts();
    serde_json::json!({ "method": method, "params": params })
}

/// Any serializable value as JSON (`None` only if it cannot be one, which the
/// protocol's types never are).
pub(crate) fn to_value(value: &impl serde::Serialize) -> Option<Value> {
    serde_json::to_value(value).ok()
}

/// Reads `value` as `T`; `what` names it in the error.
pub(crate) fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, HandlerError> {
    serde_json::from_value(value).map_err(|e| HandlerError::message(format!("invalid {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outcomes_open_into_values_or_failures() {
        let outcome = |envelope| outcome(Settled::Envelope(envelope));
        assert_eq!(outcome(json!({"ok": 3})), Ok(json!(3)));
        assert_eq!(outcome(json!({"ok": 3.0})), Ok(json!(3)));
        assert_eq!(outcome(json!({})), Ok(Value::Null));
        let failure = outcome(json!({"error": {"message": "no", "code": -32602}})).unwrap_err();
        assert_eq!(
            failure.clone().into_handler_error(),
            HandlerError::rpc(ErrorObject::new(-32602, "no"))
        );
        let plain = outcome(json!({"error": {"message": "no"}})).unwrap_err();
        assert_eq!(plain.into_handler_error(), HandlerError::message("no"));
        assert!(outcome(json!(null)).is_err());
        let asked = outcome(json!({"error": {"message": "input required", "inputRequired": {
            "inputRequests": {"roots": {"method": "roots/list"}}, "requestState": "s"}}}))
        .unwrap_err();
        let HandlerError::InputRequired(result) = asked.into_handler_error() else {
            panic!("not an input_required failure")
        };
        assert_eq!(result.request_state.as_deref(), Some("s"));
        assert!(result
            .input_requests
            .is_some_and(|requests| requests.contains_key("roots")));
    }

    #[test]
    fn json_texts_are_values() {
        let text = r#"{"b":[1,2.5,"x"],"a":null}"#;
        let value = outcome(Settled::Json(text.to_owned())).unwrap();
        assert_eq!(value.to_string(), text);
        assert!(outcome(Settled::Json("{".to_owned())).is_err());
    }

    /// A value as the facade sends what is not plain data.
    fn ok(value: Value) -> Settled {
        Settled::Envelope(json!({ "ok": value }))
    }

    #[test]
    fn complete_results_in_text_read_as_they_would_as_values() {
        let text = |text: &str| Settled::Json(text.to_owned());
        let full = r#"{"content":[{"type":"text","text":"x"}],"isError":true}"#;
        let direct = tool_result(text(full), ToolOutput::Content).unwrap();
        assert_eq!(
            direct,
            tool_result(ok(serde_json::from_str(full).unwrap()), ToolOutput::Content).unwrap()
        );
        // Not first, not an array, duplicated, or not a valid result: read as a value.
        let later = r#"{"isError":true,"content":[{"type":"text","text":"x"}]}"#;
        assert_eq!(tool_result(text(later), ToolOutput::Content).unwrap(), direct);
        let data = tool_result(text(r#"{"content":"x"}"#), ToolOutput::Content).unwrap();
        assert_eq!(
            data.content,
            vec![oxmcp::protocol::ContentBlock::text("{\n  \"content\": \"x\"\n}")]
        );
        let twice = r#"{"content":[],"content":"x"}"#;
        assert_eq!(tool_result(text(twice), ToolOutput::Content).unwrap(), data);
        let bad = r#"{"content":[{"type":"nonsense"}]}"#;
        assert_eq!(
            tool_result(text(bad), ToolOutput::Content).unwrap_err(),
            tool_result(ok(serde_json::from_str(bad).unwrap()), ToolOutput::Content).unwrap_err()
        );
        let said = r#"{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}"#;
        let said = prompt_result(text(said)).unwrap();
        assert_eq!(said.messages, vec![oxmcp::protocol::PromptMessage::user("hi")]);
    }

    #[test]
    fn javascript_values_are_classified_for_the_core() {
        let full = tool_result(
            ok(json!({"content": [{"type": "text", "text": "x"}], "isError": true})),
            ToolOutput::Content,
        );
        assert_eq!(full.unwrap().is_error, Some(true));
        assert!(tool_result(ok(json!({"content": [{"type": "nonsense"}]})), ToolOutput::Content).is_err());
        let data = tool_result(ok(json!({"a": 1})), ToolOutput::Content).unwrap();
        assert_eq!(data.structured_content, None);
        let marked = json!({"$oxmcp.bytes": "AAE="});
        assert_eq!(returned(marked, Some("content")), Returned::Bytes(vec![0, 1]));
        let blob = read_result(
            ok(json!({"blob": "AAEC", "mimeType": "image/png"})),
            "file:///x",
            Some("a/b"),
        )
        .unwrap();
        let contents = serde_json::to_value(&blob.contents[0]).unwrap();
        assert_eq!(
            contents,
            json!({"uri": "file:///x", "mimeType": "image/png", "blob": "AAEC"})
        );
        let said = prompt_result(ok(
            json!([{"role": "assistant", "content": {"type": "text", "text": "ok"}}]),
        ))
        .unwrap();
        assert_eq!(said.messages, vec![oxmcp::protocol::PromptMessage::assistant("ok")]);
        assert_eq!(completion_values(ok(json!(["a", "b"]))).unwrap(), ["a", "b"]);
        assert_eq!(completion_values(ok(json!({"values": ["c"]}))).unwrap(), ["c"]);
        assert!(completion_values(ok(json!([1]))).is_err());
    }

    #[test]
    fn whole_numbers_from_javascript_become_integers() {
        let value = from_js(json!({"big": 9_007_199_254_740_991.0_f64, "list": [2.0, 2.5], "huge": 1e21}));
        assert_eq!(
            value.to_string(),
            r#"{"big":9007199254740991,"list":[2,2.5],"huge":1e+21}"#
        );
    }

    #[test]
    fn notifications_become_events() {
        assert_eq!(
            notification_event(&ServerNotification::ToolListChanged),
            json!({"method": "notifications/tools/list_changed", "params": null})
        );
    }
}
