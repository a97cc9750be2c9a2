//! What a handler returned, in terms every host language shares, and the wire result it
//! becomes.
//!
//! The bindings describe a Python, JavaScript or Kotlin return value as a [`Returned`]
//! (strings, bytes, content helpers, lists, plain data) and the core decides, once for
//! every language, what the client sees. The rules follow the official Python SDK, so
//! that a server ported from it answers the same:
//!
//! | returned | tool content | resource contents | prompt message |
//! |---|---|---|---|
//! | nothing | no content | an error | an error |
//! | text | one text block | text (`text/plain`) | a user message |
//! | bytes | an embedded blob | a blob (`application/octet-stream`) | an embedded blob |
//! | a content block | itself | an error | a user message |
//! | resource contents | embedded | themselves | an embedded resource |
//! | a prompt message | its JSON | an error | itself |
//! | a list | each item's content, in order | one item each | one message each |
//! | other data | its JSON text (indented) | JSON text (`application/json`) | its JSON text |
//! | a complete result | as is | as is (contents without a `uri` get the read's) | as is |
//!
//! A tool with an output schema also sends the value as `structuredContent`, wrapped as
//! `{"result": …}` when its declared type is not an object ([`ToolOutput`]).

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::handler::HandlerError;
use crate::protocol::{
    BlobResourceContents, CallToolResult, ContentBlock, EmbeddedResource, GetPromptResult, PromptMessage,
    ReadResourceResult, ResourceContents, Role, TextResourceContents,
};

/// A handler's return value, as a host language describes it to the core.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned {
    /// Nothing: `None`, `null`, `undefined`, `Unit`.
    Nothing,
    /// A string.
    Text(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A content block (text, image, audio, resource link, embedded resource).
    Content(ContentBlock),
    /// A resource's contents.
    Contents(ResourceContents),
    /// A prompt message.
    Message(PromptMessage),
    /// A sequence of values (a list, tuple or array).
    List(Vec<Returned>),
    /// Any other value, as JSON data (numbers, booleans, objects, serialised models).
    Data(Value),
    /// A complete result of the method (`CallToolResult`, `ReadResourceResult`,
    /// `GetPromptResult`), as JSON; it is sent as it is.
    Result(Value),
}

/// How a tool's result carries its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolOutput {
    /// As content only: the tool has no output schema.
    #[default]
    Content,
    /// As content and as `structuredContent`: the declared type is an object.
    Structured,
    /// As content and as `structuredContent` `{"result": value}`: the declared type is
    /// not an object (a number, a list, an optional value).
    Wrapped,
    /// As content and as `structuredContent`, wrapped unless the value is an object: for
    /// hosts whose output schema comes without a type to tell (JavaScript, Kotlin, Rust's
    /// `Json`).
    Inferred,
}

const TEXT_MIME_TYPE: &str = "text/plain";
const BINARY_MIME_TYPE: &str = "application/octet-stream";
const JSON_MIME_TYPE: &str = "application/json";
/// The URI of bytes a tool returned, which name no resource.
const INLINE_BYTES_URI: &str = "data:";

impl Returned {
    /// A value from a host whose values are JSON (JavaScript, or Kotlin's JSON text):
    /// strings are text, arrays lists, objects that are content blocks are content, and
    /// everything else is data.
    pub fn from_json(value: Value) -> Self {
        match value {
            Value::Null => Returned::Nothing,
            Value::String(text) => Returned::Text(text),
            Value::Array(items) => Returned::List(items.into_iter().map(Returned::from_json).collect()),
            // An object that only looks like a block (a `type` field of the user's own)
            // stays data.
            Value::Object(object) if is_content_block(&object) => {
                let value = Value::Object(object);
                match ContentBlock::deserialize(&value) {
                    Ok(block) => Returned::Content(block),
                    Err(_) => Returned::Data(value),
                }
            }
            other => Returned::Data(other),
        }
    }

