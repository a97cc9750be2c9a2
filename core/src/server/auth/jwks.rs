//! The keys a [`JwtVerifier`](super::JwtVerifier) checks signatures with: given once, or
//! fetched from a JWKS URL, cached, and fetched again when a token names a key the cache
//! lacks (a rotation), at most once per interval so that tokens with made-up key ids
//! cannot make the server hammer the authorization server.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use reqwest::Url;

use super::VerifyError;
use crate::oauth::http::{get_json, Fetched};

/// How long fetched keys are used before they are fetched again.
const MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// Where the keys come from.
pub(super) enum KeySource {
    Fixed(Arc<JwkSet>),
    Remote(RemoteKeys),
}

impl KeySource {
    /// The keys to check a token with key id `kid` (the current ones, fetched again if
    /// they are stale or lack `kid` and the last fetch is older than `min_interval`).
    pub(super) async fn keys(&self, kid: Option<&str>, min_interval: Duration) -> Result<Arc<JwkSet>, VerifyError> {
        match self {
            KeySource::Fixed(keys) => Ok(Arc::clone(keys)),
            KeySource::Remote(remote) => remote.keys(kid, min_interval).await,
        }
    }
}

/// A JWKS URL and what was last fetched from it.
pub(super) struct RemoteKeys {
    url: Url,
    http: reqwest::Client,
    cached: RwLock<Option<Fetch>>,
    /// Held while fetching, so that concurrent requests wait for one fetch; when the
    /// last one started.
    fetching: tokio::sync::Mutex<Option<Instant>>,
}

struct Fetch {
    keys: Arc<JwkSet>,
    at: Instant,
}

impl RemoteKeys {
    pub(super) fn new(url: Url, http: reqwest::Client) -> Self {
        RemoteKeys {
            url,
            http,
            cached: RwLock::new(None),
            fetching: tokio::sync::Mutex::new(None),
        }
    }

    async fn keys(&self, kid: Option<&str>, min_interval: Duration) -> Result<Arc<JwkSet>, VerifyError> {
        if let Some(keys) = self.usable(kid) {
            return Ok(keys);
        }
        let mut last_attempt = self.fetching.lock().await;
        // Another request may have fetched meanwhile.
        if let Some(keys) = self.usable(kid) {
            return Ok(keys);
        }
        if last_attempt.is_some_and(|at| at.elapsed() < min_interval) {
            return self
                .cached()
                .ok_or_else(|| VerifyError::unavailable("the keys could not be fetched lately"));
        }
        *last_attempt = Some(Instant::now());
        let fetched = self.fetch().await;
        match fetched {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *self.cached.write().unwrap_or_else(|e| e.into_inner()) = Some(Fetch {
                    keys: Arc::clone(&keys),
                    at: Instant::now(),
                });
                Ok(keys)
            }
            // Stale keys beat none while the authorization server is away.
            Err(error) => self.cached().ok_or(error),
        }
    }

    /// The cached keys, if fresh and holding `kid`.
    fn usable(&self, kid: Option<&str>) -> Option<Arc<JwkSet>> {
        let cached = self.cached.read().unwrap_or_else(|e| e.into_inner());
        let fetch = cached.as_ref()?;
        let has_kid = kid.is_none_or(|kid| fetch.keys.find(kid).is_some());
        (fetch.at.elapsed() < MAX_AGE && has_kid).then(|| Arc::clone(&fetch.keys))
    }

    fn cached(&self) -> Option<Arc<JwkSet>> {
        let cached = self.cached.read().unwrap_or_else(|e| e.into_inner());
        cached.as_ref().map(|fetch| Arc::clone(&fetch.keys))
    }

    async fn fetch(&self) -> Result<JwkSet, VerifyError> {
        let unavailable = |e: &dyn std::fmt::Display| VerifyError::unavailable(format!("JWKS {}: {e}", self.url));
        match get_json::<JwkSet>(&self.http, &self.url).await {
            Ok(Fetched::Found(keys)) => Ok(keys),
            Ok(Fetched::Absent) => Err(unavailable(&"not found")),
            Err(e) => Err(unavailable(&e)),
        }
    }
}
