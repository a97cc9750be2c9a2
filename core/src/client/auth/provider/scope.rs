//! Which scopes an authorization asks for (the MCP scope selection strategy).

use crate::client::auth::challenge::BearerChallenge;
use crate::client::auth::discovery::Discovered;
use crate::client::auth::token::Tokens;

/// The scope a client asks for when the server offers to issue refresh tokens.
const OFFLINE_ACCESS: &str = "offline_access";

/// The scopes to ask for (MCP scope selection strategy): the challenge's, together with
/// those granted before by the same server (a step-up keeps what it had); else all the
/// resource's `scopes_supported`; else none. `offline_access` is added when the grant
/// `may_refresh` (a user's authorization; a machine client asks anew instead) and the
/// authorization server offers it, so a refresh token can outlive the session.
pub(super) fn select_scope(
    challenge: &BearerChallenge,
    prior: Option<&Tokens>,
    discovered: &Discovered,
    may_refresh: bool,
) -> Option<String> {
    fn add<'a>(scopes: &mut Vec<&'a str>, scope: &'a str) {
        for s in scope.split_ascii_whitespace() {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
    }
    let mut scopes: Vec<&str> = Vec::new();
    match &challenge.scope {
        Some(challenged) => {
            if let Some(granted) = prior.and_then(|t| t.scope.as_deref()) {
                add(&mut scopes, granted);
            }
            add(&mut scopes, challenged);
        }
        None => {
            let supported = discovered
                .resource_metadata
                .as_ref()
                .and_then(|m| m.scopes_supported.as_ref());
            for scope in supported.into_iter().flatten() {
                add(&mut scopes, scope);
            }
        }
    }
    let offers_offline = discovered
        .server
        .scopes_supported
        .iter()
        .flatten()
        .any(|s| s == OFFLINE_ACCESS);
    if !scopes.is_empty() && offers_offline && may_refresh {
        add(&mut scopes, OFFLINE_ACCESS);
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::auth::discovery::{AuthorizationServerMetadata, ProtectedResourceMetadata};

    fn discovered(resource_scopes: Option<&[&str]>, server_scopes: Option<&[&str]>) -> Discovered {
        let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let prm: ProtectedResourceMetadata = serde_json::from_value(serde_json::json!({
            "resource": "https://mcp.example.com/mcp",
            "authorization_servers": ["https://as.example.com"],
            "scopes_supported": resource_scopes.map(strings),
        }))
        .unwrap();
        let server: AuthorizationServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example.com",
            "token_endpoint": "https://as.example.com/token",
            "scopes_supported": server_scopes.map(strings),
        }))
        .unwrap();
        Discovered {
            resource_metadata: Some(prm),
            server,
            published: true,
            resource: "https://mcp.example.com/mcp".into(),
        }
    }

    fn challenge(scope: Option<&str>) -> BearerChallenge {
        BearerChallenge {
            scope: scope.map(str::to_owned),
            ..BearerChallenge::default()
        }
    }

    fn granted(scope: &str) -> Tokens {
        Tokens {
            access_token: "a".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            scope: Some(scope.into()),
            expires_at: None,
            issuer: "https://as.example.com".into(),
            client: None,
        }
    }

    #[test]
    fn the_challenge_wins_over_scopes_supported() {
        let d = discovered(Some(&["a", "b"]), None);
        assert_eq!(
            select_scope(&challenge(Some("c")), None, &d, true).as_deref(),
            Some("c")
        );
        assert_eq!(select_scope(&challenge(None), None, &d, true).as_deref(), Some("a b"));
        assert_eq!(
            select_scope(&challenge(None), None, &discovered(None, None), true),
            None
        );
    }

    #[test]
    fn step_up_keeps_granted_scopes() {
        let d = discovered(Some(&["profile"]), None);
        let prior = granted("basic");
        assert_eq!(
            select_scope(&challenge(Some("write basic")), Some(&prior), &d, true).as_deref(),
            Some("basic write")
        );
    }

    #[test]
    fn offline_access_when_offered() {
        let d = discovered(Some(&["basic"]), Some(&["basic", "offline_access"]));
        assert_eq!(
            select_scope(&challenge(None), None, &d, true).as_deref(),
            Some("basic offline_access")
        );
        assert_eq!(
            select_scope(&challenge(None), None, &d, false).as_deref(),
            Some("basic"),
            "a machine client"
        );
        let d = discovered(None, Some(&["offline_access"]));
        assert_eq!(select_scope(&challenge(None), None, &d, true), None);
    }
}
