//! The asyncio loop that Python handlers run on, and running their coroutines there from
//! tokio tasks.
//!
//! Calls reach the loop in batches. A tokio task adds its call (what makes the coroutine)
//! to the slot's open [`Batch`], and only the call that opens a batch schedules it on the
//! loop (`call_soon_threadsafe`: one wake of the loop's thread, one turn at the interpreter
//! lock for the tokio thread). On the loop's thread the batch makes each coroutine and
//! starts it as a task. Under load many calls share one wake, and their coroutines are made
//! by the thread that holds the lock anyway.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3_async_runtimes::TaskLocals;
use tokio::sync::oneshot;

use oxmcp::server::{HandlerError, Returned};

use crate::{convert, error, runtime};

/// What makes a call's coroutine, on the loop's thread.
pub type MakeCoroutine = Box<dyn for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send>;

/// The asyncio loop (and contextvars) Python handlers run on: captured when Python enters
/// `serve_*` or connects a client, shared by every handler of that server or client.
#[derive(Clone, Default)]
pub struct LoopSlot(Arc<Slot>);

#[derive(Default)]
struct Slot {
    locals: RwLock<Option<TaskLocals>>,
    /// The batch scheduled on the loop and not yet started there. The loop's callback
    /// owns it: when the loop is closed before running it, the batch goes, and its calls
    /// end without an answer instead of waiting forever.
    open: Mutex<Weak<Batch>>,
}

impl LoopSlot {
    /// Handlers run on this loop from now on.
    pub fn set(&self, locals: TaskLocals) {
        *self.0.locals.write().unwrap_or_else(|e| e.into_inner()) = Some(locals);
        *lock(&self.0.open) = Weak::new();
    }

    fn get(&self) -> Option<TaskLocals> {
        self.0.locals.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Calls `callback(*args)` on the loop's thread, soon; does nothing when there is no
    /// loop, or it is closed, or the interpreter is exiting.
    pub fn call_soon(
        &self,
        callback: &Py<PyAny>,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>>,
    ) {
        let Some(locals) = self.get() else { return };
        runtime::attach(|py| {
            let scheduled = args(py).and_then(|args| {
                let mut call = vec![callback.bind(py).clone()];
                call.extend(args);
                locals
                    .event_loop(py)
                    .call_method1("call_soon_threadsafe", PyTuple::new(py, call)?)
            });
            // A closed loop means nobody is listening any more.
            drop(scheduled);
        });
    }

    /// Runs the coroutine `make` makes as a task on the loop and returns its result.
    /// Dropping the returned future cancels the task.
    pub async fn run(&self, make: MakeCoroutine) -> Result<Returned, HandlerError> {
        let Some(locals) = self.get() else {
            return Err(HandlerError::message("no asyncio loop serves this handler"));
        };
        let (sender, receiver) = oneshot::channel();
        let call = Arc::new(Call {
            sender: Mutex::new(Some(sender)),
            task: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        });
        self.enqueue(&locals, make, Arc::clone(&call))?;
        let guard = CancelOnDrop {
            call: Some(call),
            locals,
        };
        let outcome = receiver
            .await
            .unwrap_or_else(|_| Err(HandlerError::message("the handler's task ended without an answer")));
        guard.disarm();
        outcome
    }

    /// Adds a call to the open batch, or opens one and schedules it on the loop.
    fn enqueue(&self, locals: &TaskLocals, make: MakeCoroutine, call: Arc<Call>) -> Result<(), HandlerError> {
        let mut open = lock(&self.0.open);
        if let Some(batch) = open.upgrade() {
            let mut calls = lock(&batch.calls);
            if let Some(calls) = calls.as_mut() {
                calls.push(Queued { make, call });
                return Ok(());
            }
        }
        let batch = Arc::new(Batch {
            calls: Mutex::new(Some(vec![Queued { make, call }])),
        });
        *open = Arc::downgrade(&batch);
        drop(open);
        runtime::attach(|py| -> PyResult<()> {
            let start = Bound::new(py, StartBatch(batch))?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("context", locals.context(py))?;
            locals
                .event_loop(py)
                .call_method("call_soon_threadsafe", (start,), Some(&kwargs))?;
            Ok(())
        })
        .ok_or_else(error::exiting_handler)?
        .map_err(|e| runtime::attach(|py| error::handler_error_from_py(py, &e)).unwrap_or_else(error::exiting_handler))
    }
}

/// Calls on their way to the loop; `None` once it started them.
struct Batch {
    calls: Mutex<Option<Vec<Queued>>>,
}

/// A call in a batch: what makes its coroutine, and where its answer goes.
struct Queued {
    make: MakeCoroutine,
    call: Arc<Call>,
}

/// A batch as the loop's callback, which starts its calls.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct StartBatch(Arc<Batch>);

#[pymethods]
impl StartBatch {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        let calls = lock(&self.0.calls).take().unwrap_or_default();
        let ensure_future = py.import("asyncio")?.getattr("ensure_future")?;
        for Queued { make, call } in calls {
            // A call cancelled before its turn is not made.
            if call.cancelled.load(Ordering::SeqCst) {
                continue;
            }
            let started = make(py).and_then(|coroutine| {
                let task = ensure_future.call1((coroutine,))?;
                *lock(&call.task) = Some(task.clone().unbind());
                let finish = Bound::new(py, PendingCall(Arc::clone(&call)))?.getattr("finish")?;
                task.call_method1("add_done_callback", (finish,))
            });
            if let Err(e) = started {
                call.answer(Err(error::handler_error_from_py(py, &e)));
            }
        }
        Ok(())
    }
}

