//! The tokio runtime and the allocator, and calling JavaScript from its tasks.
//!
//! Every JavaScript callback the binding keeps is a *weak* threadsafe function: it never
//! keeps the Node event loop alive by itself, so a process whose server stopped, or whose
//! client is idle, can exit. The facade's callbacks never throw: they answer with an
//! outcome (see [`crate::convert::outcome`]), either at once or as a Promise.

use std::num::NonZeroUsize;
use std::sync::OnceLock;

use napi::bindgen_prelude::{FromNapiValue, Function, FunctionRef, JsValuesTupleIntoVec, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::{check_status, sys, Status};

use crate::convert::Settled;

/// The binding's allocator. Every call allocates and frees a few dozen small blocks, many
/// on one thread and freed on the other (tokio's worker and Node's); with the system
/// allocator that cost a tenth of the server's time per call.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's options that bound the memory it keeps (their places in `mi_option_t` of the
/// mimalloc 2 that `libmimalloc-sys` builds, which does not name them), each with the
/// environment variable that sets it instead.
const RETENTION_OPTIONS: [(libmimalloc_sys::mi_option_t, &str); 2] =
    [(4, "MIMALLOC_ARENA_EAGER_COMMIT"), (15, "MIMALLOC_PURGE_DELAY")];

/// Has mimalloc return freed memory at once and commit its arenas as they fill, unless the
/// environment says otherwise. With its defaults (memory returned 10 ms late, whole arenas
/// committed up front) a server answering 64 KiB payloads over HTTP peaked 32 MiB above one
/// answering 64 B; with these it peaked 12 MiB above, at the same throughput.
fn bound_allocator_retention() {
    for (option, variable) in RETENTION_OPTIONS {
        if std::env::var_os(variable).is_none() {
            // SAFETY: runs once, at module load, before the binding starts any thread of its own.
            unsafe { libmimalloc_sys::mi_option_set(option, 0) };
        }
    }
}

/// Sets up the tokio runtime the binding runs on: one worker fewer than the machine has
/// cores (at least one), so that Node's own thread keeps a core to itself. On two cores
/// this made sequential in-process calls about three times faster, and 32 calls in flight
/// over stdio about a fifth faster, than napi-rs's default of one worker per core.
/// `TOKIO_WORKER_THREADS` overrides it.
#[napi_derive::module_init]
fn init() {
    bound_allocator_retention();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if std::env::var_os("TOKIO_WORKER_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        builder.worker_threads(cores.saturating_sub(1).max(1));
    }
    // Without a runtime of its own napi-rs builds its default one.
    if let Ok(runtime) = builder.build() {
        let _ = HANDLE.set(runtime.handle().clone());
        napi::bindgen_prelude::create_custom_tokio_runtime(runtime);
    }
}

/// The runtime [`init`] built.
static HANDLE: OnceLock<tokio::runtime::Handle> = OnceLock::new();

/// The binding's tokio runtime, for work begun on Node's thread.
pub(crate) fn handle() -> &'static tokio::runtime::Handle {
    HANDLE.get_or_init(|| napi::bindgen_prelude::within_runtime_if_available(tokio::runtime::Handle::current))
}

/// A weak threadsafe function called with `Args` (a value or `FnArgs` tuple) that answers
/// with a [`JsReturn`].
pub type Callback<Args> = ThreadsafeFunction<Args, JsReturn, Args, Status, false, true>;

/// What a facade callback returns: its outcome now, or a Promise of one.
pub enum JsReturn {
    /// The callback answered synchronously.
    Ready(Settled),
    /// The callback answered with a Promise.
    Pending(Promise<Settled>),
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
            Ok(JsReturn::Ready(unsafe { Settled::from_napi_value(env, value)? }))
        }
    }
}

/// The weak threadsafe function of `function`.
pub(crate) fn callback<Args: JsValuesTupleIntoVec + 'static>(
    function: &Function<'_, Args, JsReturn>,
) -> napi::Result<Callback<Args>> {
    function
        .build_threadsafe_function::<Args>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()
}

/// [`call`], or, within a turn on Node's thread ([`crate::js_thread`]), `here` (the same
/// function) called at once.
pub(crate) async fn call_in_place<Args: JsValuesTupleIntoVec + 'static>(
    here: &FunctionRef<Args, JsReturn>,
    callback: &Callback<Args>,
    args: Args,
) -> Result<Settled, String> {
    match call_here(here, args) {
        Ok(returned) => settle(returned?).await,
        Err(args) => call(callback, args).await,
    }
}

/// Calls `function` with `args` when within a turn on Node's thread; gives the arguments
/// back anywhere else.
fn call_here<Args: JsValuesTupleIntoVec>(
    function: &FunctionRef<Args, JsReturn>,
    args: Args,
) -> Result<Result<JsReturn, String>, Args> {
    let Some(env) = crate::js_thread::current_env() else {
        return Err(args);
    };
    Ok(function
        .borrow_back(&env)
        .and_then(|function| function.call(args))
        .map_err(failed))
}

fn failed(error: napi::Error) -> String {
    format!("the JavaScript callback failed: {}", error.reason)
}

/// Calls `callback` with `args` on the JavaScript thread and waits for its outcome,
/// awaiting it when it is a Promise; [`crate::convert::outcome`] opens it (here, off the
/// JavaScript thread). A synchronous throw or a rejection becomes an `Err` with the
/// JavaScript error's text; neither crashes the process.
pub(crate) async fn call<Args: JsValuesTupleIntoVec + 'static>(
    callback: &Callback<Args>,
    args: Args,
) -> Result<Settled, String> {
    let returned = callback.call_async_catch(args).await.map_err(failed)?;
    settle(returned).await
}

/// The outcome of a callback that returned `returned`.
async fn settle(returned: JsReturn) -> Result<Settled, String> {
    match returned {
        JsReturn::Ready(settled) => Ok(settled),
        JsReturn::Pending(promise) => promise
            .await
            .map_err(|e| format!("the JavaScript callback's promise was rejected: {}", e.reason)),
    }
}
