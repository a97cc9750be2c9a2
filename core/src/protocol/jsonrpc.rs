//! The JSON-RPC 2.0 envelope: parsed once, with `params` and `result` kept raw until a
//! handler asks for their typed form.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::error::ErrorObject;

/// The `jsonrpc` member every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request id: a string or an integer, never null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// A request: it expects exactly one response with the same id.
#[derive(Debug, Clone)]
pub struct Request {
    /// The id the response must carry.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The raw `params` object, decoded when the method's handler needs it.
    pub params: Option<Box<RawValue>>,
}

/// A notification: one-way, never answered.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name, e.g. `notifications/cancelled`.
    pub method: String,
    /// The raw `params` object.
    pub params: Option<Box<RawValue>>,
}

/// A response to a request this side sent.
#[derive(Debug, Clone)]
pub struct Response {
    /// The id of the request it answers.
    pub id: RequestId,
    /// The raw `result`, or the error the peer returned.
    pub outcome: Result<Box<RawValue>, ErrorObject>,
}

/// One JSON-RPC message, classified by its members.
#[derive(Debug, Clone)]
pub enum Message {
    /// Has `method` and `id`.
    Request(Request),
    /// Has `method` and no `id`.
    Notification(Notification),
    /// Has `result` or `error`.
    Response(Response),
}

impl Message {
    /// The message as one line of JSON text.
    pub fn to_text(&self) -> String {
        match self {
            Message::Request(request) => request_text(&request.id, &request.method, request.params.as_ref()),
            Message::Notification(notification) => {
                notification_text(&notification.method, notification.params.as_ref())
            }
            Message::Response(Response {
                id,
                outcome: Ok(result),
            }) => raw_result_text(id, result.get()),
            Message::Response(Response {
                id,
                outcome: Err(error),
            }) => error_text(Some(id), error),
        }
    }
}

/// What one frame of input holds.
#[derive(Debug)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON-RPC batch (only the 2025-03-26 revision allows them); each entry is parsed
    /// on its own so that one bad entry does not spoil the others.
    Batch(Vec<Result<Message, InvalidMessage>>),
}

/// Why a frame could not be read as a message. [`ErrorObject::from`] gives the error the
/// peer should receive.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidMessage {
    /// The text is not JSON (or not UTF-8): answered with -32700 and a null id.
    #[error("parse error: {0}")]
    Parse(String),
    /// The JSON is not a valid JSON-RPC message: answered with -32600, with the id when it
    /// could be read.
    #[error("invalid request: {reason}")]
    Invalid {
        /// The id, when the message had a usable one.
        id: Option<RequestId>,
        /// What is wrong.
        reason: String,
    },
}

impl From<&InvalidMessage> for ErrorObject {
    fn from(invalid: &InvalidMessage) -> Self {
        match invalid {
            InvalidMessage::Parse(reason) => ErrorObject::parse_error(reason.clone()),
            InvalidMessage::Invalid { reason, .. } => ErrorObject::invalid_request(reason.clone()),
        }
    }
}

impl InvalidMessage {
    /// The id to answer with, if the message had a usable one.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            InvalidMessage::Parse(_) => None,
            InvalidMessage::Invalid { id, .. } => id.as_ref(),
        }
    }
}

/// The members of a message, borrowed from the input; read in one pass. A member that is
/// present but `null` reads as `Some("null")`, so that `"id": null` is not mistaken for a
/// notification.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Parses one frame: a message or, when the text is a JSON array, a batch.
pub fn parse(frame: &[u8]) -> Result<Incoming, InvalidMessage> {
    let text = std::str::from_utf8(frame).map_err(|e| InvalidMessage::Parse(format!("invalid UTF-8: {e}")))?;
    let first = text.trim_start().as_bytes().first().copied();
    if first == Some(b'[') {
        let entries: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| InvalidMessage::Parse(e.to_string()))?;
        if entries.is_empty() {
            return Err(InvalidMessage::Invalid {
                id: None,
                reason: "empty batch".into(),
            });
        }
        return Ok(Incoming::Batch(
            entries.into_iter().map(|raw| parse_message(raw.get())).collect(),
        ));
    }
    parse_message(text).map(Incoming::Single)
}

/// Parses exactly one message (a batch is an error).
pub fn parse_message(text: &str) -> Result<Message, InvalidMessage> {
    let envelope: Envelope<'_> = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(e) if e.is_syntax() || e.is_eof() => return Err(InvalidMessage::Parse(e.to_string())),
        Err(e) => {
            return Err(InvalidMessage::Invalid {
                id: None,
                reason: e.to_string(),
            })
        }
    };
    let id = match envelope.id {
        None => None,
        Some(raw) => Some(
            serde_json::from_str::<RequestId>(raw.get()).map_err(|_| InvalidMessage::Invalid {
                id: None,
                reason: format!("id must be a string or an integer, not {}", raw.get()),
            })?,
        ),
    };
    let error_id = id.clone();
    let invalid = move |reason: String| InvalidMessage::Invalid {
        id: error_id.clone(),
        reason,
    };
    match envelope.jsonrpc.map(RawValue::get) {
        Some("\"2.0\"") => {}
        Some(other) => return Err(invalid(format!("jsonrpc must be \"2.0\", not {other}"))),
        None => return Err(invalid("missing jsonrpc member".into())),
    }
    let params = match envelope.params {
        Some(raw) if !raw.get().starts_with(['{', '[']) => {
            return Err(invalid("params must be an object or an array".into()))
        }
        other => other.map(RawValue::to_owned),
    };
    if let Some(method) = envelope.method {
        let method: String =
            serde_json::from_str(method.get()).map_err(|_| invalid("method must be a string".into()))?;
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }
    let Some(id) = id else {
        return Err(invalid("a response needs an id; a request needs a method".into()));
    };
    let outcome = match (envelope.result, envelope.error) {
        (Some(result), None) => Ok(result.to_owned()),
        (None, Some(error)) => Err(error),
        _ => return Err(invalid("a response needs exactly one of result and error".into())),
    };
    Ok(Message::Response(Response { id, outcome }))
}

