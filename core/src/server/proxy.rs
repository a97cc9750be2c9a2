//! Serving what other servers offer: a [`Proxy`] lists another server's tools, prompts,
//! resources and templates page by page, and forwards the calls, prompts, reads and
//! completions of what is not registered here, through a [`Client`] connected to it,
//! under a [`namespace`](super::namespace) or none.
//!
//! A server may serve several: their lists follow one another (the server's own
//! definitions first, a [`Catalog`]'s rule), and a name goes to the first whose namespace
//! it is under; among proxies whose namespaces it is under, one that does not have it
//! passes it on to the next. A call's progress and log messages come back to the proxy's
//! client as they arrive (the log messages at that client's level), the proxy's client
//! cancelling cancels the forwarded request, and the list changes the other servers tell
//! (a 2026-07-28 server on a `subscriptions/listen` stream the proxy opens) are told to
//! the proxy's clients. The questions
//! a 2026-07-28 server asks (elicitation, sampling, roots) go to the proxy's client, whose
//! capabilities the forwarded request declares: a 2026-07-28 client gets them as the
//! proxy's `input_required` and its retry brings the answers and the server's state back,
//! a client of an earlier revision is asked on its session. An earlier server's question
//! goes to the client of an earlier revision whose forwarded request it belongs to, on its
//! session: the request on whose Streamable HTTP stream it came, or, over a connection
//! that cannot tell (stdio), the one request pending; otherwise (several pending, which
//! could give one caller's question to another, or a 2026-07-28 client, which cannot be
//! asked mid-request) to the [`Client`]'s own handlers. The other server's errors reach the proxy's client as they were answered;
//! a failure to reach it is the handler's failure (a tool error for a call).
//!
//! ```no_run
//! use oxmcp::client::{Client, ClientOptions};
//! use oxmcp::server::{Proxy, Server};
//!
//! # async fn run() -> oxmcp::Result<()> {
//! let weather = Client::connect_http("http://127.0.0.1:9000/mcp", ClientOptions::new("proxy", "1.0.0")).await?;
//! let server = Server::builder("proxy", "1.0.0").build().unwrap();
//! // `forecast` there is `weather_forecast` here.
//! server.serve_proxies([Proxy::new(weather).namespaced("weather")]);
//! server.serve_stdio().await?;
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::task::AbortOnDropHandle;

use super::catalog::{Catalog, Lister, PromptGetter, ToolCaller};
use super::completion::Completer;
use super::context::Context;
use super::handler::HandlerError;
use super::namespace;
use super::resources::ResourceHandler;
use super::{list_changed_event, DefinitionKind};
use crate::client::{
    Asker, CallOptions, Client, NotificationFollower, ProgressCallback, Round, ServerNotification, MAX_INPUT_ROUNDS,
};
use crate::protocol::{
    code, meta, methods, CallToolResult, CompleteRequestParams, Completion, CompletionReference, Era, ErrorObject,
    GetPromptResult, InputRequest, InputResponse, InputResponses, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, LoggingMessageNotificationParams, ProgressNotificationParams, Prompt,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, SubscriptionFilter, Tool,
};
use crate::state::SubscriptionBus;
use crate::{BoxFuture, Error};

/// Another server, served through a connected [`Client`]: give it to
/// [`Server::serve_proxies`](super::Server::serve_proxies).
#[derive(Clone)]
pub struct Proxy {
    upstream: Client,
    /// The namespaces its names are served under, the outermost first.
    namespaces: Vec<String>,
}

impl Proxy {
    /// The server `upstream` is connected to, its names as they are.
    pub fn new(upstream: Client) -> Self {
        Proxy {
            upstream,
            namespaces: Vec::new(),
        }
    }

    /// Serves its names under `namespace` (see [`namespace`](super::namespace)); given
    /// again, the new namespace goes outside the one before (`outer_inner_name`).
    pub fn namespaced(mut self, namespace: impl Into<String>) -> Self {
        self.namespaces.insert(0, namespace.into());
        self
    }

