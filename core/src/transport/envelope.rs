//! What the sender of a message says about it: its kind, the protocol version it is sent
//! under, and the MCP headers it implies. The sender knows all of this while it builds the
//! message, so a transport that carries more than the text (Streamable HTTP: one POST per
//! request, headers, cancellation by closing a stream) never reads the text again.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::protocol::headers::{encode_header_value, request_headers, HeaderParam};
use crate::protocol::{methods, Era, ProtocolVersion, RequestId};

/// What an outgoing message is.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum MessageKind {
    /// A request, answered by a response with the same id.
    Request {
        /// The request id.
        id: RequestId,
        /// The method.
        method: String,
    },
    /// A notification, other than a cancellation.
    Notification {
        /// The method.
        method: String,
    },
    /// `notifications/cancelled`: the sender gave up on one of its requests.
    Cancellation {
        /// The id of the request given up on.
        request: RequestId,
    },
    /// A response to one of the peer's requests.
    Response,
    /// A message its sender did not describe: the text is all there is (the server side,
    /// batches).
    #[default]
    Unknown,
}

/// What a transport may need to know about an outgoing message beyond its text, as the
/// message's sender describes it. Transports that carry only text ignore it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Envelope {
    /// What the message is.
    pub kind: MessageKind,
    /// The protocol version the message is sent under: the 2026-07-28 era's per-request
    /// version, or the legacy version the `initialize` handshake settled on. `None` before
    /// one is settled (the `initialize` request itself) and for undescribed messages.
    pub version: Option<ProtocolVersion>,
    /// The MCP headers the message implies ([`request_headers`]), as lowercase names and
    /// values already encoded ([`encode_header_value`]): `Mcp-Method`, `Mcp-Name`, and the
    /// `Mcp-Param-*` headers of a modern `tools/call`. `MCP-Protocol-Version` is not among
    /// them: it follows from [`Envelope::version`].
    pub headers: Vec<(Cow<'static, str>, String)>,
}

impl Envelope {
    /// A request's envelope. Its headers come from `params`: the name (`name`, or the `uri`
    /// of `resources/read`) and, in the modern era, the tool's `x-mcp-header` parameters
    /// (`header_params`, from the client's own `tools/list`) found in `arguments`.
    pub(crate) fn request(
        id: RequestId,
        method: &str,
        params: &Map<String, Value>,
        version: Option<ProtocolVersion>,
        header_params: &[HeaderParam],
    ) -> Self {
        // `Mcp-Param-*` headers are of the modern era.
        let header_params = match version.map(ProtocolVersion::era) {
            Some(Era::Modern) => header_params,
            _ => &[],
        };
        let name_key = match method {
            methods::RESOURCES_READ => "uri",
            methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => "taskId",
            _ => "name",
        };
        let name = params.get(name_key).and_then(Value::as_str);
        let arguments = params.get("arguments").and_then(Value::as_object);
        Envelope {
            headers: encoded(method, name, arguments, header_params),
            kind: MessageKind::Request {
                id,
                method: method.to_owned(),
            },
            version,
        }
    }

    /// A notification's envelope.
    pub(crate) fn notification(method: &str, version: Option<ProtocolVersion>) -> Self {
        Envelope {
            headers: encoded(method, None, None, &[]),
            kind: MessageKind::Notification {
                method: method.to_owned(),
            },
            version,
        }
    }

    /// The envelope of the `notifications/cancelled` that gives up on `request`, which was
    /// sent under `version`.
    pub(crate) fn cancellation(request: RequestId, version: Option<ProtocolVersion>) -> Self {
        Envelope {
            headers: encoded(methods::CANCELLED, None, None, &[]),
            kind: MessageKind::Cancellation { request },
            version,
        }
    }

    /// The envelope of a response to the peer's request.
    pub(crate) fn response(version: Option<ProtocolVersion>) -> Self {
        Envelope {
            kind: MessageKind::Response,
            version,
            headers: Vec::new(),
        }
    }

    /// The request id, for a request.
    pub fn request_id(&self) -> Option<&RequestId> {
        match &self.kind {
            MessageKind::Request { id, .. } => Some(id),
            _ => None,
        }
    }

    /// The method, for a request or notification.
    pub fn method(&self) -> Option<&str> {
        match &self.kind {
            MessageKind::Request { method, .. } | MessageKind::Notification { method } => Some(method),
            MessageKind::Cancellation { .. } => Some(methods::CANCELLED),
            MessageKind::Response | MessageKind::Unknown => None,
        }
    }

    /// Whether the message is sent under a version of the 2026-07-28 era.
    pub fn is_modern(&self) -> bool {
        self.version.is_some_and(|version| version.era() == Era::Modern)
    }
}

/// The headers [`request_headers`] gives, with their values encoded; headers without a
/// value are left out.
fn encoded(
    method: &str,
    name: Option<&str>,
    arguments: Option<&Map<String, Value>>,
    header_params: &[HeaderParam],
) -> Vec<(Cow<'static, str>, String)> {
    request_headers(method, name, arguments, header_params)
        .into_iter()
        .filter_map(|header| Some((header.name, encode_header_value(&header.value?))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else { panic!("an object") };
        map
    }

    fn names(envelope: &Envelope) -> Vec<&str> {
        envelope.headers.iter().map(|(name, _)| name.as_ref()).collect()
    }

    #[test]
    fn says_what_a_message_is() {
        let read = Envelope::request(
            RequestId::Number(3),
            methods::RESOURCES_READ,
            &params(json!({"uri": "file:///a", "name": "not the name"})),
            Some(ProtocolVersion::V2025_06_18),
            &[],
        );
        assert_eq!(read.request_id(), Some(&RequestId::Number(3)));
        assert_eq!(read.method(), Some(methods::RESOURCES_READ));
        assert!(!read.is_modern());
        assert_eq!(
            read.headers,
            [
                (Cow::Borrowed("mcp-method"), "resources/read".to_owned()),
                (Cow::Borrowed("mcp-name"), "file:///a".to_owned())
            ]
        );

        let cancel = Envelope::cancellation(RequestId::from("a"), Some(ProtocolVersion::LATEST));
        assert_eq!(cancel.request_id(), None);
        assert_eq!(cancel.method(), Some(methods::CANCELLED));
        assert!(cancel.is_modern());
        assert_eq!(names(&cancel), ["mcp-method"]);

        let initialized = Envelope::notification(methods::INITIALIZED, None);
        assert_eq!(initialized.method(), Some(methods::INITIALIZED));
        assert_eq!(names(&initialized), ["mcp-method"]);

        let response = Envelope::response(Some(ProtocolVersion::LATEST_LEGACY));
        assert_eq!((response.method(), response.headers.len()), (None, 0));
        assert_eq!(Envelope::default().kind, MessageKind::Unknown);
    }
}
