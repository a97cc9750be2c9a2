//! The legacy session over Streamable HTTP, begun again when the server no longer knows
//! it: a server that restarted answers 404 for the old session, and the spec has the
//! client send a new `initialize`. The request that found the session gone is sent again
//! in the new one (the server did not handle it), with the log level and the resource
//! subscriptions the old session held.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use super::{lock, to_value, CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::{methods, Era, ProtocolVersion};
use crate::transport::SESSION_EXPIRED_KEY;

/// What the client knows of its legacy session.
#[derive(Default)]
pub(super) struct Session {
    /// How many sessions were begun again: a request sent in an older one that finds it
    /// gone is only sent again, the new session already begun.
    renewals: AtomicU64,
    /// Held while a session is begun again, so that of the requests a restart failed only
    /// one begins the next.
    renewing: tokio::sync::Mutex<()>,
    /// The resources subscribed to, asked for again in a new session.
    subscriptions: std::sync::Mutex<BTreeSet<String>>,
}

impl Session {
    /// The session a request is sent in.
    pub(super) fn current(&self) -> u64 {
        self.renewals.load(Ordering::Acquire)
    }

    /// Notes that `uri` is subscribed to (`true`) or no longer (`false`).
    pub(super) fn note_subscription(&self, uri: &str, subscribed: bool) {
        let mut subscriptions = lock(&self.subscriptions);
        if subscribed {
            subscriptions.insert(uri.to_owned());
        } else {
            subscriptions.remove(uri);
        }
    }
}

impl Client {
    /// Whether `error`, the answer to `method` sent under `version`, says the legacy
    /// session is gone, so that a new one is begun and the request sent again.
    pub(super) fn renews_session(error: &Error, method: &str, version: Option<ProtocolVersion>) -> bool {
        let Error::Remote(error) = error else {
            return false;
        };
        let expired = error
            .data
            .as_ref()
            .and_then(|data| data.get(SESSION_EXPIRED_KEY))
            .is_some_and(|expired| expired == &Value::Bool(true));
        expired && method != methods::INITIALIZE && version.is_some_and(|version| version.era() == Era::Legacy)
    }

    /// Begins a new legacy session in the background, the transport having found the old
    /// one gone while no request was: its notifications (the GET stream) resume at once.
    pub(super) fn renew_session_now(&self) {
        let client = self.clone();
        let failed_in = self.inner.session.current();
        self.inner.connection.spawn().detached(async move {
            if let Err(error) = client.renew_session(failed_in).await {
                tracing::warn!(%error, "could not begin a new session");
            }
        });
    }

    /// Begins a new legacy session unless one was begun since session `failed_in`, and
    /// asks in it for what the old one held; the lists kept are forgotten (the server may
    /// offer others now).
    pub(super) async fn renew_session(&self, failed_in: u64) -> Result<()> {
        let session = &self.inner.session;
        let _renewing = session.renewing.lock().await;
        if session.current() != failed_in {
            return Ok(());
        }
        tracing::info!("the server no longer knows the session; beginning a new one");
        self.initialize(self.protocol_version()).await?;
        session.renewals.fetch_add(1, Ordering::AcqRel);
        self.inner.lists.forget_all();
        let options = CallOptions::default();
        let level = *lock(&self.inner.log_level);
        if let Some(level) = level {
            let params = Map::from_iter([("level".to_owned(), to_value(&level))]);
            self.request::<Value>(methods::LOGGING_SET_LEVEL, params, &options)
                .await?;
        }
        let subscriptions: Vec<String> = lock(&session.subscriptions).iter().cloned().collect();
        for uri in subscriptions {
            let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
            self.request::<Value>(methods::RESOURCES_SUBSCRIBE, params, &options)
                .await?;
        }
        Ok(())
    }
}
