//! Who the peers are and what a connection settled on: [`Implementation`], [`Icon`],
//! [`ServerDetails`]. Mirrors `oxmcp::protocol::lifecycle` (and the client's
//! `ServerDetails`).

use oxmcp::protocol as core;

use super::{json_text, non_empty, try_map, Era};
use crate::error::McpError;

/// An icon for display.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The image's MIME type.
    #[uniffi(default = None)]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `"48x48"` or `"any"`.
    #[uniffi(default)]
    pub sizes: Vec<String>,
    /// `light` or `dark`: the background it is designed for.
    #[uniffi(default = None)]
    pub theme: Option<String>,
}

impl From<core::Icon> for Icon {
    fn from(icon: core::Icon) -> Self {
        Icon {
            src: icon.src,
            mime_type: icon.mime_type,
            sizes: icon.sizes.unwrap_or_default(),
            theme: icon.theme.map(|t| match t {
                core::IconTheme::Light => "light".to_owned(),
                core::IconTheme::Dark => "dark".to_owned(),
            }),
        }
    }
}

impl TryFrom<Icon> for core::Icon {
    type Error = McpError;
    fn try_from(icon: Icon) -> Result<Self, McpError> {
        let theme = match icon.theme.as_deref() {
            None => None,
            Some("light") => Some(core::IconTheme::Light),
            Some("dark") => Some(core::IconTheme::Dark),
            Some(other) => return Err(McpError::invalid_input(format!("icon theme {other:?}"))),
        };
        Ok(core::Icon {
            src: icon.src,
            mime_type: icon.mime_type,
            sizes: non_empty(icon.sizes),
            theme,
        })
    }
}

pub(super) fn icons_from(icons: Option<Vec<core::Icon>>) -> Vec<Icon> {
    icons.unwrap_or_default().into_iter().map(Into::into).collect()
}

pub(crate) fn icons_into(icons: Vec<Icon>) -> Result<Option<Vec<core::Icon>>, McpError> {
    Ok(non_empty(try_map(icons)?))
}

/// The name and version of a client or server.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[uniffi(default = None)]
    pub title: Option<String>,
    /// What it is, for people.
    #[uniffi(default = None)]
    pub description: Option<String>,
    /// Its web site.
    #[uniffi(default = None)]
    pub website_url: Option<String>,
}

impl From<core::Implementation> for Implementation {
    fn from(i: core::Implementation) -> Self {
        Implementation {
            name: i.name,
            version: i.version,
            title: i.title,
            description: i.description,
            website_url: i.website_url,
        }
    }
}

impl From<Implementation> for core::Implementation {
    fn from(i: Implementation) -> Self {
        let mut out = core::Implementation::new(i.name, i.version);
        out.title = i.title;
        out.description = i.description;
        out.website_url = i.website_url;
        out
    }
}

/// What a connection settled on.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ServerDetails {
    /// The protocol version in use, e.g. `2026-07-28`.
    pub protocol_version: String,
    /// Its era.
    pub era: Era,
    /// Who the server says it is.
    pub server_info: Option<Implementation>,
    /// The server's guidance for the model.
    pub instructions: Option<String>,
    /// What the server can do, as JSON object text.
    pub capabilities_json: String,
}

impl From<oxmcp::client::ServerDetails> for ServerDetails {
    fn from(d: oxmcp::client::ServerDetails) -> Self {
        ServerDetails {
            protocol_version: d.protocol_version.as_str().to_owned(),
            era: d.protocol_version.era().into(),
            server_info: d.server_info.map(Into::into),
            instructions: d.instructions,
            capabilities_json: json_text(&d.capabilities),
        }
    }
}
