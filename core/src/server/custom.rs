//! Methods beyond the core's: handlers for the requests and notifications of an extension,
//! registered on the [`ServerBuilder`](super::ServerBuilder), and the extensions a server
//! declares in its capabilities.
//!
//! ```
//! use oxmcp::server::{Context, HandlerError, Server};
//! use serde_json::{json, Value};
//!
//! let server = Server::builder("demo", "1.0.0")
//!     .extension("com.example/weather", json!({ "units": ["metric"] }))
//!     .request_handler("weather/forecast", |params: Value, _ctx: Context| async move {
//!         let city = params["city"].as_str().unwrap_or("nowhere").to_owned();
//!         Ok::<_, HandlerError>(json!({ "city": city, "forecast": "sunny" }))
//!     })
//!     .notification_handler("notifications/weather/seen", |_params: Value, _ctx: Context| async {})
//!     .build()
//!     .unwrap();
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::context::Context;
use super::dispatch::Outcome;
use super::handler::HandlerError;
use super::schema::DefinitionError;
use super::stamp::Stamp;
use super::Server;
use crate::protocol::{methods, ErrorObject};
use crate::{read, write, BoxFuture};

/// The core's requests a server may be told of before the core answers them (legacy era),
/// as the official SDKs' low-level servers handle them: to keep its own record of
/// subscriptions or of the log level. Their handler's result is not used; an error it
/// returns refuses the request.
pub(crate) const TOLD_REQUESTS: [&str; 3] = [
    methods::RESOURCES_SUBSCRIBE,
    methods::RESOURCES_UNSUBSCRIBE,
    methods::LOGGING_SET_LEVEL,
];

/// The 2025-11-25 task requests, which a server keeping its own tasks answers (see
/// [`TaskStarter`](super::catalog::TaskStarter)): its handlers serve them while no tool
/// registered with the core runs as a task.
pub(crate) const KEPT_TASK_REQUESTS: [&str; 4] = [
    methods::TASKS_GET,
    methods::TASKS_RESULT,
    methods::TASKS_LIST,
    methods::TASKS_CANCEL,
];

/// Answers requests of a method the core does not serve, or is told of the requests a
/// server may keep its own record of (see
/// [`ServerBuilder::request_handler`](super::ServerBuilder::request_handler)).
pub trait RequestHandler: Send + Sync + 'static {
    /// Answers one request. `params` is the request's params (`null` when it has none)
    /// without `_meta` (see [`Context::meta`]); the result must be a JSON object.
    fn call(&self, params: Value, ctx: Context) -> BoxFuture<'static, Result<Value, HandlerError>>;
}

impl<F, Fut> RequestHandler for F
where
    F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, HandlerError>> + Send + 'static,
{
    fn call(&self, params: Value, ctx: Context) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(self(params, ctx))
    }
}

/// Acts on notifications of a method the core does not handle.
pub trait NotificationHandler: Send + Sync + 'static {
    /// Acts on one notification; `params` is `null` when it has none. `ctx` is the
    /// session's, with no request id ([`Context::request_id`] is `None`): what the handler
    /// sends through it goes on the session (a legacy handler may ask the client for its
    /// roots, say).
    fn notify(&self, params: Value, ctx: Context) -> BoxFuture<'static, ()>;
}

impl<F, Fut> NotificationHandler for F
where
    F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn notify(&self, params: Value, ctx: Context) -> BoxFuture<'static, ()> {
        Box::pin(self(params, ctx))
    }
}

/// The custom methods and declared extensions of a server. Registered at any time: the
/// bindings' decorators add them after the server is built.
#[derive(Default)]
pub(crate) struct CustomMethods {
    requests: RwLock<HashMap<String, Arc<dyn RequestHandler>>>,
    notifications: RwLock<HashMap<String, Arc<dyn NotificationHandler>>>,
    /// Declared in `capabilities.extensions` (2026-07-28), by identifier.
    pub(crate) extensions: Declarations,
    /// Declared in `capabilities.experimental`, by name.
    pub(crate) experimental: Declarations,
}

/// Capabilities a server declares by name, each with its settings.
#[derive(Default)]
pub(crate) struct Declarations(RwLock<Map<String, Value>>);

impl Declarations {
    /// Declares `name` with its `settings`, replacing an earlier declaration.
    pub(crate) fn declare(&self, name: String, settings: Value) {
        write(&self.0).insert(name, settings);
    }

    /// What is declared.
    pub(crate) fn all(&self) -> Map<String, Value> {
        read(&self.0).clone()
    }
}

