//! What runs around the requests a server serves: [`Interceptor`] and [`Next`].

use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use serde_json::Value;

use super::context::Context;
use super::dispatch::Dispatcher;
use super::handler::HandlerError;
use super::tools::CallParams;
use crate::protocol::{methods, Era, ErrorObject, RequestId};
use crate::BoxFuture;

/// What runs around the requests a server serves: an interceptor sees each request once
/// its era is known (its method, its params, its [`Context`]) and answers it, by running
/// the method ([`Next::run`], with the params as sent or with others) and passing on or
/// changing what it gives, or by itself. Logging, timing, rate limits, filtering a list,
/// rewriting a call's arguments: FastMCP's middleware is built on it in the Python package.
///
/// A server without one pays a lock read a request for it. With one, every request but `initialize` goes
/// through it, and its result as a JSON value: the method's result (stamped for the
/// request's era as usual) is read into one, and what the interceptor gives is written out
/// and stamped again (a stamped result stays as it is).
///
/// ```
/// use oxmcp::server::{HandlerError, Intercepted, Next, Server, ToolDef};
/// use serde_json::Value;
///
/// let server = Server::builder("shouting", "1.0.0")
///     .tool(ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or("").to_owned() }))
///     .build()
///     .unwrap();
/// server.set_interceptor(|request: Intercepted, next: Next| async move {
///     let mut result = next.run(None).await.map_err(HandlerError::rpc)?;
///     if request.method == "tools/call" {
///         let text = result["content"][0]["text"].as_str().unwrap_or("").to_uppercase();
///         result["content"][0]["text"] = Value::String(text);
///     }
///     Ok::<_, HandlerError>(result)
/// });
/// ```
pub trait Interceptor: Send + Sync + 'static {
    /// Answers `request`, through `next` or not. A [`HandlerError`] is answered as the
    /// JSON-RPC error it stands for; the error `next` gave, passed on as
    /// [`HandlerError::rpc`], as it was.
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>>;

    /// Sees a notification from the client (its method, its params, the session's
    /// [`Context`], with no request id) around what the server does with it, `next`: the
    /// run of its handler, if the server has one. A cancellation is not seen: the core acts
    /// on it as it arrives. The default runs `next`; an interceptor that does not drops the
    /// notification.
    fn notified(&self, notification: Intercepted, next: NotificationNext) -> BoxFuture<'static, ()> {
        drop(notification);
        Box::pin(next.run())
    }

    /// Whether the legacy handshake's `initialize` goes through
    /// [`intercept`](Self::intercept) too, in the context of the session it opens (false
    /// by default: the handshake is the core's). What the interceptor gives is the
    /// `initialize` result; an error refuses the client.
    fn intercepts_initialize(&self) -> bool {
        false
    }
}

impl<F, Fut> Interceptor for F
where
    F: Fn(Intercepted, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, HandlerError>> + Send + 'static,
{
    fn intercept(&self, request: Intercepted, next: Next) -> BoxFuture<'static, Result<Value, HandlerError>> {
        Box::pin(self(request, next))
    }
}

/// A request an [`Interceptor`] sees.
pub struct Intercepted {
    /// The method, e.g. `tools/call`.
    pub method: String,
    /// The params as sent (`_meta` included); `null` when the request has none.
    pub params: Value,
    /// The request's context: its era, client, caller, progress and logs.
    pub ctx: Context,
}

/// What the server does with a notification an [`Interceptor`] sees: its handler's run.
pub struct NotificationNext(pub(super) Option<BoxFuture<'static, ()>>);

impl NotificationNext {
    /// Runs the notification's handler, if the server has one.
    pub async fn run(self) {
        if let Some(handled) = self.0 {
            handled.await;
        }
    }
}

/// The rest of a request's way: the method that serves it. It may run more than once (a
/// retry); each run runs the method anew.
pub struct Next {
    pub(super) dispatcher: Arc<Dispatcher>,
    pub(super) method: String,
    pub(super) id: RequestId,
    pub(super) era: Era,
    pub(super) ctx: Context,
    /// A `tools/call`'s params as the dispatcher read them, for the first run with the
    /// params as sent; a later run reads them again.
    pub(super) call: Mutex<Option<CallParams<'static>>>,
}

impl Next {
    /// Runs the method with the params as sent (`None`), or with `params` instead (`null`
    /// as none); gives its result, or the error it answered with.
    pub async fn run(&self, params: Option<Value>) -> Result<Value, ErrorObject> {
        let given = match params {
            Some(Value::Null) => Some(Value::Object(serde_json::Map::new())),
            given => given,
        }
        .map(|params| serde_json::value::to_raw_value(&params).map_err(ErrorObject::internal))
        .transpose()?;
        let call = match &given {
            Some(raw) if self.method == methods::TOOLS_CALL => Some(CallParams::read(Some(raw))?.split().1),
            Some(_) => None,
            None => crate::lock(&self.call).take(),
        };
        // Stamped as usual: what the era's stamp adds besides `_meta` (a list's cache
        // hints) is only worked out then; stamping the interceptor's result again changes
        // nothing of it.
        let server = self.dispatcher.server();
        let stamp = (self.era == Era::Modern).then(|| server.stamp());
        let outcome = self
            .dispatcher
            .run_method(
                &self.method,
                &self.id,
                self.era,
                &self.ctx,
                call,
                given.as_deref(),
                stamp,
            )
            .await?;
        serde_json::from_str(&outcome).map_err(ErrorObject::internal)
    }
}

/// The params of a request as an interceptor sees them: `null` when absent (the envelope
/// checked that they read as JSON).
pub(super) fn params_value(params: Option<&RawValue>) -> Value {
    params
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or(Value::Null)
}
