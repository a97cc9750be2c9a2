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
//!     .notification_handler("notifications/weather/seen", |_params: Value| async {})
//!     .build()
//!     .unwrap();
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::context::Context;
use super::dispatch::Outcome;
use super::handler::HandlerError;
use super::schema::DefinitionError;
use super::Server;
use crate::protocol::{meta, methods, ErrorObject, ResultType};
use crate::BoxFuture;

/// Answers requests of a method the core does not serve.
pub trait RequestHandler: Send + Sync + 'static {
    /// Answers one request. `params` is the request's params (`null` when it has none);
    /// the result must be a JSON object.
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
    /// Acts on one notification; `params` is `null` when it has none.
    fn notify(&self, params: Value) -> BoxFuture<'static, ()>;
}

impl<F, Fut> NotificationHandler for F
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn notify(&self, params: Value) -> BoxFuture<'static, ()> {
        Box::pin(self(params))
    }
}

/// The custom methods and declared extensions of a server.
#[derive(Default)]
pub(crate) struct CustomMethods {
    requests: HashMap<String, Arc<dyn RequestHandler>>,
    notifications: HashMap<String, Arc<dyn NotificationHandler>>,
    /// Declared in `capabilities.extensions` (2026-07-28), by identifier.
    pub(crate) extensions: Map<String, Value>,
}

impl CustomMethods {
    /// No custom methods yet, and these extensions.
    pub(crate) fn with_extensions(extensions: Map<String, Value>) -> Self {
        CustomMethods {
            extensions,
            ..CustomMethods::default()
        }
    }

    /// Adds a request handler; the core's own methods cannot be replaced.
    pub(crate) fn add_request(
        &mut self,
        method: String,
        handler: Arc<dyn RequestHandler>,
    ) -> Result<(), DefinitionError> {
        insert(
            &mut self.requests,
            method,
            handler,
            &methods::SERVER_REQUESTS,
            "request",
        )
    }

    /// Adds a notification handler; the core's own notifications cannot be replaced.
    pub(crate) fn add_notification(
        &mut self,
        method: String,
        handler: Arc<dyn NotificationHandler>,
    ) -> Result<(), DefinitionError> {
        insert(
            &mut self.notifications,
            method,
            handler,
            &methods::SERVER_NOTIFICATIONS,
            "notification",
        )
    }

    /// What the handler of notification `method` does with `params`; `None` when no
    /// handler is registered.
    pub(crate) fn notify(&self, method: &str, params: Option<&RawValue>) -> Option<BoxFuture<'static, ()>> {
        let handler = self.notifications.get(method)?;
        Some(handler.notify(params_value(params).ok()?))
    }
}

/// Registers the handler of `method`, one of a `kind` that `reserved` does not name.
fn insert<H: ?Sized>(
    handlers: &mut HashMap<String, Arc<H>>,
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
    stamp: Option<&Value>,
) -> Outcome {
    let Some(handler) = server.custom().requests.get(method).cloned() else {
        return Err(ErrorObject::method_not_found(method));
    };
    let result = handler
        .call(params_value(params)?, ctx.clone())
        .await
        .map_err(|error| server.disclose(error).into_error_object())?;
    let Value::Object(mut result) = result else {
        return Err(ErrorObject::internal(format!(
            "the handler of {method} returned a result that is not an object"
        )));
    };
    if let Some(server_info) = stamp {
        result
            .entry("resultType")
            .or_insert_with(|| serde_json::to_value(ResultType::Complete).unwrap_or_default());
        let meta_entry = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta_map) = meta_entry {
            meta_map.insert(meta::SERVER_INFO.to_owned(), server_info.clone());
        }
    }
    serde_json::to_string(&result).map_err(ErrorObject::internal)
}

/// Params as a JSON value: `null` when absent.
fn params_value(params: Option<&RawValue>) -> Result<Value, ErrorObject> {
    params.map_or(Ok(Value::Null), |raw| {
        serde_json::from_str(raw.get()).map_err(ErrorObject::invalid_params)
    })
}
