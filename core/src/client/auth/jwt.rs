//! Signed JWTs (compact JWS with ES256) of the client: `private_key_jwt` client
//! assertions (RFC 7523 §2.2) and DPoP proofs (RFC 9449).

use std::time::{SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::pkce::random_string;
use super::AuthError;

/// How long a client assertion is valid.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// An ES256 (P-256) signing key of the client.
///
/// ```
/// use oxmcp::client::auth::SigningKey;
///
/// let key = SigningKey::generate().unwrap();
/// assert_eq!(key.public_jwk()["crv"], "P-256");
/// assert_eq!(key.thumbprint().len(), 43);
/// ```
pub struct SigningKey {
    pair: EcdsaKeyPair,
}

impl SigningKey {
    /// A fresh key, e.g. for DPoP proofs.
    pub fn generate() -> Result<SigningKey, AuthError> {
        EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING)
            .map(|pair| SigningKey { pair })
            .map_err(|_| AuthError::Key("a P-256 key could not be generated".into()))
    }

    /// A P-256 key from a PKCS#8 PEM document (`-----BEGIN PRIVATE KEY-----`).
    pub fn from_pkcs8_pem(pem: &str) -> Result<SigningKey, AuthError> {
        let body: String = pem
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with("-----"))
            .collect();
        let der = STANDARD
            .decode(body)
            .map_err(|_| AuthError::Key("the PEM document is not base64".into()))?;
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der)
            .map(|pair| SigningKey { pair })
            .map_err(|_| AuthError::Key("not a PKCS#8 P-256 private key".into()))
    }

    /// The public key as a JWK (RFC 7517), members in the order of RFC 7638.
    pub fn public_jwk(&self) -> Value {
        // An uncompressed point: 0x04, then X and Y, 32 bytes each.
        let point = self.pair.public_key().as_ref();
        let (x, y) = point
            .get(1..)
            .unwrap_or_default()
            .split_at(point.len().saturating_sub(1) / 2);
        json!({
            "crv": "P-256",
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        })
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638).
    pub fn thumbprint(&self) -> String {
        // serde_json keeps the members sorted, which is the order RFC 7638 hashes.
        let canonical = self.public_jwk().to_string();
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// `header.claims.signature`, with `alg` set to ES256 in `header`.
    pub(crate) fn sign(&self, mut header: Value, claims: &Value) -> Result<String, AuthError> {
        header["alg"] = json!("ES256");
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| AuthError::Key("signing failed".into()))?;
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }

    /// A `private_key_jwt` client assertion for `client_id` at the authorization server
    /// `issuer` (RFC 7523 §3: `iss` and `sub` the client, `aud` the issuer).
    pub(crate) fn client_assertion(&self, client_id: &str, issuer: &str) -> Result<String, AuthError> {
        let now = now_secs();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": issuer,
            "jti": random_string()?,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
        });
        self.sign(json!({ "typ": "JWT" }), &claims)
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use aws_lc_rs::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    use super::*;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn assertions_verify_with_the_public_key() {
        let key = SigningKey::generate().unwrap();
        let jwt = key.client_assertion("client", "https://as.example.com").unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(decode(parts[0])["alg"], "ES256");
        let claims = decode(parts[1]);
        assert_eq!(claims["iss"], "client");
        assert_eq!(claims["sub"], "client");
        assert_eq!(claims["aud"], "https://as.example.com");
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.pair.public_key().as_ref());
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .unwrap();
    }

    #[test]
    fn jwk_has_both_coordinates() {
        let jwk = SigningKey::generate().unwrap().public_jwk();
        for coordinate in ["x", "y"] {
            let bytes = URL_SAFE_NO_PAD.decode(jwk[coordinate].as_str().unwrap()).unwrap();
            assert_eq!(bytes.len(), 32);
        }
    }

    #[test]
    fn pem_that_is_no_key_is_refused() {
        assert!(SigningKey::from_pkcs8_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----").is_err());
        assert!(SigningKey::from_pkcs8_pem("not pem at all!").is_err());
    }
}
