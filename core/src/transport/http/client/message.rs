//! What the HTTP client reads from the messages it carries: the envelope of each
//! outgoing message (read once), the request headers it implies, and whether an
//! incoming message is the final response of a request.

use bytes::Bytes;
use reqwest::header::{HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::headers::names::PROTOCOL_VERSION;
use crate::protocol::headers::{encode_header_value, request_headers, HeaderParam};
use crate::protocol::{methods, ErrorObject, RequestId};
use crate::transport::OutgoingMessage;

/// One outgoing message: its text and what the transport needs to know about it.
#[derive(Debug)]
pub(super) struct Outgoing {
    /// The message text, sent as the POST body.
    pub(super) body: Bytes,
    /// The request id; `None` for notifications and responses.
    pub(super) id: Option<RequestId>,
    /// `method`; `None` for responses.
    pub(super) method: Option<String>,
    /// The `Mcp-Name` source: `params.name` of `tools/call` and `prompts/get`,
    /// `params.uri` of `resources/read`.
    pub(super) name: Option<String>,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`: set on modern-era requests.
    pub(super) modern_version: Option<String>,
    /// `params.arguments` of a `tools/call`, raw.
    pub(super) arguments: Option<Box<RawValue>>,
    /// `params.requestId` of a `notifications/cancelled`.
    pub(super) cancel_target: Option<RequestId>,
    /// The `x-mcp-header` parameters of the tool a modern `tools/call` names, from the
    /// connection.
    pub(super) header_params: Vec<HeaderParam>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Params<'a> {
    #[serde(default, borrow)]
    name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    uri: Option<&'a RawValue>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "requestId")]
    request_id: Option<&'a RawValue>,
    #[serde(default, rename = "_meta")]
    meta: Option<MetaPeek>,
}

#[derive(Deserialize)]
struct MetaPeek {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<String>,
}

impl Outgoing {
    /// Reads the envelope of a message's text. A text the transport cannot read is still
    /// sent, as a message with no method and no id.
    pub(super) fn parse(message: OutgoingMessage) -> Outgoing {
        let OutgoingMessage { text, header_params } = message;
        let mut outgoing = Outgoing {
            body: Bytes::new(),
            id: None,
            method: None,
            name: None,
            modern_version: None,
            arguments: None,
            cancel_target: None,
            header_params,
        };
        if let Ok(envelope) = serde_json::from_str::<Envelope<'_>>(&text) {
            let params: Params<'_> = envelope
                .params
                .filter(|raw| raw.get().starts_with('{'))
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or_default();
            let string = |raw: Option<&RawValue>| raw.and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
            let method = envelope.method.as_deref();
            outgoing.name = match method {
                Some(methods::TOOLS_CALL | methods::PROMPTS_GET) => string(params.name),
                Some(methods::RESOURCES_READ) => string(params.uri),
                _ => None,
            };
            if method == Some(methods::TOOLS_CALL) {
                outgoing.arguments = params.arguments.map(RawValue::to_owned);
            }
            if method == Some(methods::CANCELLED) {
                outgoing.cancel_target = params.request_id.and_then(|raw| serde_json::from_str(raw.get()).ok());
            }
            outgoing.modern_version = params.meta.and_then(|meta| meta.protocol_version);
            outgoing.id = envelope.id.filter(|_| envelope.method.is_some());
            outgoing.method = envelope.method;
        }
        outgoing.body = Bytes::from(text);
        outgoing
    }

    /// A request (it expects a response).
    pub(super) fn is_request(&self) -> bool {
        self.id.is_some()
    }

    /// A request or notification of the 2026-07-28 era.
    pub(super) fn is_modern(&self) -> bool {
        self.modern_version.is_some()
    }

    /// The method, or "" for a response.
    pub(super) fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }
}

/// The headers that mirror the body: `Mcp-Method` and `Mcp-Name` on every request
/// that has them; for the modern era also `MCP-Protocol-Version` and, on `tools/call`,
/// an `Mcp-Param-{Name}` header per `x-mcp-header` parameter (as the connection gave them)
/// present in the arguments.
pub(super) fn body_headers(message: &Outgoing) -> Vec<(HeaderName, HeaderValue)> {
    let Some(method) = &message.method else {
        return Vec::new();
    };
    // `Mcp-Param-*` headers are of the modern era; the arguments are read only for a tool
    // that has some.
    let params = match message.modern_version {
        Some(_) => message.header_params.as_slice(),
        None => &[],
    };
    let arguments = match (params.is_empty(), &message.arguments) {
        (false, Some(raw)) => serde_json::from_str::<Map<String, Value>>(raw.get()).ok(),
        _ => None,
    };
    let mut headers: Vec<(HeaderName, HeaderValue)> =
        request_headers(method, message.name.as_deref(), arguments.as_ref(), params)
            .into_iter()
            .filter_map(|header| {
                let value = HeaderValue::from_str(&encode_header_value(&header.value?)).ok()?;
                Some((HeaderName::from_bytes(header.name.as_bytes()).ok()?, value))
            })
            .collect();
    if let Some(version) = message
        .modern_version
        .as_deref()
        .and_then(|v| HeaderValue::from_str(v).ok())
    {
        headers.push((HeaderName::from_static(PROTOCOL_VERSION), version));
    }
    headers
}

/// The final response of a request, not yet delivered.
#[derive(Debug)]
pub(super) struct FinalResponse {
    /// The whole response message.
    pub(super) text: Bytes,
    /// Its error, when it is an error response.
    pub(super) error: Option<ErrorObject>,
}

/// Just enough of an incoming message to classify it.
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

/// What an incoming message is, as far as one request is concerned.
pub(super) enum Classified {
    /// The final response of the request.
    Final(FinalResponse),
    /// An error response for another id (or none): how servers answer a request they
    /// could not attribute, e.g. a JSON-RPC error body with `id: null`; with its text.
    StrayError(ErrorObject, Bytes),
    /// Anything else: a notification, a server request, another request's response.
    Other(Bytes),
}

/// Classifies an incoming message for the request `id`.
pub(super) fn classify(id: &RequestId, text: Bytes) -> Classified {
    let verdict = match serde_json::from_slice::<Peek<'_>>(&text) {
        Ok(peek) if peek.method.is_none() && (peek.result.is_some() || peek.error.is_some()) => {
            let same = peek
                .id
                .and_then(|raw| serde_json::from_str::<RequestId>(raw.get()).ok())
                .is_some_and(|found| found == *id);
            match (same, peek.error) {
                (true, error) => Ok(error),
                (false, Some(error)) => Err(Some(error)),
                (false, None) => Err(None),
            }
        }
        _ => Err(None),
    };
    match verdict {
        Ok(error) => Classified::Final(FinalResponse { text, error }),
        Err(Some(error)) => Classified::StrayError(error, text),
        Err(None) => Classified::Other(text),
    }
}

/// The error of a JSON-RPC error response, if `body` is one.
pub(super) fn error_of(body: &[u8]) -> Option<ErrorObject> {
    serde_json::from_slice::<Peek<'_>>(body).ok()?.error
}

/// The result member of a response text, decoded.
pub(super) fn result_of<T: for<'de> Deserialize<'de>>(text: &[u8]) -> Option<T> {
    #[derive(Deserialize)]
    struct WithResult<T> {
        result: T,
    }
    serde_json::from_slice::<WithResult<T>>(text).ok().map(|r| r.result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::headers::header_params;
    use serde_json::json;

    fn parse(message: Value) -> Outgoing {
        Outgoing::parse(message.to_string().into())
    }

    fn headers_of(message: Value, header_params: &[HeaderParam]) -> Vec<(String, String)> {
        let text = message.to_string();
        let outgoing = Outgoing::parse(OutgoingMessage {
            text,
            header_params: header_params.to_vec(),
        });
        body_headers(&outgoing)
            .into_iter()
            .map(|(name, value)| (name.as_str().to_owned(), value.to_str().unwrap().to_owned()))
            .collect()
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}, "progressToken": 5})
    }

    #[test]
    fn reads_the_envelope_once() {
        let call = parse(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta()}}));
        assert_eq!(call.id, Some(RequestId::Number(3)));
        assert_eq!(call.method(), "tools/call");
        assert_eq!(call.name.as_deref(), Some("echo"));
        assert_eq!(call.modern_version.as_deref(), Some("2026-07-28"));
        assert_eq!(call.arguments.as_ref().unwrap().get(), r#"{"text":"hi"}"#);

        let cancel =
            parse(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}));
        assert!(!cancel.is_request());
        assert_eq!(cancel.cancel_target, Some(RequestId::from("a")));

        let response = parse(json!({"jsonrpc": "2.0", "id": 0, "result": {}}));
        assert!(!response.is_request() && response.method.is_none());

        // Oddities are still sent, with whatever could be read.
        let odd = Outgoing::parse(String::from(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}"#).into());
        assert_eq!(odd.method(), "x");
        let broken = Outgoing::parse(String::from("not json").into());
        assert!(broken.method.is_none() && broken.body == "not json");
    }

    #[test]
    fn mirrors_method_and_name() {
        let none = [];
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "file:///a b"}});
        assert_eq!(
            headers_of(legacy, &none),
            pairs(&[("mcp-method", "resources/read"), ("mcp-name", "file:///a b")])
        );
        let prompt = json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                            "params": {"name": "grüße", "_meta": meta()}});
        assert_eq!(
            headers_of(prompt, &none),
            pairs(&[
                ("mcp-method", "prompts/get"),
                ("mcp-name", "=?base64?Z3LDvMOfZQ==?="),
                ("mcp-protocol-version", "2026-07-28"),
            ])
        );
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"name": "not mirrored"}});
        assert_eq!(headers_of(list, &none), pairs(&[("mcp-method", "tools/list")]));
        let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(
            headers_of(notification, &none),
            pairs(&[("mcp-method", "notifications/initialized")])
        );
    }

    #[test]
    fn mirrors_x_mcp_header_parameters() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "greeting": {"type": "string", "x-mcp-header": "Greeting"},
            "limit": {"type": "integer", "x-mcp-header": "Limit"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
            "tenant": {"type": "object", "properties": {"id": {"type": "string", "x-mcp-header": "Tenant"}}},
            "absent": {"type": "string", "x-mcp-header": "Absent"},
            "nothing": {"type": "string", "x-mcp-header": "Nothing"},
            "query": {"type": "string"}
        }});
        let params = header_params(schema.as_object().unwrap()).unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "execute_sql", "_meta": meta(),
            "arguments": {"region": "us-west1", "greeting": "Hello, 世界", "limit": 42, "dry": false,
                          "tenant": {"id": " padded "}, "nothing": null, "query": "SELECT 1"}}});
        let mut found = headers_of(call.clone(), &params);
        found.sort();
        assert_eq!(
            found,
            pairs(&[
                ("mcp-method", "tools/call"),
                ("mcp-name", "execute_sql"),
                ("mcp-param-dry-run", "false"),
                ("mcp-param-greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                ("mcp-param-limit", "42"),
                ("mcp-param-region", "us-west1"),
                ("mcp-param-tenant", "=?base64?IHBhZGRlZCA=?="),
                ("mcp-protocol-version", "2026-07-28"),
            ])
        );
        // A legacy-era call carries no parameter headers; a call given none neither.
        let mut legacy = call.clone();
        legacy["params"].as_object_mut().unwrap().shift_remove("_meta");
        assert_eq!(
            headers_of(legacy, &params),
            pairs(&[("mcp-method", "tools/call"), ("mcp-name", "execute_sql")])
        );
        assert_eq!(headers_of(call, &[]).len(), 3);
    }

    #[test]
    fn classifies_incoming_messages() {
        let id = RequestId::Number(7);
        let text = |v: Value| Bytes::from(v.to_string());
        assert!(matches!(
            classify(&id, text(json!({"jsonrpc": "2.0", "id": 7, "result": {}}))),
            Classified::Final(FinalResponse { error: None, .. })
        ));
        assert!(matches!(
            classify(
                &id,
                text(json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020, "message": "m"}}))
            ),
            Classified::Final(FinalResponse {
                error: Some(ErrorObject { code: -32020, .. }),
                ..
            })
        ));
        assert!(matches!(
            classify(
                &id,
                text(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "m"}}))
            ),
            Classified::StrayError(ErrorObject { code: -32600, .. }, _)
        ));
        for other in [
            json!({"jsonrpc": "2.0", "id": 8, "result": {}}),
            json!({"jsonrpc": "2.0", "id": "7", "result": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {}}),
        ] {
            assert!(
                matches!(classify(&id, text(other.clone())), Classified::Other(_)),
                "{other}"
            );
        }
        assert!(matches!(classify(&id, Bytes::from_static(b"[1")), Classified::Other(_)));
    }
}
