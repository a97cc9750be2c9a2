//! The server's tools, resources, templates and prompts, kept as an immutable snapshot
//! that is swapped on change so that requests never wait on a writer.

use std::sync::Arc;

use indexmap::IndexMap;

use super::prompts::RegisteredPrompt;
use super::resources::{RegisteredResource, RegisteredTemplate};
use super::tools::RegisteredTool;

/// Everything the server offers, in registration order.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub(crate) tools: IndexMap<String, Arc<RegisteredTool>>,
    pub(crate) resources: IndexMap<String, Arc<RegisteredResource>>,
    pub(crate) templates: IndexMap<String, Arc<RegisteredTemplate>>,
    pub(crate) prompts: IndexMap<String, Arc<RegisteredPrompt>>,
}

impl Registry {
    /// The static resource at `uri`, or the first template that matches it with its
    /// variables.
    pub(crate) fn find_resource(&self, uri: &str) -> Option<ResourceMatch> {
        if let Some(resource) = self.resources.get(uri) {
            return Some(ResourceMatch::Static(Arc::clone(resource)));
        }
        self.templates.values().find_map(|template| {
            template
                .matcher
                .matches(uri)
                .map(|variables| ResourceMatch::Template(Arc::clone(template), variables))
        })
    }
}

/// What `resources/read` found for a URI.
pub(crate) enum ResourceMatch {
    Static(Arc<RegisteredResource>),
    Template(Arc<RegisteredTemplate>, std::collections::BTreeMap<String, String>),
}
