//! The typed requests: listing (a page, or every page) tools, resources, resource
//! templates and prompts; calling a tool; reading a resource; getting a prompt;
//! completion; the log level; ping.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::list_cache::Fresh;
use super::pages::{Cursors, Page};
use super::tasks::tool_call_params;
#[cfg(doc)]
use super::ClientOptions;
use super::{decode, lock, to_value, CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::jsonrpc;
use crate::protocol::{
    methods, CallToolResult, CompleteRequestParams, CompleteResult, Completion, CompletionArgument, CompletionContext,
    CompletionReference, Era, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingLevel, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use crate::transport::Envelope;

impl Client {
    /// One page of tools. Tools whose `x-mcp-header` annotations break the spec's rules
    /// are left out, with a warning.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult> {
        self.list_tools_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_tools`] with per-call options (timeout, cancellation).
    pub async fn list_tools_with(&self, cursor: Option<String>, options: &CallOptions) -> Result<ListToolsResult> {
        let mut page: ListToolsResult = self
            .request(methods::TOOLS_LIST, cursor_params(cursor), options)
            .await?;
        self.keep_listed(&mut page.tools);
        Ok(page)
    }

    /// Every tool, following cursors (see [`ClientOptions::max_list_pages`]); kept while
    /// the server says the list is fresh (see [`ClientOptions::cache_lists`]).
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>> {
        self.list_all_tools_with(&CallOptions::default()).await
    }

    /// [`Client::list_all_tools`] with per-call options, which each page's request takes.
    pub async fn list_all_tools_with(&self, options: &CallOptions) -> Result<Vec<Tool>> {
        self.kept_listing(
            &self.inner.lists.tools,
            methods::TOOLS_LIST,
            options,
            |cursor| async move {
                let page = self.list_tools_with(cursor, options).await?;
                Ok(Page::new(page.tools, page.next_cursor, page.ttl_ms))
            },
        )
        .await
    }

    /// One page of resources.
    pub async fn list_resources(&self, cursor: Option<String>) -> Result<ListResourcesResult> {
        self.list_resources_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_resources`] with per-call options.
    pub async fn list_resources_with(
        &self,
        cursor: Option<String>,
        options: &CallOptions,
    ) -> Result<ListResourcesResult> {
        self.request(methods::RESOURCES_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every resource, following cursors (see [`ClientOptions::max_list_pages`]); kept
    /// while the server says the list is fresh (see [`ClientOptions::cache_lists`]).
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>> {
        self.list_all_resources_with(&CallOptions::default()).await
    }

    /// [`Client::list_all_resources`] with per-call options, which each page's request takes.
    pub async fn list_all_resources_with(&self, options: &CallOptions) -> Result<Vec<Resource>> {
        self.kept_listing(
            &self.inner.lists.resources,
            methods::RESOURCES_LIST,
            options,
            |cursor| async move {
                let page = self.list_resources_with(cursor, options).await?;
                Ok(Page::new(page.resources, page.next_cursor, page.ttl_ms))
            },
        )
        .await
    }

    /// One page of resource templates.
    pub async fn list_resource_templates(&self, cursor: Option<String>) -> Result<ListResourceTemplatesResult> {
        self.list_resource_templates_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_resource_templates`] with per-call options.
    pub async fn list_resource_templates_with(
        &self,
        cursor: Option<String>,
        options: &CallOptions,
    ) -> Result<ListResourceTemplatesResult> {
        self.request(methods::RESOURCES_TEMPLATES_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every resource template, following cursors (see [`ClientOptions::max_list_pages`]);
    /// kept while the server says the list is fresh (see [`ClientOptions::cache_lists`]).
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.list_all_resource_templates_with(&CallOptions::default()).await
    }

    /// [`Client::list_all_resource_templates`] with per-call options, which each page's
    /// request takes.
    pub async fn list_all_resource_templates_with(&self, options: &CallOptions) -> Result<Vec<ResourceTemplate>> {
        let templates = &self.inner.lists.templates;
        self.kept_listing(
            templates,
            methods::RESOURCES_TEMPLATES_LIST,
            options,
            |cursor| async move {
                let page = self.list_resource_templates_with(cursor, options).await?;
                Ok(Page::new(page.resource_templates, page.next_cursor, page.ttl_ms))
            },
        )
        .await
    }

    /// One page of prompts.
    pub async fn list_prompts(&self, cursor: Option<String>) -> Result<ListPromptsResult> {
        self.list_prompts_with(cursor, &CallOptions::default()).await
    }

    /// [`Client::list_prompts`] with per-call options.
    pub async fn list_prompts_with(&self, cursor: Option<String>, options: &CallOptions) -> Result<ListPromptsResult> {
        self.request(methods::PROMPTS_LIST, cursor_params(cursor), options)
            .await
    }

    /// Every prompt, following cursors (see [`ClientOptions::max_list_pages`]); kept while
    /// the server says the list is fresh (see [`ClientOptions::cache_lists`]).
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>> {
        self.list_all_prompts_with(&CallOptions::default()).await
    }

    /// [`Client::list_all_prompts`] with per-call options, which each page's request takes.
    pub async fn list_all_prompts_with(&self, options: &CallOptions) -> Result<Vec<Prompt>> {
        self.kept_listing(
            &self.inner.lists.prompts,
            methods::PROMPTS_LIST,
            options,
            |cursor| async move {
                let page = self.list_prompts_with(cursor, options).await?;
                Ok(Page::new(page.prompts, page.next_cursor, page.ttl_ms))
            },
        )
        .await
    }

    /// Drops the lists kept while fresh: the next `list_all_*` asks the server.
    pub fn forget_lists(&self) {
        self.inner.lists.forget_all();
    }

    /// A full listing from `kept` while it is fresh, else from the server (then kept for
    /// the shortest TTL its pages gave).
    async fn kept_listing<T, F, Fut>(
        &self,
        kept: &Fresh<T>,
        method: &str,
        options: &CallOptions,
        fetch: F,
    ) -> Result<Vec<T>>
    where
        T: Clone,
        F: FnMut(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<Page<T>>>,
    {
        // Given up before it started: cancelled, whether a kept listing would serve it or not.
        if options.given_up() {
            return Err(Error::Cancelled);
        }
        let caching = self.inner.options.cache_lists;
        if let Some(items) = kept.get().filter(|_| caching) {
            return Ok(items);
        }
        let mark = kept.mark();
        let (items, ttl_ms) = self.collect_pages(method, fetch).await?;
        if caching {
            kept.keep(&items, ttl_ms, mark);
        }
        Ok(items)
    }

    /// The items of every page `fetch` gets for a `method` listing, and the shortest TTL
    /// of its pages (`None` when one gave none).
    pub(super) async fn collect_pages<T, F, Fut>(&self, method: &str, mut fetch: F) -> Result<(Vec<T>, Option<u64>)>
    where
        F: FnMut(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<Page<T>>>,
    {
        let mut cursors = Cursors::new(method, self.inner.options.max_list_pages);
        let mut all = Vec::new();
        let mut cursor = None;
        let mut ttl_ms = Some(u64::MAX);
        loop {
            let page = fetch(cursor.take()).await?;
            all.extend(page.items);
            ttl_ms = ttl_ms.zip(page.ttl_ms).map(|(a, b)| a.min(b));
            cursor = match cursors.follow(page.next_cursor)? {
                Some(next) => Some(next),
                None => return Ok((all, ttl_ms)),
            };
        }
    }

    /// Calls a tool. `arguments` must serialize to a JSON object (or null for none). A
    /// call the server runs as a task is followed to the task's result: this returns what
    /// the tool returned. (2026-07-28: the server makes tasks for clients that declare the
    /// extension, as this one does unless [`ClientOptions::tasks`](super::ClientOptions::tasks)
    /// is off; 2025-11-25: a tool that must run as a task is called again as one.)
    pub async fn call_tool(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult> {
        self.call_tool_with(name, arguments, &CallOptions::default()).await
    }

    /// Calls a tool with per-call options (timeout, progress, cancellation).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: &CallOptions,
    ) -> Result<CallToolResult> {
        let params = tool_call_params(name, arguments)?;
        if self.protocol_version().has_tasks() {
            return decode(&self.call_legacy_tool(params, options).await?);
        }
        self.request(methods::TOOLS_CALL, params, options).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.read_resource_with(uri, &CallOptions::default()).await
    }

    /// [`Client::read_resource`] with per-call options (timeout, progress, cancellation).
    pub async fn read_resource_with(&self, uri: &str, options: &CallOptions) -> Result<ReadResourceResult> {
        let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
        self.request(methods::RESOURCES_READ, params, options).await
    }

    /// Gets a prompt with its arguments.
    pub async fn get_prompt(&self, name: &str, arguments: BTreeMap<String, String>) -> Result<GetPromptResult> {
        self.get_prompt_with(name, arguments, &CallOptions::default()).await
    }

    /// [`Client::get_prompt`] with per-call options (timeout, progress, cancellation).
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
        options: &CallOptions,
    ) -> Result<GetPromptResult> {
        let mut params = Map::from_iter([("name".to_owned(), Value::from(name))]);
        if !arguments.is_empty() {
            params.insert("arguments".into(), to_value(&arguments));
        }
        self.request(methods::PROMPTS_GET, params, options).await
    }

    /// Asks for completions of one argument of a prompt or resource template.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
    ) -> Result<Completion> {
        self.complete_with(reference, argument, value, context, &CallOptions::default())
            .await
    }

    /// [`Client::complete`] with per-call options (timeout, cancellation).
    pub async fn complete_with(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
        options: &CallOptions,
    ) -> Result<Completion> {
        let params = CompleteRequestParams {
            reference,
            argument: CompletionArgument {
                name: argument.to_owned(),
                value: value.to_owned(),
            },
            context: (!context.is_empty()).then_some(CompletionContext {
                arguments: Some(context),
            }),
            meta: None,
        };
        let Value::Object(params) = to_value(&params) else {
            unreachable!("a struct")
        };
        let result: CompleteResult = self.request(methods::COMPLETION_COMPLETE, params, options).await?;
        Ok(result.completion)
    }

    /// Sets the lowest level of log messages to receive: `logging/setLevel` in the legacy
    /// era, the `_meta` log level of every later request in the modern era.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<()> {
        if self.protocol_version().era() == Era::Legacy {
            let params = Map::from_iter([("level".to_owned(), to_value(&level))]);
            let _: Value = self
                .request(methods::LOGGING_SET_LEVEL, params, &CallOptions::default())
                .await?;
        }
        *lock(&self.inner.log_level) = Some(level);
        Ok(())
    }

    /// Tells the server the roots changed (`notifications/roots/list_changed`), so that it
    /// asks for them again. Sent in the legacy era only: a 2026-07-28 server asks for the
    /// roots within each request that needs them, so there is nothing to tell.
    pub async fn notify_roots_list_changed(&self) -> Result<()> {
        if self.protocol_version().era() == Era::Modern {
            return Ok(());
        }
        self.notify(methods::ROOTS_LIST_CHANGED, None).await
    }

    /// Sends notification `method` with `params` (an extension's, say); in the 2026-07-28
    /// era with the `_meta` every message of that era carries (version, client info and
    /// capabilities).
    pub async fn notify(&self, method: &str, params: Option<Map<String, Value>>) -> Result<()> {
        let version = self.protocol_version();
        let params = match version.era() {
            Era::Legacy => params,
            Era::Modern => Some(self.modern_params(params.unwrap_or_default(), version, None)),
        };
        let text = jsonrpc::notification_text(method, params.as_ref());
        self.inner
            .connection
            .send_described(text, || Envelope::notification(method, Some(version)))
            .await
    }

    /// Checks the server answers: `ping` in the legacy era, `server/discover` in the
    /// modern era (which has no `ping`).
    pub async fn ping(&self) -> Result<()> {
        let method = match self.protocol_version().era() {
            Era::Legacy => methods::PING,
            Era::Modern => methods::DISCOVER,
        };
        let _: Value = self.request(method, Map::new(), &CallOptions::default()).await?;
        Ok(())
    }
}

pub(super) fn cursor_params(cursor: Option<String>) -> Map<String, Value> {
    cursor
        .map(|c| Map::from_iter([("cursor".to_owned(), Value::from(c))]))
        .unwrap_or_default()
}
