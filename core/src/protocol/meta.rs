//! The reserved `_meta` keys and the per-request fields of the modern era.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::capabilities::ClientCapabilities;
use super::lifecycle::Implementation;
use super::logging::LoggingLevel;
use super::progress::ProgressToken;

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
