//! The server's tools, resources, templates and prompts, kept as an immutable snapshot
//! that is swapped on change so that requests never wait on a writer. A registration may
//! be disabled: it is then neither listed nor served, but its name stays taken.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use super::capabilities::Offered;
use super::prompts::RegisteredPrompt;
use super::resources::{RegisteredResource, RegisteredTemplate};
use super::schema::DefinitionError;
use super::tasks::TaskSupport;
use super::tools::RegisteredTool;
use crate::protocol::methods;

/// What a registration is: which list it shows in, and what its key is (a tool's or
/// prompt's name, a resource's URI, a template's URI template).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefinitionKind {
    /// A tool, by name.
    Tool,
    /// A static resource, by URI.
    Resource,
    /// A resource template, by URI template.
    ResourceTemplate,
    /// A prompt, by name.
    Prompt,
}

/// A registration that may require scopes of its caller.
pub(crate) trait Scoped {
    /// The scopes a caller's token needs to use it (none: anyone may).
    fn scopes(&self) -> &[String];
}

macro_rules! scoped {
    ($($registration:ty),*) => {
        $(impl Scoped for $registration {
            fn scopes(&self) -> &[String] {
                &self.scopes
            }
        })*
    };
}

scoped!(RegisteredTool, RegisteredResource, RegisteredTemplate, RegisteredPrompt);

/// Everything the server offers, in registration order.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub(crate) tools: Registrations<RegisteredTool>,
    pub(crate) resources: Registrations<RegisteredResource>,
    pub(crate) templates: Registrations<RegisteredTemplate>,
    pub(crate) prompts: Registrations<RegisteredPrompt>,
    /// Whether a listed tool may run as a task: worked out once per snapshot, as legacy
    /// calls ask it each time.
    task_tools: Derived<bool>,
    /// Whether a listed tool, resource, template or prompt requires scopes: when none
    /// does, a protected endpoint's calls are not read for their target.
    scoped: Derived<bool>,
}

/// A value worked out from a snapshot, once; a copy (the next snapshot) works it out again.
#[derive(Default)]
struct Derived<T>(OnceLock<T>);

impl<T> Clone for Derived<T> {
    fn clone(&self) -> Self {
        Derived(OnceLock::new())
    }
}

impl Registry {
    /// Whether a listed tool may run as a task.
    pub(crate) fn has_task_tools(&self) -> bool {
        *self.task_tools.0.get_or_init(|| {
            self.tools
                .listed()
                .values()
                .any(|tool| tool.task_support != TaskSupport::Forbidden)
        })
    }

    /// What the registrations offer clients, disabled ones included (they may be enabled
    /// while clients are connected): a list where anything is registered, completions
    /// where a prompt argument or template variable has a completion handler.
    pub(crate) fn offered(&self) -> Offered {
        Offered {
            tools: !self.tools.is_empty(),
            resources: !self.resources.is_empty() || !self.templates.is_empty(),
            prompts: !self.prompts.is_empty(),
            completions: self.prompts.all().any(|prompt| !prompt.completions.is_empty())
                || self.templates.all().any(|template| !template.completions.is_empty()),
        }
    }

    /// Registers a tool, unless its name is taken.
    pub(crate) fn add_tool(&mut self, tool: RegisteredTool) -> Result<(), DefinitionError> {
        self.tools.insert(tool.tool.name.clone(), tool, "tool")
    }

    /// Registers a static resource, unless its URI is taken.
    pub(crate) fn add_resource(&mut self, resource: RegisteredResource) -> Result<(), DefinitionError> {
        self.resources
            .insert(resource.resource.uri.clone(), resource, "resource")
    }

    /// Registers a resource template, unless its URI template is taken.
    pub(crate) fn add_resource_template(&mut self, template: RegisteredTemplate) -> Result<(), DefinitionError> {
        let key = template.template.uri_template.clone();
        self.templates.insert(key, template, "resource template")
    }

    /// Registers a prompt, unless its name is taken.
    pub(crate) fn add_prompt(&mut self, prompt: RegisteredPrompt) -> Result<(), DefinitionError> {
        self.prompts.insert(prompt.prompt.name.clone(), prompt, "prompt")
    }

