//! The dispatcher: decides the era of each request, runs the method that serves it, and
//! finishes the result the way the request's protocol version expects.
//!
//! It knows nothing of connections. A request comes in with its [`Scope`] (where its
//! messages go, what cancels it) and leaves as the text of its response; stream
//! connections ([`Session`](super::session::Session)) and HTTP hosting both feed it. One
//! dispatcher holds the protocol state of one client (its handshake, log level, resource
//! subscriptions, requests in flight), or, shared, of many unrelated requests.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::auth::Caller;
use super::context::{Context, SentParams};
use super::interceptor::{self, Intercepted, Interceptor, Next, NotificationNext};
use super::limits::Quota;
use super::reply::Reply;
use super::stamp::Stamp;
use super::tools::CallParams;
use super::{completion, custom, prompts, resources, skills, subscriptions, tasks, tools, Server};
use crate::connection::{Connection, PendingRequests};
use crate::protocol::jsonrpc::{self, InvalidMessage, Message, Notification, Request};
use crate::protocol::meta::{is_modern_request, SentRequestMeta};
use crate::protocol::{
    meta, methods, CacheScope, CancelledNotificationParams, ClientCapabilities, DiscoverResult, EmptyResult, Era,
    ErrorObject, Implementation, InitializeRequestParams, InitializeResult, LoggingLevel, ProtocolResult,
    ProtocolVersion, RequestId, SetLevelRequestParams,
};
use crate::state::SessionRecord;
use crate::transport::{Spawn, TransportKind};
use crate::{lock, read, write};
use last_meta::LastMeta;
use recent_clients::RecentClients;

/// The protocol facts one request is served under.
#[derive(Clone)]
pub(crate) struct Exchange {
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// The per-request log level (modern era).
    pub(crate) log_level: Option<LoggingLevel>,
}

/// How one request is served: where its messages go, what cancels it, and, for stateless
/// HTTP, the legacy protocol version assumed when the request carries none.
pub(crate) struct Scope {
    pub(crate) reply: Reply,
    pub(crate) cancellation: CancellationToken,
    pub(crate) assumed_version: Option<ProtocolVersion>,
    /// What the transport read of the request already (the modern HTTP header checks do),
    /// so that it is not read twice.
    pub(crate) read: Option<ReadAhead>,
    /// Who sent the request over HTTP.
    pub(crate) sender: Sender,
}

impl Scope {
    pub(crate) fn new(reply: Reply, cancellation: CancellationToken) -> Self {
        Scope {
            reply,
            cancellation,
            assumed_version: None,
            read: None,
            sender: Sender::default(),
        }
    }
}

/// Who sent a request in an HTTP POST: the verified caller, on an endpoint that requires a
/// token, and the POST, for handlers that read it. Empty over other transports.
#[derive(Clone, Default)]
pub(crate) struct Sender {
    pub(crate) caller: Option<Arc<Caller>>,
    #[cfg(feature = "http-server")]
    pub(crate) request: Option<Arc<crate::server::http::HttpRequest>>,
}

impl Sender {
    /// The sender of HTTP POST `request`, verified as `caller`.
    #[cfg(feature = "http-server")]
    pub(crate) fn http(caller: Option<Arc<Caller>>, request: Arc<crate::server::http::HttpRequest>) -> Self {
        Sender {
            caller,
            request: Some(request),
        }
    }
}

/// What a transport read of a request before handing it to the dispatcher.
pub(crate) struct ReadAhead {
    /// The request's protocol facts, from its `_meta`.
    pub(crate) exchange: Exchange,
    /// A `tools/call`'s params.
    pub(crate) call: Option<CallParams<'static>>,
    /// The frame a `tools/call` was read from in one pass ([`CallFrame`]), where its
    /// params are found when asked for; the request carries none of its own then.
    pub(crate) frame: Option<Bytes>,
}

/// How a method ends: a result's JSON text, or an error.
pub(crate) type Outcome = Result<String, ErrorObject>;

/// The server side of one client's requests, whatever carries them.
pub(crate) struct Dispatcher {
    server: Server,
    /// Whether `initialize` sets up this dispatcher (false when it is shared by many clients).
    remembers_handshake: bool,
    handshake: RwLock<Option<Exchange>>,
    log_level: Mutex<Option<LoggingLevel>>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// The cap on requests served at once.
    admissions: Arc<Quota>,
    /// The URIs a legacy client subscribed to with `resources/subscribe`.
    pub(super) subscribed_uris: Mutex<HashSet<String>>,
    /// Requests sent to the client (legacy elicitation, sampling, roots) awaiting answers.
    client_requests: PendingRequests,
    /// Cancelled when the client is gone: stops subscription streams.
    ended: CancellationToken,
    tasks: TaskTracker,
    /// Where its tasks run.
    spawn: Spawn,
    /// Where the session's messages go outside any request (none when shared).
    session_channel: OnceLock<Reply>,
    /// What tells this session's legacy tasks from others', made when first needed.
    session_key: OnceLock<String>,
    /// Whether this is one copy of a session that replicas share (see [`share`](Self::share)).
    replicated: AtomicBool,
    /// How many times this dispatcher changed what a session record holds (log level,
    /// subscriptions) by itself; what it adopts does not count.
    record_changes: AtomicU64,
    /// What the modern clients it served lately said of themselves.
    recent_clients: RecentClients,
    /// The `_meta` of its stream client's last calls.
    last_meta: LastMeta,
    /// What carries its requests.
    transport: TransportKind,
    /// Set while the server's handler of `notifications/initialized` runs: the client's
    /// requests wait for it (at most [`GREETING_WAIT`]), as they would on a server that
    /// handles messages in order (one that registers tools once it knows the client, say).
    greeting: AtomicBool,
    greeted: Notify,
}

