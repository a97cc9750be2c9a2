//! Authenticated encryption of opaque state that travels through the client (the
//! `requestState` of multi round-trip requests).
//!
//! A sealed blob is `base64url(key id ‖ nonce ‖ ciphertext)`, XChaCha20-Poly1305 with
//! 24-byte random nonces. What the state is bound to (method, name, arguments) goes in as
//! associated data: it is checked, never stored, so state replayed on another request
//! fails to open.

use std::sync::{Arc, RwLock};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

const KEY_ID_LEN: usize = 4;
const NONCE_LEN: usize = 24;
/// The fewest bytes of a secret a key is derived from ([`SealingKey::from_secret`]).
pub const MIN_SECRET_LEN: usize = 32;

/// One 256-bit key and the id that names it in sealed blobs.
#[derive(Clone)]
pub struct SealingKey {
    id: [u8; KEY_ID_LEN],
    cipher: Arc<XChaCha20Poly1305>,
}

impl std::fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealingKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl SealingKey {
    /// A key from 32 secret bytes. Replicas given the same bytes open each other's state.
    pub fn from_bytes(secret: [u8; 32]) -> Self {
        // The id is derived from the key, so every replica names a shared key alike.
        let cipher = XChaCha20Poly1305::new(&secret.into());
        let id = cipher
            .encrypt(
                &XNonce::default(),
                Payload {
                    msg: &[],
                    aad: b"oxmcp key id",
                },
            )
            .map(|tag| [tag[0], tag[1], tag[2], tag[3]])
            .unwrap_or_default();
        SealingKey {
            id,
            cipher: Arc::new(cipher),
        }
    }

    /// A key from `secret`, at least [`MIN_SECRET_LEN`] bytes of randomness in any form
    /// (text too), for servers of `audience` (HKDF-SHA256, the audience in its info):
    /// replicas given the same secret and audience open each other's state, a server of
    /// another audience does not.
    pub fn from_secret(secret: &[u8], audience: &str) -> Result<Self, String> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(format!(
                "a request-state key needs at least {MIN_SECRET_LEN} bytes of secret randomness, not {}",
                secret.len()
            ));
        }
        let mut key = [0u8; 32];
        let info = [b"oxmcp/request-state/v1\0".as_slice(), audience.as_bytes()].concat();
        hkdf::Hkdf::<sha2::Sha256>::new(None, secret)
            .expand(&info, &mut key)
            .map_err(|e| e.to_string())?;
        Ok(Self::from_bytes(key))
    }

    /// A fresh random key.
    pub fn random() -> Result<Self, SealError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|_| SealError::NoRandomness)?;
        Ok(Self::from_bytes(secret))
    }
}

/// The environment variable that gives the request-state keys of a server that is not
/// given any: secrets of 32 bytes in base64url, separated by commas, the first one sealing
/// (see [`KeyRing::parse`]). Replicas without a shared store share their keys this way.
pub const REQUEST_STATE_KEYS_ENV: &str = "OXMCP_REQUEST_STATE_KEYS";

/// The keys that open sealed state; the first one seals. Rotate by putting a new key
/// first and keeping the old ones until their state has expired.
///
/// Clones share their keys: [`replace`](Self::replace) on one rotates them all (the
/// shared stores rotate a running server's keys so).
#[derive(Debug, Clone)]
pub struct KeyRing {
    keys: Arc<RwLock<Arc<[SealingKey]>>>,
}

/// Why state could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// Not base64, too short, sealed by an unknown key, tampered with, or bound to another
    /// request.
    #[error("the state is invalid or was not issued for this request")]
    Invalid,
    /// The operating system gave no randomness.
    #[error("no randomness available")]
    NoRandomness,
}

impl KeyRing {
    /// A ring whose first key seals and whose every key opens. Empty rings are not allowed.
    pub fn new(keys: Vec<SealingKey>) -> Option<Self> {
        (!keys.is_empty()).then(|| KeyRing {
            keys: Arc::new(RwLock::new(keys.into())),
        })
    }

    /// A ring of one fresh random key (state opens only in this process).
    pub fn random() -> Result<Self, SealError> {
        Ok(KeyRing {
            keys: Arc::new(RwLock::new(Arc::new([SealingKey::random()?]))),
        })
    }

    /// The ring of `text`: secrets of 32 bytes in base64url (padded or not), separated by
    /// commas, the first one sealing; what [`REQUEST_STATE_KEYS_ENV`] holds.
    pub fn parse(text: &str) -> Result<Self, String> {
        let keys = text
            .split(',')
            .map(str::trim)
            .filter(|secret| !secret.is_empty())
            .map(|secret| {
                let bytes = URL_SAFE_NO_PAD
                    .decode(secret.trim_end_matches('='))
                    .map_err(|_| "a request-state key is not base64url".to_owned())?;
                let secret: [u8; 32] = bytes
                    .try_into()
                    .map_err(|_| "a request-state key is not 32 bytes".to_owned())?;
                Ok(SealingKey::from_bytes(secret))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Self::new(keys).ok_or_else(|| "no request-state key given".to_owned())
    }

    /// Puts `keys` in place of the ring's, in every clone of it; false (and nothing
    /// changes) when `keys` is empty.
    pub fn replace(&self, keys: Vec<SealingKey>) -> bool {
        if keys.is_empty() {
            return false;
        }
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = keys.into();
        true
    }

    /// Whether the ring seals with `key`.
    pub fn seals_with(&self, key: &SealingKey) -> bool {
        self.keys()[0].id == key.id
    }

    /// Whether another clone of the ring is alive.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn is_shared(&self) -> bool {
        Arc::strong_count(&self.keys) > 1
    }

    fn keys(&self) -> Arc<[SealingKey]> {
        Arc::clone(&self.keys.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Seals `plaintext`, bound to `binding`.
    pub fn seal(&self, plaintext: &[u8], binding: &[u8]) -> Result<String, SealError> {
        let keys = self.keys();
        let key = &keys[0];
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|_| SealError::NoRandomness)?;
        let ciphertext = key
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad: binding,
                },
            )
            .map_err(|_| SealError::Invalid)?;
        let mut blob = Vec::with_capacity(KEY_ID_LEN + NONCE_LEN + ciphertext.len());
        blob.extend_from_slice(&key.id);
        blob.extend_from_slice(&nonce);
        blob.extend_from_slice(&ciphertext);
        Ok(URL_SAFE_NO_PAD.encode(blob))
    }