    fn name_out(&self, name: &mut String) {
        for space in self.namespaces.iter().rev() {
            *name = namespace::name_in(space, name);
        }
    }

    fn uri_out(&self, uri: &mut String) {
        for space in self.namespaces.iter().rev() {
            *uri = namespace::uri_in(space, uri);
        }
    }

    /// The other server's name for `name`, if it is under this proxy's namespaces.
    fn name_there(&self, name: &str) -> Option<String> {
        let mut name = name.to_owned();
        for space in &self.namespaces {
            name = namespace::name_from(space, &name)?;
        }
        Some(name)
    }

    /// The other server's URI for `uri`, if it is under this proxy's namespaces.
    fn uri_there(&self, uri: &str) -> Option<String> {
        let mut uri = uri.to_owned();
        for space in &self.namespaces {
            uri = namespace::uri_from(space, &uri)?;
        }
        Some(uri)
    }
}

/// The other servers' list changes told to a server's clients, while held
/// ([`Proxies::follow_list_changes`]).
pub(crate) struct ListChanges {
    /// Held, not read: the upstream clients keep only weak references to it.
    _follower: Arc<NotificationFollower>,
    /// Holds the `subscriptions/listen` streams of the 2026-07-28 servers open.
    _listening: Option<AbortOnDropHandle<()>>,
}

/// Opens a `subscriptions/listen` stream for the list changes of each of `upstreams` and
/// holds them open until aborted; a server that refuses one just tells none.
async fn listen_for_list_changes(upstreams: Vec<Client>) {
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(true),
        ..SubscriptionFilter::default()
    };
    let listening = futures::future::join_all(upstreams.iter().map(|upstream| upstream.listen(filter.clone()))).await;
    let _open: Vec<_> = listening.into_iter().filter_map(Result::ok).collect();
    std::future::pending::<()>().await;
}

/// The proxies one server serves, in order.
#[derive(Clone)]
pub(crate) struct Proxies(Arc<[Proxy]>);

impl Proxies {
    pub(crate) fn new(proxies: impl IntoIterator<Item = Proxy>) -> Self {
        Proxies(proxies.into_iter().collect())
    }

    /// The catalog that lists and serves what the other servers offer.
    pub(crate) fn catalog(&self) -> Catalog {
        Catalog::new()
            .list_tools(
                self.lister(
                    |upstream, cursor, options| async move { upstream.list_tools_with(cursor, &options).await },
                ),
            )
            .list_prompts(
                self.lister(
                    |upstream, cursor, options| async move { upstream.list_prompts_with(cursor, &options).await },
                ),
            )
            .list_resources(self.lister(|upstream, cursor, options| async move {
                upstream.list_resources_with(cursor, &options).await
            }))
            .list_resource_templates(self.lister(|upstream, cursor, options| async move {
                upstream.list_resource_templates_with(cursor, &options).await
            }))
            .call_tool(self.clone())
            .get_prompt(self.clone())
            .read_resource_object(Arc::new(self.clone()))
    }

    /// Tells `bus` of the list changes the other servers tell, while what it gives is held:
    /// a 2026-07-28 server is asked for them on a `subscriptions/listen` stream (opened when
    /// there is a tokio runtime to run it; closed with what it gives).
    pub(crate) fn follow_list_changes(&self, bus: Arc<dyn SubscriptionBus>) -> ListChanges {
        let follower: Arc<NotificationFollower> = Arc::new(move |notification: &ServerNotification| {
            let kind = match notification {
                ServerNotification::ToolListChanged => DefinitionKind::Tool,
                ServerNotification::PromptListChanged => DefinitionKind::Prompt,
                ServerNotification::ResourceListChanged => DefinitionKind::Resource,
                _ => return,
            };
            bus.publish(list_changed_event(kind));
        });
        for proxy in self.0.iter() {
            proxy.upstream.follow_notifications(&follower);
        }
        let modern: Vec<Client> = (self.0.iter())
            .map(|proxy| proxy.upstream.clone())
            .filter(|upstream| upstream.protocol_version().era() == Era::Modern)
            .collect();
        let listening = tokio::runtime::Handle::try_current()
            .ok()
            .filter(|_| !modern.is_empty())
            .map(|runtime| AbortOnDropHandle::new(runtime.spawn(listen_for_list_changes(modern))));
        ListChanges {
            _follower: follower,
            _listening: listening,
        }
    }

