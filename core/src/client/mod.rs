//! The MCP client: connects over any transport, settles the protocol era, and offers a
//! typed method per request.
//!
//! ```no_run
//! use oxmcp::client::{Client, ClientOptions};
//! use oxmcp::transport::child::StdioCommand;
//!
//! # async fn run() -> oxmcp::Result<()> {
//! let client = Client::spawn(StdioCommand::new("my-server"), ClientOptions::new("app", "1.0")).await?;
//! let tools = client.list_all_tools().await?;
//! let result = client.call_tool("echo", serde_json::json!({"text": "hi"})).await?;
//! client.close().await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, Weak};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{broadcast, Semaphore};

#[cfg(feature = "oauth")]
pub mod auth;
mod incoming;
mod list_cache;
mod notifications;
mod options;
mod pages;
mod requests;
mod send;
mod server_requests;
mod session;
mod skills;
mod subscription;
mod tasks;
mod tool_headers;

use list_cache::ListCache;

use tool_headers::ToolHeaders;

pub use crate::transport::MessageDirection;
pub use notifications::ServerNotification;
pub use options::{ClientOptions, ElicitationHandler, EraMode, RootsHandler, SamplingHandler};
pub(crate) use send::Round;
pub use send::{Asker, CallOptions, LogCallback, ProgressCallback, MAX_INPUT_ROUNDS};
pub use subscription::Subscription;
pub use tasks::ToolTask;

use self::send::ProgressWatch;
use crate::connection::{read_loop, Connection};
use crate::error::{Error, Result};
use crate::protocol::{
    code, jsonrpc, meta, methods, DiscoverResult, Era, ErrorObject, Implementation, InitializeResult, LoggingLevel,
    ProtocolVersion, RequestId, ServerCapabilities, TASKS_EXTENSION,
};
use crate::transport::child::{ChildProcess, StdioCommand};
use crate::transport::{Envelope, Transport};

/// How many notifications may queue for a slow reader before it misses some.
const NOTIFICATION_CAPACITY: usize = 1024;

/// What the connection settled on.
#[derive(Debug, Clone)]
pub struct ServerDetails {
    /// The protocol version in use.
    pub protocol_version: ProtocolVersion,
    /// Who the server says it is.
    pub server_info: Option<Implementation>,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
    /// The server's guidance for the model.
    pub instructions: Option<String>,
}

/// What hears of a client's notifications beside its own listeners
/// ([`Client::follow_notifications`]).
pub(crate) type NotificationFollower = dyn Fn(&ServerNotification) + Send + Sync;

/// A connection to an MCP server. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

/// What the clones of a [`Client`] share.
struct ClientInner {
    connection: Arc<Connection>,
    options: ClientOptions,
    details: Mutex<Option<ServerDetails>>,
    notifications: broadcast::Sender<ServerNotification>,
    progress: Mutex<HashMap<RequestId, ProgressWatch>>,
    /// Where the pending requests that name one want their questions and log messages
    /// (see [`CallOptions::asker`] and [`CallOptions::on_log`]).
    relays: Mutex<HashMap<RequestId, send::Relay>>,
    /// How many `subscriptions/listen` requests are pending: they say nothing of their own,
    /// so a message no stream relates is not theirs (see `Client::relay_of`).
    listens: AtomicUsize,
    /// One permit per request of the server being answered.
    server_requests: Arc<Semaphore>,
    log_level: Mutex<Option<LoggingLevel>>,
    /// The legacy session over Streamable HTTP, begun again when the server forgot it.
    session: session::Session,
    resource_streams: Mutex<HashMap<String, Subscription>>,
    tool_headers: ToolHeaders,
    /// The lists kept while the server says they are fresh.
    lists: ListCache,
    /// Who else hears of each notification while they are there (a server proxying this
    /// one, [`Client::follow_notifications`]).
    followers: Mutex<Vec<Weak<NotificationFollower>>>,
    child: tokio::sync::Mutex<Option<ChildProcess>>,
    /// The capabilities every modern request declares, made once: the handlers', and the
    /// tasks extension unless turned off.
    modern_capabilities: Value,
}

impl Client {
    /// Connects over `transport` and settles the era as `options` say.
    pub async fn connect(transport: Transport, options: ClientOptions) -> Result<Client> {
        Self::connect_with_child(transport, options, None).await
    }

    /// Connects to a Streamable HTTP endpoint (an old server's HTTP+SSE endpoint works
    /// too: the transport falls back to it).
    #[cfg(feature = "http-client")]
    pub async fn connect_http(url: impl Into<String>, options: ClientOptions) -> Result<Client> {
        let transport =
            crate::transport::http::client::connect(crate::transport::http::client::HttpClientOptions::new(url))?;
        Self::connect(transport, options).await
    }

