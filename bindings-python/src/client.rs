//! The client: a connection to a server process (stdio), a Streamable HTTP endpoint, or
//! a server in this process (in-memory pair), with Python handlers for the server's
//! requests.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{Map, Value};

use oxmcp::client::{
    CallOptions, Client as CoreClient, ClientOptions, EraMode, ServerNotification, Subscription as CoreSubscription,
    ToolTask as CoreToolTask,
};
use oxmcp::protocol::skills::Skill;
use oxmcp::protocol::{CompletionReference, LoggingLevel, ProgressNotificationParams, SubscriptionFilter};
use oxmcp::transport::child::{StderrMode, StdioCommand};
use oxmcp::transport::http::client::{Certificate, HeaderName, HeaderValue, HttpClientOptions};
use oxmcp::transport::memory;

use crate::event_loop::LoopSlot;
use crate::handler::{PyElicitation, PyHandler, PyRoots, PySampling};
use crate::oauth::OAuth;
use crate::server::Server;
use crate::{convert, error, runtime};

/// How a client connects: identity, era, timeout, and the Python handlers of the
/// server's requests and notifications.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct ClientConfig {
    name: String,
    version: String,
    era: EraMode,
    timeout: Option<Duration>,
    sampling: Option<Py<PyAny>>,
    elicitation: Option<Py<PyAny>>,
    roots: Option<Py<PyAny>>,
    on_notification: Option<Py<PyAny>>,
    max_list_pages: Option<usize>,
    max_server_requests: Option<usize>,
    max_sampling_per_round: Option<usize>,
    tasks: bool,
    sampling_tools: bool,
    elicitation_url: bool,
    cache_lists: bool,
    max_input_rounds: Option<usize>,
}

#[pymethods]
impl ClientConfig {
    /// `era` is "auto", "legacy" or "modern"; `timeout` in seconds (None: wait forever).
    /// `sampling(params)`, `elicitation(params)` and `roots()` return awaitables of the
    /// result dicts; `on_notification(method, params)` is called on the loop. The limits
    /// on what a server may ask of the client (None: the core's defaults): pages per
    /// listing, server requests answered at once, sampling requests per round. `tasks`
    /// declares the 2026-07-28 tasks extension (tool calls answered with a task are
    /// followed to their result). `sampling_tools` declares sampling with tools (the
    /// sampling handler may get `tools` and answer with tool uses); `elicitation_url`
    /// declares URL-mode elicitation. `cache_lists` keeps full listings while the server
    /// says they are fresh; `max_input_rounds` bounds a request's `input_required` rounds.
    #[new]
    #[pyo3(signature = (
        name, version, era="auto", timeout=None, sampling=None, elicitation=None, roots=None, on_notification=None,
        max_list_pages=None, max_server_requests=None, max_sampling_per_round=None, tasks=true,
        sampling_tools=false, elicitation_url=false, cache_lists=true, max_input_rounds=None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: String,
        version: String,
        era: &str,
        timeout: Option<f64>,
        sampling: Option<Py<PyAny>>,
        elicitation: Option<Py<PyAny>>,
        roots: Option<Py<PyAny>>,
        on_notification: Option<Py<PyAny>>,
        max_list_pages: Option<usize>,
        max_server_requests: Option<usize>,
        max_sampling_per_round: Option<usize>,
        tasks: bool,
        sampling_tools: bool,
        elicitation_url: bool,
        cache_lists: bool,
        max_input_rounds: Option<usize>,
    ) -> PyResult<Self> {
        let era = match era {
            "auto" => EraMode::Auto,
            "legacy" => EraMode::Legacy,
            "modern" => EraMode::Modern,
            other => {
                return Err(PyValueError::new_err(format!(
                    "era must be \"auto\", \"legacy\" or \"modern\", not {other:?}"
                )))
            }
        };
        Ok(ClientConfig {
            name,
            version,
            era,
            timeout: timeout.map(|t| convert::seconds(t, "timeout")).transpose()?,
            sampling,
            elicitation,
            roots,
            on_notification,
            max_list_pages,
            max_server_requests,
            max_sampling_per_round,
            tasks,
            sampling_tools,
            elicitation_url,
            cache_lists,
            max_input_rounds,
        })
    }
}

