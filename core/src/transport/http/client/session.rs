//! The legacy session (`Mcp-Session-Id`): begun by an `initialize` answer, forgotten when
//! the server answers 404 for it, and ended with a DELETE when the transport closes.

use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use reqwest::Method;

use super::{Mode, Shared};
use crate::protocol::headers::names;

/// How long the DELETE of a session may take on close.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

impl Shared {
    /// A new legacy session begins (an `initialize` was answered).
    pub(super) fn start_session(&self, id: Option<HeaderValue>) {
        let mut state = self.state();
        state.session_id = id;
        state.session_lost = false;
        state.session_version = None;
        if let Some(listener) = state.listener.take() {
            listener.cancel();
        }
    }

    /// The server said the session is over (404): forget it, unless a newer one began.
    pub(super) fn session_gone(&self, sent: Option<&HeaderValue>) {
        let mut state = self.state();
        if state.session_id.as_ref() == sent {
            tracing::debug!("the server ended the session");
            state.session_id = None;
            state.session_lost = true;
            if let Some(listener) = state.listener.take() {
                listener.cancel();
            }
        }
    }

    /// Ends the transport: stops every stream and request, and ends the legacy session.
    pub(super) async fn close(&self) {
        self.closing.cancel();
        let (session, version, mode) = {
            let mut state = self.state();
            (
                state.session_id.take(),
                state.session_version.clone(),
                state.mode.clone(),
            )
        };
        let Some(session) = session.filter(|_| matches!(mode, Mode::Streamable)) else {
            return;
        };
        let mut protocol = vec![(HeaderName::from_static(names::SESSION_ID), session)];
        if let Some(version) = version {
            protocol.push((HeaderName::from_static(names::PROTOCOL_VERSION), version));
        }
        let request = self
            .http
            .delete(self.url.clone())
            .headers(self.headers(&Method::DELETE, &self.url, protocol).await);
        match tokio::time::timeout(DELETE_TIMEOUT, request.send()).await {
            Ok(Ok(response)) => tracing::debug!(status = %response.status(), "ended the session"),
            Ok(Err(e)) => tracing::debug!(error = %e, "ending the session failed"),
            Err(_) => tracing::debug!("ending the session timed out"),
        }
    }
}
