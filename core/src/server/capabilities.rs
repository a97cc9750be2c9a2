//! What the server tells clients it offers: the capabilities of `initialize` and
//! `server/discover`, and the part of a `subscriptions/listen` filter it agrees to honour.
//! Both follow what is registered when the client asks, so a server with no prompts does
//! not invite `prompts/list`, plus what the builder declared will come later
//! ([`ServerBuilder::declare`](super::ServerBuilder::declare)).

use crate::protocol::{ListChangedCapability, ResourcesCapability, ServerCapabilities, SubscriptionFilter};

/// A capability the server declares while it has nothing registered for it, because it
/// will register something while clients are connected (see
/// [`ServerBuilder::declare`](super::ServerBuilder::declare)). A client of 2025-11-25 or
/// earlier reads capabilities once, at its handshake: one that connected before the first
/// prompt was added would otherwise never be told prompts exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// `tools`: tools, and their list-changed notifications.
    Tools,
    /// `resources`: static resources, templates, subscriptions and list-changed notifications.
    Resources,
    /// `prompts`: prompts, and their list-changed notifications.
    Prompts,
    /// `completions`: `completion/complete`.
    Completions,
}

impl std::str::FromStr for Capability {
    type Err = String;

    /// The capability by its name in `capabilities`: `tools`, `resources`, `prompts` or
    /// `completions`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "tools" => Ok(Capability::Tools),
            "resources" => Ok(Capability::Resources),
            "prompts" => Ok(Capability::Prompts),
            "completions" => Ok(Capability::Completions),
            other => Err(format!(
                "{other:?} is not a capability a server declares ahead: tools, resources, prompts or completions"
            )),
        }
    }
}

/// Which of the capabilities that follow registrations the server offers now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Offered {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completions: bool,
}

impl Offered {
    /// Adds what the builder declared.
    pub(crate) fn with_declared(mut self, declared: &[Capability]) -> Self {
        for capability in declared {
            match capability {
                Capability::Tools => self.tools = true,
                Capability::Resources => self.resources = true,
                Capability::Prompts => self.prompts = true,
                Capability::Completions => self.completions = true,
            }
        }
        self
    }

    /// Sets the offered capabilities in `capabilities`: each list with its list-changed
    /// notifications, resources with subscriptions (any resource may be subscribed to).
    pub(crate) fn declare(&self, capabilities: &mut ServerCapabilities) {
        let list_changed = |offered: bool| {
            offered.then_some(ListChangedCapability {
                list_changed: Some(true),
            })
        };
        capabilities.tools = list_changed(self.tools);
        capabilities.prompts = list_changed(self.prompts);
        capabilities.resources = self.resources.then_some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        });
        capabilities.completions = self.completions.then(Default::default);
    }

    /// The part of `filter` the server honours: the notifications of what it offers, asked
    /// for with `true` (task ids are checked apart, against their owner).
    pub(crate) fn narrow(&self, filter: SubscriptionFilter) -> SubscriptionFilter {
        let asked = |wanted: Option<bool>, offered: bool| (offered && wanted == Some(true)).then_some(true);
        SubscriptionFilter {
            tools_list_changed: asked(filter.tools_list_changed, self.tools),
            prompts_list_changed: asked(filter.prompts_list_changed, self.prompts),
            resources_list_changed: asked(filter.resources_list_changed, self.resources),
            resource_subscriptions: filter.resource_subscriptions.filter(|_| self.resources),
            task_ids: filter.task_ids,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_offered_is_declared() {
        let offered = Offered {
            tools: true,
            ..Offered::default()
        };
        let mut capabilities = ServerCapabilities::default();
        offered.declare(&mut capabilities);
        assert!(capabilities.tools.is_some());
        assert!(capabilities.prompts.is_none() && capabilities.resources.is_none());
        assert!(capabilities.completions.is_none());

        let declared = offered.with_declared(&[Capability::Prompts, Capability::Completions]);
        declared.declare(&mut capabilities);
        assert!(capabilities.prompts.is_some() && capabilities.completions.is_some());
        assert!(capabilities.resources.is_none());
    }

    #[test]
    fn capabilities_are_named_as_on_the_wire() {
        assert_eq!("prompts".parse(), Ok(Capability::Prompts));
        assert_eq!("completions".parse(), Ok(Capability::Completions));
        assert!("logging"
            .parse::<Capability>()
            .unwrap_err()
            .contains("tools, resources"));
    }

    #[test]
    fn a_filter_is_narrowed_to_what_is_offered() {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(false),
            resource_subscriptions: Some(vec!["file:///a".into()]),
            task_ids: Some(vec!["t".into()]),
        };
        let offered = Offered {
            tools: true,
            resources: true,
            ..Offered::default()
        };
        assert_eq!(
            offered.narrow(filter.clone()),
            SubscriptionFilter {
                tools_list_changed: Some(true),
                prompts_list_changed: None,
                resources_list_changed: None,
                resource_subscriptions: Some(vec!["file:///a".into()]),
                task_ids: Some(vec!["t".into()]),
            }
        );
        let nothing = Offered::default().narrow(filter);
        assert_eq!(nothing.tools_list_changed, None);
        assert_eq!(nothing.resource_subscriptions, None);
    }
}