    /// A lister of one kind: the pages of each proxy in turn, renamed, one page going on
    /// with the next proxy's first while the one before has no more, with cursors that say
    /// whose page comes next (`index` for its first, `index:cursor` for a later one).
    fn lister<R, F, Fut>(&self, list: F) -> impl Lister<R>
    where
        R: Page,
        F: Fn(Client, Option<String>, CallOptions) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = crate::Result<R>> + Send + 'static,
    {
        let proxies = self.0.clone();
        let list = Arc::new(list);
        move |cursor: Option<String>, ctx: Context| {
            let (proxies, list) = (proxies.clone(), list.clone());
            async move {
                if proxies.is_empty() {
                    return Ok(R::default());
                }
                let (mut index, mut cursor) = page_of(cursor.as_deref(), proxies.len())?;
                let mut listed: Option<R> = None;
                loop {
                    let proxy = &proxies[index];
                    let mut page = list(proxy.upstream.clone(), cursor, forwarding(&ctx, None))
                        .await
                        .map_err(upstream_error)?;
                    page.rename(proxy);
                    let theirs = page.next_cursor().take();
                    let listed = listed.get_or_insert_with(R::default);
                    listed.append(page);
                    match theirs {
                        Some(theirs) => *listed.next_cursor() = Some(format!("{index}:{theirs}")),
                        None if index + 1 < proxies.len() => {
                            (index, cursor) = (index + 1, None);
                            continue;
                        }
                        None => {}
                    }
                    break;
                }
                Ok(listed.unwrap_or_default())
            }
        }
    }

    /// Forwards a request for the tool or prompt (`what`) `name`, with `arguments`: `ask`
    /// sends it to one proxy's server, under that server's name for it.
    fn named<A, R, F, Fut>(
        &self,
        what: &'static str,
        name: String,
        arguments: A,
        ctx: Context,
        ask: F,
    ) -> BoxFuture<'static, Result<R, HandlerError>>
    where
        A: Clone + Send + Sync + 'static,
        R: Send + 'static,
        F: Fn(Client, String, A, Context, CallOptions) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
    {
        let proxies = self.clone();
        Box::pin(async move {
            let unknown = HandlerError::rpc(ErrorObject::invalid_params(format!("unknown {what}: {name}")));
            let forward = |proxy: Proxy, name: String| {
                let (ctx, arguments) = (ctx.clone(), arguments.clone());
                let ask = &ask;
                let era = proxy.upstream.protocol_version().era();
                relayed(ctx.clone(), era, move |options| {
                    ask(proxy.upstream, name, arguments, ctx, options)
                })
            };
            (proxies.forward(&name, Proxy::name_there, &[code::INVALID_PARAMS], unknown, forward)).await
        })
    }

    /// Forwards `name` to the first proxy whose namespaces it is under, and to the next
    /// when that one's server does not have it (it answers `missing`).
    async fn forward<R, F, Fut>(
        &self,
        name: &str,
        there: impl Fn(&Proxy, &str) -> Option<String>,
        missing: &[i64],
        unknown: HandlerError,
        forward: F,
    ) -> Result<R, HandlerError>
    where
        F: Fn(Proxy, String) -> Fut,
        Fut: Future<Output = Result<R, HandlerError>>,
    {
        let candidates: Vec<(Proxy, String)> = (self.0.iter())
            .filter_map(|proxy| Some((proxy.clone(), there(proxy, name)?)))
            .collect();
        let last = candidates.len().saturating_sub(1);
        for (index, (proxy, name)) in candidates.into_iter().enumerate() {
            match forward(proxy, name).await {
                Err(HandlerError::Rpc(error)) if missing.contains(&error.code) && index < last => {}
                answered => return answered,
            }
        }
        Err(unknown)
    }
}

