//! [`VerifiedTokens`]: tokens a verifier accepted, reused until they expire or for a while
//! at most, so that a client sending the same token with each request has it checked once
//! (a JWT's signature cost fifteen times a small call; introspection, a round trip).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::AccessToken;
use crate::lock;

/// How many tokens are kept at most.
const CAPACITY: usize = 10_000;

/// Tokens accepted lately, keyed by their text: only the very token that was checked is
/// found. (The text, not a digest of it: hashing a token with SHA-256 cost as much as the
/// rest of the check, and the accepted token holds its text anyway.)
#[derive(Clone, Default)]
pub(super) struct VerifiedTokens {
    accepted: Arc<Mutex<HashMap<Box<str>, Accepted>>>,
}

struct Accepted {
    token: AccessToken,
    until: Instant,
}

impl VerifiedTokens {
    /// `token`, accepted, while it may be reused.
    pub(super) fn get(&self, token: &str) -> Option<AccessToken> {
        lock(&self.accepted)
            .get(token)
            .filter(|accepted| accepted.until > Instant::now())
            .map(|accepted| accepted.token.clone())
    }

    /// Keeps `token`, accepted, for `longest` at most and not past its expiry. When full,
    /// the expired tokens go; when none has, the token is not kept.
    pub(super) fn keep(&self, token: &AccessToken, longest: Duration) {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let left = token
            .expires_at
            .map_or(longest, |exp| Duration::from_secs(exp.saturating_sub(now)).min(longest));
        if left.is_zero() {
            return;
        }
        let mut accepted = lock(&self.accepted);
        if accepted.len() >= CAPACITY {
            let now = Instant::now();
            accepted.retain(|_, kept| kept.until > now);
        }
        if accepted.len() < CAPACITY {
            let until = Instant::now() + left;
            accepted.insert(
                token.token.as_str().into(),
                Accepted {
                    token: token.clone(),
                    until,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn a_kept_token_is_found_by_its_own_text_only() {
        let tokens = VerifiedTokens::default();
        let token = AccessToken::new("abc").subject("alice").expires_at(now() + 60);
        tokens.keep(&token, Duration::from_secs(300));
        assert_eq!(tokens.get("abc").unwrap().subject.as_deref(), Some("alice"));
        assert!(tokens.get("abd").is_none());
    }

    #[test]
    fn an_expired_token_or_a_zero_lifetime_is_not_kept() {
        let tokens = VerifiedTokens::default();
        let expired = AccessToken::new("old").expires_at(now().saturating_sub(1));
        tokens.keep(&expired, Duration::from_secs(300));
        assert!(tokens.get("old").is_none());
        let fresh = AccessToken::new("new");
        tokens.keep(&fresh, Duration::ZERO);
        assert!(tokens.get("new").is_none());
    }
}