/// One call of a Python handler: where its answer goes, its task once started.
struct Call {
    sender: Mutex<Option<oneshot::Sender<Result<Returned, HandlerError>>>>,
    task: Mutex<Option<Py<PyAny>>>,
    cancelled: AtomicBool,
}

impl Call {
    fn answer(&self, outcome: Result<Returned, HandlerError>) {
        if let Some(sender) = lock(&self.sender).take() {
            let _ = sender.send(outcome);
        }
    }
}

/// A call from the loop's side: reports its task's end, cancels it on request. Its methods
/// run on the loop's thread.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct PendingCall(Arc<Call>);

#[pymethods]
impl PendingCall {
    /// The task's done callback: sends its result or its failure.
    fn finish(&self, task: &Bound<'_, PyAny>) {
        let py = task.py();
        lock(&self.0.task).take();
        let outcome = if task
            .call_method0("cancelled")
            .and_then(|c| c.is_truthy())
            .unwrap_or(true)
        {
            Err(HandlerError::message("the handler was cancelled"))
        } else {
            match task.call_method0("result") {
                Ok(result) => convert::answer(&result),
                Err(e) => Err(error::handler_error_from_py(py, &e)),
            }
        };
        self.0.answer(outcome);
    }

    /// Cancels the task (or, before it started, keeps it from starting).
    fn cancel(&self, py: Python<'_>) -> PyResult<()> {
        self.0.cancelled.store(true, Ordering::SeqCst);
        let task = lock(&self.0.task).take();
        if let Some(task) = task {
            task.bind(py).call_method0("cancel")?;
        }
        Ok(())
    }
}

/// Cancels the task of a call whose Rust future was dropped before the answer came.
struct CancelOnDrop {
    call: Option<Arc<Call>>,
    locals: TaskLocals,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.call.take();
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(call) = self.call.take() else { return };
        // Told on the loop's thread, where the batch starts calls: it either has not
        // started this one yet and will not, or has and the task is cancelled.
        runtime::attach(|py| {
            if let Ok(cancel) = Bound::new(py, PendingCall(call)).and_then(|pending| pending.getattr("cancel")) {
                // A closed loop has no task left to cancel.
                let _ = self
                    .locals
                    .event_loop(py)
                    .call_method1("call_soon_threadsafe", (cancel,));
            }
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
