//! [`Admitted`]: the callers a protected endpoint admitted lately, keyed by the text of
//! their tokens, so that a client sending the same token with each request has it checked
//! once while its verifier allows ([`TokenVerifier::reuse_for`]): a JWT's signature costs
//! fifteen times a small call, introspection a round trip, and even a known token's checks
//! (its audience, its scopes widened, the caller built) a quarter of one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Caller, TokenVerifier};
use crate::lock;

/// How many callers are kept at most.
const CAPACITY: usize = 10_000;

/// Callers admitted lately, keyed by their token's text: only the very token that was
/// checked is found. (The text, not a digest of it: hashing a token with SHA-256 cost as
/// much as the rest of the check, and the caller holds its text anyway.) Hashed with
/// foldhash, randomly seeded, which costs a tenth of SipHash over a token: only tokens that
/// were verified get in, so nobody can fill the map with keys chosen to collide.
#[derive(Default)]
pub(crate) struct Admitted {
    callers: Mutex<HashMap<Box<str>, Kept, foldhash::fast::RandomState>>,
}

struct Kept {
    caller: Arc<Caller>,
    until: Instant,
}

impl Admitted {
    /// The caller admitted with `token`, while it may be reused.
    pub(crate) fn get(&self, token: &str) -> Option<Arc<Caller>> {
        lock(&self.callers)
            .get(token)
            .filter(|kept| kept.until > Instant::now())
            .map(|kept| Arc::clone(&kept.caller))
    }

    /// Keeps `caller` for as long as `verifier` lets its token be reused, and not past the
    /// token's expiry. When full, the expired ones go; when none has, it is not kept.
    pub(crate) fn keep(&self, caller: &Arc<Caller>, verifier: &dyn TokenVerifier) {
        let token = caller.token();
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let longest = verifier.reuse_for();
        let left = token
            .expires_at
            .map_or(longest, |exp| Duration::from_secs(exp.saturating_sub(now)).min(longest));
        if left.is_zero() {
            return;
        }
        let mut callers = lock(&self.callers);
        if callers.len() >= CAPACITY {
            let now = Instant::now();
            callers.retain(|_, kept| kept.until > now);
        }
        if callers.len() < CAPACITY {
            let kept = Kept {
                caller: Arc::clone(caller),
                until: Instant::now() + left,
            };
            callers.insert(token.token.as_str().into(), kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::server::auth::{AccessToken, VerifyError};
    use crate::BoxFuture;

    fn now() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
    }

    /// A verifier that lets what it accepted be reused for `0`.
    struct Reusing(Duration);

    impl TokenVerifier for Reusing {
        fn verify(&self, _token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
            Box::pin(async { Err(VerifyError::invalid("not asked")) })
        }

        fn reuse_for(&self) -> Duration {
            self.0
        }
    }

    fn caller(token: AccessToken) -> Arc<Caller> {
        Arc::new(Caller::new(token, BTreeSet::new(), false))
    }

    #[test]
    fn a_kept_caller_is_found_by_its_own_token_only() {
        let admitted = Admitted::default();
        let token = AccessToken::new("abc").subject("alice").expires_at(now() + 60);
        admitted.keep(&caller(token), &Reusing(Duration::from_secs(300)));
        assert_eq!(admitted.get("abc").unwrap().token().subject.as_deref(), Some("alice"));
        assert!(admitted.get("abd").is_none());
    }

    #[test]
    fn an_expired_token_or_a_verifier_that_allows_no_reuse_keeps_nothing() {
        let admitted = Admitted::default();
        let expired = AccessToken::new("old").expires_at(now().saturating_sub(1));
        admitted.keep(&caller(expired), &Reusing(Duration::from_secs(300)));
        assert!(admitted.get("old").is_none());
        admitted.keep(&caller(AccessToken::new("new")), &Reusing(Duration::ZERO));
        assert!(admitted.get("new").is_none());
    }
}