impl ClientConfig {
    /// The core's options, with handlers that run on the loop in `slot`.
    fn options(&self, py: Python<'_>, slot: &LoopSlot) -> ClientOptions {
        let mut options = ClientOptions::new(&self.name, &self.version)
            .era(self.era)
            .timeout(self.timeout)
            .tasks(self.tasks)
            .cache_lists(self.cache_lists);
        if let Some(rounds) = self.max_input_rounds {
            options = options.max_input_rounds(rounds);
        }
        if let Some(pages) = self.max_list_pages {
            options = options.max_list_pages(pages);
        }
        if let Some(requests) = self.max_server_requests {
            options = options.max_server_requests(requests);
        }
        if let Some(requests) = self.max_sampling_per_round {
            options = options.max_sampling_per_round(requests);
        }
        let bind = |callable: &Py<PyAny>| PyHandler::new(callable.bind(py), slot.clone());
        if let Some(sampling) = &self.sampling {
            options = options.on_sampling(PySampling(bind(sampling)), self.sampling_tools);
        }
        if let Some(elicitation) = &self.elicitation {
            options = options.on_elicitation(PyElicitation(bind(elicitation)), self.elicitation_url);
        }
        if let Some(roots) = &self.roots {
            options = options.on_roots(PyRoots(bind(roots)));
        }
        if let Some(listener) = &self.on_notification {
            // Queued on the loop from the read loop, so a notification the server sent
            // before a response runs before the awaited call returns.
            let listener = listener.clone_ref(py);
            let slot = slot.clone();
            options = options.on_notification(move |notification| {
                let (method, params) = describe(notification);
                slot.call_soon(&listener, |py| {
                    Ok(vec![
                        method.into_pyobject(py)?.into_any(),
                        convert::from_json(py, &params)?,
                    ])
                });
            });
        }
        options
    }
}

/// A connection to an MCP server.
#[pyclass(name = "Client", frozen, module = "oxmcp._native")]
pub struct Client {
    inner: CoreClient,
    slot: LoopSlot,
}

