//! DPoP on the resource server (RFC 9449 §7): a DPoP-bound token (`cnf.jkt`) comes with
//! a proof that the client holds its key, signed for this very request (method, URL,
//! token), fresh, used once, and carrying the server's nonce when it hands nonces out.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::server::random_id;

/// The algorithms a proof may be signed with (asymmetric only).
const ALGORITHMS: [Algorithm; 4] = [Algorithm::ES256, Algorithm::RS256, Algorithm::PS256, Algorithm::EdDSA];
/// Their names, as a DPoP challenge lists them.
pub(crate) const ALGORITHM_NAMES: &str = "ES256 RS256 PS256 EdDSA";
/// How old (by its `iat`) a proof may be, and how far in the future.
const MAX_AGE: Duration = Duration::from_secs(60);
const MAX_SKEW: Duration = Duration::from_secs(5);
/// How long a nonce is handed out before the next one; the one before stays good as long.
const NONCE_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// How many proof ids are remembered at most (each for `MAX_AGE` plus the skew).
const SEEN_CAPACITY: usize = 100_000;

/// Why a proof was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProofError {
    /// `invalid_dpop_proof`, with the reason.
    Invalid(String),
    /// `use_dpop_nonce`: the proof lacks the server's current nonce, sent with the refusal.
    UseNonce(String),
}

/// The state of DPoP checks of one endpoint: the proofs seen lately (against replay), and
/// the nonces when the endpoint requires them.
pub(crate) struct ProofChecker {
    seen: Mutex<HashMap<String, Instant>>,
    nonces: Option<Mutex<Nonces>>,
}

struct Nonces {
    current: String,
    previous: Option<String>,
    issued: Instant,
}

/// The claims of a proof (RFC 9449 §4.2).
#[derive(Deserialize)]
struct ProofClaims {
    jti: String,
    htm: String,
    htu: String,
    iat: u64,
    ath: Option<String>,
    nonce: Option<String>,
}

impl ProofChecker {
    /// A checker; with `nonces`, every proof must carry a nonce the server handed out.
    pub(crate) fn new(nonces: bool) -> Result<Self, String> {
        let nonces = match nonces {
            true => Some(Mutex::new(Nonces {
                current: random_id()?,
                previous: None,
                issued: Instant::now(),
            })),
            false => None,
        };
        Ok(ProofChecker {
            seen: Mutex::new(HashMap::new()),
            nonces,
        })
    }