/// The run of the server's handler of `notifications/initialized`: while it lives, the
/// client's requests wait; dropped (the handler ended, or panicked), they go on.
struct Greeting(Arc<Dispatcher>);

impl Greeting {
    fn start(dispatcher: &Arc<Dispatcher>) -> Self {
        dispatcher.greeting.store(true, Ordering::Release);
        Greeting(Arc::clone(dispatcher))
    }
}

impl Drop for Greeting {
    fn drop(&mut self) {
        self.0.greeting.store(false, Ordering::Release);
        self.0.greeted.notify_waiters();
    }
}

/// The page size of `tasks/list` when the server sets none.
const TASKS_PAGE: usize = 100;

/// The longest a request waits for the server's handler of `notifications/initialized`: a
/// handler that asks the client something must not hold the client's requests for long.
const GREETING_WAIT: Duration = Duration::from_secs(1);

impl Dispatcher {
    /// A dispatcher for one client, within the server's per-client limits.
    #[cfg(test)]
    pub(crate) fn new(server: Server, transport: TransportKind) -> Arc<Self> {
        Self::spawning(server, transport, Spawn::default())
    }

    /// [`new`](Self::new), for the client of `connection`, whose work runs where the
    /// connection's does.
    pub(crate) fn for_connection(server: Server, connection: &Connection) -> Arc<Self> {
        Self::spawning(server, connection.kind(), connection.spawn().clone())
    }

    fn spawning(server: Server, transport: TransportKind, spawn: Spawn) -> Arc<Self> {
        let max_in_flight = server.limits().max_in_flight;
        Self::build(server, true, max_in_flight, transport, spawn)
    }