    /// Opens a blob this ring sealed for the same `binding`.
    pub fn open(&self, sealed: &str, binding: &[u8]) -> Result<Vec<u8>, SealError> {
        let blob = URL_SAFE_NO_PAD.decode(sealed).map_err(|_| SealError::Invalid)?;
        if blob.len() < KEY_ID_LEN + NONCE_LEN {
            return Err(SealError::Invalid);
        }
        let (id, rest) = blob.split_at(KEY_ID_LEN);
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let keys = self.keys();
        let key = keys.iter().find(|k| k.id == id).ok_or(SealError::Invalid)?;
        key.cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: binding,
                },
            )
            .map_err(|_| SealError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_what_it_sealed_for_the_same_binding_only() {
        let ring = KeyRing::random().unwrap();
        let sealed = ring.seal(b"state", b"tools/call\0book").unwrap();
        assert_eq!(ring.open(&sealed, b"tools/call\0book").unwrap(), b"state");
        assert_eq!(ring.open(&sealed, b"tools/call\0other"), Err(SealError::Invalid));
        assert_ne!(
            sealed,
            ring.seal(b"state", b"tools/call\0book").unwrap(),
            "nonces differ"
        );
    }

    #[test]
    fn keys_from_the_same_secret_and_audience_open_each_others_state() {
        let secret = b"a secret of thirty-two bytes or more";
        let ring = |audience| KeyRing::new(vec![SealingKey::from_secret(secret, audience).unwrap()]).unwrap();
        let sealed = ring("notes").seal(b"state", b"b").unwrap();
        assert_eq!(ring("notes").open(&sealed, b"b").unwrap(), b"state");
        assert_eq!(ring("other").open(&sealed, b"b"), Err(SealError::Invalid));
        assert!(SealingKey::from_secret(b"too short", "notes").is_err());
    }

    #[test]
    fn rejects_tampering_and_strangers() {
        let ring = KeyRing::random().unwrap();
        let sealed = ring.seal(b"state", b"b").unwrap();
        let mut bytes = URL_SAFE_NO_PAD.decode(&sealed).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        assert_eq!(ring.open(&URL_SAFE_NO_PAD.encode(bytes), b"b"), Err(SealError::Invalid));
        assert_eq!(ring.open("not base64!", b"b"), Err(SealError::Invalid));
        assert_eq!(KeyRing::random().unwrap().open(&sealed, b"b"), Err(SealError::Invalid));
    }

    #[test]
    fn rings_parse_from_text_and_rotate_in_every_clone() {
        let text = format!(
            "{}, {}=",
            URL_SAFE_NO_PAD.encode([1u8; 32]),
            URL_SAFE_NO_PAD.encode([2u8; 32])
        );
        let ring = KeyRing::parse(&text).unwrap();
        assert!(ring.seals_with(&SealingKey::from_bytes([1; 32])));
        let sealed = KeyRing::new(vec![SealingKey::from_bytes([2; 32])])
            .unwrap()
            .seal(b"s", b"b")
            .unwrap();
        assert_eq!(ring.open(&sealed, b"b").unwrap(), b"s", "every key opens");
        assert!(KeyRing::parse("").is_err());
        assert!(KeyRing::parse("c2hvcnQ").unwrap_err().contains("32 bytes"));
        assert!(KeyRing::parse("not base64!").unwrap_err().contains("base64url"));

        let clone = ring.clone();
        assert!(ring.replace(vec![SealingKey::from_bytes([3; 32])]));
        assert!(clone.seals_with(&SealingKey::from_bytes([3; 32])));
        assert_eq!(
            clone.open(&sealed, b"b"),
            Err(SealError::Invalid),
            "the old keys are gone"
        );
        assert!(!ring.replace(vec![]));
    }

    #[test]
    fn rotated_rings_open_old_state_and_shared_keys_work_across_replicas() {
        let old = SealingKey::from_bytes([7; 32]);
        let sealed = KeyRing::new(vec![old.clone()]).unwrap().seal(b"s", b"b").unwrap();
        let rotated = KeyRing::new(vec![SealingKey::from_bytes([8; 32]), old]).unwrap();
        assert_eq!(rotated.open(&sealed, b"b").unwrap(), b"s");
        let replica = KeyRing::new(vec![SealingKey::from_bytes([7; 32])]).unwrap();
        assert_eq!(replica.open(&sealed, b"b").unwrap(), b"s");
    }
}