impl ToolCaller for Proxies {
    fn call(
        &self,
        name: String,
        arguments: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<CallToolResult, HandlerError>> {
        self.named(
            "tool",
            name,
            arguments,
            ctx,
            |upstream, name, arguments, ctx, options| async move {
                let params = Map::from_iter([
                    ("name".into(), Value::from(name.as_str())),
                    ("arguments".into(), Value::Object(arguments.clone())),
                ]);
                let legacy = upstream.call_tool_with(&name, arguments, &options);
                exchange(&upstream, methods::TOOLS_CALL, params, &ctx, &options, legacy).await
            },
        )
    }
}

impl PromptGetter for Proxies {
    fn get(
        &self,
        name: String,
        arguments: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        self.named(
            "prompt",
            name,
            arguments,
            ctx,
            |upstream, name, arguments, ctx, options| async move {
                let mut params = Map::from_iter([("name".into(), Value::from(name.as_str()))]);
                if !arguments.is_empty() {
                    params.insert("arguments".into(), to_json(&arguments));
                }
                let legacy = upstream.get_prompt_with(&name, arguments, &options);
                exchange(&upstream, methods::PROMPTS_GET, params, &ctx, &options, legacy).await
            },
        )
    }
}

impl ResourceHandler for Proxies {
    fn read(
        &self,
        uri: String,
        _variables: BTreeMap<String, String>,
        ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let proxies = self.clone();
        Box::pin(async move {
            let unknown = HandlerError::resource_not_found(uri.clone());
            let missing = [code::RESOURCE_NOT_FOUND, code::INVALID_PARAMS];
            let forward = |proxy: Proxy, uri: String| {
                let ctx = ctx.clone();
                let era = proxy.upstream.protocol_version().era();
                relayed(ctx.clone(), era, move |options| async move {
                    let upstream = &proxy.upstream;
                    let params = Map::from_iter([("uri".into(), Value::from(uri.as_str()))]);
                    let legacy = upstream.read_resource_with(&uri, &options);
                    let mut read: ReadResourceResult =
                        exchange(upstream, methods::RESOURCES_READ, params, &ctx, &options, legacy).await?;
                    // The contents' URIs, as the resources they are are served here.
                    for contents in &mut read.contents {
                        match contents {
                            ResourceContents::Text(text) => proxy.uri_out(&mut text.uri),
                            ResourceContents::Blob(blob) => proxy.uri_out(&mut blob.uri),
                        }
                    }
                    Ok(read)
                })
            };
            proxies
                .forward(&uri, Proxy::uri_there, &missing, unknown, forward)
                .await
        })
    }
}

impl Completer for Proxies {
    fn complete(
        &self,
        params: CompleteRequestParams,
        ctx: Context,
    ) -> BoxFuture<'static, Result<Option<Completion>, HandlerError>> {
        let proxies = self.clone();
        Box::pin(async move {
            let found = proxies.0.iter().find_map(|proxy| {
                let reference = match &params.reference {
                    CompletionReference::Prompt { name, title } => CompletionReference::Prompt {
                        name: proxy.name_there(name)?,
                        title: title.clone(),
                    },
                    CompletionReference::Resource { uri } => CompletionReference::Resource {
                        uri: proxy.uri_there(uri)?,
                    },
                };
                Some((proxy, reference))
            });
            let Some((proxy, reference)) = found else {
                return Ok(None);
            };
            let context = params.context.and_then(|c| c.arguments).unwrap_or_default();
            let argument = params.argument;
            let options = forwarding(&ctx, None);
            (proxy.upstream)
                .complete_with(reference, &argument.name, &argument.value, context, &options)
                .await
                .map(Some)
                .map_err(upstream_error)
        })
    }
}