    /// A dispatcher shared by unrelated requests (stateless HTTP), at most `max_in_flight`
    /// at once: an `initialize` is answered but not remembered, so no client's handshake
    /// applies to another's requests, and no client may subscribe.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn shared(server: Server, max_in_flight: usize) -> Arc<Self> {
        Self::build(
            server,
            false,
            max_in_flight,
            TransportKind::StreamableHttp,
            Spawn::default(),
        )
    }

    fn build(
        server: Server,
        remembers_handshake: bool,
        max_in_flight: usize,
        transport: TransportKind,
        spawn: Spawn,
    ) -> Arc<Self> {
        Arc::new(Dispatcher {
            server,
            remembers_handshake,
            handshake: RwLock::new(None),
            log_level: Mutex::new(None),
            in_flight: Mutex::new(HashMap::new()),
            admissions: Quota::new(max_in_flight),
            subscribed_uris: Mutex::new(HashSet::new()),
            client_requests: PendingRequests::default(),
            ended: CancellationToken::new(),
            tasks: TaskTracker::new(),
            spawn,
            session_channel: OnceLock::new(),
            session_key: OnceLock::new(),
            replicated: AtomicBool::new(false),
            record_changes: AtomicU64::new(0),
            recent_clients: RecentClients::default(),
            last_meta: LastMeta::default(),
            transport,
            greeting: AtomicBool::new(false),
            greeted: Notify::new(),
        })
    }

    pub(crate) fn server(&self) -> &Server {
        &self.server
    }

    /// What carries its requests.
    pub(crate) fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The level set by `logging/setLevel`, if any.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    /// The protocol version the legacy handshake settled on, once it has.
    pub(crate) fn handshake_version(&self) -> Option<ProtocolVersion> {
        read(&self.handshake).as_ref().map(|exchange| exchange.version)
    }

    /// The requests sent to the client that await its answers.
    pub(crate) fn client_requests(&self) -> &PendingRequests {
        &self.client_requests
    }

    /// Whether this dispatcher serves one client (and so may keep what the client asked
    /// for, such as its handshake and subscriptions).
    pub(crate) fn serves_one_client(&self) -> bool {
        self.remembers_handshake
    }

    /// Fires when the client is gone.
    pub(crate) fn ended(&self) -> &CancellationToken {
        &self.ended
    }

    /// Runs `task` as part of this client's work, which [`wait`](Self::wait) waits for.
    pub(crate) fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.spawn.detached(self.tasks.track_future(task));
    }

    /// Serves a request of `sender` on its own task, its messages sent on `reply`; the
    /// response goes there too, unless the request is cancelled first. Gives the token that
    /// cancels it (as `notifications/cancelled` does).
    pub(crate) fn serve(self: &Arc<Self>, request: Request, reply: Reply, sender: Sender) -> CancellationToken {
        self.serve_read(request, None, reply, sender)
    }

    /// [`serve`](Self::serve) for a request of which the transport read `read` already.
    pub(crate) fn serve_read(
        self: &Arc<Self>,
        request: Request,
        read: Option<ReadAhead>,
        reply: Reply,
        sender: Sender,
    ) -> CancellationToken {
        let cancellation = self.track(&request.id);
        let scope = Scope {
            sender,
            read,
            ..Scope::new(reply.clone(), cancellation.clone())
        };
        let answer = self.answer_tracked(request, scope);
        self.spawn(async move {
            if let Some(text) = answer.await {
                reply.finish(text).await;
            }
        });
        cancellation
    }

    /// Answers a JSON-RPC batch (2025-03-26): its notifications and responses are taken at
    /// once, its requests served together, their messages sent on `reply`. Gives the JSON
    /// array of the responses (an invalid entry's error among them), `None` when there are
    /// none to give. `assumed_version` is as for a single request (stateless HTTP).
    pub(crate) async fn answer_batch(
        self: &Arc<Self>,
        entries: Vec<Result<Message, InvalidMessage>>,
        reply: Reply,
        sender: Sender,
        assumed_version: Option<ProtocolVersion>,
    ) -> Option<String> {
        let mut answers = Vec::new();
        for entry in entries {
            match entry {
                Ok(message) => {
                    if let Some(request) = self.receive(message) {
                        let scope = Scope {
                            sender: sender.clone(),
                            assumed_version,
                            ..Scope::new(reply.clone(), self.track(&request.id))
                        };
                        answers.push(self.answer_tracked(request, scope).boxed());
                    }
                }
                Err(invalid) => {
                    let text = jsonrpc::error_text(invalid.id(), &ErrorObject::from(&invalid));
                    answers.push(Box::pin(std::future::ready(Some(text))));
                }
            }
        }
        let texts: Vec<String> = futures::future::join_all(answers).await.into_iter().flatten().collect();
        (!texts.is_empty()).then(|| format!("[{}]", texts.join(",")))
    }

    /// [`answer`](Self::answer) for a request [`track`](Self::track)ed for cancellation,
    /// which it forgets once answered.
    pub(crate) fn answer_tracked(
        self: &Arc<Self>,
        request: Request,
        scope: Scope,
    ) -> impl std::future::Future<Output = Option<String>> + Send + 'static {
        let dispatcher = Arc::clone(self);
        let id = request.id.clone();
        let answer = self.answer(request, scope);
        async move {
            let text = answer.await;
            lock(&dispatcher.in_flight).remove(&id);
            text
        }
    }

    /// `frame` read in one pass as a `tools/call` ([`CallFrame`]), with the protocol facts
    /// of its `_meta` (learned from the client's earlier calls when it sends the same
    /// again, [`LastMeta`]): the request to serve, and what was read of it. `None` for another
    /// frame, or one whose facts do not hold (before the handshake, say): the usual read
    /// takes it, and answers it as it would have.
    pub(crate) fn read_call_frame(&self, frame: &Bytes) -> Option<(Request, ReadAhead)> {
        if !CallFrame::named(frame) {
            return None;
        }
        let (id, call, exchange) = match self.last_meta.read(frame) {
            Some((id, call, learned)) => {
                let handshake = read(&self.handshake).clone();
                (id, call, handshake.unwrap_or(learned))
            }
            None => {
                let CallFrame { id, params, .. } = CallFrame::read(frame)?;
                let (request_meta, call) = params.split();
                let exchange = self.exchange_for(methods::TOOLS_CALL, &request_meta, None).ok()??;
                if request_meta.protocol_version.is_some() {
                    self.last_meta.learn(frame, &exchange);
                }
                (id, call, exchange)
            }
        };
        let request = Request {
            id,
            method: methods::TOOLS_CALL.to_owned(),
            params: None,
        };
        let read = ReadAhead {
            exchange,
            call: Some(call),
            frame: Some(frame.clone()),
        };
        Some((request, read))
    }

    /// Takes a notification or a response from the client at once; a request is handed
    /// back, for the caller to serve where its answer must go.
    pub(crate) fn receive(self: &Arc<Self>, message: Message) -> Option<Request> {
        self.receive_here(message).unwrap_or_else(|unplaced| {
            tracing::debug!(?unplaced, "dropped a response or cancellation for an unknown request");
            None
        })
    }

    /// [`receive`](Self::receive), except that a response to no request this dispatcher
    /// sent, or a cancellation of no request it serves, is handed back: another copy of the
    /// session may have sent or serve it.
    pub(crate) fn receive_here(self: &Arc<Self>, message: Message) -> Result<Option<Request>, Message> {
        match message {
            Message::Request(request) => return Ok(Some(request)),
            Message::Notification(notification) if notification.method == methods::CANCELLED => {
                if !self.cancel(notification.params.as_deref()) {
                    return Err(Message::Notification(notification));
                }
            }
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(response) => self.client_requests.resolve(response).map_err(Message::Response)?,
        }
        Ok(None)
    }

    /// Cancels the request a `notifications/cancelled` names, if this dispatcher serves
    /// it; true too for a malformed one, which nothing else could place.
    fn cancel(&self, params: Option<&RawValue>) -> bool {
        let Ok(params) = parse_params::<CancelledNotificationParams>(params) else {
            tracing::debug!("ignored a malformed cancellation");
            return true;
        };
        match lock(&self.in_flight).get(&params.request_id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Registers a request for cancellation by `notifications/cancelled`.
    pub(crate) fn track(&self, id: &RequestId) -> CancellationToken {
        let cancellation = CancellationToken::new();
        lock(&self.in_flight).insert(id.clone(), cancellation.clone());
        cancellation
    }

    /// The client is gone: subscription streams stop and requests to the client fail.
    /// Requests in flight go on (a stream's last requests are still answered).
    pub(crate) fn end(&self) {
        self.ended.cancel();
        self.client_requests.close();
    }

    /// Whether a request is in flight.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn has_in_flight(&self) -> bool {
        !lock(&self.in_flight).is_empty()
    }

    /// Cancels every request in flight.
    pub(crate) fn cancel_in_flight(&self) {
        for cancellation in lock(&self.in_flight).values() {
            cancellation.cancel();
        }
    }

    /// Waits for every request and task in flight to end.
    pub(crate) async fn wait(&self) {
        self.tasks.close();
        self.tasks.wait().await;
    }

    fn on_notification(self: &Arc<Self>, notification: Notification) {
        let Notification { method, params } = notification;
        let params = params.as_deref();
        let custom = self.server.custom();
        let acted_on = match self.server.interceptor() {
            None => custom.notify(&method, params, || self.notification_context(&method, params)),
            Some(interceptor) => self.notification_context(&method, params).map(|ctx| {
                let handled = custom.notify(&method, params, || Some(ctx.clone()));
                let seen = Intercepted {
                    method: method.clone(),
                    params: interceptor::params_value(params),
                    ctx,
                };
                interceptor.notified(seen, NotificationNext(handled))
            }),
        };
        match acted_on {
            // A handler run counts against the cap on requests served at once: a client
            // that floods notifications gets no more work done than one that floods requests.
            Some(handled) => match self.admissions.admit() {
                Some(admission) => {
                    let greeting =
                        (method == methods::INITIALIZED && self.serves_one_client()).then(|| Greeting::start(self));
                    self.spawn(async move {
                        let _admission = admission;
                        handled.await;
                        drop(greeting);
                    });
                }
                None => tracing::debug!(method, "dropped a notification: too much in flight"),
            },
            None => tracing::debug!(method, "ignored a notification"),
        }
    }

    /// Waits, at most [`GREETING_WAIT`], for the server's handler of
    /// `notifications/initialized` to finish (see [`Dispatcher::dispatch`], which calls it
    /// only while that handler runs).
    async fn after_greeting(&self) {
        let greeted = async {
            loop {
                // Listening before looking, so that the end cannot slip between the two.
                let mut greeted = std::pin::pin!(self.greeted.notified());
                greeted.as_mut().enable();
                if !self.greeting.load(Ordering::Acquire) {
                    return;
                }
                greeted.await;
            }
        };
        let _ = tokio::time::timeout(GREETING_WAIT, greeted).await;
    }

    /// The context of a notification's handler: the session's protocol facts (or the
    /// notification's own `_meta`, in 2026-07-28; the latest legacy version when there are
    /// neither, as on stateless HTTP) and no request id; what it sends goes on the
    /// session's channel. `None` for params that are not an object.
    fn notification_context(self: &Arc<Self>, method: &str, params: Option<&RawValue>) -> Option<Context> {
        let request_meta = read_request_meta(params).ok()?;
        let exchange = self
            .exchange_for(method, &request_meta, Some(ProtocolVersion::LATEST_LEGACY))
            .ok()??;
        let reply = self.session_channel().cloned().unwrap_or_else(Reply::nowhere);
        let scope = Scope::new(reply, self.ended().child_token());
        Some(Context::new(
            Arc::clone(self),
            None,
            exchange,
            SentParams::Apart(params.map(ToOwned::to_owned)),
            scope,
        ))
    }

    /// Answers one request: the response text, or `None` when it was cancelled.
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: Request,
        scope: Scope,
    ) -> futures::future::BoxFuture<'static, Option<String>> {
        let dispatcher = Arc::clone(self);
        let Some(admission) = self.admissions.admit() else {
            let error = ErrorObject::server_busy(self.admissions.max());
            return Box::pin(std::future::ready(Some(jsonrpc::error_text(Some(&request.id), &error))));
        };
        Box::pin(async move {
            let _admission = admission;
            let id = request.id.clone();
            let cancellation = scope.cancellation.clone();
            let dispatch = AssertUnwindSafe(Arc::clone(&dispatcher).dispatch(request, scope)).catch_unwind();
            // Cancellation first: a handler that ends because it was cancelled (such as a
            // subscription stream) must not answer.
            let outcome = tokio::select! {
                biased;
                _ = cancellation.cancelled() => None,
                outcome = dispatch => Some(outcome.unwrap_or_else(|panic| {
                    // What a panic says is for the server's log, not for the client.
                    let detail = panic_message(&*panic);
                    tracing::error!(detail, "a handler panicked");
                    Err(ErrorObject::internal("the handler failed"))
                })),
            };
            outcome.map(|outcome| match outcome {
                Ok(result) => jsonrpc::raw_result_text(&id, &result),
                Err(error) => jsonrpc::error_text(Some(&id), &error),
            })
        })
    }

    /// A task method. 2026-07-28: `tasks/get`, `tasks/update` or `tasks/cancel`, only for a
    /// client that declares the tasks extension (checked before the task is looked up), on
    /// the caller's own tasks. 2025-11-25: `tasks/get`, `tasks/result`, `tasks/list` or
    /// `tasks/cancel`, on the tasks of the caller's principal, else of its session.
    async fn task_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
        ctx: &Context,
        stamp: Option<&Stamp>,
    ) -> Outcome {
        let tasks = self.server.tasks();
        let era = ctx.era();
        let owner = match era {
            Era::Modern if !tasks::requested(ctx.client_capabilities()) => return Err(tasks::extension_required()),
            Era::Modern => ctx.principal_key(),
            Era::Legacy => self.task_owner(ctx).0,
        };
        match method {
            methods::TASKS_GET => tasks.get(era, &owner, params, stamp).await,
            methods::TASKS_UPDATE => tasks.update(&owner, params, stamp).await,
            methods::TASKS_RESULT => tasks.result(&owner, params).await,
            methods::TASKS_LIST => {
                tasks
                    .list(&owner, params, self.server.page_size().unwrap_or(TASKS_PAGE))
                    .await
            }
            _ => tasks.cancel(era, &owner, params, stamp).await,
        }
    }

    /// Who a legacy task belongs to: the caller's principal on a protected endpoint, else
    /// this session (then true: the task ends with the session); nobody in particular on a
    /// stateless endpoint.
    pub(crate) fn task_owner(&self, ctx: &Context) -> (String, bool) {
        let principal = ctx.principal_key();
        if !principal.is_empty() || !self.serves_one_client() {
            return (principal, false);
        }
        // A copy of a session that replicas share may go while the session lives on.
        (
            format!("session:{}", self.session_key()),
            !self.replicated.load(Ordering::Relaxed),
        )
    }

    fn session_key(&self) -> &str {
        self.session_key.get_or_init(|| super::random_id().unwrap_or_default())
    }

    /// Names the session this dispatcher serves `id` (a legacy HTTP session's
    /// `Mcp-Session-Id`), unless it is named already.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn name_session(&self, id: &str) {
        let _ = self.session_key.set(id.to_owned());
    }

    /// The id of the session this dispatcher serves (stdio, a legacy HTTP session); `None`
    /// where each request stands alone.
    pub(crate) fn session_id(&self) -> Option<&str> {
        self.serves_one_client().then(|| self.session_key())
    }

    /// Makes this dispatcher one copy of a session that replicas share: its requests to
    /// the client carry ids no other copy uses, and its tasks outlive it.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn share(&self) -> Result<(), String> {
        self.client_requests.name_ids(format!("{}-", super::random_id()?));
        self.replicated.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The session as replicas keep it, once its handshake is done; `owner` is the key of
    /// the principal who opened it.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn session_record(&self, owner: Option<String>) -> Option<SessionRecord> {
        let exchange = read(&self.handshake).clone()?;
        let mut subscriptions: Vec<String> = lock(&self.subscribed_uris).iter().cloned().collect();
        subscriptions.sort_unstable();
        Some(SessionRecord {
            protocol_version: exchange.version,
            client_capabilities: (*exchange.client_capabilities).clone(),
            client_info: exchange.client_info.as_deref().cloned(),
            log_level: self.log_level(),
            subscriptions,
            owner,
            task_key: self.session_key().to_owned(),
        })
    }

    /// Takes on the session `record` describes: its handshake, unless this copy has one
    /// already, and its log level, subscriptions and task key.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn adopt(&self, record: &SessionRecord) {
        write(&self.handshake).get_or_insert_with(|| Exchange {
            version: record.protocol_version,
            client_capabilities: Arc::new(record.client_capabilities.clone()),
            client_info: record.client_info.clone().map(Arc::new),
            log_level: None,
        });
        *lock(&self.log_level) = record.log_level;
        *lock(&self.subscribed_uris) = record.subscriptions.iter().cloned().collect();
        let _ = self.session_key.set(record.task_key.clone());
    }

    /// How many times this dispatcher changed what its session record holds (a copy saves
    /// the record when the count moved since it last did).
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn record_changes(&self) -> u64 {
        self.record_changes.load(Ordering::Relaxed)
    }

    /// Counts a change of the log level or the subscriptions.
    pub(super) fn record_changed(&self) {
        self.record_changes.fetch_add(1, Ordering::Relaxed);
    }

    /// Where this session's messages go outside any request: its connection (on HTTP, the
    /// GET stream). Legacy tasks talk to the client there.
    pub(crate) fn session_channel(&self) -> Option<&Reply> {
        self.session_channel.get()
    }

    /// Sets the session's channel, once, when the session starts.
    pub(crate) fn attach_channel(&self, channel: Reply) {
        let _ = self.session_channel.set(channel);
    }

    async fn dispatch(self: Arc<Self>, request: Request, mut scope: Scope) -> Outcome {
        let Request { id, method, params } = request;
        if method == methods::INITIALIZE {
            // 2026-07-28 removed `initialize`: a request of that era must not start a
            // legacy handshake (on a shared stateless session it would change the era of
            // every later request).
            if is_modern_request(params.as_deref()) {
                return Err(ErrorObject::method_not_found(&method));
            }
            return match self.server.interceptor().filter(|i| i.intercepts_initialize()) {
                // Boxed: what an interceptor holds stays out of every other request's future.
                Some(interceptor) => Box::pin(self.initialize_intercepted(interceptor, id, params, scope)).await,
                None => self.initialize(params.as_deref()),
            };
        }
        if self.greeting.load(Ordering::Acquire) {
            // Boxed: the wait's timer stays out of every request's future.
            Box::pin(self.after_greeting()).await;
        }
        // Reading `_meta`'s protocol fields checks that it is an object (or absent), so the
        // context's lazy read of it cannot fail; the transport did so if it worked them out.
        let (mut call, mut frame) = (None, None);
        let exchange = match scope.read.take() {
            Some(read) => {
                (call, frame) = (read.call, read.frame);
                read.exchange
            }
            None => {
                let request_meta = match read_call(&method, params.as_deref()) {
                    Some((request_meta, read)) => {
                        call = Some(read);
                        request_meta
                    }
                    None => read_request_meta(params.as_deref())?,
                };
                match self.exchange_for(&method, &request_meta, scope.assumed_version)? {
                    Some(exchange) => exchange,
                    // `ping` before `initialize`.
                    None => return finish(EmptyResult::default(), None),
                }
            }
        };
        let era = exchange.version.era();
        // The context keeps the params, which it reads `_meta` from when a handler asks;
        // the method reads them there. A call's stay in their frame, when they came in
        // one, until the call needs them ([`SentParams`]).
        let params = match frame {
            Some(frame) => SentParams::in_frame(frame),
            None => SentParams::Apart(params),
        };
        let ctx = Context::new(Arc::clone(&self), Some(id.clone()), exchange, params, scope);
        let stamp = (era == Era::Modern).then(|| self.server.stamp());
        let outcome = match self.server.interceptor() {
            // Boxed: what an interceptor holds stays out of every other request's future.
            Some(interceptor) => {
                let next = Next {
                    dispatcher: Arc::clone(&self),
                    method,
                    id,
                    era,
                    ctx: ctx.clone(),
                    call: Mutex::new(call),
                };
                Box::pin(intercepted(interceptor, next, stamp)).await
            }
            None => self.run_method(&method, &id, era, &ctx, call, None, stamp).await,
        };
        ctx.finish();
        outcome
    }

    /// Runs the method of a request: `tools/call` with its params as read (`call`), any
    /// other with `given` params, or those sent when none are given.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn run_method(
        self: &Arc<Self>,
        method: &str,
        id: &RequestId,
        era: Era,
        ctx: &Context,
        call: Option<CallParams<'static>>,
        given: Option<&RawValue>,
        stamp: Option<&Stamp>,
    ) -> Outcome {
        if method == methods::TOOLS_CALL {
            return tools::call(&self.server, call, ctx, stamp).await;
        }
        let params = given.or_else(|| ctx.params());
        let server = &self.server;
        match (method, era) {
            (methods::PING, Era::Legacy) => finish(EmptyResult::default(), None),
            (methods::INITIALIZE, Era::Legacy) => self.initialize(params),
            (methods::DISCOVER, Era::Modern) => self.discover(stamp),
            (methods::TOOLS_LIST, _) => tools::list(server, params, ctx, stamp).await,
            (methods::RESOURCES_LIST, _) => resources::list(server, params, ctx, stamp).await,
            (methods::RESOURCES_TEMPLATES_LIST, _) => resources::list_templates(server, params, ctx, stamp).await,
            (methods::RESOURCES_READ, _) => resources::read(server, params, ctx, stamp).await,
            (
                methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE | methods::LOGGING_SET_LEVEL,
                Era::Legacy,
            ) => self.told(method, params, ctx).await,
            (methods::PROMPTS_LIST, _) => prompts::list(server, params, ctx, stamp).await,
            (methods::PROMPTS_GET, _) => prompts::get(server, params, ctx, stamp).await,
            (methods::COMPLETION_COMPLETE, _) => completion::complete(server, params, ctx, stamp).await,
            (methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL, Era::Modern) => {
                self.task_request(method, params, ctx, stamp).await
            }
            (methods::TASKS_GET | methods::TASKS_RESULT | methods::TASKS_LIST | methods::TASKS_CANCEL, Era::Legacy)
                if ctx.protocol_version().has_tasks() && server.has_task_tools() =>
            {
                self.task_request(method, params, ctx, stamp).await
            }
            (methods::SUBSCRIPTIONS_LISTEN, Era::Modern) => subscriptions::listen(self, params, id, ctx, stamp).await,
            (methods::SKILLS_LIST, _) if !server.skills().is_empty() => skills::list(server, params, stamp),
            (methods::SKILLS_GET, _) if !server.skills().is_empty() => skills::get(server, params, stamp),
            (methods::RESOURCES_DIRECTORY_READ, _) if !server.skills().is_empty() => {
                skills::read_directory(server, params, stamp)
            }
            _ => custom::call(server, method, params, ctx, stamp).await,
        }
    }

    /// Decides the request's era and protocol facts: the modern `_meta` fields when
    /// present, else the legacy handshake. `Ok(None)` is a `ping` before the handshake.
    fn exchange_for(
        &self,
        method: &str,
        request_meta: &SentRequestMeta<'_>,
        assumed_version: Option<ProtocolVersion>,
    ) -> Result<Option<Exchange>, ErrorObject> {
        if let Some(handshake) = read(&self.handshake).as_ref() {
            return Ok(Some(handshake.clone()));
        }
        if request_meta.protocol_version.is_none() {
            if let Some(version) = assumed_version {
                return Ok(Some(Exchange {
                    version,
                    client_capabilities: Arc::default(),
                    client_info: None,
                    log_level: None,
                }));
            }
            if method == methods::PING {
                return Ok(None);
            }
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] is missing: send `initialize` first (legacy era) or give the protocol version on every request (2026-07-28)",
                meta::PROTOCOL_VERSION
            )));
        }
        self.modern_exchange(request_meta).map(Some)
    }

    /// The protocol facts of a modern request, from its `_meta`: checked to carry what
    /// every modern request must, and its client's capabilities and info read unless this
    /// dispatcher has read the same lately.
    pub(crate) fn modern_exchange(&self, request_meta: &SentRequestMeta<'_>) -> Result<Exchange, ErrorObject> {
        let (version, capabilities) = request_meta.modern()?;
        let client = self.recent_clients.read(capabilities, request_meta.client_info)?;
        Ok(Exchange {
            version,
            client_capabilities: client.capabilities,
            client_info: client.info,
            log_level: request_meta.log_level,
        })
    }

    fn initialize(&self, params: Option<&RawValue>) -> Outcome {
        let exchange = handshake(params)?;
        let version = exchange.version;
        if self.remembers_handshake {
            *write(&self.handshake) = Some(exchange);
        }
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.server.capabilities(version),
            server_info: (*self.server.server_info()).clone(),
            instructions: self.server.instructions(),
            result_type: None,
            meta: None,
        };
        finish(result, None)
    }

    /// `initialize` through `interceptor`, in the context of the session it opens (the
    /// client's version, capabilities and info as its params give them).
    async fn initialize_intercepted(
        self: Arc<Self>,
        interceptor: Arc<dyn Interceptor>,
        id: RequestId,
        params: Option<Box<RawValue>>,
        scope: Scope,
    ) -> Outcome {
        let exchange = handshake(params.as_deref())?;
        let ctx = Context::new(
            Arc::clone(&self),
            Some(id.clone()),
            exchange,
            SentParams::Apart(params),
            scope,
        );
        let next = Next {
            dispatcher: Arc::clone(&self),
            method: methods::INITIALIZE.to_owned(),
            id,
            era: Era::Legacy,
            ctx: ctx.clone(),
            call: Mutex::new(None),
        };
        let outcome = intercepted(interceptor, next, None).await;
        ctx.finish();
        outcome
    }

    fn discover(&self, stamp: Option<&Stamp>) -> Outcome {
        let mut result = DiscoverResult {
            supported_versions: ProtocolVersion::all_strs().into_iter().map(str::to_owned).collect(),
            capabilities: self.server.capabilities(ProtocolVersion::V2026_07_28),
            instructions: self.server.instructions(),
            result_type: None,
            meta: None,
            ttl_ms: None,
            cache_scope: None,
        };
        self.server.stamp_cache_hints(&mut result, false, CacheScope::Public);
        finish(result, stamp)
    }

    /// A request of [`custom::TOLD_REQUESTS`]: the server's handler told of it first (its
    /// error refuses it), then acted on.
    async fn told(&self, method: &str, params: Option<&RawValue>, ctx: &Context) -> Outcome {
        custom::tell(&self.server, method, params, ctx).await?;
        match method {
            methods::LOGGING_SET_LEVEL => self.set_level(params),
            _ => subscriptions::subscribe(self, params, method == methods::RESOURCES_SUBSCRIBE),
        }
    }

    fn set_level(&self, params: Option<&RawValue>) -> Outcome {
        let params: SetLevelRequestParams = parse_params(params)?;
        *lock(&self.log_level) = Some(params.level);
        self.record_changed();
        finish(EmptyResult::default(), None)
    }
}

