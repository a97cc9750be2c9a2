//! The tokio runtime, and calling JavaScript from its tasks.
//!
//! Every JavaScript callback the binding keeps is a *weak* threadsafe function: it never
//! keeps the Node event loop alive by itself, so a process whose server stopped, or whose
//! client is idle, can exit. The facade's callbacks never throw: they answer with an
//! outcome envelope (see [`crate::convert::outcome`]), either at once or as a Promise.

use std::num::NonZeroUsize;

use napi::bindgen_prelude::{FromNapiValue, JsValuesTupleIntoVec, Object, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::{check_status, sys, Status};
use serde_json::{Map, Value};

use crate::convert::from_js;

/// Sets up the tokio runtime the binding runs on: one worker fewer than the machine has
/// cores (at least one), so that Node's own thread keeps a core to itself. On two cores
/// this made sequential in-process calls about three times faster, and 32 calls in flight
/// over stdio about a fifth faster, than napi-rs's default of one worker per core.
/// `TOKIO_WORKER_THREADS` overrides it.
#[napi_derive::module_init]
fn init() {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        builder.worker_threads(cores.saturating_sub(1).max(1));
    }
    // Without a runtime of its own napi-rs builds its default one.
    if let Ok(runtime) = builder.build() {
        napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
    }
}

/// A weak threadsafe function called with `Args` (a value or `FnArgs` tuple) that answers
/// with a [`JsReturn`].
pub type Callback<Args> = ThreadsafeFunction<Args, JsReturn, Args, Status, false, true>;

/// What a facade callback returns: its outcome envelope now, or a Promise of one.
pub enum JsReturn {
    /// The callback answered synchronously.
    Ready(Envelope),
    /// The callback answered with a Promise.
    Pending(Promise<Envelope>),
}

impl FromNapiValue for JsReturn {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        let mut is_promise = false;
        // SAFETY: `env` and `value` come from N-API for this call.
        check_status!(unsafe { sys::napi_is_promise(env, value, &mut is_promise) })?;
        if is_promise {
            // SAFETY: as above; the value was just checked to be a Promise.
            Ok(JsReturn::Pending(unsafe { Promise::from_napi_value(env, value)? }))
        } else {
            // SAFETY: as above.
            Ok(JsReturn::Ready(unsafe { Envelope::from_napi_value(env, value)? }))
        }
    }
}

/// A facade callback's outcome envelope (`{ ok }` or `{ error }`) as JSON. Its members are
/// read one by one, so that the value in it has napi-rs's whole depth budget (128 levels,
/// serde_json's, as in every binding) rather than one level less.
pub struct Envelope(Value);

impl FromNapiValue for Envelope {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: `env` and `value` come from N-API for this call.
        let object = unsafe { Object::from_napi_value(env, value)? };
        let mut members = Map::new();
        for key in ["ok", "error"] {
            if let Some(member) = object.get::<Value>(key)? {
                members.insert(key.to_owned(), member);
            }
        }
        Ok(Envelope(Value::Object(members)))
    }
}

/// Calls `callback` with `args` on the JavaScript thread and waits for its outcome
/// envelope, awaiting it when it is a Promise. A synchronous throw or a rejection becomes
/// an `Err` with the JavaScript error's text; neither crashes the process.
pub(crate) async fn call<Args: JsValuesTupleIntoVec + 'static>(
    callback: &Callback<Args>,
    args: Args,
) -> Result<Value, String> {
    let returned = callback
        .call_async_catch(args)
        .await
        .map_err(|e| format!("the JavaScript callback failed: {}", e.reason))?;
    let Envelope(value) = match returned {
        JsReturn::Ready(envelope) => envelope,
        JsReturn::Pending(promise) => promise
            .await
            .map_err(|e| format!("the JavaScript callback's promise was rejected: {}", e.reason))?,
    };
    Ok(from_js(value))
}
