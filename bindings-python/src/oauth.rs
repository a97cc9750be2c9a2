//! The OAuth client of the HTTP client (`Client.http(url, auth=OAuth(...))`): the core's
//! provider, with the user's trip through the browser left to Python callables.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use oxmcp::client::auth::{
    AssertionTarget, ClientCredentials, ClientMetadata, FileTokenStore, LoopbackRedirect, OAuthProvider, SigningKey,
    TextTokenStore,
};

use crate::event_loop::LoopSlot;
use crate::handler::PyHandler;
use crate::{error, runtime};

/// An OAuth client for one MCP server (see the core's `OAuthProvider`): it answers the
/// server's `401` and `403 insufficient_scope` by discovery, registration and a grant, and
/// keeps the tokens. Made into the core's provider on its first connection, whose loop
/// runs its callables; every later connection shares it (tokens, registrations).
#[pyclass(frozen, module = "oxmcp._native")]
pub struct OAuth {
    grant: Mutex<Option<Grant>>,
    client_metadata_url: Option<String>,
    pre_registered: Option<(String, ClientCredentials)>,
    token_file: Option<PathBuf>,
    storage: Option<Py<PyAny>>,
    dpop: bool,
    redirect_uri: Option<String>,
    provider: Mutex<Option<OAuthProvider>>,
}

/// How the provider gets its tokens, until it is made.
enum Grant {
    /// The system browser, back to a loopback listener: `open(url)` opens it.
    Loopback {
        client_name: String,
        redirect: LoopbackRedirect,
        open: Py<PyAny>,
    },
    /// The app takes the user there and back: `authorize(url)` gives the URL the browser
    /// came back to.
    Redirect {
        metadata: ClientMetadata,
        authorize: Py<PyAny>,
    },
    /// The client credentials grant, of a client pre-registered with an issuer.
    ClientCredentials((String, ClientCredentials)),
    /// The JWT bearer grant of a pre-registered client, with the assertions
    /// `assertion(target)` makes.
    JwtBearer {
        client: (String, ClientCredentials),
        assertion: Py<PyAny>,
    },
}

