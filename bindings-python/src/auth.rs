//! Authorization for servers: the core's token verifiers as Python classes, and a Python
//! verifier (the facade's callable) as the core's [`TokenVerifier`].

use std::sync::Arc;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use oxmcp::server::auth::{
    AccessToken, IntrospectionVerifier as CoreIntrospectionVerifier, JwtVerifier as CoreJwtVerifier, TokenVerifier,
    VerifyError,
};
use oxmcp::BoxFuture;

use crate::event_loop::LoopSlot;
use crate::handler::PyHandler;
use crate::{convert, error, runtime};

/// JWT access tokens checked with the keys of the issuer's JWKS (see the core's
/// `JwtVerifier`).
#[pyclass(frozen, module = "oxmcp._native")]
pub struct JwtVerifier {
    core: CoreJwtVerifier,
}

#[pymethods]
impl JwtVerifier {
    /// Tokens of `issuer` signed by a key of `jwks_uri`; `audience` adds a check of `aud`
    /// (the endpoint checks it against its resource URL anyway); `leeway` in seconds.
    #[new]
    #[pyo3(signature = (jwks_uri, issuer, audience=None, leeway=None))]
    fn new(jwks_uri: &str, issuer: String, audience: Option<Vec<String>>, leeway: Option<f64>) -> PyResult<Self> {
        let mut core = CoreJwtVerifier::new(jwks_uri, issuer).map_err(invalid)?;
        if let Some(audience) = audience {
            core = core.audience(audience);
        }
        if let Some(leeway) = leeway {
            core = core.leeway(convert::seconds(leeway, "leeway")?);
        }
        Ok(JwtVerifier { core })
    }

    /// Checks `token` as a protected endpoint would, but for the resource URL: an
    /// awaitable of its fields (the core's `AccessToken`), or of None when it is refused;
    /// `OSError` when it cannot be checked now (the JWKS did not answer).
    fn verify<'py>(&self, py: Python<'py>, token: String) -> PyResult<Bound<'py, PyAny>> {
        verified(py, self.core.verify(token))
    }
}

/// What a core verifier made of a token, for Python: an awaitable of the token's fields,
/// or of None when it is refused; `OSError` when it could not be checked now.
fn verified<'py>(
    py: Python<'py>,
    verifying: BoxFuture<'static, Result<AccessToken, VerifyError>>,
) -> PyResult<Bound<'py, PyAny>> {
    runtime::future_into_py(py, async move {
        let verified = match verifying.await {
            Ok(token) => Some(token),
            Err(VerifyError::Invalid(_)) => None,
            Err(unavailable) => return Err(PyOSError::new_err(unavailable.to_string())),
        };
        runtime::attach(|py| convert::to_python(py, &verified).map(Bound::unbind))
            .unwrap_or_else(|| Err(error::exiting()))
    })
}

/// Tokens checked at the authorization server's introspection endpoint (RFC 7662).
#[pyclass(frozen, module = "oxmcp._native")]
pub struct IntrospectionVerifier {
    core: CoreIntrospectionVerifier,
}

#[pymethods]
impl IntrospectionVerifier {
    /// Asks `endpoint` as the client `client_id` with `client_secret` (HTTP Basic, or in
    /// the form with `client_secret_post`); `issuer` is the one whose tokens are accepted;
    /// answers are reused for `cache_for` seconds at most.
    #[new]
    #[pyo3(signature = (endpoint, client_id, client_secret, issuer=None, client_secret_post=false, cache_for=None))]
    fn new(
        endpoint: &str,
        client_id: String,
        client_secret: String,
        issuer: Option<String>,
        client_secret_post: bool,
        cache_for: Option<f64>,
    ) -> PyResult<Self> {
        let mut core = CoreIntrospectionVerifier::new(endpoint, client_id, client_secret).map_err(invalid)?;
        if let Some(issuer) = issuer {
            core = core.issuer(issuer);
        }
        if client_secret_post {
            core = core.client_secret_post();
        }
        if let Some(seconds) = cache_for {
            core = core.cache_for(convert::seconds(seconds, "cache_for")?);
        }
        Ok(IntrospectionVerifier { core })
    }

    /// Checks `token` at the introspection endpoint as a protected endpoint would, but for
    /// the resource URL: an awaitable of its fields, or of None when it is refused;
    /// `OSError` when it cannot be checked now (the endpoint did not answer).
    fn verify<'py>(&self, py: Python<'py>, token: String) -> PyResult<Bound<'py, PyAny>> {
        verified(py, self.core.verify(token))
    }
}

/// The verifier `object` stands for: a native one, or a callable `verify(token)` returning
/// an awaitable of the token (a dict of the core's `AccessToken` fields) or None, run on
/// the loop in `slot`.
pub fn verifier(object: &Bound<'_, PyAny>, slot: LoopSlot) -> Arc<dyn TokenVerifier> {
    if let Ok(jwt) = object.cast::<JwtVerifier>() {
        return Arc::new(jwt.get().core.clone());
    }
    if let Ok(introspection) = object.cast::<IntrospectionVerifier>() {
        return Arc::new(introspection.get().core.clone());
    }
    Arc::new(PyVerifier(PyHandler::new(object, slot)))
}

/// A verifier written in Python.
struct PyVerifier(PyHandler);

impl TokenVerifier for PyVerifier {
    fn verify(&self, token: String) -> BoxFuture<'static, Result<AccessToken, VerifyError>> {
        let argument = token.clone();
        let accepted = self.0.call::<Option<AccessToken>>("access token", move |py| {
            Ok(vec![argument.into_pyobject(py)?.into_any()])
        });
        Box::pin(async move {
            match accepted.await {
                // The token is the one presented, whatever the verifier says it was.
                Ok(Some(mut accepted)) => {
                    accepted.token = token;
                    Ok(accepted)
                }
                Ok(None) => Err(VerifyError::invalid("the token is not valid")),
                Err(error) => Err(VerifyError::unavailable(format!(
                    "the Python verifier failed: {error:?}"
                ))),
            }
        })
    }
}

fn invalid(error: VerifyError) -> PyErr {
    PyValueError::new_err(error.to_string())
}
