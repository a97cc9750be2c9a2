//! Changes the server announces to every connection.

use std::sync::Arc;

use crate::protocol::methods;

/// Something that changed on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ServerEvent {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(Arc<str>),
}

impl ServerEvent {
    /// The notification method that announces it.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            ServerEvent::ToolsListChanged => methods::TOOLS_LIST_CHANGED,
            ServerEvent::PromptsListChanged => methods::PROMPTS_LIST_CHANGED,
            ServerEvent::ResourcesListChanged => methods::RESOURCES_LIST_CHANGED,
            ServerEvent::ResourceUpdated(_) => methods::RESOURCES_UPDATED,
        }
    }
}