#[pymethods]
impl OAuth {
    /// `grant` is `authorization_code`, `client_credentials` or `jwt_bearer` (with
    /// `assertion(target)`, the target a dict of `issuer`, `resource` and `scope`, giving
    /// the assertion). For the code grant: the
    /// `client_name` registered; `authorize(url)` (sync or async) takes the user to `url`
    /// and returns the URL the browser came back to at `redirect_uri`; without it,
    /// `open_browser(url)` opens the browser and a listener on 127.0.0.1:`loopback_port`
    /// (0: any free port) receives the redirect. `issuer`, `client_id` and
    /// `client_secret` (or `private_key_pem`, for `private_key_jwt`) name a pre-registered
    /// client; `client_metadata_url` a client ID
    /// metadata document; `token_file` keeps tokens across runs, or `storage` (an object
    /// with `load()` and `save(text)`, sync or async) wherever the app keeps secrets;
    /// `dpop` binds them to a fresh key.
    #[new]
    #[pyo3(signature = (
        grant, client_name, *, authorize=None, redirect_uri=None, open_browser=None, loopback_port=0,
        issuer=None, client_id=None, client_secret=None, private_key_pem=None, assertion=None,
        client_metadata_url=None, token_file=None, storage=None, dpop=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        grant: &str,
        client_name: String,
        authorize: Option<Py<PyAny>>,
        redirect_uri: Option<String>,
        open_browser: Option<Py<PyAny>>,
        loopback_port: u16,
        issuer: Option<String>,
        client_id: Option<String>,
        client_secret: Option<String>,
        private_key_pem: Option<String>,
        assertion: Option<Py<PyAny>>,
        client_metadata_url: Option<String>,
        token_file: Option<PathBuf>,
        storage: Option<Py<PyAny>>,
        dpop: bool,
    ) -> PyResult<Self> {
        if token_file.is_some() && storage.is_some() {
            return Err(PyValueError::new_err("give token_file or storage, not both"));
        }
        let pre_registered = match (issuer, client_id) {
            (Some(issuer), Some(id)) => Some((issuer, credentials(id, client_secret, private_key_pem)?)),
            (None, None) if client_secret.is_none() && private_key_pem.is_none() => None,
            _ => {
                return Err(PyValueError::new_err(
                    "a pre-registered client needs issuer and client_id",
                ))
            }
        };
        let machine = || {
            pre_registered.clone().ok_or_else(|| {
                PyValueError::new_err(format!("{grant} needs a pre-registered client: issuer and client_id"))
            })
        };
        let grant = match (grant, authorize, redirect_uri.clone(), open_browser) {
            ("client_credentials", ..) => Grant::ClientCredentials(machine()?),
            ("jwt_bearer", ..) => Grant::JwtBearer {
                client: machine()?,
                assertion: assertion.ok_or_else(|| PyValueError::new_err("jwt_bearer needs an assertion"))?,
            },
            ("authorization_code", Some(authorize), Some(redirect_uri), _) => Grant::Redirect {
                metadata: ClientMetadata::new(client_name, redirect_uri),
                authorize,
            },
            ("authorization_code", Some(_), None, _) => {
                return Err(PyValueError::new_err(
                    "authorize needs the redirect_uri it comes back to",
                ))
            }
            ("authorization_code", None, _, Some(open)) => {
                let redirect = LoopbackRedirect::bind(loopback_port)
                    .map_err(|e| PyOSError::new_err(format!("no loopback listener on port {loopback_port}: {e}")))?;
                Grant::Loopback {
                    client_name,
                    redirect,
                    open,
                }
            }
            (other, ..) => return Err(PyValueError::new_err(format!("unknown grant {other:?}"))),
        };
        let redirect_uri = match &grant {
            Grant::Loopback { redirect, .. } => Some(redirect.redirect_uri().to_owned()),
            _ => redirect_uri,
        };
        Ok(OAuth {
            grant: Mutex::new(Some(grant)),
            client_metadata_url,
            pre_registered,
            token_file,
            storage,
            dpop,
            redirect_uri,
            provider: Mutex::new(None),
        })
    }

    /// The redirect URI the client registers (the loopback listener's, when it has one).
    #[getter]
    fn redirect_uri(&self) -> Option<&str> {
        self.redirect_uri.as_deref()
    }
}

