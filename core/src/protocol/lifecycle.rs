//! Who the peers are and how they meet: `initialize` (legacy) and `server/discover` (modern).

use serde::{Deserialize, Serialize};

use super::capabilities::{ClientCapabilities, ServerCapabilities};
use super::meta::Meta;
use super::result::{protocol_result, CacheScope, ResultType};

/// An icon for display in a client's interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The image's MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The background an icon is designed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

/// The name and version of a client or server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// What it is, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Its web site.
    #[serde(rename = "websiteUrl", default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// A name and version and nothing else.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

/// Params of `initialize` (legacy era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeRequestParams {
    /// The newest version the client speaks.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// What the client can do.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    #[serde(rename = "clientInfo")]
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `initialize` (legacy era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitializeResult {
    /// The version the session will use.
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    #[serde(rename = "serverInfo")]
    pub server_info: Implementation,
    /// Guidance for the model on how to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Never set in the legacy era; kept for symmetry with other results.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `server/discover` (modern era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoverResult {
    /// Every protocol version the server speaks.
    #[serde(rename = "supportedVersions")]
    pub supported_versions: Vec<String>,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
    /// Guidance for the model on how to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `complete`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Carries `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// How long the answer stays fresh, in milliseconds.
    #[serde(rename = "ttlMs", default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache the answer.
    #[serde(rename = "cacheScope", default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

protocol_result!(InitializeResult);
protocol_result!(cacheable DiscoverResult);
