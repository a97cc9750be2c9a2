//! Modern-era POSTs (2026-07-28): the header rules, then one answer per request, as JSON or
//! as an SSE stream that cancels the request when the client goes away.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode};
use memchr::memmem::Finder;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::auth::Admitted;
use super::endpoint::Endpoint;
use super::header_names;
use super::response::{header_str, rpc_error};
use super::HttpRequest;
use crate::protocol::headers::{decode_header_value, names, request_headers, RequestHeader};
use crate::protocol::jsonrpc::{Message, Notification, Request};
use crate::protocol::meta::is_modern_request;
use crate::protocol::meta::SentRequestMeta;
use crate::protocol::{code, methods, Era, ErrorObject, ProtocolVersion};
use crate::server::dispatch::{Exchange, ReadAhead, Sender};
use crate::server::tools::{CallParams, RegisteredTool};

/// Whether a message is of the modern era: the `_meta` of its params or its version
/// header says so.
pub(super) fn is_modern(headers: &HeaderMap, params: Option<&RawValue>) -> bool {
    let header_modern = header_str(headers, header_names::PROTOCOL_VERSION)
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| v.era() == Era::Modern);
    header_modern || is_modern_request(params)
}

/// A 2026-07-28 notification: it belongs to no session, so the endpoint's stateless
/// dispatcher acts on it (an extension's handler, say); accepted either way.
pub(super) fn post_modern_notification(endpoint: &Endpoint, notification: Notification) -> Response {
    endpoint.stateless.receive(Message::Notification(notification));
    StatusCode::ACCEPTED.into_response()
}

fn request_meta(request: &Request) -> Option<SentRequestMeta<'_>> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "_meta", default, borrow)]
        meta: Option<SentRequestMeta<'a>>,
    }
    let params = request.params.as_deref()?;
    serde_json::from_str::<Head<'_>>(params.get()).ok()?.meta
}

pub(super) async fn post_modern(
    endpoint: &Arc<Endpoint>,
    posted: &Arc<HttpRequest>,
    request: Request,
    caller: Admitted,
) -> Response {
    let headers = posted.headers();
    let read = match check_modern_headers(endpoint, headers, &request) {
        Ok(read) => read,
        Err(error) => return rpc_error(StatusCode::BAD_REQUEST, Some(&request.id), error),
    };
    answer_checked(endpoint, posted, request, read, caller).await
}

/// Answers a modern request that passed the header checks, on the endpoint's shared
/// dispatcher, as one JSON answer or an SSE stream.
async fn answer_checked(
    endpoint: &Arc<Endpoint>,
    posted: &Arc<HttpRequest>,
    request: Request,
    read: ReadAhead,
    caller: Admitted,
) -> Response {
    let sender = Sender::http(caller, Arc::clone(posted));
    endpoint
        .answer_alone(request, None, Some(read), sender, status_for_modern)
        .await
}

/// A modern `tools/call` whose body reads in one pass
/// ([`Dispatcher::read_call_frame`](crate::server::dispatch::Dispatcher::read_call_frame)),
/// with its version header that of its `_meta`: the request, and what was read of it.
/// `None` for any other body, left to the usual read, which answers it as before.
pub(super) fn read_modern_call(endpoint: &Endpoint, headers: &HeaderMap, body: &Bytes) -> Option<(Request, ReadAhead)> {
    let header_version = header_str(headers, header_names::PROTOCOL_VERSION).and_then(ProtocolVersion::parse)?;
    if header_version.era() != Era::Modern {
        return None;
    }
    let (request, read) = endpoint.stateless.read_call_frame(body)?;
    (read.exchange.version == header_version).then_some((request, read))
}

/// Answers a call [`read_modern_call`] read: the scopes its tool requires, then the
/// headers that mirror its name and arguments, are checked as [`post_modern`] checks them.
pub(super) async fn post_modern_call(
    endpoint: &Arc<Endpoint>,
    posted: &Arc<HttpRequest>,
    request: Request,
    read: ReadAhead,
    caller: Admitted,
) -> Response {
    let headers = posted.headers();
    let name = read.call.as_ref().map(CallParams::name);
    let refusal = endpoint.scope_refusal_of(caller.as_deref(), &request.method, || name.map(str::to_owned));
    if let Some(refused) = refusal {
        return refused;
    }
    let call = read.call.as_ref();
    if let Err(error) = check_target(endpoint, headers, &request.method, name, || {
        call.and_then(CallParams::arguments).cloned()
    }) {
        return rpc_error(StatusCode::BAD_REQUEST, Some(&request.id), error);
    }
    answer_checked(endpoint, posted, request, read, caller).await
}

