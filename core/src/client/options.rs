//! How a client connects: its identity, era preference, timeouts and the handlers that
//! answer the server's requests.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::ServerNotification;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorObject, Implementation, ListRootsResult, RootsCapability, SamplingCapability,
};
use crate::transport::{MessageDirection, MessageObserver};
use crate::BoxFuture;
#[cfg(doc)]
use crate::Error;

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraMode {
    /// Probe with `server/discover`; fall back to `initialize` when the server is legacy.
    #[default]
    Auto,
    /// Always the `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// Always per-request metadata (2026-07-28).
    Modern,
}

/// Answers the server's sampling requests.
pub trait SamplingHandler: Send + Sync + 'static {
    /// Produces a completion, or an error (code -1 when the user rejected the request).
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, ErrorObject>>;
}

/// Answers the server's elicitation requests.
pub trait ElicitationHandler: Send + Sync + 'static {
    /// Asks the user; returns what they did.
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'static, Result<ElicitResult, ErrorObject>>;
}

/// Answers the server's roots requests.
pub trait RootsHandler: Send + Sync + 'static {
    /// Lists the client's roots.
    fn list_roots(&self) -> BoxFuture<'static, Result<ListRootsResult, ErrorObject>>;
}

macro_rules! closure_handler {
    ($trait:ident, $method:ident, ($($arg:ident: $ty:ty),*), $out:ty) => {
        impl<F, Fut> $trait for F
        where
            F: Fn($($ty),*) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<$out, ErrorObject>> + Send + 'static,
        {
            fn $method(&self, $($arg: $ty),*) -> BoxFuture<'static, Result<$out, ErrorObject>> {
                Box::pin(self($($arg),*))
            }
        }
    };
}

closure_handler!(SamplingHandler, create_message, (params: CreateMessageRequestParams), CreateMessageResult);
closure_handler!(ElicitationHandler, elicit, (params: ElicitRequestParams), ElicitResult);
closure_handler!(RootsHandler, list_roots, (), ListRootsResult);

/// Options of a client connection.
#[derive(Clone)]
pub struct ClientOptions {
    pub(crate) info: Implementation,
    pub(crate) era: EraMode,
    pub(crate) timeout: Option<Duration>,
    pub(crate) probe_timeout: Duration,
    pub(crate) sampling: Option<Arc<dyn SamplingHandler>>,
    pub(crate) sampling_tools: bool,
    pub(crate) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(crate) elicitation_url: bool,
    pub(crate) roots: Option<Arc<dyn RootsHandler>>,
    pub(crate) max_list_pages: usize,
    pub(crate) max_server_requests: usize,
    pub(crate) max_sampling_per_round: usize,
    pub(crate) tasks: bool,
    pub(crate) cache_lists: bool,
    pub(crate) max_input_rounds: usize,
    pub(crate) observer: Option<MessageObserver>,
    pub(crate) listener: Option<NotificationListener>,
}

/// A callback the read loop hands each notification to, in order with the responses.
pub(crate) type NotificationListener = Arc<dyn Fn(&ServerNotification) + Send + Sync>;

