//! The legacy session (`Mcp-Session-Id`): begun by an `initialize` answer (which also
//! settles the version sent from then on), forgotten when the server answers 404 for it,
//! and ended with a DELETE when the transport closes.

use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use reqwest::Method;

use serde::Deserialize;

use super::message::{result_of, FinalResponse, Outgoing};
use super::{Mode, Shared};
use crate::protocol::headers::names;
use crate::protocol::methods;

/// How long the DELETE of a session may take on close.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

impl Shared {
    /// Bookkeeping on a final response: the legacy version an `initialize` answer settled
    /// on, sent as `MCP-Protocol-Version` from then on.
    pub(super) fn learn_from(&self, message: &Outgoing, reply: &FinalResponse) {
        #[derive(Deserialize)]
        struct Initialized {
            #[serde(rename = "protocolVersion")]
            protocol_version: String,
        }
        if reply.error.is_some() || message.method() != methods::INITIALIZE {
            return;
        }
        if let Some(result) = result_of::<Initialized>(&reply.text) {
            self.state().negotiated_version = HeaderValue::from_str(&result.protocol_version).ok();
        }
    }

    /// A new legacy session begins (an `initialize` was answered).
    pub(super) fn start_session(&self, id: Option<HeaderValue>) {
        let mut state = self.state();
        state.session_id = id;
        state.negotiated_version = None;
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
                state.negotiated_version.clone(),
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
