//! What a `subscriptions/listen` stream carries (2026-07-28).

use oxmcp::protocol as core;

/// The notifications a `listen` stream asks for; `true` turns one on.
#[derive(Debug, Clone, Default, PartialEq, uniffi::Record)]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[uniffi(default = false)]
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    #[uniffi(default = false)]
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    #[uniffi(default = false)]
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs.
    #[uniffi(default = [])]
    pub resource_subscriptions: Vec<String>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[uniffi(default = [])]
    pub task_ids: Vec<String>,
}

impl From<SubscriptionFilter> for core::SubscriptionFilter {
    fn from(filter: SubscriptionFilter) -> Self {
        core::SubscriptionFilter {
            tools_list_changed: filter.tools_list_changed.then_some(true),
            prompts_list_changed: filter.prompts_list_changed.then_some(true),
            resources_list_changed: filter.resources_list_changed.then_some(true),
            resource_subscriptions: (!filter.resource_subscriptions.is_empty())
                .then_some(filter.resource_subscriptions),
            task_ids: (!filter.task_ids.is_empty()).then_some(filter.task_ids),
        }
    }
}
