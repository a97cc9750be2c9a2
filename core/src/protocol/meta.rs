//! The reserved `_meta` keys and the per-request fields of the modern era.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::capabilities::ClientCapabilities;
use super::error::ErrorObject;
use super::lifecycle::Implementation;
use super::logging::LoggingLevel;
use super::progress::ProgressToken;
use super::version::{Era, ProtocolVersion};

/// A `_meta` object: free-form, with reserved keys.
pub type Meta = Map<String, Value>;

/// The protocol version of a modern request.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client's name and version on a modern request.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The client's capabilities on a modern request.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The lowest log level the server may emit for one modern request.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The server's name and version on a modern result.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The `subscriptions/listen` request a notification belongs to.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The token that opts a request into progress notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// The task a message belongs to (2025-11-25): `{"taskId": ...}`.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Tags `message` (a message's params or result, an object) as belonging to task
/// `task_id`, in its `_meta`.
pub(crate) fn tag_related_task(message: &mut serde_json::Value, task_id: &str) {
    use serde_json::Value;
    let Value::Object(members) = message else {
        return;
    };
    let meta = members
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(meta) = meta {
        meta.insert(RELATED_TASK.to_owned(), serde_json::json!({ "taskId": task_id }));
    }
}

/// The reserved fields of a request's `_meta`, read once by the dispatcher.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RequestMeta {
    /// Opts the request into progress notifications.
    #[serde(rename = "progressToken", default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// The modern protocol version; its presence makes the request modern.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<String>,
    /// Who the client is.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// What the client can do, for this request.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<ClientCapabilities>,
    /// The lowest log level to emit for this request.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
}

impl RequestMeta {
    /// The version of a modern request, once it is checked to carry what every modern
    /// request must: a 2026-07-28 protocol version and the client's capabilities.
    pub fn modern_version(&self) -> Result<ProtocolVersion, ErrorObject> {
        let version = modern_version(self.protocol_version.as_deref())?;
        match self.client_capabilities {
            Some(_) => Ok(version),
            None => Err(missing(CLIENT_CAPABILITIES)),
        }
    }
}

/// [`RequestMeta`] as the server reads it: the client's info and capabilities stay the
/// text that was sent, so that a client that sends the same with every request has them
/// read once, not with each. Only an object reads as one (as [`Meta`] only reads from one).
#[derive(Debug, Default, Deserialize)]
#[serde(remote = "Self")]
pub(crate) struct SentRequestMeta<'a> {
    /// The modern protocol version; its presence makes the request modern.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    pub(crate) protocol_version: Option<Cow<'a, str>>,
    /// Who the client is.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, borrow)]
    pub(crate) client_info: Option<&'a RawValue>,
    /// What the client can do, for this request.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default, borrow)]
    pub(crate) client_capabilities: Option<&'a RawValue>,
    /// The lowest log level to emit for this request.
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    pub(crate) log_level: Option<LoggingLevel>,
}

impl<'de: 'a, 'a> Deserialize<'de> for SentRequestMeta<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Fields<'a> {
            type Value = SentRequestMeta<'a>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                // The words of `Meta`'s own error, so that a bad `_meta` reads the same.
                formatter.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                SentRequestMeta::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Fields(std::marker::PhantomData))
    }
}

impl<'a> SentRequestMeta<'a> {
    /// The version and the client's capabilities of a modern request, once it is checked
    /// to carry them (as [`RequestMeta::modern_version`] checks).
    pub(crate) fn modern(&self) -> Result<(ProtocolVersion, &'a RawValue), ErrorObject> {
        let version = modern_version(self.protocol_version.as_deref())?;
        let capabilities = self.client_capabilities.ok_or_else(|| missing(CLIENT_CAPABILITIES))?;
        Ok((version, capabilities))
    }
}

/// The version a modern request names, which must be of the modern era.
fn modern_version(requested: Option<&str>) -> Result<ProtocolVersion, ErrorObject> {
    let Some(requested) = requested else {
        return Err(missing(PROTOCOL_VERSION));
    };
    ProtocolVersion::parse(requested)
        .filter(|v| v.era() == Era::Modern)
        .ok_or_else(|| ErrorObject::unsupported_protocol_version(requested, &ProtocolVersion::all_strs()))
}

fn missing(key: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("_meta[\"{key}\"] is missing"))
}

/// Whether a request's params carry a `_meta` that names a protocol version: what makes a
/// request modern. Reads nothing else of the params.
pub fn is_modern_request(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "_meta", default)]
        meta: Option<VersionOnly>,
    }
    #[derive(Deserialize)]
    struct VersionOnly {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
        protocol_version: Option<IgnoredAny>,
    }
    params
        .and_then(|raw| serde_json::from_str::<Params>(raw.get()).ok())
        .and_then(|params| params.meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}