    /// Starts a server process and connects to it over its stdin and stdout.
    pub async fn spawn(command: StdioCommand, options: ClientOptions) -> Result<Client> {
        let (transport, child) = command.spawn()?;
        Self::connect_with_child(transport, options, Some(child)).await
    }

    async fn connect_with_child(
        transport: Transport,
        options: ClientOptions,
        child: Option<ChildProcess>,
    ) -> Result<Client> {
        let transport = match &options.observer {
            Some(observer) => transport.observed(Arc::clone(observer)),
            None => transport,
        };
        let (connection, incoming) = Connection::start(transport);
        let (notifications, _) = broadcast::channel(NOTIFICATION_CAPACITY);
        let server_requests = Arc::new(Semaphore::new(options.max_server_requests));
        let mut modern_capabilities = options.capabilities();
        // 2026-07-28 roots have no `listChanged`: servers ask for them on each request.
        if let Some(roots) = &mut modern_capabilities.roots {
            roots.list_changed = None;
        }
        if options.tasks {
            let tasks = Map::from_iter([(TASKS_EXTENSION.to_owned(), Value::Object(Map::new()))]);
            modern_capabilities.extensions = Some(tasks);
        }
        let client = Client {
            inner: Arc::new(ClientInner {
                connection,
                options,
                details: Mutex::new(None),
                notifications,
                progress: Mutex::new(HashMap::new()),
                relays: Mutex::new(HashMap::new()),
                listens: AtomicUsize::new(0),
                server_requests,
                log_level: Mutex::new(None),
                session: session::Session::default(),
                resource_streams: Mutex::new(HashMap::new()),
                tool_headers: ToolHeaders::default(),
                lists: ListCache::default(),
                followers: Mutex::new(Vec::new()),
                child: tokio::sync::Mutex::new(child),
                modern_capabilities: to_value(&modern_capabilities),
            }),
        };
        let reader = client.clone();
        client.inner.connection.spawn().detached(async move {
            let connection = Arc::clone(&reader.inner.connection);
            read_loop(&connection, incoming, |frame| reader.on_frame(frame)).await;
        });
        if let Err(e) = client.negotiate().await {
            let _ = client.close().await;
            return Err(e);
        }
        Ok(client)
    }

    /// What the connection settled on.
    pub fn server_details(&self) -> ServerDetails {
        lock(&self.inner.details).clone().expect("set before connect returns")
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.server_details().protocol_version
    }

    /// The protocol version in use, once the connection settled on one.
    fn settled_version(&self) -> Option<ProtocolVersion> {
        lock(&self.inner.details)
            .as_ref()
            .map(|details| details.protocol_version)
    }