#[pymethods]
impl Client {
    /// Starts `command` (program and arguments) and connects over its stdin and stdout;
    /// `max_message_size` bounds one line from the server, in bytes.
    #[staticmethod]
    #[pyo3(signature = (command, config, env=None, cwd=None, quiet=false, max_message_size=None))]
    fn connect_stdio<'py>(
        py: Python<'py>,
        command: Vec<String>,
        config: &Bound<'py, ClientConfig>,
        env: Option<HashMap<String, String>>,
        cwd: Option<PathBuf>,
        quiet: bool,
        max_message_size: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| PyValueError::new_err("the command is empty"))?;
        let mut stdio = StdioCommand::new(program).args(args);
        for (key, value) in env.unwrap_or_default() {
            stdio = stdio.env(key, value);
        }
        if let Some(cwd) = cwd {
            stdio = stdio.cwd(cwd);
        }
        if quiet {
            stdio = stdio.stderr(StderrMode::Null);
        }
        if let Some(bytes) = max_message_size {
            stdio = stdio.max_message_size(bytes);
        }
        Client::open(py, config, |_, options, _| Ok(CoreClient::spawn(stdio, options)))
    }

    /// Connects to `server` in this process over an in-memory pair; the server's
    /// handlers run on the running loop.
    #[staticmethod]
    fn connect_in_process<'py>(
        py: Python<'py>,
        server: &Bound<'py, Server>,
        config: &Bound<'py, ClientConfig>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (client_end, server_end) = memory::pair();
        server.get().serve_in_background(py, server_end)?;
        Client::open(py, config, |_, options, _| Ok(CoreClient::connect(client_end, options)))
    }

    /// Connects to the Streamable HTTP endpoint at `url` (an old server's HTTP+SSE
    /// endpoint works too). `headers` go with every HTTP request; `bearer_token()` is
    /// called on the loop before each one and returns an awaitable of the token (or None);
    /// `connect_timeout` and `request_timeout` in seconds; `max_message_size` in bytes;
    /// `reconnect` is (initial wait, longest wait, attempts) for broken SSE streams;
    /// `legacy_sse_fallback` allows the HTTP+SSE fallback; `auth` is an `OAuth` client.
    /// Over https, `tls_roots` (DER certificates) are the only roots trusted when given,
    /// and `tls_insecure` accepts any certificate.
    #[staticmethod]
    #[pyo3(signature = (
        url, config, headers=None, bearer_token=None, connect_timeout=None, legacy_sse_fallback=true,
        request_timeout=None, max_message_size=None, reconnect=None, auth=None, tls_roots=None, tls_insecure=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn connect_http<'py>(
        py: Python<'py>,
        url: String,
        config: &Bound<'py, ClientConfig>,
        headers: Option<HashMap<String, String>>,
        bearer_token: Option<Py<PyAny>>,
        connect_timeout: Option<f64>,
        legacy_sse_fallback: bool,
        request_timeout: Option<f64>,
        max_message_size: Option<usize>,
        reconnect: Option<(f64, f64, u32)>,
        auth: Option<Py<OAuth>>,
        tls_roots: Option<Vec<Vec<u8>>>,
        tls_insecure: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let roots = tls_roots
            .unwrap_or_default()
            .iter()
            .map(|der| Certificate::from_der(der))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PyValueError::new_err(format!("a trusted certificate: {e}")))?;
        let mut http = HttpClientOptions::new(url)
            .legacy_sse_fallback(legacy_sse_fallback)
            .trust_only(roots)
            .danger_accept_invalid_certs(tls_insecure);
        for (name, value) in headers.unwrap_or_default() {
            let header = HeaderName::try_from(name.as_str())
                .map_err(|e| PyValueError::new_err(format!("invalid header name {name:?}: {e}")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|e| PyValueError::new_err(format!("invalid value of header {name:?}: {e}")))?;
            http = http.header(header, value);
        }
        if let Some(timeout) = connect_timeout {
            http = http.connect_timeout(convert::seconds(timeout, "connect_timeout")?);
        }
        if let Some(timeout) = request_timeout {
            http = http.request_timeout(Some(convert::seconds(timeout, "request_timeout")?));
        }
        if let Some(bytes) = max_message_size {
            http = http.max_message_size(bytes);
        }
        if let Some((initial, max, attempts)) = reconnect {
            http = http.reconnect(
                convert::seconds(initial, "reconnect initial wait")?,
                convert::seconds(max, "reconnect longest wait")?,
                attempts,
            );
        }
        Client::open(py, config, move |py, options, slot| {
            if let Some(auth) = auth {
                http = http.authorizer(auth.get().provider(py, slot)?);
            }
            if let Some(source) = bearer_token {
                let source = PyHandler::new(source.bind(py), slot.clone());
                http = http.bearer_token(move || {
                    let token = source.call::<Option<String>>("bearer token", |_| Ok(Vec::new()));
                    async move {
                        token.await.unwrap_or_else(|e| {
                            eprintln!("oxmcp: the bearer token callback failed: {e:?}");
                            None
                        })
                    }
                });
            }
            Ok(async move {
                let transport = oxmcp::transport::http::client::connect(http)?;
                CoreClient::connect(transport, options).await
            })
        })
    }

    /// What the connection settled on: `protocolVersion`, `serverInfo`, `capabilities`,
    /// `instructions`.
    fn server_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let details = self.inner.server_details();
        let mut map = Map::new();
        map.insert("protocolVersion".into(), details.protocol_version.as_str().into());
        map.insert("serverInfo".into(), to_value(&details.server_info));
        map.insert("capabilities".into(), to_value(&details.capabilities));
        map.insert("instructions".into(), to_value(&details.instructions));
        convert::from_json(py, &Value::Object(map))
    }

    /// Every tool, following cursors.
    fn list_tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.list_all_tools().await) })
    }

    /// Every resource, following cursors.
    fn list_resources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.list_all_resources().await) })
    }

    /// Every resource template, following cursors.
    fn list_resource_templates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.list_all_resource_templates().await) })
    }

    /// Every prompt, following cursors.
    fn list_prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.list_all_prompts().await) })
    }

    /// One page of the list `kind` names (`tools`, `resources`, `resource_templates`,
    /// `prompts`): the first, or the one `cursor` names; the wire's result, its
    /// `nextCursor` and, in 2026-07-28, `ttlMs` and `cacheScope` with it.
    #[pyo3(signature = (kind, cursor=None))]
    fn list_page<'py>(&self, py: Python<'py>, kind: &str, cursor: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        let kind = match kind {
            "tools" => ListKind::Tools,
            "resources" => ListKind::Resources,
            "resource_templates" => ListKind::ResourceTemplates,
            "prompts" => ListKind::Prompts,
            other => return Err(PyValueError::new_err(format!("no list named {other:?}"))),
        };
        runtime::future_into_py(py, async move {
            match kind {
                ListKind::Tools => reply(client.list_tools(cursor).await),
                ListKind::Resources => reply(client.list_resources(cursor).await),
                ListKind::ResourceTemplates => reply(client.list_resource_templates(cursor).await),
                ListKind::Prompts => reply(client.list_prompts(cursor).await),
            }
        })
    }

    /// Calls a tool; `on_progress(progress, total, message)` is called on the loop for
    /// each progress notification; `meta` goes in the request's `_meta`. Cancelling the
    /// awaitable cancels the request.
    #[pyo3(signature = (name, arguments=None, timeout=None, on_progress=None, meta=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
        meta: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = arguments.map(convert::to_json).transpose()?.unwrap_or(Value::Null);
        let options = self.call_options(timeout, on_progress, meta)?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            reply(client.call_tool_with(&name, arguments, &options).await)
        })
    }

    /// Calls a tool as a task, when the server runs it as one; the awaitable gives a
    /// `ToolTask`.
    #[pyo3(signature = (name, arguments=None))]
    fn call_tool_as_task<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = arguments.map(convert::to_json).transpose()?.unwrap_or(Value::Null);
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            let task = client.call_tool_as_task(&name, arguments).await;
            runtime::attach(|py| match task {
                Ok(task) => Py::new(py, ToolTask { inner: task }).map(Py::into_any),
                Err(e) => Err(error::client_error(py, e)),
            })
            .unwrap_or_else(|| Err(error::exiting()))
        })
    }

    /// A handle on task `id`, made by an earlier tool call of the same caller.
    fn tool_task(&self, id: String) -> ToolTask {
        ToolTask {
            inner: self.inner.tool_task(id),
        }
    }

    /// Reads a resource (timeout, progress and `_meta` as for `call_tool`).
    #[pyo3(signature = (uri, timeout=None, on_progress=None, meta=None))]
    fn read_resource<'py>(
        &self,
        py: Python<'py>,
        uri: String,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
        meta: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.call_options(timeout, on_progress, meta)?;
        let client = self.inner.clone();
        runtime::future_into_py(
            py,
            async move { reply(client.read_resource_with(&uri, &options).await) },
        )
    }

    /// Gets a prompt with its (string) arguments (timeout, progress and `_meta` as for
    /// `call_tool`).
    #[pyo3(signature = (name, arguments=None, timeout=None, on_progress=None, meta=None))]
    fn get_prompt<'py>(
        &self,
        py: Python<'py>,
        name: String,
        arguments: Option<BTreeMap<String, String>>,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
        meta: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = self.call_options(timeout, on_progress, meta)?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            reply(
                client
                    .get_prompt_with(&name, arguments.unwrap_or_default(), &options)
                    .await,
            )
        })
    }

    /// Completes one argument of a prompt or template; `reference` is the wire `ref`
    /// (`{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource", "uri": ...}`).
    #[pyo3(signature = (reference, argument, value, context=None))]
    fn complete<'py>(
        &self,
        py: Python<'py>,
        reference: &Bound<'py, PyAny>,
        argument: String,
        value: String,
        context: Option<BTreeMap<String, String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reference: CompletionReference = convert::extract(reference, "completion reference")?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            reply(
                client
                    .complete(reference, &argument, &value, context.unwrap_or_default())
                    .await,
            )
        })
    }

    /// Asks for updates of a resource; they arrive as notifications.
    fn subscribe_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.subscribe_resource(&uri).await) })
    }

    /// Stops updates of a resource.
    fn unsubscribe_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.unsubscribe_resource(&uri).await) })
    }

    /// Sets the lowest level of log messages to receive ("debug" ... "emergency").
    fn set_log_level<'py>(&self, py: Python<'py>, level: &str) -> PyResult<Bound<'py, PyAny>> {
        let level: LoggingLevel = serde_json::from_value(level.into())
            .map_err(|_| PyValueError::new_err(format!("unknown log level: {level:?}")))?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.set_log_level(level).await) })
    }

    /// Sends a request of `method` (an extension's, say) with `params` (a dict or None);
    /// resolves to its result as a dict (timeout and progress as for `call_tool`).
    #[pyo3(signature = (method, params=None, timeout=None, on_progress=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = params_object(params)?.unwrap_or_default();
        let options = self.call_options(timeout, on_progress, None)?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            let answer: oxmcp::Result<Value> = client.request(&method, params, &options).await;
            reply(answer)
        })
    }

    /// Sends notification `method` with `params` (a dict or None).
    #[pyo3(signature = (method, params=None))]
    fn notify<'py>(
        &self,
        py: Python<'py>,
        method: String,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = params_object(params)?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.notify(&method, params).await) })
    }

    /// Every skill the server lists, as dicts (`uri`, `frontmatter`, `resources`).
    fn list_skills<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.list_skills().await) })
    }

    /// The skill whose `SKILL.md` is at `uri` (`skills/get`), as a dict, listed or not.
    fn get_skill<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.get_skill(&uri).await) })
    }

    /// Loads `skill` (a dict as `list_skills` gives it): its SKILL.md's text, once it
    /// matches the entry.
    fn load_skill<'py>(&self, py: Python<'py>, skill: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let skill: Skill = convert::extract(skill, "skill")?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.load_skill(&skill).await) })
    }

    /// Reads file `uri` of `skill`: its bytes, once they match the entry.
    fn read_skill_file<'py>(
        &self,
        py: Python<'py>,
        skill: &Bound<'py, PyAny>,
        uri: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let skill: Skill = convert::extract(skill, "skill")?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            let read = client.read_skill_file(&skill, &uri).await;
            runtime::attach(|py| match read {
                Ok(bytes) => Ok(pyo3::types::PyBytes::new(py, &bytes).into_any().unbind()),
                Err(e) => Err(error::client_error(py, e)),
            })
            .unwrap_or_else(|| Err(error::exiting()))
        })
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) for `filter` (the wire's
    /// `notifications` object); resolves to the open `Subscription` once acknowledged.
    fn listen<'py>(&self, py: Python<'py>, filter: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let filter: SubscriptionFilter = convert::extract(filter, "subscription filter")?;
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            let opened = client.listen(filter).await;
            runtime::attach(|py| match opened {
                Ok(subscription) => Py::new(
                    py,
                    Subscription {
                        inner: std::sync::Mutex::new(Some(subscription)),
                    },
                )
                .map(Py::into_any),
                Err(e) => Err(error::client_error(py, e)),
            })
            .unwrap_or_else(|| Err(error::exiting()))
        })
    }

    /// Tells the server the roots changed (legacy era; nothing to send in 2026-07-28).
    fn send_roots_list_changed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.notify_roots_list_changed().await) })
    }

    /// Checks that the server answers.
    fn ping<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.ping().await) })
    }

    /// Resolves once the connection is over: the server went away (its process exited,
    /// its pipe or stream ended) or the client was closed.
    fn closed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move {
            client.closed().await;
            Ok(())
        })
    }

    /// Closes the connection; a server process is asked to exit, then stopped.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        runtime::future_into_py(py, async move { reply(client.close().await) })
    }
}