    /// The value as JSON data: what `structuredContent` carries (bytes as base64).
    pub fn into_json(self) -> Value {
        match self {
            Returned::Nothing => Value::Null,
            Returned::Text(text) => Value::String(text),
            Returned::Bytes(bytes) => Value::String(base64(&bytes)),
            Returned::Content(block) => json(&block),
            Returned::Contents(contents) => json(&contents),
            Returned::Message(message) => json(&message),
            Returned::List(items) => Value::Array(items.into_iter().map(Returned::into_json).collect()),
            Returned::Data(value) | Returned::Result(value) => value,
        }
    }

    /// The `tools/call` result of a tool whose output is carried as `output` says.
    pub fn into_tool_result(self, output: ToolOutput) -> Result<CallToolResult, HandlerError> {
        if let Returned::Result(result) = self {
            return decode(result, "tool result");
        }
        let structured = match output {
            ToolOutput::Content => None,
            ToolOutput::Structured => Some(self.clone().into_json()),
            ToolOutput::Wrapped => Some(wrap(self.clone().into_json())),
            ToolOutput::Inferred => match self.clone().into_json() {
                object @ Value::Object(_) => Some(object),
                other => Some(wrap(other)),
            },
        };
        Ok(CallToolResult {
            content: self.into_content()?,
            structured_content: structured,
            ..Default::default()
        })
    }

    /// The `resources/read` result for `uri`, whose definition declares `mime_type`.
    pub fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, HandlerError> {
        let items = match self {
            Returned::Result(result) => return decode(with_uri(result, uri), "read result"),
            Returned::Nothing => return Err(HandlerError::message("the resource handler returned nothing")),
            Returned::List(items) if !items.is_empty() && items.iter().all(Returned::is_contents_like) => items,
            single => vec![single],
        };
        let contents = items
            .into_iter()
            .map(|item| item.into_contents(uri, mime_type))
            .collect::<Result<_, _>>()?;
        Ok(ReadResourceResult {
            contents,
            ..Default::default()
        })
    }

    /// The `prompts/get` result: one message per item (the core adds the definition's
    /// description).
    pub fn into_prompt_result(self) -> Result<GetPromptResult, HandlerError> {
        let items = match self {
            Returned::Result(result) => return decode(result, "prompt result"),
            Returned::List(items) => items,
            single => vec![single],
        };
        let messages = items
            .into_iter()
            .map(Returned::into_message)
            .collect::<Result<_, _>>()?;
        Ok(GetPromptResult {
            messages,
            ..Default::default()
        })
    }

    /// The content blocks of a tool result: lists are flattened in order.
    pub fn into_content(self) -> Result<Vec<ContentBlock>, HandlerError> {
        let mut blocks = Vec::new();
        self.push_content(&mut blocks)?;
        Ok(blocks)
    }

    fn push_content(self, blocks: &mut Vec<ContentBlock>) -> Result<(), HandlerError> {
        match self {
            Returned::Nothing => {}
            Returned::Text(text) => blocks.push(ContentBlock::text(text)),
            Returned::Bytes(bytes) => blocks.push(embedded(ResourceContents::Blob(BlobResourceContents {
                uri: INLINE_BYTES_URI.to_owned(),
                mime_type: Some(BINARY_MIME_TYPE.to_owned()),
                blob: base64(&bytes),
                meta: None,
            }))),
            Returned::Content(block) => blocks.push(block),
            Returned::Contents(contents) => blocks.push(embedded(contents)),
            Returned::List(items) => {
                for item in items {
                    item.push_content(blocks)?;
                }
            }
            Returned::Message(message) => blocks.push(ContentBlock::text(json_text(&json(&message)))),
            Returned::Data(value) | Returned::Result(value) => blocks.push(ContentBlock::text(json_text(&value))),
        }
        Ok(())
    }

