//! [`HttpConfig`]: the settings of the HTTP endpoint, with safe defaults.

use std::sync::Arc;
use std::time::Duration;

use super::guard::Guard;
use crate::server::auth::ResourceServer;
use crate::state::EventStore;

/// Settings of the HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub(super) path: String,
    pub(super) guard: Guard,
    pub(super) body_limit: usize,
    pub(super) json_response: bool,
    pub(super) stateless: bool,
    pub(super) session_idle_timeout: Duration,
    pub(super) new_session_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) max_in_flight: usize,
    pub(super) header_read_timeout: Duration,
    pub(super) body_read_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) shutdown_timeout: Duration,
    pub(super) event_bytes_per_session: usize,
    pub(super) event_bytes_total: usize,
    pub(super) legacy_sse: bool,
    pub(super) events_kept: usize,
    pub(super) event_store: Option<Arc<dyn EventStore>>,
    pub(super) retry: Duration,
    pub(super) keep_alive: Duration,
    pub(super) cors_origins: Vec<String>,
    pub(super) auth: Option<ResourceServer>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            guard: Guard::default(),
            body_limit: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            json_response: false,
            stateless: false,
            session_idle_timeout: Duration::from_secs(30 * 60),
            new_session_timeout: Duration::from_secs(30),
            max_sessions: 10_000,
            max_in_flight: 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 1024,
            shutdown_timeout: Duration::from_secs(10),
            event_bytes_per_session: 8 * 1024 * 1024,
            event_bytes_total: 256 * 1024 * 1024,
            legacy_sse: false,
            events_kept: 1024,
            event_store: None,
            retry: Duration::from_secs(1),
            keep_alive: Duration::from_secs(15),
            cors_origins: Vec::new(),
            auth: None,
        }
    }
}

impl HttpConfig {
    /// The endpoint's path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The `Origin` values allowed to call (default: pages served from loopback hosts).
    /// Requests without `Origin` (not from a browser) always pass this check.
    pub fn allowed_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.guard.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The `Host` names accepted. The default, against DNS rebinding: `localhost`,
    /// `127.0.0.1`, `[::1]`; any name when [`bind_http`](crate::server::Server::bind_http)
    /// binds a non-loopback address (a remote server, reached by names it cannot know).
    /// An empty list accepts any host: only for servers behind a proxy that checks it.
    pub fn allowed_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> Self {
        self.guard.hosts = hosts.into_iter().map(Into::into).collect();
        self.guard.default_hosts = false;
        self
    }

    /// The largest request body accepted (default 4 MiB; larger gets 413).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Always answer with one JSON object, never SSE (notifications are then dropped).
    pub fn json_response(mut self, on: bool) -> Self {
        self.json_response = on;
        self
    }

    /// Legacy era without sessions: no `Mcp-Session-Id`, no GET stream.
    pub fn stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// How long an idle legacy session lives (default 30 minutes).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How long a session opened by `initialize` lives when the client sends nothing
    /// more (default 30 s; a client sends `notifications/initialized` at once), so that a
    /// flood of bare `initialize` requests cannot hold every session for long.
    pub fn new_session_timeout(mut self, timeout: Duration) -> Self {
        self.new_session_timeout = timeout;
        self
    }

    /// The most sessions at once, legacy Streamable HTTP and 2024-11-05 `/sse` together
    /// (default 10,000; past it `initialize` and `/sse` get 503).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// The most requests in flight at once outside sessions: every modern-era request,
    /// and legacy ones in stateless mode (default 1024; past it a request is answered
    /// with an error at once). Each session has its own cap, set with
    /// [`ServerBuilder::max_in_flight`](crate::server::ServerBuilder::max_in_flight).
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests;
        self
    }

    /// How long a client may take to send a request's headers, counted from when the
    /// connection is ready for the request (default 10 s). It also closes a kept-alive
    /// connection that stays idle this long. Bundled listener only.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body (default 30 s; past it 408).
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The most connections open at once (default 1024); further clients wait in the
    /// listen backlog until one closes. Bundled listener only.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// How long [`HttpServerHandle::shutdown`](super::HttpServerHandle::shutdown) lets
    /// requests in flight finish before it cancels them and closes their connections
    /// (default 10 s).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// How many bytes of SSE events a legacy session keeps for resumption (default
    /// 8 MiB; past it the oldest go first), and how many all sessions keep together
    /// (default 256 MiB; past it events are sent but not kept). Applies to the default
    /// in-memory log; a configured [`event_store`](Self::event_store) bounds itself.
    pub fn event_bytes_kept(mut self, per_session: usize, total: usize) -> Self {
        self.event_bytes_per_session = per_session;
        self.event_bytes_total = total;
        self
    }

    /// Also serve the deprecated HTTP+SSE transport of 2024-11-05 at `/sse` and
    /// `/messages` (default off).
    pub fn legacy_sse(mut self, on: bool) -> Self {
        self.legacy_sse = on;
        self
    }

    /// How many events each legacy SSE stream keeps for resumption (default 1024). A
    /// store set with [`event_store`](Self::event_store) keeps what it decides instead.
    pub fn events_kept(mut self, events: usize) -> Self {
        self.events_kept = events;
        self
    }

    /// Where legacy SSE streams log their events for resumption with `Last-Event-ID`
    /// (default: each session in its own memory, bounded by
    /// [`events_kept`](Self::events_kept)). A store shared by several endpoints, or kept
    /// outside the process, is set here.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use oxmcp::server::http::HttpConfig;
    /// use oxmcp::state::InMemoryEventStore;
    ///
    /// let config = HttpConfig::default().event_store(Arc::new(InMemoryEventStore::new(256)));
    /// ```
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(store);
        self
    }

    /// The reconnection delay suggested to clients in legacy SSE streams (default 1 s).
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// Makes the endpoint an OAuth resource server: every request needs an access token
    /// that `auth` accepts (see [`ResourceServer`]). Default: no tokens.
    pub fn auth(mut self, auth: ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Origins allowed by CORS; responses to them expose `Mcp-Session-Id`.
    pub fn cors_origins<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.cors_origins = origins.into_iter().map(Into::into).collect();
        self
    }
}
