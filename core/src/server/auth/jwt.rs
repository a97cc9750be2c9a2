//! [`JwtVerifier`]: JWT access tokens (RFC 9068) checked against the authorization
//! server's keys.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::jwks::{KeySource, RemoteKeys};
use super::verifier::endpoint;
use super::{AccessToken, TokenVerifier, VerifyError};
use crate::BoxFuture;

/// The signature algorithms accepted: asymmetric only, so that a public key can never
/// serve as an HMAC secret, and never `none`.
const ALGORITHMS: [Algorithm; 4] = [Algorithm::RS256, Algorithm::PS256, Algorithm::ES256, Algorithm::EdDSA];

/// The default clock leeway for `exp` and `nbf`.
const LEEWAY: Duration = Duration::from_secs(30);
/// The default least time between two fetches of the JWKS.
const REFETCH_INTERVAL: Duration = Duration::from_secs(30);
/// How long a verified token is reused at most by default.
const CACHE_FOR: Duration = Duration::from_secs(5 * 60);

/// Checks JWT access tokens: signed with RS256, PS256, ES256 or EdDSA by a key of the
/// issuer's JWKS, issued by `issuer`, with `exp` in the future and `nbf` (when present) in
/// the past, within a small leeway.
///
/// The audience is checked by the endpoint against its resource URL (RFC 8707), so the
/// same rule covers every verifier; [`audience`](Self::audience) adds a check here.
///
/// A protected endpoint reuses a token that verified, keyed by its text, until it expires
/// or for 5 minutes at most ([`cache_for`](Self::cache_for)): checking a signature costs
/// far more than serving a small call, and a client sends the same token with each request.
///
/// ```
/// use oxmcp::server::auth::JwtVerifier;
///
/// let verifier = JwtVerifier::new("https://auth.example.com/jwks", "https://auth.example.com").unwrap();
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    keys: Arc<KeySource>,
    issuer: String,
    audience: Option<Vec<String>>,
    leeway: Duration,
    refetch_interval: Duration,
    cache_for: Duration,
}

impl JwtVerifier {
    /// Tokens of `issuer`, signed by keys fetched from `jwks_uri` (https, or http on a
    /// loopback host). Keys are cached for an hour and fetched again at once for a token
    /// that names a key the cache lacks, at most every 30 s.
    pub fn new(jwks_uri: &str, issuer: impl Into<String>) -> Result<Self, VerifyError> {
        let (url, http) = endpoint(jwks_uri, "JWKS")?;
        Ok(Self::with_source(
            KeySource::Remote(RemoteKeys::new(url, http)),
            issuer.into(),
        ))
    }

    /// Tokens of `issuer`, signed by one of the keys of `jwks`, a JWK Set (RFC 7517 §5)
    /// as JSON text.
    pub fn with_keys(jwks: &str, issuer: impl Into<String>) -> Result<Self, VerifyError> {
        let keys: JwkSet =
            serde_json::from_str(jwks).map_err(|e| VerifyError::invalid(format!("the JWK Set does not read: {e}")))?;
        Ok(Self::with_source(KeySource::Fixed(Arc::new(keys)), issuer.into()))
    }

    fn with_source(keys: KeySource, issuer: String) -> Self {
        JwtVerifier {
            inner: Arc::new(Inner {
                keys: Arc::new(keys),
                issuer,
                audience: None,
                leeway: LEEWAY,
                refetch_interval: REFETCH_INTERVAL,
                cache_for: CACHE_FOR,
            }),
        }
    }

    /// Also requires `aud` to name one of `audience`.
    pub fn audience<I: IntoIterator<Item = S>, S: Into<String>>(self, audience: I) -> Self {
        self.edit(|inner| inner.audience = Some(audience.into_iter().map(Into::into).collect()))
    }

    /// The clock skew tolerated on `exp` and `nbf` (default 30 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        self.edit(|inner| inner.leeway = leeway)
    }

    /// The least time between two fetches of the JWKS (default 30 s).
    pub fn refetch_interval(self, interval: Duration) -> Self {
        self.edit(|inner| inner.refetch_interval = interval)
    }

    /// How long a verified token is reused at most (default 5 minutes; zero: verify every
    /// time). A token signed by a key the issuer has since withdrawn is accepted this long
    /// at most.
    pub fn cache_for(self, duration: Duration) -> Self {
        self.edit(|inner| inner.cache_for = duration)
    }

    fn edit(mut self, change: impl FnOnce(&mut Inner)) -> Self {
        change(Arc::make_mut(&mut self.inner));
        self
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { inner.verify_signed(token).await })
    }

    fn issuer(&self) -> Option<&str> {
        Some(&self.inner.issuer)
    }

    fn reuse_for(&self) -> Duration {
        self.inner.cache_for
    }
}

impl Inner {
    async fn verify_signed(&self, token: String) -> Result<AccessToken, VerifyError> {
        let header = jsonwebtoken::decode_header(&token).map_err(|_| VerifyError::invalid("the token is not a JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(VerifyError::invalid(format!(
                "the {:?} algorithm is not accepted",
                header.alg
            )));
        }
        let keys = self.keys.keys(header.kid.as_deref(), self.refetch_interval).await?;
        let candidates: Vec<&Jwk> = keys
            .keys
            .iter()
            .filter(|jwk| signs_with(jwk, header.kid.as_deref(), header.alg))
            .collect();
        if candidates.is_empty() {
            return Err(VerifyError::invalid("no key of the issuer matches the token"));
        }
        let validation = self.validation(header.alg);
        let mut failure = VerifyError::invalid("the token's signature does not verify");
        for jwk in candidates {
            let Ok(key) = DecodingKey::from_jwk(jwk) else { continue };
            if key.family() != header.alg.family() {
                continue;
            }
            match jsonwebtoken::decode::<Map<String, Value>>(&token, &key, &validation) {
                Ok(data) => return Ok(AccessToken::from_claims(token, data.claims)),
                Err(error) if *error.kind() == ErrorKind::InvalidSignature => {}
                Err(error) => {
                    failure = refusal(error.kind());
                    break;
                }
            }
        }
        Err(failure)
    }

    fn validation(&self, algorithm: Algorithm) -> Validation {
        let mut validation = Validation::new(algorithm);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iss"]);
        match &self.audience {
            Some(audience) => {
                validation.set_audience(audience);
                validation.required_spec_claims.insert("aud".to_owned());
            }
            None => validation.validate_aud = false,
        }
        validation
    }
}

/// Whether `jwk` may have signed a token with key id `kid` and algorithm `alg`.
fn signs_with(jwk: &Jwk, kid: Option<&str>, alg: Algorithm) -> bool {
    let common = &jwk.common;
    let for_signing = !matches!(common.public_key_use, Some(ref usage) if *usage != PublicKeyUse::Signature);
    let same_kid = kid.is_none_or(|kid| common.key_id.as_deref() == Some(kid));
    let same_alg = common
        .key_algorithm
        .is_none_or(|declared| Algorithm::try_from(declared).is_ok_and(|declared| declared == alg));
    for_signing && same_kid && same_alg
}

/// What the client is told about a token that failed validation.
fn refusal(kind: &ErrorKind) -> VerifyError {
    VerifyError::invalid(match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".to_owned(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".to_owned(),
        ErrorKind::InvalidAudience => "the token is meant for another audience".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no {claim} claim"),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not match its key".to_owned(),
        _ => "the token is malformed".to_owned(),
    })
}