impl ClientOptions {
    /// A client with this name and version, era `Auto`, a 60 s request timeout, and the
    /// limits that hold a hostile server back: 100 pages per listing, 16 of the server's
    /// requests answered at once, 8 sampling requests per `input_required` round, and
    /// [`MAX_INPUT_ROUNDS`](super::MAX_INPUT_ROUNDS) rounds per request.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientOptions {
            info: Implementation::new(name, version),
            era: EraMode::Auto,
            timeout: Some(Duration::from_secs(60)),
            probe_timeout: Duration::from_secs(5),
            sampling: None,
            sampling_tools: false,
            elicitation: None,
            elicitation_url: false,
            roots: None,
            max_list_pages: 100,
            max_server_requests: 16,
            max_sampling_per_round: 8,
            tasks: true,
            cache_lists: true,
            max_input_rounds: super::MAX_INPUT_ROUNDS,
            observer: None,
            listener: None,
        }
    }

    /// Shows `observer` every message of the connection, both ways, as its text (what an
    /// inspector lists; a debugging log).
    pub fn on_message(mut self, observer: impl Fn(MessageDirection, &str) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Hands `listener` each notification from the server as the read loop meets it: one
    /// sent before a response reaches `listener` before that response reaches its caller,
    /// which [`Client::notifications`] cannot promise (its receivers run as tasks of their
    /// own). The read loop waits for `listener`, so it should only queue the notification
    /// for its host (a binding's event loop), as a progress callback does.
    ///
    /// [`Client::notifications`]: crate::client::Client::notifications
    pub fn on_notification(mut self, listener: impl Fn(&ServerNotification) + Send + Sync + 'static) -> Self {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// Whether the client declares the 2026-07-28 tasks extension (default on): a server
    /// may then answer a tool call with a task, which [`Client::call_tool`] follows to its
    /// result (polling, answering what the task asks, cancelling it with the call).
    ///
    /// [`Client::call_tool`]: crate::client::Client::call_tool
    pub fn tasks(mut self, on: bool) -> Self {
        self.tasks = on;
        self
    }

    /// Which era to speak.
    pub fn era(mut self, era: EraMode) -> Self {
        self.era = era;
        self
    }

    /// The default timeout of every request (`None`: wait forever).
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the `Auto` probe waits before taking the server for legacy.
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Answers sampling requests; `with_tools` declares support for tools in them.
    pub fn on_sampling(mut self, handler: impl SamplingHandler, with_tools: bool) -> Self {
        self.sampling = Some(Arc::new(handler));
        self.sampling_tools = with_tools;
        self
    }

    /// Answers elicitation requests (form mode; `with_url` adds URL mode).
    pub fn on_elicitation(mut self, handler: impl ElicitationHandler, with_url: bool) -> Self {
        self.elicitation = Some(Arc::new(handler));
        self.elicitation_url = with_url;
        self
    }

    /// Answers roots requests, and declares `roots` (with `listChanged` to a legacy server:
    /// tell it with [`Client::notify_roots_list_changed`](super::Client::notify_roots_list_changed)).
    pub fn on_roots(mut self, handler: impl RootsHandler) -> Self {
        self.roots = Some(Arc::new(handler));
        self
    }

    /// How many pages the `list_all_*` helpers (and the re-listing of tools after a
    /// HeaderMismatch) follow at most (default 100, at least 1); a listing with more,
    /// or one whose server repeats a cursor, fails with [`Error::Protocol`].
    pub fn max_list_pages(mut self, pages: usize) -> Self {
        self.max_list_pages = pages.max(1);
        self
    }

    /// Whether the `list_all_*` helpers keep a full listing while the server says it is
    /// fresh (its `ttlMs`, SEP-2549) and the server has not said that list changed
    /// (default on); off, every call asks the server. [`Client::forget_lists`](super::Client::forget_lists)
    /// drops what is kept. A server that gives no TTL is asked each time either way.
    pub fn cache_lists(mut self, on: bool) -> Self {
        self.cache_lists = on;
        self
    }

    /// How many `input_required` rounds (2026-07-28) one request may take before the
    /// client gives up with [`Error::Protocol`] (default
    /// [`MAX_INPUT_ROUNDS`](super::MAX_INPUT_ROUNDS), at least 1).
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds.max(1);
        self
    }

    /// How many of the server's requests (legacy era: sampling, elicitation, roots,
    /// ping) are answered at once (default 16, at least 1). The server's requests beyond
    /// that are refused at once with a JSON-RPC error instead of waiting in the client.
    pub fn max_server_requests(mut self, requests: usize) -> Self {
        self.max_server_requests = requests.max(1);
        self
    }

    /// How many sampling requests one `input_required` round (2026-07-28) may ask for
    /// (default 8). A round that asks for more fails the request before any reaches the
    /// sampling handler.
    pub fn max_sampling_per_round(mut self, requests: usize) -> Self {
        self.max_sampling_per_round = requests;
        self
    }

    /// The capabilities the registered handlers imply.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let empty = || Some(Default::default());
        ClientCapabilities {
            roots: self.roots.as_ref().map(|_| RootsCapability {
                list_changed: Some(true),
            }),
            sampling: self.sampling.as_ref().map(|_| SamplingCapability {
                context: None,
                tools: if self.sampling_tools { empty() } else { None },
            }),
            elicitation: self.elicitation.as_ref().map(|_| ElicitationCapability {
                form: empty(),
                url: if self.elicitation_url { empty() } else { None },
            }),
            ..Default::default()
        }
    }
}
