//! Proof Key for Code Exchange with S256 (RFC 7636) and the random values of a flow.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::AuthError;

/// A PKCE pair: the verifier stays with the client, the challenge goes in the
/// authorization request.
///
/// ```
/// use oxmcp::client::auth::Pkce;
///
/// let pkce = Pkce::new().unwrap();
/// assert_eq!(pkce.verifier().len(), 43);
/// assert_eq!(pkce.challenge(), Pkce::challenge_of(pkce.verifier()));
/// ```
pub struct Pkce {
    verifier: String,
    challenge: String,
}

impl Pkce {
    /// A fresh pair from 32 random bytes.
    pub fn new() -> Result<Pkce, AuthError> {
        let verifier = random_string()?;
        let challenge = Pkce::challenge_of(&verifier);
        Ok(Pkce { verifier, challenge })
    }

    /// The code verifier, sent with the code to the token endpoint.
    pub fn verifier(&self) -> &str {
        &self.verifier
    }

    /// The S256 code challenge.
    pub fn challenge(&self) -> &str {
        &self.challenge
    }

    /// `BASE64URL(SHA256(verifier))`.
    pub fn challenge_of(verifier: &str) -> String {
        URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
    }
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

/// 32 random bytes, base64url-encoded: a PKCE verifier or a `state` value nobody can guess.
pub(crate) fn random_string() -> Result<String, AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| AuthError::Random(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            Pkce::challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn pairs_are_fresh_and_well_formed() {
        let a = Pkce::new().unwrap();
        let b = Pkce::new().unwrap();
        assert_ne!(a.verifier(), b.verifier());
        // RFC 7636 §4.1: 43 to 128 unreserved characters.
        assert!(a
            .verifier()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(a.challenge(), Pkce::challenge_of(a.verifier()));
    }
}