    /// Removes a registration, enabled or not; its key is free again.
    pub(crate) fn remove(&mut self, kind: DefinitionKind, key: &str) -> Edit {
        match kind {
            DefinitionKind::Tool => self.tools.remove(key),
            DefinitionKind::Resource => self.resources.remove(key),
            DefinitionKind::ResourceTemplate => self.templates.remove(key),
            DefinitionKind::Prompt => self.prompts.remove(key),
        }
    }

    /// Enables or disables a registration.
    pub(crate) fn set_enabled(&mut self, kind: DefinitionKind, key: &str, enabled: bool) -> Edit {
        match kind {
            DefinitionKind::Tool => self.tools.set_enabled(key, enabled),
            DefinitionKind::Resource => self.resources.set_enabled(key, enabled),
            DefinitionKind::ResourceTemplate => self.templates.set_enabled(key, enabled),
            DefinitionKind::Prompt => self.prompts.set_enabled(key, enabled),
        }
    }

    /// The name or URI that a `tools/call`, `prompts/get` or `resources/read` names (read
    /// with `target`, and only for those methods) and the scopes that tool, prompt or
    /// resource requires; `None` for other methods, no target, an unknown one, or when no
    /// registration requires scopes.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn scopes_for(
        &self,
        method: &str,
        target: impl FnOnce() -> Option<String>,
    ) -> Option<(String, Vec<String>)> {
        if !*self.scoped.0.get_or_init(|| !self.all_scopes().is_empty()) {
            return None;
        }
        let lookup: fn(&Registry, &str) -> Option<Vec<String>> = match method {
            methods::TOOLS_CALL => |registry, name| registry.tools.get(name).map(|tool| tool.scopes.clone()),
            methods::PROMPTS_GET => |registry, name| registry.prompts.get(name).map(|prompt| prompt.scopes.clone()),
            methods::RESOURCES_READ => |registry, uri| {
                registry.find_resource(uri).map(|found| match found {
                    ResourceMatch::Static(resource) => resource.scopes.clone(),
                    ResourceMatch::Template(template, _) => template.scopes.clone(),
                })
            },
            _ => return None,
        };
        let target = target()?;
        let scopes = lookup(self, &target)?;
        Some((target, scopes))
    }

    /// Every scope a tool, resource, template or prompt requires.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn all_scopes(&self) -> BTreeSet<String> {
        let tools = self.tools.listed().values().flat_map(|tool| tool.scopes.iter());
        let resources = self
            .resources
            .listed()
            .values()
            .flat_map(|resource| resource.scopes.iter());
        let templates = self
            .templates
            .listed()
            .values()
            .flat_map(|template| template.scopes.iter());
        let prompts = self.prompts.listed().values().flat_map(|prompt| prompt.scopes.iter());
        tools
            .chain(resources)
            .chain(templates)
            .chain(prompts)
            .cloned()
            .collect()
    }

    /// The static resource at `uri`, or the first template that matches it with its
    /// variables (enabled ones only).
    pub(crate) fn find_resource(&self, uri: &str) -> Option<ResourceMatch> {
        if let Some(resource) = self.resources.get(uri) {
            return Some(ResourceMatch::Static(Arc::clone(resource)));
        }
        self.templates.listed().values().find_map(|template| {
            template
                .matcher
                .matches(uri)
                .map(|variables| ResourceMatch::Template(Arc::clone(template), variables))
        })
    }
}

/// What an edit of the registry changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    /// Nothing: no such registration, or it already was as asked.
    Nothing,
    /// A disabled registration only, which no list shows.
    Hidden,
    /// What clients list.
    Listed,
}

/// The registrations of one kind, by key: the enabled ones, which clients list (in
/// registration order) and use, and the disabled ones, which only keep their key taken.
/// A key is in one of the two at most.
pub(crate) struct Registrations<T> {
    enabled: IndexMap<String, Arc<T>>,
    disabled: IndexMap<String, Arc<T>>,
}

// By hand: the derives would ask `T` to be `Clone` and `Default`, where only the `Arc`s are.
impl<T> Clone for Registrations<T> {
    fn clone(&self) -> Self {
        Registrations {
            enabled: self.enabled.clone(),
            disabled: self.disabled.clone(),
        }
    }
}

impl<T> Default for Registrations<T> {
    fn default() -> Self {
        Registrations {
            enabled: IndexMap::new(),
            disabled: IndexMap::new(),
        }
    }
}