    /// Checks `proof` for a request with `method` to `url` that presents `token`, bound
    /// to the key whose JWK SHA-256 thumbprint is `thumbprint`.
    pub(crate) fn check(
        &self,
        proof: &str,
        method: &str,
        url: &str,
        token: &str,
        thumbprint: &str,
    ) -> Result<(), ProofError> {
        let invalid = |reason: &str| ProofError::Invalid(reason.to_owned());
        let header = jsonwebtoken::decode_header(proof).map_err(|_| invalid("the DPoP proof is not a JWT"))?;
        if header.typ.as_deref() != Some("dpop+jwt") {
            return Err(invalid("the DPoP proof's typ is not dpop+jwt"));
        }
        if !ALGORITHMS.contains(&header.alg) {
            return Err(invalid("the DPoP proof's algorithm is not accepted"));
        }
        let jwk = header
            .jwk
            .as_ref()
            .ok_or_else(|| invalid("the DPoP proof has no jwk"))?;
        let key = DecodingKey::from_jwk(jwk).map_err(|_| invalid("the DPoP proof's jwk is not a public key"))?;
        if key.family() == AlgorithmFamily::Hmac || key.family() != header.alg.family() {
            return Err(invalid("the DPoP proof's jwk does not fit its algorithm"));
        }
        let mut validation = Validation::new(header.alg);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_aud = false;
        let claims = jsonwebtoken::decode::<ProofClaims>(proof, &key, &validation)
            .map_err(|_| invalid("the DPoP proof's signature or claims do not verify"))?
            .claims;
        let bound = jwk.thumbprint(ThumbprintHash::SHA256).ok();
        if bound.as_deref() != Some(thumbprint) {
            return Err(invalid(
                "the DPoP proof is signed with another key than the token is bound to",
            ));
        }
        if !claims.htm.eq_ignore_ascii_case(method) || !same_target(&claims.htu, url) {
            return Err(invalid("the DPoP proof is for another request"));
        }
        let hash = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
        if claims.ath.as_deref() != Some(hash.as_str()) {
            return Err(invalid("the DPoP proof is for another token"));
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let fresh = claims.iat + MAX_AGE.as_secs() >= now && claims.iat <= now + MAX_SKEW.as_secs();
        if !fresh {
            return Err(invalid("the DPoP proof is not fresh"));
        }
        self.check_nonce(claims.nonce.as_deref())?;
        self.first_use(claims.jti)
    }

    /// Accepts the current nonce and the one before it; otherwise the refusal hands out
    /// the current one, after rotating it if it is due.
    fn check_nonce(&self, nonce: Option<&str>) -> Result<(), ProofError> {
        let Some(nonces) = &self.nonces else { return Ok(()) };
        let mut nonces = nonces.lock().unwrap_or_else(|e| e.into_inner());
        if nonces.issued.elapsed() >= NONCE_LIFETIME {
            // Without randomness the current nonce stays: a fixed one would be replayable.
            if let Ok(next) = random_id() {
                nonces.previous = Some(std::mem::replace(&mut nonces.current, next));
                nonces.issued = Instant::now();
            }
        }
        match nonce {
            Some(nonce) if nonce == nonces.current || Some(nonce) == nonces.previous.as_deref() => Ok(()),
            _ => Err(ProofError::UseNonce(nonces.current.clone())),
        }
    }

    /// Refuses a proof id seen within its lifetime (a replay).
    fn first_use(&self, jti: String) -> Result<(), ProofError> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if seen.len() >= SEEN_CAPACITY {
            seen.retain(|_, until| *until > now);
        }
        if seen.get(&jti).is_some_and(|until| *until > now) {
            return Err(ProofError::Invalid("the DPoP proof was used before".into()));
        }
        if seen.len() >= SEEN_CAPACITY {
            return Err(ProofError::Invalid("too many DPoP proofs at once; try again".into()));
        }
        seen.insert(jti, now + MAX_AGE + MAX_SKEW);
        Ok(())
    }
}

/// Whether a proof's `htu` names `url`: the same URL without query and fragment (RFC 9449
/// §4.3), compared after parsing, so that the case of the scheme and host, and a default
/// port, do not matter.
fn same_target(htu: &str, url: &str) -> bool {
    let strip = |text: &str| {
        url::Url::parse(text).ok().map(|mut url| {
            url.set_query(None);
            url.set_fragment(None);
            url
        })
    };
    matches!((strip(htu), strip(url)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_compare_as_urls_without_query() {
        assert!(same_target("HTTPS://RS.example:443/mcp?x=1", "https://rs.example/mcp"));
        assert!(!same_target("https://rs.example/other", "https://rs.example/mcp"));
        assert!(!same_target("not a url", "https://rs.example/mcp"));
    }

    #[test]
    fn nonces_rotate_and_the_last_one_stays_good() {
        let checker = ProofChecker::new(true).unwrap();
        let Err(ProofError::UseNonce(first)) = checker.check_nonce(None) else {
            panic!("a proof without the nonce is sent back for it")
        };
        assert_eq!(
            checker.check_nonce(Some("guess")),
            Err(ProofError::UseNonce(first.clone())),
            "the same within its lifetime"
        );
        assert!(checker.check_nonce(Some(&first)).is_ok());
        assert!(ProofChecker::new(false).unwrap().check_nonce(None).is_ok());
    }

    #[test]
    fn a_proof_id_is_used_once() {
        let checker = ProofChecker::new(false).unwrap();
        assert!(checker.first_use("a".into()).is_ok());
        assert!(checker.first_use("a".into()).is_err());
        assert!(checker.first_use("b".into()).is_ok());
    }
}