    fn is_contents_like(&self) -> bool {
        matches!(self, Returned::Text(_) | Returned::Bytes(_) | Returned::Contents(_))
    }

    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Result<ResourceContents, HandlerError> {
        let mime = |default: &str| Some(mime_type.unwrap_or(default).to_owned());
        Ok(match self {
            Returned::Contents(contents) => contents,
            Returned::Text(text) => ResourceContents::Text(TextResourceContents {
                uri: uri.to_owned(),
                mime_type: mime(TEXT_MIME_TYPE),
                text,
                meta: None,
            }),
            Returned::Bytes(bytes) => ResourceContents::Blob(BlobResourceContents {
                uri: uri.to_owned(),
                mime_type: mime(BINARY_MIME_TYPE),
                blob: base64(&bytes),
                meta: None,
            }),
            Returned::Data(value) => ResourceContents::Text(TextResourceContents {
                uri: uri.to_owned(),
                mime_type: mime(JSON_MIME_TYPE),
                text: json_text(&value),
                meta: None,
            }),
            other => {
                return Err(HandlerError::message(format!(
                    "a resource handler cannot return {}: return text, bytes, resource contents or data",
                    other.kind()
                )))
            }
        })
    }

    fn into_message(self) -> Result<PromptMessage, HandlerError> {
        match self {
            Returned::Message(message) => Ok(message),
            Returned::Data(Value::Object(object)) if object.contains_key("role") => {
                decode(Value::Object(object), "prompt message")
            }
            other => {
                let mut blocks = other.into_content()?;
                match (blocks.pop(), blocks.is_empty()) {
                    (Some(content), true) => Ok(PromptMessage {
                        role: Role::User,
                        content,
                    }),
                    _ => Err(HandlerError::message(
                        "a prompt message holds exactly one content block: return a list for several",
                    )),
                }
            }
        }
    }

    /// What the value is, for error messages.
    fn kind(&self) -> &'static str {
        match self {
            Returned::Nothing => "nothing",
            Returned::Text(_) => "text",
            Returned::Bytes(_) => "bytes",
            Returned::Content(_) => "a content block",
            Returned::Contents(_) => "resource contents",
            Returned::Message(_) => "a prompt message",
            Returned::List(_) => "a list",
            Returned::Data(_) => "data",
            Returned::Result(_) => "a result",
        }
    }
}

/// One resource contents item from a JSON object (`{ text }` or `{ blob }`): the request's
/// URI and the definition's MIME type fill in what it leaves out.
pub fn contents_from_json(
    mut object: Map<String, Value>,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<ResourceContents, HandlerError> {
    object.entry("uri").or_insert_with(|| uri.into());
    if let Some(mime_type) = mime_type {
        object.entry("mimeType").or_insert_with(|| mime_type.into());
    }
    decode(Value::Object(object), "resource contents")
}

/// A complete read result whose contents may leave their `uri` out (FastMCP's
/// `ResourceResult` does): each gets `uri`, the one read.
fn with_uri(mut result: Value, uri: &str) -> Value {
    if let Some(contents) = result.get_mut("contents").and_then(Value::as_array_mut) {
        for item in contents.iter_mut().filter_map(Value::as_object_mut) {
            item.entry("uri").or_insert_with(|| Value::String(uri.to_owned()));
        }
    }
    result
}

/// Whether a JSON object is shaped as a content block: its `type` names one.
fn is_content_block(object: &Map<String, Value>) -> bool {
    matches!(
        object.get("type").and_then(Value::as_str),
        Some("text" | "image" | "audio" | "resource_link" | "resource")
    )
}

/// Data as the text a model reads: JSON indented by two spaces, as the official Python
/// SDK writes it; a string is its own text.
fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// A value that is not an object, as the object `structuredContent` must be.
fn wrap(value: Value) -> Value {
    Value::Object(Map::from_iter([("result".to_owned(), value)]))
}

fn embedded(resource: ResourceContents) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource,
        annotations: None,
        meta: None,
    })
}

