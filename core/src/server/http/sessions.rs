//! The table of legacy sessions: opening one for a valid `initialize`, finding one by its
//! `Mcp-Session-Id`, and reaping the idle ones (sooner those that never came back after
//! `initialize`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use http::{HeaderMap, StatusCode};

use super::endpoint::Endpoint;
use super::response::{header_str, Rejection};
use super::streams::{StreamHub, STANDALONE};
use crate::connection::Connection;
use crate::lock;
use crate::protocol::headers::names;
use crate::protocol::ErrorObject;
use crate::server::auth::Caller;
use crate::server::limits::Admission;
use crate::server::random_id;
use crate::server::session::Session;
use crate::transport::{Frame, Transport};

/// One legacy session.
pub(super) struct HttpSession {
    pub(super) session: Arc<Session>,
    pub(super) hub: Arc<StreamHub>,
    last_seen: Mutex<Instant>,
    /// Whether the client came back after `initialize`.
    confirmed: AtomicBool,
    forwarder: tokio::task::JoinHandle<()>,
    /// The session's place among the endpoint's `max_sessions`.
    _slot: Admission,
}

impl HttpSession {
    /// Whether the session is idle past its timeout: `idle_timeout`, and no more than
    /// `new_session_timeout` until the client comes back after `initialize`. A session with a
    /// stream being read or a request in flight is never idle.
    fn expired(&self, idle_timeout: Duration, new_session_timeout: Duration) -> bool {
        let timeout = if self.confirmed.load(Ordering::Relaxed) {
            idle_timeout
        } else {
            new_session_timeout.min(idle_timeout)
        };
        let idle = lock(&self.last_seen).elapsed();
        idle > timeout && !self.hub.has_reader() && !self.session.dispatcher().has_in_flight()
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.forwarder.abort();
        self.session.end();
    }
}

impl Endpoint {
    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        lock(&self.sessions)
    }

    /// A place for one more session (legacy or `/sse`): 503 when `max_sessions` are open
    /// or the endpoint is shutting down.
    pub(super) fn session_slot(&self) -> Result<Admission, Rejection> {
        let unavailable = |reason: &str| {
            Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorObject::invalid_request(reason.to_owned()),
            )
        };
        if self.closing.is_cancelled() {
            return Err(unavailable("the server is shutting down"));
        }
        self.session_quota
            .admit()
            .ok_or_else(|| unavailable("too many sessions; try again later"))
    }

    /// A new legacy session for an `initialize`, whose connection writes to its standalone
    /// stream; it joins the table with [`keep_session`](Self::keep_session) once its
    /// `initialize` succeeded.
    /// The session serves only `opener`'s principal.
    pub(super) fn new_session(&self, opener: Option<&Caller>) -> Result<(String, Arc<HttpSession>), Rejection> {
        let slot = self.session_slot()?;
        let id =
            random_id().map_err(|e| Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorObject::internal(e)))?;
        let hub = Arc::new(match &self.config.event_store {
            Some(store) => StreamHub::with_store(Arc::clone(store), id.clone()),
            None => StreamHub::new(self.log_limits.clone()),
        });
        let standalone = Arc::clone(&hub);
        let sink = futures::sink::unfold(standalone, |hub, text: String| async move {
            hub.push(STANDALONE, text, false).await;
            Ok::<_, std::io::Error>(hub)
        });
        let (connection, _) = Connection::start(silent_transport(sink));
        let session = Session::owned(self.server.clone(), connection, opener);
        let http_session = Arc::new(HttpSession {
            forwarder: session.forward_events(),
            session,
            hub,
            last_seen: Mutex::new(Instant::now()),
            confirmed: AtomicBool::new(false),
            _slot: slot,
        });
        Ok((id, http_session))
    }

    /// Puts a session whose `initialize` succeeded in the table.
    pub(super) fn keep_session(&self, id: String, session: Arc<HttpSession>) {
        *lock(&session.last_seen) = Instant::now();
        self.sessions().insert(id, session);
    }

    /// The session a legacy request of `caller` names: 400 without the header, 404 when
    /// unknown or opened by another principal.
    pub(super) fn find_session(
        &self,
        headers: &HeaderMap,
        caller: Option<&Caller>,
    ) -> Result<Arc<HttpSession>, Rejection> {
        let id = header_str(headers, names::SESSION_ID).ok_or_else(|| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("the Mcp-Session-Id header is missing"),
            )
        })?;
        let session = self
            .sessions()
            .get(id)
            .filter(|s| s.session.serves(caller))
            .cloned()
            .ok_or_else(|| {
                Rejection::new(
                    StatusCode::NOT_FOUND,
                    ErrorObject::invalid_request("unknown or ended session"),
                )
            })?;
        *lock(&session.last_seen) = Instant::now();
        session.confirmed.store(true, Ordering::Relaxed);
        Ok(session)
    }
}

/// A transport whose input never comes (requests arrive as HTTP requests instead).
pub(super) fn silent_transport(sink: impl futures::Sink<String, Error = std::io::Error> + Send + 'static) -> Transport {
    Transport::new(futures::stream::pending::<std::io::Result<Frame>>(), sink)
}

/// Ends the legacy sessions that have been idle longer than their timeout, until the
/// endpoint is gone.
pub(super) async fn reap_idle_sessions(endpoint: Weak<Endpoint>) {
    loop {
        let Some(period) = endpoint.upgrade().map(|e| {
            let shortest = e.config.session_idle_timeout.min(e.config.new_session_timeout);
            (shortest / 4).max(Duration::from_millis(50))
        }) else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let (idle_timeout, new_timeout) = (
            endpoint.config.session_idle_timeout,
            endpoint.config.new_session_timeout,
        );
        let idle: Vec<Arc<HttpSession>> = {
            let mut sessions = endpoint.sessions();
            let expired: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.expired(idle_timeout, new_timeout))
                .map(|(id, _)| id.clone())
                .collect();
            expired.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        if !idle.is_empty() {
            tracing::debug!(count = idle.len(), "reaped idle sessions");
        }
    }
}