impl Client {
    /// The core's client, for what forwards through it (a proxy).
    pub(crate) fn core(&self) -> &CoreClient {
        &self.inner
    }

    /// The core's options of one call: its `timeout` in seconds (else the client's),
    /// `on_progress(progress, total, message)` called on the loop for each progress
    /// notification, `meta` (a dict) for the request's `_meta`.
    fn call_options(
        &self,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
        meta: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<CallOptions> {
        let mut options = CallOptions {
            timeout: timeout.map(|t| convert::seconds(t, "timeout")).transpose()?.map(Some),
            meta: params_object(meta)?,
            ..Default::default()
        };
        if let Some(callback) = on_progress {
            let slot = self.slot.clone();
            options.on_progress = Some(Arc::new(move |progress: ProgressNotificationParams| {
                slot.call_soon(&callback, |py| {
                    Ok(vec![
                        progress.progress.into_pyobject(py)?.into_any(),
                        progress.total.into_pyobject(py)?.into_any(),
                        progress.message.as_deref().into_pyobject(py)?.into_any(),
                    ])
                })
            }));
        }
        Ok(options)
    }

    /// Connects with `connect`, giving it the core's options with handlers bound to the
    /// running loop (the slot, for more handlers), and resolves to the connected client;
    /// fails at once when `connect` cannot start.
    fn open<'py, F, Fut>(py: Python<'py>, config: &Bound<'py, ClientConfig>, connect: F) -> PyResult<Bound<'py, PyAny>>
    where
        F: FnOnce(Python<'py>, ClientOptions, &LoopSlot) -> PyResult<Fut>,
        Fut: Future<Output = oxmcp::Result<CoreClient>> + Send + 'static,
    {
        let slot = LoopSlot::default();
        slot.set(py, runtime::current_locals(py)?)?;
        let options = config.get().options(py, &slot);
        let connecting = connect(py, options, &slot)?;
        runtime::future_into_py(py, async move {
            let inner = connecting.await.map_err(error::raise)?;
            Ok(Client { inner, slot })
        })
    }
}

/// A notification's method and params.
fn describe(notification: &ServerNotification) -> (String, Value) {
    let (method, params) = notification.parts();
    (method, params.unwrap_or(Value::Null))
}

/// An open `subscriptions/listen` stream: its notifications reach the client's
/// notification handler until it is closed.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct Subscription {
    inner: std::sync::Mutex<Option<CoreSubscription>>,
}

#[pymethods]
impl Subscription {
    /// What the server agreed to send (the wire's acknowledged `notifications` object).
    #[getter]
    fn acknowledged<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let acknowledged = inner.as_ref().map(|s| s.acknowledged().clone()).unwrap_or_default();
        convert::to_python(py, &acknowledged)
    }

