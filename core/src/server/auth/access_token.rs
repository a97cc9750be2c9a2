//! [`AccessToken`]: what a verified token says about the caller.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A verified access token: who the caller is and what it may do. Handlers read it from
/// [`Context::access_token`](crate::server::Context::access_token).
///
/// A verifier builds one with [`AccessToken::from_claims`] (from a JWT's claims or an
/// introspection answer) or [`AccessToken::new`] and the setters. It serializes, and
/// deserializes, with its fields' names, for the language bindings, whose verifiers hand
/// their tokens over that way (the token included: `Debug` leaves it out).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct AccessToken {
    /// The token as the client sent it.
    pub token: String,
    /// Who issued it (`iss`).
    pub issuer: Option<String>,
    /// Whom it was issued for: the user, or the client itself (`sub`).
    pub subject: Option<String>,
    /// The client it was issued to (`client_id`, or `azp`).
    pub client_id: Option<String>,
    /// What it grants (`scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// The resources it is meant for (`aud`).
    pub audience: Vec<String>,
    /// When it expires, in seconds since the Unix epoch (`exp`).
    pub expires_at: Option<u64>,
    /// Every claim, as the verifier read them.
    pub claims: Map<String, Value>,
}

impl Default for AccessToken {
    fn default() -> Self {
        AccessToken::new(String::new())
    }
}

impl AccessToken {
    /// A token that says nothing yet about its caller.
    pub fn new(token: impl Into<String>) -> Self {
        AccessToken {
            token: token.into(),
            issuer: None,
            subject: None,
            client_id: None,
            scopes: Vec::new(),
            audience: Vec::new(),
            expires_at: None,
            claims: Map::new(),
        }
    }

    /// A token read from its claims (RFC 9068 for JWTs, RFC 7662 for introspection):
    /// `iss`, `sub`, `client_id` (or `azp`), `scope` (or an `scp` array), `aud` (a string
    /// or an array) and `exp`.
    pub fn from_claims(token: impl Into<String>, claims: Map<String, Value>) -> Self {
        let text = |key: &str| claims.get(key).and_then(Value::as_str).map(str::to_owned);
        let strings = |value: Option<&Value>| match value {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let scopes = match claims.get("scope") {
            Some(Value::String(scope)) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
            _ => strings(claims.get("scp")),
        };
        AccessToken {
            token: token.into(),
            issuer: text("iss"),
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            audience: strings(claims.get("aud")),
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// Sets the issuer.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the subject.
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets the client id.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the scopes granted.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the audience.
    pub fn audience<I: IntoIterator<Item = S>, S: Into<String>>(mut self, audience: I) -> Self {
        self.audience = audience.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the expiry, in seconds since the Unix epoch.
    pub fn expires_at(mut self, seconds: u64) -> Self {
        self.expires_at = Some(seconds);
        self
    }

    /// The JWK thumbprint a DPoP-bound token is bound to (`cnf.jkt`, RFC 9449 §6).
    pub fn bound_key_thumbprint(&self) -> Option<&str> {
        self.claims.get("cnf")?.get("jkt")?.as_str()
    }

    /// Who the caller is, for binding sessions and state to it.
    pub(crate) fn principal(&self) -> Principal {
        Principal {
            issuer: self.issuer.clone(),
            subject: self.subject.clone(),
            client_id: self.client_id.clone(),
        }
    }
}

/// The token itself stays out of logs.
impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessToken")
            .field("token", &"…")
            .field("issuer", &self.issuer)
            .field("subject", &self.subject)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("audience", &self.audience)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// Who made a request: the same issuer, subject and client, whatever token they use
/// today. A session or a sealed `requestState` made for one principal serves no other.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Principal {
    issuer: Option<String>,
    subject: Option<String>,
    client_id: Option<String>,
}

impl Principal {
    /// Whether `token` stands for this principal (compared in place: this runs for every
    /// request of a session).
    pub(crate) fn is(&self, token: &AccessToken) -> bool {
        self.issuer == token.issuer && self.subject == token.subject && self.client_id == token.client_id
    }

    /// A stable text of the principal, to seal into state (a JSON array of its parts).
    pub(crate) fn key(&self) -> String {
        serde_json::json!([self.issuer, self.subject, self.client_id]).to_string()
    }

    /// The principal whose [`key`](Self::key) is `key`.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn from_key(key: &str) -> Option<Principal> {
        let (issuer, subject, client_id) = serde_json::from_str(key).ok()?;
        Some(Principal {
            issuer,
            subject,
            client_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn claims_of_a_jwt_or_an_introspection_answer() {
        let token = AccessToken::from_claims(
            "t",
            claims(json!({
                "iss": "https://as", "sub": "alice", "azp": "app", "scope": "a  b",
                "aud": "https://rs/mcp", "exp": 2000000000, "cnf": {"jkt": "thumb"},
            })),
        );
        assert_eq!(token.issuer.as_deref(), Some("https://as"));
        assert_eq!(token.client_id.as_deref(), Some("app"));
        assert_eq!(token.scopes, ["a", "b"]);
        assert_eq!(token.audience, ["https://rs/mcp"]);
        assert_eq!(token.expires_at, Some(2_000_000_000));
        assert_eq!(token.bound_key_thumbprint(), Some("thumb"));
        let token = AccessToken::from_claims("t", claims(json!({"scp": ["x"], "aud": ["p", "q"], "client_id": "c"})));
        assert_eq!(
            (token.scopes, token.audience),
            (vec!["x".to_owned()], vec!["p".to_owned(), "q".to_owned()])
        );
        assert_eq!(token.client_id.as_deref(), Some("c"));
    }

    #[test]
    fn debug_output_hides_the_token() {
        let shown = format!("{:?}", AccessToken::new("secret-token").subject("alice"));
        assert!(!shown.contains("secret-token") && shown.contains("alice"), "{shown}");
    }

    #[test]
    fn principals_ignore_everything_but_who() {
        let alice = AccessToken::new("one").issuer("as").subject("alice").scopes(["a"]);
        let again = AccessToken::new("two").issuer("as").subject("alice").scopes(["b"]);
        assert_eq!(alice.principal(), again.principal());
        assert!(alice.principal().is(&again) && !alice.principal().is(&AccessToken::new("x").subject("alice")));
        assert_ne!(
            alice.principal(),
            AccessToken::new("x").issuer("as").subject("bob").principal()
        );
        assert_eq!(alice.principal().key(), r#"["as","alice",null]"#);
    }
}