impl<T> Registrations<T> {
    /// The enabled registration with this key.
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<T>> {
        self.enabled.get(key)
    }

    /// The enabled registrations, in registration order: what the list shows.
    pub(crate) fn listed(&self) -> &IndexMap<String, Arc<T>> {
        &self.enabled
    }

    /// Every registration, enabled or not.
    fn all(&self) -> impl Iterator<Item = &Arc<T>> {
        self.enabled.values().chain(self.disabled.values())
    }

    /// Whether nothing is registered, enabled or not.
    fn is_empty(&self) -> bool {
        self.enabled.is_empty() && self.disabled.is_empty()
    }

    /// Every key is registered once, in every language, enabled or not: replacing a
    /// definition means removing it first, so that a second registration by mistake is an
    /// error, not a silent swap.
    fn insert(&mut self, key: String, item: T, kind: &str) -> Result<(), DefinitionError> {
        if self.enabled.contains_key(&key) || self.disabled.contains_key(&key) {
            return Err(DefinitionError::new(format!(
                "{kind} {key:?} is already registered; remove it first to replace it"
            )));
        }
        self.enabled.insert(key, Arc::new(item));
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Edit {
        if self.enabled.shift_remove(key).is_some() {
            Edit::Listed
        } else if self.disabled.shift_remove(key).is_some() {
            Edit::Hidden
        } else {
            Edit::Nothing
        }
    }

    /// Moves a registration between the two; one enabled again is listed last, as if
    /// registered anew.
    fn set_enabled(&mut self, key: &str, enabled: bool) -> Edit {
        let (from, to) = match enabled {
            true => (&mut self.disabled, &mut self.enabled),
            false => (&mut self.enabled, &mut self.disabled),
        };
        match from.shift_remove_entry(key) {
            Some((key, item)) => {
                to.insert(key, item);
                Edit::Listed
            }
            None => Edit::Nothing,
        }
    }
}

/// What `resources/read` found for a URI.
pub(crate) enum ResourceMatch {
    Static(Arc<RegisteredResource>),
    Template(Arc<RegisteredTemplate>, std::collections::BTreeMap<String, String>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ToolDef;

    fn tool(name: &str) -> RegisteredTool {
        RegisteredTool::compile(ToolDef::new(name).handler(|_, _| async { "ok" })).unwrap()
    }

    fn listed(registry: &Registry) -> Vec<&str> {
        registry.tools.listed().keys().map(String::as_str).collect()
    }

    #[test]
    fn a_disabled_registration_is_hidden_and_keeps_its_name() {
        let mut registry = Registry::default();
        for name in ["a", "b", "c"] {
            registry.add_tool(tool(name)).unwrap();
        }
        assert_eq!(registry.set_enabled(DefinitionKind::Tool, "a", false), Edit::Listed);
        assert_eq!(listed(&registry), ["b", "c"]);
        assert!(registry.tools.get("a").is_none(), "not served");
        let refused = registry.add_tool(tool("a")).unwrap_err();
        assert!(refused.to_string().contains("already registered"), "{refused}");

        // Asking for the state it is in, or naming nothing, changes nothing.
        assert_eq!(registry.set_enabled(DefinitionKind::Tool, "a", false), Edit::Nothing);
        assert_eq!(registry.set_enabled(DefinitionKind::Tool, "b", true), Edit::Nothing);
        assert_eq!(registry.set_enabled(DefinitionKind::Tool, "z", true), Edit::Nothing);
        assert_eq!(registry.set_enabled(DefinitionKind::Prompt, "a", true), Edit::Nothing);

        // Enabled again, it is listed last.
        assert_eq!(registry.set_enabled(DefinitionKind::Tool, "a", true), Edit::Listed);
        assert_eq!(listed(&registry), ["b", "c", "a"]);
        assert!(registry.tools.get("a").is_some());

        // Removing a disabled registration changes no list and frees its name.
        registry.set_enabled(DefinitionKind::Tool, "b", false);
        assert_eq!(registry.remove(DefinitionKind::Tool, "b"), Edit::Hidden);
        assert_eq!(registry.remove(DefinitionKind::Tool, "b"), Edit::Nothing);
        assert_eq!(registry.remove(DefinitionKind::Tool, "c"), Edit::Listed);
        registry.add_tool(tool("b")).unwrap();
        assert_eq!(listed(&registry), ["a", "b"]);
    }
}
