//! DPoP (RFC 9449): proofs of possession of the client's key, at the token endpoint
//! (for a key-bound token) and on every request that presents the token.

use std::sync::Mutex;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use reqwest::header::HeaderValue;
use reqwest::{Method, Url};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::jwt::{now_secs, SigningKey};
use super::pkce::random_string;
use super::AuthError;

/// The header that carries a proof.
pub(crate) const DPOP: &str = "dpop";
/// The OAuth error of a server that wants a proof with its nonce.
pub(crate) const USE_DPOP_NONCE: &str = "use_dpop_nonce";
/// The proof algorithm the client signs with.
const ALGORITHM: &str = "ES256";

/// The client's DPoP key and the nonces the servers handed out.
pub(crate) struct Dpop {
    key: SigningKey,
    /// The authorization server's latest nonce (RFC 9449 §8).
    server_nonce: Mutex<Option<String>>,
    /// The MCP server's latest nonce (RFC 9449 §9).
    resource_nonce: Mutex<Option<String>>,
}

/// Whose nonce a proof carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Audience {
    AuthorizationServer,
    Resource,
}

impl Dpop {
    pub(crate) fn new(key: SigningKey) -> Dpop {
        Dpop {
            key,
            server_nonce: Mutex::new(None),
            resource_nonce: Mutex::new(None),
        }
    }

    /// Whether an authorization server whose metadata lists `algorithms` binds tokens
    /// to keys of this client's kind.
    pub(crate) fn supported_by(algorithms: Option<&[String]>) -> bool {
        algorithms.is_some_and(|algs| algs.iter().any(|a| a == ALGORITHM))
    }

    fn nonce(&self, audience: Audience) -> std::sync::MutexGuard<'_, Option<String>> {
        let slot = match audience {
            Audience::AuthorizationServer => &self.server_nonce,
            Audience::Resource => &self.resource_nonce,
        };
        // A plain value: a panic elsewhere cannot leave it half-written.
        slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers the nonce a server sent.
    pub(crate) fn set_nonce(&self, audience: Audience, nonce: String) {
        *self.nonce(audience) = Some(nonce);
    }

    /// A fresh proof for a request to `url` with `method`; `access_token` binds it to
    /// the token it accompanies (`ath`).
    pub(crate) fn proof(
        &self,
        method: &Method,
        url: &Url,
        access_token: Option<&str>,
        audience: Audience,
    ) -> Result<HeaderValue, AuthError> {
        let mut target = url.clone();
        // RFC 9449 §4.2: htu is the URI without query and fragment.
        target.set_query(None);
        target.set_fragment(None);
        let mut claims = json!({
            "jti": random_string()?,
            "htm": method.as_str(),
            "htu": target.as_str(),
            "iat": now_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = self.nonce(audience).clone() {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "jwk": self.key.public_jwk() });
        let proof = self.key.sign(header, &claims)?;
        HeaderValue::try_from(proof).map_err(|_| AuthError::Key("the proof is not a valid header value".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(proof: &HeaderValue) -> serde_json::Value {
        let payload = proof.to_str().unwrap().split('.').nth(1).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
    }

    #[test]
    fn proofs_are_fresh_and_bound() {
        let dpop = Dpop::new(SigningKey::generate().unwrap());
        let url = Url::parse("https://mcp.example.com/mcp?x=1#f").unwrap();
        let a = claims(
            &dpop
                .proof(&Method::POST, &url, Some("token"), Audience::Resource)
                .unwrap(),
        );
        let b = claims(&dpop.proof(&Method::POST, &url, None, Audience::Resource).unwrap());
        assert_ne!(a["jti"], b["jti"]);
        assert_eq!(a["htu"], "https://mcp.example.com/mcp");
        assert_eq!(a["htm"], "POST");
        assert_eq!(a["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"token")));
        assert!(b.get("ath").is_none() && b.get("nonce").is_none());
        dpop.set_nonce(Audience::Resource, "n1".into());
        let c = claims(&dpop.proof(&Method::GET, &url, None, Audience::Resource).unwrap());
        assert_eq!(c["nonce"], "n1");
        let d = claims(
            &dpop
                .proof(&Method::POST, &url, None, Audience::AuthorizationServer)
                .unwrap(),
        );
        assert!(d.get("nonce").is_none());
    }
}