    /// Ends the stream (again: nothing).
    fn close(&self) {
        let ended = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(ended);
    }
}

/// A tool call the server runs as a task (or answered in place).
#[pyclass(frozen, module = "oxmcp._native")]
pub struct ToolTask {
    inner: CoreToolTask,
}

#[pymethods]
impl ToolTask {
    /// The task's id; None when the call was answered in place.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.inner.id()
    }

    /// The task as the server shows it now (None when answered in place).
    fn status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.clone();
        runtime::future_into_py(py, async move { reply(task.status().await) })
    }

    /// Waits until the task ends, and gives it as it ended.
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.clone();
        runtime::future_into_py(py, async move { reply(task.wait().await) })
    }

    /// What the tool returned, once the task ended.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.clone();
        runtime::future_into_py(py, async move { reply(task.result().await) })
    }

    /// Asks the server to stop the task.
    fn cancel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let task = self.inner.clone();
        runtime::future_into_py(py, async move { reply(task.cancel().await) })
    }
}

/// Params given as a dict, or None.
fn params_object(params: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Map<String, Value>>> {
    params
        .filter(|p| !p.is_none())
        .map(|p| convert::extract(p, "params (a dict)"))
        .transpose()
}

/// The lists a client reads page by page.
enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

fn reply<T: serde::Serialize>(outcome: oxmcp::Result<T>) -> PyResult<Py<PyAny>> {
    runtime::attach(|py| match outcome {
        Ok(value) => convert::to_python(py, &value).map(Bound::unbind),
        Err(e) => Err(error::client_error(py, e)),
    })
    .unwrap_or_else(|| Err(error::exiting()))
}

fn to_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