/// The protocol facts of a legacy session, from its `initialize` params: the client's
/// version (the latest legacy one for another it names), capabilities and info.
fn handshake(params: Option<&RawValue>) -> Result<Exchange, ErrorObject> {
    let params: InitializeRequestParams = parse_params(params)?;
    let version = ProtocolVersion::parse(&params.protocol_version)
        .filter(|v| v.era() == Era::Legacy)
        .unwrap_or(ProtocolVersion::LATEST_LEGACY);
    Ok(Exchange {
        version,
        client_capabilities: Arc::new(params.capabilities),
        client_info: Some(Arc::new(params.client_info)),
        log_level: None,
    })
}

/// Writes a result as JSON, with the modern era's [`Stamp`] when given one.
/// Serves a request through `interceptor`, its result finished as a method's, its error
/// as a handler's (worded and masked as the server says).
async fn intercepted(interceptor: Arc<dyn Interceptor>, next: Next, stamp: Option<&Stamp>) -> Outcome {
    let request = Intercepted {
        params: interceptor::params_value(next.ctx.params()),
        method: next.method.clone(),
        ctx: next.ctx.clone(),
    };
    let (era, dispatcher) = (next.era, Arc::clone(&next.dispatcher));
    match interceptor.intercept(request, next).await {
        Ok(result) => finish_value(result, stamp),
        Err(error) => Err(dispatcher.server.disclose(error).into_error_object(era)),
    }
}