/// A list result a proxy forwards: its items renamed under the proxy's namespaces, the
/// items of the pages after it, and its cursor.
trait Page: Default + Send + 'static {
    fn rename(&mut self, proxy: &Proxy);
    fn append(&mut self, page: Self);
    fn next_cursor(&mut self) -> &mut Option<String>;
}

/// [`Page`] for a list result whose items are in `$items`, named by `$rename`.
macro_rules! page {
    ($result:ty, $items:ident, $rename:expr) => {
        impl Page for $result {
            fn rename(&mut self, proxy: &Proxy) {
                self.$items.iter_mut().for_each(|item| $rename(proxy, item));
            }
            fn append(&mut self, page: Self) {
                self.$items.extend(page.$items);
            }
            fn next_cursor(&mut self) -> &mut Option<String> {
                &mut self.next_cursor
            }
        }
    };
}

page!(ListToolsResult, tools, |proxy: &Proxy, tool: &mut Tool| proxy
    .name_out(&mut tool.name));
page!(ListPromptsResult, prompts, |proxy: &Proxy, prompt: &mut Prompt| proxy
    .name_out(&mut prompt.name));
page!(
    ListResourcesResult,
    resources,
    |proxy: &Proxy, resource: &mut Resource| proxy.uri_out(&mut resource.uri)
);
page!(
    ListResourceTemplatesResult,
    resource_templates,
    |proxy: &Proxy, template: &mut ResourceTemplate| proxy.uri_out(&mut template.uri_template)
);

/// Whose page a cursor asks for, and that proxy's own cursor.
fn page_of(cursor: Option<&str>, proxies: usize) -> Result<(usize, Option<String>), HandlerError> {
    let Some(cursor) = cursor else {
        return Ok((0, None));
    };
    let (index, theirs) = match cursor.split_once(':') {
        Some((index, theirs)) => (index, Some(theirs.to_owned())),
        None => (cursor, None),
    };
    match index.parse::<usize>() {
        Ok(index) if index < proxies => Ok((index, theirs)),
        _ => Err(HandlerError::rpc(ErrorObject::invalid_params("invalid cursor"))),
    }
}

/// What the other server sends about a forwarded request, for the request's client.
enum Relayed {
    Progress(ProgressNotificationParams),
    Log(LoggingMessageNotificationParams),
}

/// Runs `forward` (a request to a server of `era`) with options that carry the request's
/// cancellation and bring the other server's progress and log messages about it back to
/// the request's client, in the order they came. A 2026-07-28 server is asked for the
/// messages the client wants; an earlier one sends what its session's level lets through,
/// and the client's level is applied here.
async fn relayed<R, F, Fut>(ctx: Context, era: Era, forward: F) -> Result<R, HandlerError>
where
    F: FnOnce(CallOptions) -> Fut,
    Fut: Future<Output = Result<R, HandlerError>>,
{
    // The receiver is gone only once the answer came: later messages have no one to reach.
    let (sent, mut arrived) = mpsc::unbounded_channel::<Relayed>();
    let progressed = sent.clone();
    let on_progress: ProgressCallback = Arc::new(move |progress| {
        let _ = progressed.send(Relayed::Progress(progress));
    });
    let mut options = forwarding(&ctx, Some(on_progress));
    options.on_log = Some(Arc::new(move |message| {
        let _ = sent.send(Relayed::Log(message));
    }));
    if let Some(level) = ctx.log_threshold().filter(|_| era == Era::Modern) {
        options.meta = Some(Map::from_iter([(meta::LOG_LEVEL.into(), to_json(&level))]));
    }
    let answer = forward(options);
    tokio::pin!(answer);
    loop {
        tokio::select! {
            biased;
            Some(relayed) = arrived.recv() => match relayed {
                Relayed::Progress(progress) => {
                    ctx.progress(progress.progress, progress.total, progress.message).await;
                }
                Relayed::Log(message) => ctx.log(message.level, message.logger.as_deref(), message.data).await,
            },
            answer = &mut answer => return answer,
        }
    }
}