impl OAuth {
    /// The core's provider: made now, its callables run on the loop in `slot`, or the one
    /// made for an earlier connection.
    pub fn provider(&self, py: Python<'_>, slot: &LoopSlot) -> PyResult<OAuthProvider> {
        let mut made = self.provider.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(provider) = made.as_ref() {
            return Ok(provider.clone());
        }
        // What may fail comes first: once taken, the grant cannot be taken again.
        let store = self
            .storage
            .as_ref()
            .map(|storage| text_store(storage.bind(py), slot))
            .transpose()?;
        let dpop_key = self
            .dpop
            .then(SigningKey::generate)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let grant = self.grant.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut provider = match grant {
            Some(Grant::Loopback {
                client_name,
                redirect,
                open,
            }) => {
                let open = PyHandler::new(open.bind(py), slot.clone());
                OAuthProvider::loopback(client_name, redirect, move |url| {
                    let opened = open.answer(move |py| Ok(vec![url.as_str().into_pyobject(py)?.into_any()]));
                    async move {
                        opened
                            .await
                            .map(drop)
                            .map_err(|e| format!("open_browser failed: {e:?}"))
                    }
                })
            }
            Some(Grant::Redirect { metadata, authorize }) => {
                let authorize = PyHandler::new(authorize.bind(py), slot.clone());
                OAuthProvider::authorization_code(metadata, move |url| {
                    let came_back = authorize.call::<String>("redirect URL", move |py| {
                        Ok(vec![url.as_str().into_pyobject(py)?.into_any()])
                    });
                    async move { came_back.await.map_err(|e| format!("authorize failed: {e:?}")) }
                })
            }
            Some(Grant::ClientCredentials((issuer, credentials))) => {
                OAuthProvider::client_credentials(issuer, credentials)
            }
            Some(Grant::JwtBearer {
                client: (issuer, credentials),
                assertion,
            }) => {
                let assertion = PyHandler::new(assertion.bind(py), slot.clone());
                OAuthProvider::jwt_bearer(issuer, credentials, move |target| {
                    let made = assertion.call::<String>("assertion", move |py| {
                        let fields = PyDict::new(py);
                        fields.set_item("issuer", &target.issuer)?;
                        fields.set_item("resource", &target.resource)?;
                        fields.set_item("scope", &target.scope)?;
                        Ok(vec![fields.into_any()])
                    });
                    async move { made.await.map_err(|e| format!("assertion failed: {e:?}")) }
                })
            }
            None => unreachable!("the grant is taken once, under the provider's lock, when nothing can fail"),
        };
        // (Again for the machine grants: the same issuer, the same credentials.)
        if let Some((issuer, credentials)) = self.pre_registered.clone() {
            provider = provider.pre_registered(issuer, credentials);
        }
        if let Some(url) = &self.client_metadata_url {
            provider = provider.client_metadata_url(url);
        }
        if let Some(path) = &self.token_file {
            provider = provider.token_store(FileTokenStore::new(path));
        }
        if let Some(store) = store {
            provider = provider.token_store(store);
        }
        if let Some(key) = dpop_key {
            provider = provider.dpop(key);
        }
        *made = Some(provider.clone());
        Ok(provider)
    }
}

/// A pre-registered client's credentials: its id, with a secret or a private key.
fn credentials(id: String, secret: Option<String>, private_key_pem: Option<String>) -> PyResult<ClientCredentials> {
    ClientCredentials::from_settings(id, secret, private_key_pem.as_deref())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Asks the identity provider's token endpoint for an ID-JAG (an identity assertion for
/// `issuer`'s authorization server, from the user's `id_token`), for the JWT bearer grant
/// of enterprise-managed authorization.
#[pyfunction]
#[pyo3(signature = (token_endpoint, client_id, id_token, issuer, resource, scope=None, client_secret=None))]
#[allow(clippy::too_many_arguments)]
pub fn request_id_jag(
    py: Python<'_>,
    token_endpoint: String,
    client_id: String,
    id_token: String,
    issuer: String,
    resource: String,
    scope: Option<String>,
    client_secret: Option<String>,
) -> PyResult<Bound<'_, PyAny>> {
    let client = credentials(client_id, client_secret, None)?;
    let target = AssertionTarget::new(issuer, resource, scope);
    runtime::future_into_py(py, async move {
        oxmcp::client::auth::request_id_jag(&token_endpoint, &client, &id_token, &target)
            .await
            .map_err(|e| error::raise(oxmcp::Error::Protocol(e.to_string())))
    })
}

/// The app's `storage` (`load()` and `save(text)`, run on the loop in `slot` when async)
/// as the core's token store.
fn text_store(storage: &Bound<'_, PyAny>, slot: &LoopSlot) -> PyResult<TextTokenStore> {
    let load = PyHandler::new(&storage.getattr("load")?, slot.clone());
    let save = PyHandler::new(&storage.getattr("save")?, slot.clone());
    Ok(TextTokenStore::new(
        move || {
            let loaded = load.call::<Option<String>>("stored tokens", |_| Ok(Vec::new()));
            async move { loaded.await.map_err(|e| format!("storage.load failed: {e:?}")) }
        },
        move |text| {
            let saved = save.answer(move |py| Ok(vec![text.into_pyobject(py)?.into_any()]));
            async move { saved.await.map(drop).map_err(|e| format!("storage.save failed: {e:?}")) }
        },
    ))
}