/// A result an interceptor gave, finished as [`finish`] finishes a method's: an object is
/// stamped for the modern era.
fn finish_value(mut result: Value, stamp: Option<&Stamp>) -> Outcome {
    if let (Some(stamp), Value::Object(object)) = (stamp, &mut result) {
        stamp.stamp_object(object);
    }
    serde_json::to_string(&result).map_err(ErrorObject::internal)
}

pub(super) fn finish<R: ProtocolResult + Serialize>(result: R, stamp: Option<&Stamp>) -> Outcome {
    match stamp {
        Some(stamp) => stamp.write(result),
        None => serde_json::to_string(&result),
    }
    .map_err(ErrorObject::internal)
}

/// Decodes a method's params; absent params read as `{}`.
pub(super) fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(ErrorObject::invalid_params)
}

/// The params of a list method.
#[derive(Deserialize, Default)]
pub(super) struct CursorParams {
    #[serde(default)]
    pub(super) cursor: Option<String>,
}

/// A `tools/call`'s params, the hot path, read in one pass with the protocol fields of their
/// `_meta`; `None` for another method, or params that do not read as a call (the method
/// says why once the era is known).
fn read_call<'p>(method: &str, params: Option<&'p RawValue>) -> Option<(SentRequestMeta<'p>, CallParams<'static>)> {
    if method != methods::TOOLS_CALL {
        return None;
    }
    CallParams::read(params).ok().map(CallParams::split)
}

/// The protocol fields of the `_meta` of a request's params (all absent without one),
/// read before the method's own params.
fn read_request_meta(params: Option<&RawValue>) -> Result<SentRequestMeta<'_>, ErrorObject> {
    #[derive(Deserialize)]
    struct ParamsHead<'a> {
        #[serde(rename = "_meta", default, borrow)]
        meta: Option<SentRequestMeta<'a>>,
    }
    let Some(params) = params else {
        return Ok(SentRequestMeta::default());
    };
    let head: ParamsHead<'_> = serde_json::from_str(params.get()).map_err(ErrorObject::invalid_params)?;
    Ok(head.meta.unwrap_or_default())
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

mod call_frame;
mod last_meta;
mod recent_clients;

pub(crate) use call_frame::CallFrame;

#[cfg(test)]
mod tests;
