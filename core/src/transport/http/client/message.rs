//! What the HTTP client knows of the messages it carries: each outgoing message with the
//! envelope its sender wrote (never read from the text), the request headers that
//! envelope implies, and whether an incoming message is the final response of a request.

use bytes::Bytes;
use reqwest::header::{HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::protocol::headers::names::PROTOCOL_VERSION;
use crate::protocol::{ErrorObject, RequestId};
use crate::transport::{Envelope, OutgoingMessage};

/// One outgoing message: its text, as the POST body, and its sender's envelope.
#[derive(Debug)]
pub(super) struct Outgoing {
    /// The message text, sent as the POST body (shared by the POSTs of retries).
    pub(super) body: Bytes,
    /// What the message is.
    pub(super) envelope: Envelope,
}

impl From<OutgoingMessage> for Outgoing {
    fn from(message: OutgoingMessage) -> Self {
        Outgoing {
            body: Bytes::from(message.text),
            envelope: message.envelope.map(|envelope| *envelope).unwrap_or_default(),
        }
    }
}

impl Outgoing {
    /// The method, or "" for a response or an undescribed message.
    pub(super) fn method(&self) -> &str {
        self.envelope.method().unwrap_or("")
    }
}

/// The headers that mirror the body, from the envelope: `Mcp-Method`, `Mcp-Name` and
/// `Mcp-Param-*` as its sender computed them, and `MCP-Protocol-Version` when it names a
/// version (a modern message, or a legacy one after the handshake).
pub(super) fn body_headers(envelope: &Envelope) -> Vec<(HeaderName, HeaderValue)> {
    let version = envelope.version.map(|version| (PROTOCOL_VERSION, version.as_str()));
    envelope
        .headers
        .iter()
        .map(|(name, value)| (name.as_ref(), value.as_str()))
        .chain(version)
        .filter_map(|(name, value)| {
            Some((
                HeaderName::from_bytes(name.as_bytes()).ok()?,
                HeaderValue::from_str(value).ok()?,
            ))
        })
        .collect()
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
    /// The final response of the request (a result or an error), not yet delivered.
    Final(Bytes),
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
                (true, _) => Ok(()),
                (false, Some(error)) => Err(Some(error)),
                (false, None) => Err(None),
            }
        }
        _ => Err(None),
    };
    match verdict {
        Ok(()) => Classified::Final(text),
        Err(Some(error)) => Classified::StrayError(error, text),
        Err(None) => Classified::Other(text),
    }
}

/// The error of a JSON-RPC error response, if `body` is one.
pub(super) fn error_of(body: &[u8]) -> Option<ErrorObject> {
    serde_json::from_slice::<Peek<'_>>(body).ok()?.error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::headers::{header_params, HeaderParam};
    use crate::protocol::{methods, ProtocolVersion};
    use serde_json::{json, Value};

    /// The headers an envelope implies, as text.
    fn sent(envelope: &Envelope) -> Vec<(String, String)> {
        body_headers(envelope)
            .into_iter()
            .map(|(name, value)| (name.as_str().to_owned(), value.to_str().unwrap().to_owned()))
            .collect()
    }

    /// The headers of a request as its sender describes it.
    fn headers_of(
        method: &str,
        params: Value,
        version: Option<ProtocolVersion>,
        header_params: &[HeaderParam],
    ) -> Vec<(String, String)> {
        let Value::Object(params) = params else {
            panic!("an object")
        };
        sent(&Envelope::request(
            RequestId::Number(1),
            method,
            &params,
            version,
            header_params,
        ))
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    const MODERN: Option<ProtocolVersion> = Some(ProtocolVersion::V2026_07_28);

    #[test]
    fn mirrors_method_name_and_version() {
        let none = [];
        let read = json!({"uri": "file:///a b"});
        assert_eq!(
            headers_of(methods::RESOURCES_READ, read.clone(), None, &none),
            pairs(&[("mcp-method", "resources/read"), ("mcp-name", "file:///a b")])
        );
        assert_eq!(
            headers_of(methods::RESOURCES_READ, read, Some(ProtocolVersion::V2025_06_18), &none),
            pairs(&[
                ("mcp-method", "resources/read"),
                ("mcp-name", "file:///a b"),
                ("mcp-protocol-version", "2025-06-18"),
            ])
        );
        assert_eq!(
            headers_of(methods::PROMPTS_GET, json!({"name": "grüße"}), MODERN, &none),
            pairs(&[
                ("mcp-method", "prompts/get"),
                ("mcp-name", "=?base64?Z3LDvMOfZQ==?="),
                ("mcp-protocol-version", "2026-07-28"),
            ])
        );
        assert_eq!(
            headers_of(methods::TOOLS_LIST, json!({"name": "not mirrored"}), None, &none),
            pairs(&[("mcp-method", "tools/list")])
        );
        let initialized = Envelope::notification(methods::INITIALIZED, Some(ProtocolVersion::V2025_11_25));
        assert_eq!(
            sent(&initialized),
            pairs(&[
                ("mcp-method", "notifications/initialized"),
                ("mcp-protocol-version", "2025-11-25")
            ])
        );
        assert!(body_headers(&Envelope::response(None)).is_empty());
        assert!(body_headers(&Envelope::default()).is_empty());
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
        let call = json!({
            "name": "execute_sql",
            "arguments": {"region": "us-west1", "greeting": "Hello, 世界", "limit": 42, "dry": false,
                          "tenant": {"id": " padded "}, "nothing": null, "query": "SELECT 1"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let mut found = headers_of(methods::TOOLS_CALL, call.clone(), MODERN, &params);
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
        let legacy = Some(ProtocolVersion::V2025_11_25);
        assert_eq!(
            headers_of(methods::TOOLS_CALL, call.clone(), legacy, &params),
            pairs(&[
                ("mcp-method", "tools/call"),
                ("mcp-name", "execute_sql"),
                ("mcp-protocol-version", "2025-11-25")
            ])
        );
        assert_eq!(headers_of(methods::TOOLS_CALL, call, MODERN, &[]).len(), 3);
    }

    #[test]
    fn classifies_incoming_messages() {
        let id = RequestId::Number(7);
        let text = |v: Value| Bytes::from(v.to_string());
        assert!(matches!(
            classify(&id, text(json!({"jsonrpc": "2.0", "id": 7, "result": {}}))),
            Classified::Final(_)
        ));
        assert!(matches!(
            classify(
                &id,
                text(json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020, "message": "m"}}))
            ),
            Classified::Final(_)
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
