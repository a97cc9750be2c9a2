//! The table of legacy sessions: opening one after `initialize`, finding one by its
//! `Mcp-Session-Id`, and reaping the idle ones.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use http::{HeaderMap, StatusCode};

use super::endpoint::Endpoint;
use super::response::{header_str, Rejection};
use super::streams::{StreamHub, STANDALONE};
use crate::connection::Connection;
use crate::protocol::headers::names;
use crate::protocol::ErrorObject;
use crate::server::session::Session;
use crate::transport::{Frame, Transport};

/// One legacy session.
pub(super) struct HttpSession {
    pub(super) session: Arc<Session>,
    pub(super) hub: Arc<StreamHub>,
    last_seen: Mutex<Instant>,
    forwarder: tokio::task::JoinHandle<()>,
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.forwarder.abort();
        self.session.end();
    }
}

impl Endpoint {
    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new legacy session whose connection writes to its standalone stream.
    pub(super) fn open_session(&self) -> Result<(String, Arc<HttpSession>), Rejection> {
        if self.sessions().len() >= self.config.max_sessions {
            return Err(Rejection::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorObject::internal("too many sessions"),
            ));
        }
        let id =
            random_id().map_err(|e| Rejection::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorObject::internal(e)))?;
        let hub = Arc::new(match &self.config.event_store {
            Some(store) => StreamHub::with_store(Arc::clone(store), id.clone()),
            None => StreamHub::new(self.config.events_kept),
        });
        let standalone = Arc::clone(&hub);
        let sink = futures::sink::unfold(standalone, |hub, text: String| async move {
            hub.push(STANDALONE, text, false).await;
            Ok::<_, std::io::Error>(hub)
        });
        let (connection, _) = Connection::start(silent_transport(sink));
        let session = Session::new(self.server.clone(), connection);
        let http_session = Arc::new(HttpSession {
            forwarder: session.forward_events(),
            session,
            hub,
            last_seen: Mutex::new(Instant::now()),
        });
        self.sessions().insert(id.clone(), Arc::clone(&http_session));
        Ok((id, http_session))
    }

    /// The session a legacy request names: 400 without the header, 404 when unknown.
    pub(super) fn find_session(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Rejection> {
        let id = header_str(headers, names::SESSION_ID).ok_or_else(|| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                ErrorObject::invalid_request("the Mcp-Session-Id header is missing"),
            )
        })?;
        let session = self.sessions().get(id).cloned().ok_or_else(|| {
            Rejection::new(
                StatusCode::NOT_FOUND,
                ErrorObject::invalid_request("unknown or ended session"),
            )
        })?;
        *session.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(session)
    }
}

/// A transport whose input never comes (requests arrive as HTTP requests instead).
pub(super) fn silent_transport(sink: impl futures::Sink<String, Error = std::io::Error> + Send + 'static) -> Transport {
    Transport::new(futures::stream::pending::<std::io::Result<Frame>>(), sink)
}

/// Ends the legacy sessions that have been idle longer than the configured timeout, until
/// the endpoint is gone.
pub(super) async fn reap_idle_sessions(endpoint: Weak<Endpoint>) {
    loop {
        let Some(period) = endpoint
            .upgrade()
            .map(|e| (e.config.session_idle_timeout / 4).max(Duration::from_millis(50)))
        else {
            return;
        };
        tokio::time::sleep(period).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let timeout = endpoint.config.session_idle_timeout;
        let idle: Vec<Arc<HttpSession>> = {
            let mut sessions = endpoint.sessions();
            let expired: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.last_seen.lock().unwrap_or_else(|e| e.into_inner()).elapsed() > timeout)
                .map(|(id, _)| id.clone())
                .collect();
            expired.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        if !idle.is_empty() {
            tracing::debug!(count = idle.len(), "reaped idle sessions");
        }
    }
}

/// A session id: 128 random bits as hex (visible ASCII, as the spec asks).
pub(super) fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