/// The header rules of 2026-07-28: version, method, name and parameter headers must match
/// the body; `_meta` must carry the required fields. Gives the protocol facts `_meta` says,
/// and a `tools/call`'s params, read once for the checks and the method.
fn check_modern_headers(endpoint: &Endpoint, headers: &HeaderMap, request: &Request) -> Result<ReadAhead, ErrorObject> {
    if request.method == methods::TOOLS_CALL {
        if let Ok(call) = CallParams::read(request.params.as_deref()) {
            let (meta, call) = call.split();
            let exchange = check_meta(endpoint, headers, &meta)?;
            check_target(endpoint, headers, &request.method, Some(call.name()), || {
                call.arguments().cloned()
            })?;
            return Ok(ReadAhead {
                exchange,
                call: Some(call),
                frame: None,
            });
        }
    }
    // One pass reads both; when it fails, each is read on its own, so that a flaw in one
    // does not hide the other (a broken target must not read as a missing `_meta`).
    let (meta, target) = match Head::<SentRequestMeta<'_>>::read(request) {
        Some(mut head) => (head.meta.take().unwrap_or_default(), head.into_target()),
        None => (
            request_meta(request).unwrap_or_default(),
            Target::read(request).unwrap_or_default(),
        ),
    };
    let exchange = check_meta(endpoint, headers, &meta)?;
    check_target(endpoint, headers, &request.method, target.name.as_deref(), || {
        target.arguments()
    })?;
    Ok(ReadAhead {
        exchange,
        call: None,
        frame: None,
    })
}

/// The version header must match the body's; `_meta` must carry the required fields.
fn check_meta(endpoint: &Endpoint, headers: &HeaderMap, meta: &SentRequestMeta<'_>) -> Result<Exchange, ErrorObject> {
    if let Some(body_version) = meta.protocol_version.as_deref() {
        match header_str(headers, header_names::PROTOCOL_VERSION) {
            None => {
                return Err(ErrorObject::header_mismatch(
                    "the MCP-Protocol-Version header is missing",
                ))
            }
            Some(header) if header != body_version => {
                return Err(ErrorObject::header_mismatch(format!(
                    "MCP-Protocol-Version header {header:?} does not match the body's {body_version:?}"
                )))
            }
            Some(_) => {}
        }
    }
    endpoint.stateless.modern_exchange(meta)
}

