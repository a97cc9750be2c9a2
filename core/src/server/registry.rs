//! The server's tools, resources, templates and prompts, kept as an immutable snapshot
//! that is swapped on change so that requests never wait on a writer.

use std::sync::Arc;

use indexmap::IndexMap;

use super::prompts::RegisteredPrompt;
use super::resources::{RegisteredResource, RegisteredTemplate};
use super::schema::DefinitionError;
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
    /// Registers a tool, unless its name is taken.
    pub(crate) fn add_tool(&mut self, tool: RegisteredTool) -> Result<(), DefinitionError> {
        insert_unique(&mut self.tools, tool.tool.name.clone(), tool, "tool")
    }

    /// Registers a static resource, unless its URI is taken.
    pub(crate) fn add_resource(&mut self, resource: RegisteredResource) -> Result<(), DefinitionError> {
        insert_unique(&mut self.resources, resource.resource.uri.clone(), resource, "resource")
    }

    /// Registers a resource template, unless its URI template is taken.
    pub(crate) fn add_resource_template(&mut self, template: RegisteredTemplate) -> Result<(), DefinitionError> {
        let key = template.template.uri_template.clone();
        insert_unique(&mut self.templates, key, template, "resource template")
    }

    /// Registers a prompt, unless its name is taken.
    pub(crate) fn add_prompt(&mut self, prompt: RegisteredPrompt) -> Result<(), DefinitionError> {
        insert_unique(&mut self.prompts, prompt.prompt.name.clone(), prompt, "prompt")
    }

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

/// Every name (or URI) is registered once, in every language: replacing a definition
/// means removing it first, so that a second registration by mistake is an error, not a
/// silent swap.
fn insert_unique<T>(
    map: &mut IndexMap<String, Arc<T>>,
    key: String,
    item: T,
    kind: &str,
) -> Result<(), DefinitionError> {
    if map.contains_key(&key) {
        return Err(DefinitionError::new(format!(
            "{kind} {key:?} is already registered; remove it first to replace it"
        )));
    }
    map.insert(key, Arc::new(item));
    Ok(())
}

/// What `resources/read` found for a URI.
pub(crate) enum ResourceMatch {
    Static(Arc<RegisteredResource>),
    Template(Arc<RegisteredTemplate>, std::collections::BTreeMap<String, String>),
}