impl CustomMethods {
    /// Adds a request handler; the core's own methods cannot be replaced.
    /// The requests of [`TOLD_REQUESTS`] may be handled too: their handler is told of each
    /// before the core acts on it.
    pub(crate) fn add_request(&self, method: String, handler: Arc<dyn RequestHandler>) -> Result<(), DefinitionError> {
        let reserved: &[&str] =
            if TOLD_REQUESTS.contains(&method.as_str()) || KEPT_TASK_REQUESTS.contains(&method.as_str()) {
                &[]
            } else {
                &methods::SERVER_REQUESTS
            };
        insert(&self.requests, method, handler, reserved, "request")
    }

    /// Adds a notification handler; the core's own notifications cannot be replaced, but
    /// a server may be told of `notifications/initialized` (the core has acted on it) and
    /// handle `notifications/roots/list_changed`, which the core leaves to it.
    pub(crate) fn add_notification(
        &self,
        method: String,
        handler: Arc<dyn NotificationHandler>,
    ) -> Result<(), DefinitionError> {
        let reserved: &[&str] = if method == methods::ROOTS_LIST_CHANGED || method == methods::INITIALIZED {
            &[]
        } else {
            &methods::SERVER_NOTIFICATIONS
        };
        insert(&self.notifications, method, handler, reserved, "notification")
    }

    /// What the handler of notification `method` does with `params`, in the context
    /// `context` makes; `None` when no handler is registered or there is no context.
    pub(crate) fn notify(
        &self,
        method: &str,
        params: Option<&RawValue>,
        context: impl FnOnce() -> Option<Context>,
    ) -> Option<BoxFuture<'static, ()>> {
        let handler = read(&self.notifications).get(method).cloned()?;
        Some(handler.notify(params_value(params).ok()?, context()?))
    }

    pub(crate) fn request_handler(&self, method: &str) -> Option<Arc<dyn RequestHandler>> {
        read(&self.requests).get(method).cloned()
    }
}

/// Registers the handler of `method`, one of a `kind` that `reserved` does not name.
fn insert<H: ?Sized>(
    handlers: &RwLock<HashMap<String, Arc<H>>>,
    method: String,
    handler: Arc<H>,
    reserved: &[&str],
    kind: &str,
) -> Result<(), DefinitionError> {
    if method.is_empty() {
        return Err(DefinitionError::new(format!("a custom {kind} method needs a name")));
    }
    if reserved.contains(&method.as_str()) {
        return Err(DefinitionError::new(format!(
            "{method:?} is served by the core; a custom {kind} handler cannot replace it"
        )));
    }
    let mut handlers = write(handlers);
    if handlers.contains_key(&method) {
        return Err(DefinitionError::new(format!(
            "{kind} method {method:?} is defined twice"
        )));
    }
    handlers.insert(method, handler);
    Ok(())
}

/// A request of a method the core does not serve: its custom handler's answer, stamped
/// like every result of the request's era, or "method not found".
pub(super) async fn call(
    server: &Server,
    method: &str,
    params: Option<&RawValue>,
    ctx: &Context,
    stamp: Option<&Stamp>,
) -> Outcome {
    let Some(handler) = server.custom().request_handler(method) else {
        return Err(ErrorObject::method_not_found(method));
    };
    let Value::Object(mut result) = run(server, handler, params, ctx).await? else {
        return Err(ErrorObject::internal(format!(
            "the handler of {method} returned a result that is not an object"
        )));
    };
    if let Some(stamp) = stamp {
        stamp.stamp_object(&mut result);
    }
    serde_json::to_string(&result).map_err(ErrorObject::internal)
}

/// Tells the handler of `method`, one of [`TOLD_REQUESTS`], of a request before the core
/// acts on it; the handler's error refuses the request.
pub(super) async fn tell(
    server: &Server,
    method: &str,
    params: Option<&RawValue>,
    ctx: &Context,
) -> Result<(), ErrorObject> {
    match server.custom().request_handler(method) {
        Some(handler) => run(server, handler, params, ctx).await.map(drop),
        None => Ok(()),
    }
}

/// What `handler` answers to `params`; its failure as the request's error.
async fn run(
    server: &Server,
    handler: Arc<dyn RequestHandler>,
    params: Option<&RawValue>,
    ctx: &Context,
) -> Result<Value, ErrorObject> {
    handler
        .call(params_value(params)?, ctx.clone())
        .await
        .map_err(|error| server.disclose(error).into_error_object(ctx.era()))
}

/// Params as a JSON value, `null` when absent, without `_meta`: the handler reads that from
/// its context ([`Context::meta`]), and a 2026-07-28 message carries the protocol's facts
/// there, which are not the method's own params.
fn params_value(params: Option<&RawValue>) -> Result<Value, ErrorObject> {
    let mut params = params.map_or(Ok(Value::Null), |raw| {
        serde_json::from_str(raw.get()).map_err(ErrorObject::invalid_params)
    })?;
    if let Value::Object(fields) = &mut params {
        fields.remove("_meta");
    }
    Ok(params)
}