/// The method, name and parameter headers must match the body (the `arguments` are read
/// only for a tool with `x-mcp-header` parameters).
fn check_target(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    method: &str,
    name: Option<&str>,
    arguments: impl FnOnce() -> Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<(), ErrorObject> {
    let tool = called_tool(endpoint, method, name);
    let params = tool.as_ref().map_or(&[][..], |tool| &tool.header_params[..]);
    let arguments = if params.is_empty() { None } else { arguments() };
    for expected in request_headers(method, name, arguments.as_ref(), params) {
        check_header(headers, &expected)?;
    }
    Ok(())
}

/// What the modern header checks read from a request's params: `_meta` (as `M`) and the
/// name or URI and arguments. The arguments stay raw until a tool with `x-mcp-header`
/// parameters needs them: most tools have none, and building a map of every argument cost
/// more than the rest of the checks.
#[derive(Deserialize, Default)]
#[serde(bound(deserialize = "M: Deserialize<'de>, 'de: 'a"))]
struct Head<'a, M> {
    #[serde(rename = "_meta", default)]
    meta: Option<M>,
    /// The name (tools, prompts), URI (resources) or task id (tasks) `Mcp-Name` mirrors.
    #[serde(default, alias = "uri", alias = "taskId", borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// The name or URI and arguments of a request, whatever its `_meta`.
type Target<'a> = Head<'a, serde::de::IgnoredAny>;

impl<'a, M> Head<'a, M> {
    /// The params of `request` (all fields absent when it has none); `None` when they do
    /// not parse or the arguments are not an object, as a typed read of them would fail.
    fn read(request: &'a Request) -> Option<Self>
    where
        M: Deserialize<'a> + Default,
    {
        let Some(params) = request.params.as_deref() else {
            return Some(Head::default());
        };
        let head: Self = serde_json::from_str(params.get()).ok()?;
        let arguments_are_object = head.arguments.is_none_or(|raw| raw.get().trim_start().starts_with('{'));
        arguments_are_object.then_some(head)
    }

    /// The arguments as an object (none when absent).
    fn arguments(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        serde_json::from_str(self.arguments?.get()).ok()
    }

    fn into_target(self) -> Target<'a> {
        Head {
            meta: None,
            name: self.name,
            arguments: self.arguments,
        }
    }
}

/// The tool a `tools/call` names, whose `x-mcp-header` parameters must be mirrored (none
/// for other methods or unknown tools).
fn called_tool(endpoint: &Endpoint, method: &str, name: Option<&str>) -> Option<Arc<RegisteredTool>> {
    if method != methods::TOOLS_CALL {
        return None;
    }
    endpoint.server.registry().tools.get(name?).cloned()
}

/// Checks one header the request implies: present with the body's value (numbers compare
/// numerically: `42.0` matches `42`), or, for an absent argument, absent too. The header
/// is looked up once.
fn check_header(headers: &HeaderMap, expected: &RequestHeader) -> Result<(), ErrorObject> {
    let sent = match expected.name.as_ref() {
        names::METHOD => headers.get(header_names::METHOD),
        names::NAME => headers.get(header_names::NAME),
        other => headers.get(other),
    };
    let label = &expected.label;
    if let (Some(body), Some(text)) = (expected.number, sent.and_then(|v| v.to_str().ok())) {
        if text.parse::<f64>().is_ok_and(|header| header == body) {
            return Ok(());
        }
    }
    if !expected.required && expected.value.is_none() && expected.number.is_none() {
        return match sent {
            Some(_) => Err(ErrorObject::header_mismatch(format!(
                "{label} is sent but the argument is absent"
            ))),
            None => Ok(()),
        };
    }
    let Some(sent) = sent else {
        return Err(ErrorObject::header_mismatch(format!("the {label} header is missing")));
    };
    let value = sent
        .to_str()
        .map_err(|_| ErrorObject::header_mismatch(format!("the {label} header has invalid characters")))
        .and_then(|v| {
            decode_header_value(v)
                .ok_or_else(|| ErrorObject::header_mismatch(format!("the {label} header is not valid base64")))
        })?;
    match expected.value.as_deref() {
        Some(body) if body == value => Ok(()),
        body => Err(ErrorObject::header_mismatch(format!(
            "{label} header value {value:?} does not match the body value {body:?}"
        ))),
    }
}

/// Modern errors that the transport reports with an HTTP status too.
fn status_for_modern(text: &str) -> StatusCode {
    // A result's text has its `"result":` key right after the id (`jsonrpc::raw_result_text`),
    // and that pattern cannot occur inside a JSON string (its quotes would be escaped): a
    // result is known from its first bytes, and only an error's text is read. (The
    // searchers are made once: making one cost more than the search.)
    static RESULT_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\"result\":"));
    static ERROR_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\"error\":"));
    if RESULT_KEY
        .find(text.as_bytes())
        .is_some_and(|at| ERROR_KEY.find(&text.as_bytes()[..at]).is_none())
    {
        return StatusCode::OK;
    }
    #[derive(Deserialize)]
    struct ErrorHead {
        error: Option<ErrorCode>,
    }
    #[derive(Deserialize)]
    struct ErrorCode {
        code: i64,
    }
    let code = serde_json::from_str::<ErrorHead>(text)
        .ok()
        .and_then(|h| h.error)
        .map(|e| e.code);
    match code {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(code::UNSUPPORTED_PROTOCOL_VERSION | code::MISSING_REQUIRED_CLIENT_CAPABILITY | code::HEADER_MISMATCH) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}
