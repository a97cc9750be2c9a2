//! The tokio runtime the binding owns.
//!
//! It is built on first use, shut down with a time bound from an `atexit` hook (so that no
//! worker thread touches the interpreter while it finalises; [`attach`] keeps threads left
//! behind off it too), and forgotten in the child of a `fork()` (whose copy has no worker
//! threads) so that the child builds its own.
//!
//! [`OxRuntime`] plugs it into pyo3-async-runtimes, which turns Rust futures into Python
//! awaitables.

use std::cell::OnceCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3_async_runtimes::generic::{ContextExt, JoinError, Runtime};
use pyo3_async_runtimes::TaskLocals;
use tokio::runtime::Handle;

/// How long interpreter exit waits for tasks (such as a blocked stdin read) to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(250);
/// How long interpreter exit waits for the binding's threads still in Python (a plain
/// function handler running) to leave it, as `asyncio.run` waits for `to_thread` work: a
/// thread still in Python when the interpreter finalises is torn down mid-call.
const EXIT_WAIT: Duration = Duration::from_secs(10);

static RUNTIME: Mutex<Option<tokio::runtime::Runtime>> = Mutex::new(None);
/// Set at interpreter exit: nothing may start any more.
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);
/// The binding's threads attached to the interpreter, or about to attach.
static ATTACHED: AtomicUsize = AtomicUsize::new(0);

tokio::task_local! {
    static TASK_LOCALS: OnceCell<TaskLocals>;
}

/// A handle on the runtime, building it on first use; `None` once the interpreter exits.
pub fn handle() -> Option<Handle> {
    if exiting() {
        return None;
    }
    let mut runtime = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if runtime.is_none() {
        let built = tokio::runtime::Builder::new_multi_thread()
            .thread_name("oxmcp-worker")
            .enable_all()
            .build();
        match built {
            Ok(built) => *runtime = Some(built),
            Err(error) => {
                eprintln!("oxmcp: cannot start the tokio runtime: {error}");
                return None;
            }
        }
    }
    runtime.as_ref().map(|r| r.handle().clone())
}

/// Runs `future` on the runtime; dropped unstarted after interpreter exit.
pub fn spawn(future: impl Future<Output = ()> + Send + 'static) -> Task {
    Task(handle().map(|h| h.spawn(future)))
}

/// Runs `f` attached to the interpreter; `None` once the interpreter exits (from the
/// `atexit` hook on, through finalisation), when no thread of the binding may touch it.
/// The exit hook waits (up to [`EXIT_WAIT`]) for the calls already in here.
pub fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    let _stay = Stay::begin()?;
    Python::try_attach(f)
}

/// Whether the interpreter is exiting (the `atexit` hook ran).
pub fn exiting() -> bool {
    SHUT_DOWN.load(Ordering::SeqCst)
}

/// One thread's stay in the interpreter, counted in [`ATTACHED`] until dropped.
struct Stay;

impl Stay {
    /// Counts the thread in, unless the interpreter is exiting. (Counted first, checked
    /// second, while the exit hook sets the flag first and counts second: one of the two
    /// sees the other.)
    fn begin() -> Option<Stay> {
        ATTACHED.fetch_add(1, Ordering::SeqCst);
        let stay = Stay;
        (!exiting()).then_some(stay)
    }
}

impl Drop for Stay {
    fn drop(&mut self) {
        ATTACHED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Turns a Rust future into a Python awaitable bound to the running asyncio loop.
/// Cancelling the awaitable drops the future.
pub fn future_into_py<F, T>(py: Python<'_>, future: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    pyo3_async_runtimes::generic::future_into_py::<OxRuntime, F, T>(py, future)
}

/// The asyncio loop running now, with the caller's contextvars.
pub fn current_locals(py: Python<'_>) -> PyResult<TaskLocals> {
    pyo3_async_runtimes::generic::get_current_locals::<OxRuntime>(py)
}

/// Stops the runtime: called from an `atexit` hook. Threads still in Python get up to
/// [`EXIT_WAIT`] to leave it, then tasks get a short grace period; a thread blocked
/// reading stdin is left behind (the process is exiting).
#[pyfunction]
pub fn shutdown(py: Python<'_>) {
    SHUT_DOWN.store(true, Ordering::SeqCst);
    crate::workers::stop();
    let runtime = RUNTIME.lock().unwrap_or_else(|e| e.into_inner()).take();
    py.detach(|| {
        let deadline = Instant::now() + EXIT_WAIT;
        while ATTACHED.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(runtime) = runtime {
            runtime.shutdown_timeout(SHUTDOWN_GRACE);
        }
    });
}

/// Forgets the parent's runtime (and its threads in Python) in a forked child, whose copy
/// has no worker threads; the child builds a fresh runtime on first use. Registered with
/// `os.register_at_fork`.
#[pyfunction]
pub fn after_fork_in_child() {
    if let Ok(mut runtime) = RUNTIME.try_lock() {
        std::mem::forget(runtime.take());
    }
    crate::workers::forget_after_fork();
    // The parent's threads in Python did not come along.
    ATTACHED.store(0, Ordering::SeqCst);
}

/// The runtime as pyo3-async-runtimes sees it.
pub struct OxRuntime;

/// A spawned task; completes at once when it could not be spawned.
pub struct Task(Option<tokio::task::JoinHandle<()>>);

impl Future for Task {
    type Output = Result<(), TaskError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.0 {
            Some(handle) => Pin::new(handle).poll(cx).map_err(TaskError),
            None => Poll::Ready(Ok(())),
        }
    }
}

/// Why a spawned task did not finish.
pub struct TaskError(tokio::task::JoinError);

impl JoinError for TaskError {
    fn is_panic(&self) -> bool {
        self.0.is_panic()
    }

    fn into_panic(self) -> Box<dyn std::any::Any + Send + 'static> {
        self.0.into_panic()
    }
}

impl Runtime for OxRuntime {
    type JoinError = TaskError;
    type JoinHandle = Task;

    fn spawn<F>(future: F) -> Task
    where
        F: Future<Output = ()> + Send + 'static,
    {
        spawn(future)
    }

    /// pyo3-async-runtimes hands results back to Python this way: skipped once the
    /// interpreter exits, and waited for at exit, like every other [`attach`].
    fn spawn_blocking<F>(f: F) -> Task
    where
        F: FnOnce() + Send + 'static,
    {
        Task(handle().map(|h| {
            h.spawn_blocking(move || {
                if let Some(_stay) = Stay::begin() {
                    f();
                }
            })
        }))
    }
}

impl ContextExt for OxRuntime {
    fn scope<F, R>(locals: TaskLocals, future: F) -> Pin<Box<dyn Future<Output = R> + Send>>
    where
        F: Future<Output = R> + Send + 'static,
    {
        let cell = OnceCell::new();
        let _ = cell.set(locals);
        Box::pin(TASK_LOCALS.scope(cell, future))
    }

    fn get_task_locals() -> Option<TaskLocals> {
        TASK_LOCALS.try_with(|c| c.get().cloned()).unwrap_or_default()
    }
}