fn json(value: &impl serde::Serialize) -> Value {
    // The protocol's types always serialise.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, HandlerError> {
    serde_json::from_value(value).map_err(|e| HandlerError::message(format!("invalid {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(value: Returned, output: ToolOutput) -> Value {
        json(&value.into_tool_result(output).unwrap())
    }

    #[test]
    fn plain_values_become_content() {
        assert_eq!(tool(Returned::Nothing, ToolOutput::Content), json!({"content": []}));
        assert_eq!(
            tool(Returned::Data(json!({"a": [1]})), ToolOutput::Content),
            json!({"content": [{"type": "text", "text": "{\n  \"a\": [\n    1\n  ]\n}"}]})
        );
        let list = Returned::List(vec![Returned::Text("a".into()), Returned::Data(json!(2))]);
        assert_eq!(
            tool(list, ToolOutput::Content),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "2"}]})
        );
        let bytes = tool(Returned::Bytes(vec![0, 1]), ToolOutput::Content);
        assert_eq!(bytes["content"][0]["resource"]["blob"], "AAE=");
    }

    #[test]
    fn declared_output_is_structured_and_wrapped_unless_an_object() {
        assert_eq!(
            tool(Returned::Data(json!(42)), ToolOutput::Wrapped),
            json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"result": 42}})
        );
        let object = tool(Returned::Data(json!({"n": 1})), ToolOutput::Structured);
        assert_eq!(object["structuredContent"], json!({"n": 1}));
        let inferred = |value| tool(Returned::Data(value), ToolOutput::Inferred)["structuredContent"].clone();
        assert_eq!(inferred(json!({"n": 1})), json!({"n": 1}));
        assert_eq!(inferred(json!([1])), json!({"result": [1]}));
        assert_eq!(object["content"][0]["text"], "{\n  \"n\": 1\n}");
    }

    #[test]
    fn complete_results_pass_and_bad_ones_fail() {
        let result = json!({"content": [{"type": "text", "text": "x"}], "isError": true});
        assert_eq!(tool(Returned::Result(result.clone()), ToolOutput::Structured), result);
        let bad = Returned::Result(json!({"content": 3})).into_tool_result(ToolOutput::Content);
        assert!(bad.is_err());
    }

    #[test]
    fn resources_fill_in_uri_and_mime_type() {
        let read = |value| json(&Returned::into_read_result(value, "memo://1", None).unwrap());
        assert_eq!(
            read(Returned::Text("hi".into())),
            json!({"contents": [{"uri": "memo://1", "mimeType": "text/plain", "text": "hi"}]})
        );
        assert_eq!(
            read(Returned::Data(json!([1]))),
            json!({"contents": [{"uri": "memo://1", "mimeType": "application/json", "text": "[\n  1\n]"}]})
        );
        let two = read(Returned::List(vec![
            Returned::Text("a".into()),
            Returned::Bytes(vec![1]),
        ]));
        assert_eq!(two["contents"][1]["blob"], "AQ==");
        assert!(Returned::Nothing.into_read_result("memo://1", None).is_err());
        let typed = Returned::Text("x".into())
            .into_read_result("memo://1", Some("text/markdown"))
            .unwrap();
        assert_eq!(json(&typed)["contents"][0]["mimeType"], "text/markdown");
        // A complete result keeps its contents' URIs and gives the read's to those without.
        let complete = read(Returned::Result(json!({"contents": [
            {"text": "a", "mimeType": "text/plain"},
            {"uri": "memo://2", "blob": "AQ=="},
        ]})));
        assert_eq!(complete["contents"][0]["uri"], "memo://1");
        assert_eq!(complete["contents"][1]["uri"], "memo://2");
    }

    #[test]
    fn prompts_are_user_messages_unless_given_a_role() {
        let get = |value| json(&Returned::into_prompt_result(value).unwrap());
        assert_eq!(
            get(Returned::Text("hi".into())),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        );
        let said = json!({"role": "assistant", "content": {"type": "text", "text": "ok"}});
        assert_eq!(
            get(Returned::List(vec![Returned::Data(said.clone())]))["messages"][0],
            said
        );
        let two_blocks = Returned::List(vec![Returned::List(vec![
            Returned::Text("a".into()),
            Returned::Text("b".into()),
        ])]);
        assert!(two_blocks.into_prompt_result().is_err());
    }

    #[test]
    fn json_hosts_mark_content_blocks_by_type() {
        let image = json!({"type": "image", "data": "AA==", "mimeType": "image/png"});
        assert!(matches!(
            Returned::from_json(image),
            Returned::Content(ContentBlock::Image(_))
        ));
        assert_eq!(
            Returned::from_json(json!({"type": "other"})),
            Returned::Data(json!({"type": "other"}))
        );
        assert_eq!(
            Returned::from_json(json!(["a"])),
            Returned::List(vec![Returned::Text("a".into())])
        );
    }
}
