//! How a client connects: its identity, era preference, timeouts and the handlers that
//! answer the server's requests.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorObject, Implementation, ListRootsResult, RootsCapability, SamplingCapability,
};
use crate::BoxFuture;

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
}

impl ClientOptions {
    /// A client with this name and version, era `Auto`, and a 60 s request timeout.
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
        }
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

    /// Answers roots requests.
    pub fn on_roots(mut self, handler: impl RootsHandler) -> Self {
        self.roots = Some(Arc::new(handler));
        self
    }

    /// The capabilities the registered handlers imply.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let empty = || Some(Default::default());
        ClientCapabilities {
            roots: self.roots.as_ref().map(|_| RootsCapability::default()),
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