/// Forwards `method` with `params` to a server of 2026-07-28 and reads its result; its
/// questions go to the request's client (whose capabilities the request declares): a 2026-07-28 client gets them as the proxy's own
/// `input_required` (its answers, and the server's state, come back with its retry), an
/// earlier one is asked on its session, one question after another. To an earlier server,
/// `legacy` (the client's request, whose questions that server asks the proxy's client).
async fn exchange<R: DeserializeOwned>(
    upstream: &Client,
    method: &str,
    mut params: Map<String, Value>,
    ctx: &Context,
    options: &CallOptions,
    legacy: impl Future<Output = crate::Result<R>>,
) -> Result<R, HandlerError> {
    if upstream.protocol_version().era() == Era::Legacy {
        return legacy.await.map_err(upstream_error);
    }
    if let Some(responses) = ctx.input_responses() {
        params.insert("inputResponses".into(), to_json(responses));
    }
    if let Some(state) = ctx.request_state() {
        params.insert("requestState".into(), state.into());
    }
    for _ in 0..MAX_INPUT_ROUNDS {
        let round = (upstream.request_round(method, params.clone(), options, ctx.client_capabilities())).await;
        let input = match round.map_err(upstream_error)? {
            Round::Done(raw) => {
                return serde_json::from_str(raw.get())
                    .map_err(|e| upstream_error(Error::InvalidResponse(e.to_string())));
            }
            Round::Input(input) if ctx.era() == Era::Modern => {
                return Err(HandlerError::InputRequired(Box::new(input)))
            }
            Round::Input(input) => input,
        };
        let mut responses = InputResponses::new();
        for (key, request) in input.input_requests.unwrap_or_default() {
            responses.insert(key, ask_client(ctx, request).await?);
        }
        params.insert("inputResponses".into(), to_json(&responses));
        match input.request_state {
            Some(state) => params.insert("requestState".into(), state.into()),
            None => params.remove("requestState"),
        };
    }
    Err(HandlerError::message(format!(
        "the proxied server: still no result after {MAX_INPUT_ROUNDS} input rounds"
    )))
}

/// Asks the request's client (on its session) what the other server asked.
async fn ask_client(ctx: &Context, request: InputRequest) -> Result<InputResponse, HandlerError> {
    Ok(match request {
        InputRequest::Sampling(params) => InputResponse::Sampling(ctx.sample(params).await?),
        InputRequest::Elicitation(params) => InputResponse::Elicitation(ctx.elicit(params).await?),
        InputRequest::Roots(_) => InputResponse::Roots(ctx.list_roots().await?),
    })
}

/// A value the protocol's types make, as JSON.
fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// The options of a forwarded request: the request's cancellation, where progress goes,
/// and, for a client of 2025-11-25 or earlier, who answers what a server of that era asks
/// meanwhile: that client, on its session, as it would answer a question of the proxy's.
fn forwarding(ctx: &Context, on_progress: Option<ProgressCallback>) -> CallOptions {
    let asker = (ctx.era() == Era::Legacy).then(|| {
        let ctx = ctx.clone();
        let asker: Asker = Arc::new(move |request| {
            let ctx = ctx.clone();
            let era = ctx.era();
            Box::pin(async move { ask_client(&ctx, request).await.map_err(|e| e.into_error_object(era)) })
        });
        asker
    });
    CallOptions {
        on_progress,
        cancellation: Some(ctx.cancellation().clone()),
        asker,
        ..CallOptions::default()
    }
}

/// The other server's error as it answered it; a failure to reach it as the handler's.
fn upstream_error(error: Error) -> HandlerError {
    match error {
        Error::Remote(error) => HandlerError::rpc(error),
        other => HandlerError::message(format!("the proxied server: {other}")),
    }
}
