//! [`Caller`]: who made a request to a protected endpoint, and what it may use.

use std::collections::BTreeSet;

use super::AccessToken;

/// The verified caller of a request to a protected HTTP endpoint: its token, the scopes
/// it holds (the token's, widened by the server's scope hierarchy), and whether lists show
/// it only what those scopes permit.
#[derive(Debug)]
pub(crate) struct Caller {
    token: AccessToken,
    granted: BTreeSet<String>,
    lists_only_permitted: bool,
}

// Only protected HTTP endpoints make callers.
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
impl Caller {
    pub(crate) fn new(token: AccessToken, granted: BTreeSet<String>, lists_only_permitted: bool) -> Self {
        Caller {
            token,
            granted,
            lists_only_permitted,
        }
    }

    /// The caller a host authenticated itself: granted what its token's scopes say.
    pub(crate) fn vouched_for(token: &AccessToken) -> Self {
        Caller::new(token.clone(), token.scopes.iter().cloned().collect(), false)
    }

    /// The caller's verified access token.
    pub(crate) fn token(&self) -> &AccessToken {
        &self.token
    }

    /// The scopes of `needed` the caller lacks.
    pub(crate) fn missing<'a>(&self, needed: &'a [String]) -> Vec<&'a str> {
        needed
            .iter()
            .map(String::as_str)
            .filter(|scope| !self.granted.contains(*scope))
            .collect()
    }

    /// Whether the caller holds every scope of `needed`.
    pub(crate) fn may_use(&self, needed: &[String]) -> bool {
        needed.iter().all(|scope| self.granted.contains(scope))
    }

    /// Whether lists show the caller only what its scopes permit (so that they differ from
    /// one caller to the next).
    pub(crate) fn lists_only_permitted(&self) -> bool {
        self.lists_only_permitted
    }
}