#[derive(Serialize)]
struct OutgoingRequest<'a, P> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct OutgoingNotification<'a, P> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct OutgoingResult<'a, R> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a R,
}

#[derive(Serialize)]
struct OutgoingError<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RequestId>,
    error: &'a ErrorObject,
}

fn to_text(value: &impl Serialize) -> String {
    // Serializing our own types into a String cannot fail: every map key is a string.
    serde_json::to_string(value).expect("protocol values serialize")
}

/// Writes a request as one line of JSON text.
pub fn request_text<P: Serialize>(id: &RequestId, method: &str, params: Option<&P>) -> String {
    to_text(&OutgoingRequest {
        jsonrpc: JSONRPC_VERSION,
        id,
        method,
        params,
    })
}

/// Writes a notification as one line of JSON text.
pub fn notification_text<P: Serialize>(method: &str, params: Option<&P>) -> String {
    to_text(&OutgoingNotification {
        jsonrpc: JSONRPC_VERSION,
        method,
        params,
    })
}

/// Writes the `notifications/cancelled` that gives up on request `id`, saying why.
pub fn cancellation_text(id: &RequestId, reason: &str) -> String {
    let params = super::CancelledNotificationParams {
        request_id: id.clone(),
        reason: Some(reason.to_owned()),
        meta: None,
    };
    notification_text(super::methods::CANCELLED, Some(&params))
}

/// Writes a successful response as one line of JSON text.
pub fn result_text<R: Serialize>(id: &RequestId, result: &R) -> String {
    to_text(&OutgoingResult {
        jsonrpc: JSONRPC_VERSION,
        id,
        result,
    })
}

/// Writes a successful response around a result that is already JSON text.
pub fn raw_result_text(id: &RequestId, result_json: &str) -> String {
    let id = to_text(id);
    let mut text = String::with_capacity(result_json.len() + id.len() + 32);
    text.push_str(r#"{"jsonrpc":"2.0","id":"#);
    text.push_str(&id);
    text.push_str(r#","result":"#);
    text.push_str(result_json);
    text.push('}');
    text
}

/// Writes an error response as one line of JSON text (`id: null` when the request's id
/// could not be read).
pub fn error_text(id: Option<&RequestId>, error: &ErrorObject) -> String {
    to_text(&OutgoingError {
        jsonrpc: JSONRPC_VERSION,
        id,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_back_as_it_was_written() {
        for text in [
            r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{"action":"accept"}}"#,
            r#"{"jsonrpc":"2.0","id":"s-2","error":{"code":-32601,"message":"no"}}"#,
        ] {
            assert_eq!(single(text).to_text(), text);
        }
    }

    fn single(text: &str) -> Message {
        match parse(text.as_bytes()).unwrap() {
            Incoming::Single(message) => message,
            Incoming::Batch(_) => panic!("not a batch"),
        }
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Message::Request(Request {
                id: RequestId::Number(1),
                ..
            })
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Message::Notification(_)
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Message::Response(Response { outcome: Ok(_), .. })
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}"#),
            Message::Response(Response {
                outcome: Err(ErrorObject { code: -32601, .. }),
                ..
            })
        ));
    }

    #[test]
    fn rejects_bad_envelopes_with_the_right_kind() {
        assert!(matches!(parse(b"{not json"), Err(InvalidMessage::Parse(_))));
        assert!(matches!(parse(b"\xff\xfe"), Err(InvalidMessage::Parse(_))));
        let wrong_version = parse(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
        assert_eq!(wrong_version.id(), Some(&RequestId::Number(7)));
        let null_id = parse(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).unwrap_err();
        assert!(matches!(null_id, InvalidMessage::Invalid { id: None, .. }));
        assert!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#).is_err());
        assert!(parse(br#"[]"#).is_err());
    }

    #[test]
    fn batches_keep_good_entries() {
        let Incoming::Batch(entries) =
            parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0"}]"#).unwrap()
        else {
            panic!("expected a batch");
        };
        assert!(entries[0].is_ok());
        assert!(entries[1].is_err());
    }

    #[test]
    fn writes_compact_single_line_messages() {
        let text = request_text(&RequestId::from("x"), "ping", None::<&()>);
        assert_eq!(text, r#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#);
        let text = error_text(None, &ErrorObject::parse_error("bad"));
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: bad"}}"#
        );
    }
}
