//! How a server answers a request that names a tool, resource or prompt it does not have:
//! with the errors the spec names, unless it words them as the Python SDKs do
//! ([`ServerBuilder::unknown_tool_error`](super::ServerBuilder::unknown_tool_error) and its
//! siblings).

use serde_json::json;

use super::HandlerError;
use crate::protocol::{code, CallToolResult, Era, ErrorObject};

/// The wording of each kind of unknown name, where the server words it.
#[derive(Debug, Clone, Default)]
pub(crate) struct UnknownNames {
    /// A call of an unknown tool, answered as a tool error (`{name}` the tool's name).
    pub(crate) tool: Option<String>,
    /// A read of an unknown resource, a `-32602` error in both eras with the URI as its
    /// data (`{uri}` the URI).
    pub(crate) resource: Option<String>,
    /// A request for an unknown prompt, a `-32602` error (`{name}` the prompt's name).
    pub(crate) prompt: Option<String>,
}

impl UnknownNames {
    /// The answer to a call of the unknown tool `name`, where the server words it as a
    /// tool error.
    pub(crate) fn tool(&self, name: &str) -> Option<CallToolResult> {
        let template = self.tool.as_deref()?;
        Some(CallToolResult::error(template.replace("{name}", name)))
    }

    /// The error that says the resource `uri` is not found, to a client of `era`.
    pub(crate) fn resource(&self, uri: &str, era: Era) -> ErrorObject {
        self.worded_resource(uri)
            .unwrap_or_else(|| ErrorObject::resource_not_found(uri, era))
    }

    /// A handler's error, with a resource it did not find worded as the server words
    /// unknown resources (left as it is when the server does not word them).
    pub(crate) fn reworded(&self, error: HandlerError) -> HandlerError {
        match error {
            HandlerError::ResourceNotFound(uri) => match self.worded_resource(&uri) {
                Some(worded) => HandlerError::Rpc(worded),
                None => HandlerError::ResourceNotFound(uri),
            },
            error => error,
        }
    }

    fn worded_resource(&self, uri: &str) -> Option<ErrorObject> {
        let template = self.resource.as_deref()?;
        Some(ErrorObject::new(code::INVALID_PARAMS, template.replace("{uri}", uri)).with_data(json!({ "uri": uri })))
    }

    /// The error that says there is no prompt `name`.
    pub(crate) fn prompt(&self, name: &str) -> ErrorObject {
        match &self.prompt {
            Some(template) => ErrorObject::new(code::INVALID_PARAMS, template.replace("{name}", name)),
            None => ErrorObject::invalid_params(format!("unknown prompt: {name}")),
        }
    }
}