    /// Notifications from the server (list changes, resource updates, log messages,
    /// progress), from now on.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.inner.notifications.subscribe()
    }

    /// Hands `follower` each notification from the server, in the read loop, for as long
    /// as someone else holds it: no task runs for it, and dropping it is all it takes to
    /// stop.
    pub(crate) fn follow_notifications(&self, follower: &Arc<NotificationFollower>) {
        let mut followers = lock(&self.inner.followers);
        followers.retain(|follower| follower.strong_count() > 0);
        followers.push(Arc::downgrade(follower));
    }

    /// Hands `notification` to the followers still there.
    fn tell_followers(&self, notification: &ServerNotification) {
        let followers: Vec<_> = lock(&self.inner.followers).iter().filter_map(Weak::upgrade).collect();
        for follower in followers {
            follower(notification);
        }
    }

    async fn negotiate(&self) -> Result<()> {
        let modern_error = match self.inner.options.era {
            EraMode::Legacy => return self.initialize(ProtocolVersion::LATEST_LEGACY).await,
            EraMode::Modern => return self.discover().await,
            EraMode::Auto => {
                let probe = tokio::time::timeout(self.inner.options.probe_timeout, self.discover()).await;
                match probe {
                    Ok(Ok(())) => return Ok(()),
                    Ok(Err(error)) => error,
                    Err(_) => Error::Timeout(self.inner.options.probe_timeout),
                }
            }
        };
        match modern_error {
            // A modern server that does not speak our modern version: use a legacy one
            // it lists, never a blind fallback.
            Error::Remote(ErrorObject {
                code: code::UNSUPPORTED_PROTOCOL_VERSION,
                data,
                ..
            }) => {
                let supported: Vec<String> = data
                    .and_then(|d| d.get("supported").cloned())
                    .and_then(|s| serde_json::from_value(s).ok())
                    .unwrap_or_default();
                let legacy = supported
                    .iter()
                    .filter_map(|v| ProtocolVersion::parse(v))
                    .filter(|v| v.era() == Era::Legacy)
                    .max()
                    .ok_or_else(|| {
                        Error::Protocol(format!("the server supports none of our versions: {supported:?}"))
                    })?;
                self.initialize(legacy).await
            }
            Error::ConnectionClosed => Err(Error::ConnectionClosed),
            _ => self.initialize(ProtocolVersion::LATEST_LEGACY).await,
        }
    }

    /// `server/discover`; when the server rejects our version but lists a modern version
    /// we speak, one more try with that one.
    async fn discover(&self) -> Result<()> {
        match self.discover_at(ProtocolVersion::LATEST).await {
            Err(Error::Remote(error)) if error.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
                let mutual = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().and_then(ProtocolVersion::parse))
                    .filter(|v| v.era() == Era::Modern)
                    .max();
                match mutual {
                    Some(version) => self.discover_at(version).await,
                    None => Err(Error::Remote(error)),
                }
            }
            other => other,
        }
    }

    async fn discover_at(&self, version: ProtocolVersion) -> Result<()> {
        let mut params = self.modern_params(Map::new(), version, None);
        let raw = self
            .send_request(
                methods::DISCOVER,
                &mut params,
                &CallOptions::default(),
                Some(version),
                &[],
            )
            .await?;
        let result: DiscoverResult = decode(&raw)?;
        if !result.supported_versions.iter().any(|v| v == version.as_str()) {
            return Err(Error::Remote(ErrorObject::unsupported_protocol_version(
                version.as_str(),
                &result.supported_versions.iter().map(String::as_str).collect::<Vec<_>>(),
            )));
        }
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(meta::SERVER_INFO))
            .and_then(|info| serde_json::from_value(info.clone()).ok());
        *lock(&self.inner.details) = Some(ServerDetails {
            protocol_version: version,
            server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
        });
        Ok(())
    }

    async fn initialize(&self, version: ProtocolVersion) -> Result<()> {
        let params = serde_json::json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.inner.options.capabilities(),
            "clientInfo": self.inner.options.info,
        });
        let Value::Object(mut params) = params else {
            unreachable!("an object literal")
        };
        let raw = self
            .send_request(methods::INITIALIZE, &mut params, &CallOptions::default(), None, &[])
            .await?;
        let result: InitializeResult = decode(&raw)?;
        let negotiated = ProtocolVersion::parse(&result.protocol_version)
            .filter(|v| v.era() == Era::Legacy)
            .ok_or_else(|| {
                Error::Protocol(format!(
                    "the server chose an unsupported version: {}",
                    result.protocol_version
                ))
            })?;
        *lock(&self.inner.details) = Some(ServerDetails {
            protocol_version: negotiated,
            server_info: Some(result.server_info),
            capabilities: result.capabilities,
            instructions: result.instructions,
        });
        let text = jsonrpc::notification_text(methods::INITIALIZED, None::<&()>);
        self.inner
            .connection
            .send_described(text, || Envelope::notification(methods::INITIALIZED, Some(negotiated)))
            .await
    }

    /// `_meta` of a modern request, merged into its params.
    fn modern_params(
        &self,
        mut params: Map<String, Value>,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
    ) -> Map<String, Value> {
        let options = &self.inner.options;
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(meta::PROTOCOL_VERSION.into(), version.as_str().into());
            meta.insert(meta::CLIENT_CAPABILITIES.into(), self.inner.modern_capabilities.clone());
            meta.insert(meta::CLIENT_INFO.into(), to_value(&options.info));
            if let Some(level) = log_level {
                meta.insert(meta::LOG_LEVEL.into(), to_value(&level));
            }
        }
        params
    }

    /// Resolves once the connection is over: the server went away (a server process
    /// exited, its pipe or stream ended) or [`close`](Self::close) was called. Over
    /// Streamable HTTP, where each request goes out on its own, it ends when closed: a
    /// server that restarted is reached by the next request (in the legacy era, in a new
    /// session the client begins).
    pub async fn closed(&self) {
        self.inner.connection.ended().await;
    }

    /// Closes the connection; for a spawned server, shuts the process down (close stdin,
    /// wait, SIGTERM, wait, SIGKILL).
    pub async fn close(&self) -> Result<()> {
        self.inner.connection.shutdown().await;
        if let Some(child) = self.inner.child.lock().await.take() {
            child.shutdown().await?;
        }
        Ok(())
    }
}

/// A result as `T`; one that does not fit is the server's error.
fn decode<T: DeserializeOwned>(raw: &RawValue) -> Result<T> {
    serde_json::from_str(raw.get()).map_err(|e| Error::InvalidResponse(e.to_string()))
}

/// A value as JSON, for values whose serialization cannot fail.
fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Locks `mutex`, poisoned or not: no state behind these mutexes has an invariant a
/// panic could break.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
