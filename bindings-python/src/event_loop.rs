//! The asyncio loop that Python handlers run on, and running their coroutines there from
//! tokio tasks.
//!
//! Calls reach the loop in batches. A tokio task adds its call (what makes the coroutine)
//! to the slot's open [`Batch`], and only the call that opens a batch tells the loop. Where
//! the loop watches sockets (every loop on Unix), it watches one of the slot's ([`Bell`]):
//! the tokio thread writes a byte to its pair, without the interpreter lock. A tokio thread
//! that took the lock would also make a Python thread state for the call, and wait for the
//! lock while the loop's thread runs handlers. Elsewhere (Windows' proactor loop) the batch
//! is scheduled with `call_soon_threadsafe`. On the loop's thread the batch makes each
//! coroutine and starts it as a task. Under load many calls share one wake, and their
//! coroutines are made by the thread that holds the lock anyway. The task runs the
//! coroutine through [`Reporting`], which answers the call in the step that ends it.
//!
//! A coroutine function that never waits ([`runs_in_one_step`]: no `await`, `async for` or
//! `async with` in its code) ends in the step that starts it, so its calls run there and
//! then, in the batch's turn of the loop, each in its own copy of the contextvars, under a
//! task of the loop's made for them ([`Served::host`]): what Python 3.12's eager tasks do,
//! without a task each. A task per call cost a handle scheduled on the loop, a turn of the
//! loop and an entry in its set of tasks, more than the handler's whole run.

#[cfg(unix)]
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::fd::AsRawFd;
#[cfg(unix)]
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};

use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyRuntimeError, PyStopIteration, PySystemExit};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::iterator::PySendResult;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyTuple};
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
    served: RwLock<Option<Served>>,
    /// The batch on its way to the loop and not yet started there. The loop owns it (its
    /// callback, or its bell's): when the loop is closed before starting it, the batch
    /// goes, and its calls end with an error instead of waiting forever.
    open: Mutex<Weak<Batch>>,
    /// The bell the loop watches, when it watches sockets; the loop owns it too.
    bell: Mutex<Weak<Bell>>,
}

/// The loop handlers run on, as captured.
#[derive(Clone)]
struct Served {
    /// The loop and the contextvars the calls run in.
    locals: TaskLocals,
    /// The task current while calls that never wait run: a task of the loop's (ended at
    /// once), for what asks which task runs (`asyncio.current_task()`, anyio's cancel
    /// scopes), when a task per call would cost more than the call.
    host: Arc<Py<PyAny>>,
}

impl Served {
    /// The loop of `locals`, from its thread.
    fn new(py: Python<'_>, locals: TaskLocals) -> PyResult<Self> {
        let asyncio = py.import("asyncio")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("name", "oxmcp handlers that never await")?;
        let ends_at_once = asyncio.call_method1("sleep", (0,))?;
        let host = locals
            .event_loop(py)
            .call_method("create_task", (ends_at_once,), Some(&kwargs))?;
        Ok(Served {
            locals,
            host: Arc::new(host.unbind()),
        })
    }
}

impl LoopSlot {
    /// Handlers run on the loop of `locals` from now on. Called on that loop's thread.
    pub fn set(&self, py: Python<'_>, locals: TaskLocals) -> PyResult<()> {
        let same_loop = self
            .get()
            .is_some_and(|old| old.locals.event_loop(py).is(locals.event_loop(py)));
        let mut bell = lock(&self.0.bell);
        if !same_loop || bell.upgrade().is_none() {
            *bell = Bell::hang(&locals.event_loop(py))?;
        }
        let served = match self.get() {
            Some(old) if same_loop => Served { locals, host: old.host },
            _ => Served::new(py, locals)?,
        };
        *self.0.served.write().unwrap_or_else(|e| e.into_inner()) = Some(served);
        *lock(&self.0.open) = Weak::new();
        Ok(())
    }

    fn get(&self) -> Option<Served> {
        self.0.served.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Calls `callback(*args)` on the loop's thread, soon; does nothing when there is no
    /// loop, or it is closed, or the interpreter is exiting.
    pub fn call_soon(
        &self,
        callback: &Py<PyAny>,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>>,
    ) {
        let Some(Served { locals, .. }) = self.get() else {
            return;
        };
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

    /// Runs the coroutine `make` makes as a task on the loop and returns its result; one
    /// that ends in its first step (`in_one_step`, the coroutine of a function for which
    /// [`runs_in_one_step`] holds) runs to its end as its batch starts, without a task.
    /// Dropping the returned future cancels the task (or keeps the call from starting).
    pub async fn run(&self, make: MakeCoroutine, in_one_step: bool) -> Result<Returned, HandlerError> {
        let Some(served) = self.get() else {
            return Err(HandlerError::message("no asyncio loop serves this handler"));
        };
        let (sender, receiver) = oneshot::channel();
        let call = Arc::new(Call {
            sender: Mutex::new(Some(sender)),
            task: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        });
        self.enqueue(
            &served,
            Queued {
                make,
                call: Arc::clone(&call),
                in_one_step,
            },
        )?;
        let guard = CancelOnDrop {
            call: Some(call),
            locals: served.locals,
        };
        let outcome = receiver
            .await
            .unwrap_or_else(|_| Err(HandlerError::message("the handler's task ended without an answer")));
        guard.disarm();
        outcome
    }

    /// Adds a call to the open batch, or opens one and schedules it on the loop.
    fn enqueue(&self, served: &Served, queued: Queued) -> Result<(), HandlerError> {
        let mut open = lock(&self.0.open);
        if let Some(batch) = open.upgrade() {
            let mut calls = lock(&batch.calls);
            if let Some(calls) = calls.as_mut() {
                calls.push(queued);
                return Ok(());
            }
        }
        let batch = Arc::new(Batch {
            calls: Mutex::new(Some(vec![queued])),
            served: served.clone(),
        });
        *open = Arc::downgrade(&batch);
        drop(open);
        let bell = lock(&self.0.bell).upgrade();
        if let Some(bell) = bell {
            bell.ring(batch);
            return Ok(());
        }
        runtime::attach(|py| -> PyResult<()> {
            let kwargs = PyDict::new(py);
            kwargs.set_item("context", batch.served.locals.context(py))?;
            let event_loop = batch.served.locals.event_loop(py);
            let start = Bound::new(py, StartBatch(batch))?;
            event_loop.call_method("call_soon_threadsafe", (start,), Some(&kwargs))?;
            Ok(())
        })
        .ok_or_else(error::exiting_handler)?
        .map_err(|e| runtime::attach(|py| error::handler_error_from_py(py, &e)).unwrap_or_else(error::exiting_handler))
    }
}

/// Calls on their way to the loop; `None` once it started them.
struct Batch {
    calls: Mutex<Option<Vec<Queued>>>,
    /// The loop the calls run on.
    served: Served,
}

impl Drop for Batch {
    /// A batch the loop never ran (it closed first): its calls end now.
    fn drop(&mut self) {
        for Queued { call, .. } in lock(&self.calls).take().unwrap_or_default() {
            call.answer(Err(HandlerError::message(
                "the asyncio loop closed before the handler started",
            )));
        }
    }
}

/// A socket the loop watches for batches (`add_reader`), and the batches rung in: a tokio
/// thread hands a batch to the loop by writing a byte, without the interpreter lock. The
/// loop owns it, through the reader it calls ([`Doorway`]): when the loop closes, its
/// selector lets the reader go, and with it the bell and the batches still waiting.
#[cfg(unix)]
pub struct Bell {
    waiting: Mutex<Vec<Arc<Batch>>>,
    ringer: UnixStream,
}

#[cfg(unix)]
impl Bell {
    /// A bell the loop `event_loop` watches, from the loop's thread; none (a dangling
    /// reference) when the loop watches no sockets.
    fn hang(event_loop: &Bound<'_, PyAny>) -> PyResult<Weak<Bell>> {
        let (ringer, heard) = UnixStream::pair()?;
        ringer.set_nonblocking(true)?;
        heard.set_nonblocking(true)?;
        let bell = Arc::new(Bell {
            waiting: Mutex::new(Vec::new()),
            ringer,
        });
        let hung = Arc::downgrade(&bell);
        let fd = heard.as_raw_fd();
        let doorway = Bound::new(event_loop.py(), Doorway { bell, heard })?;
        match event_loop.call_method1("add_reader", (fd, doorway)) {
            Ok(_) => Ok(hung),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyNotImplementedError>(event_loop.py()) => Ok(Weak::new()),
            Err(e) => Err(e),
        }
    }

    /// Hands `batch` to the loop.
    fn ring(&self, batch: Arc<Batch>) {
        lock(&self.waiting).push(batch);
        // A full socket has rung already; a closed one belongs to a closed loop, and the
        // batch goes with this bell.
        let _ = (&self.ringer).write(&[1]);
    }
}

/// The bell's reader, which the loop calls when it rang: starts the batches rung in.
#[cfg(unix)]
#[pyclass(frozen, module = "oxmcp._native")]
pub struct Doorway {
    bell: Arc<Bell>,
    heard: UnixStream,
}

#[cfg(unix)]
#[pymethods]
impl Doorway {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        // Read what rang before taking the batches: a ring after this reads as a new one.
        let mut rung = [0; 64];
        while matches!((&self.heard).read(&mut rung), Ok(n) if n > 0) {}
        let batches = std::mem::take(&mut *lock(&self.bell.waiting));
        for batch in batches {
            let context = batch.served.locals.context(py).clone();
            context.call_method1("run", (Bound::new(py, StartBatch(batch))?,))?;
        }
        Ok(())
    }
}

/// Off Unix there is no bell: loops are told of batches with `call_soon_threadsafe`.
#[cfg(not(unix))]
pub enum Bell {}

#[cfg(not(unix))]
impl Bell {
    fn hang(_event_loop: &Bound<'_, PyAny>) -> PyResult<Weak<Bell>> {
        Ok(Weak::new())
    }

    fn ring(&self, _batch: Arc<Batch>) {
        match *self {}
    }
}

/// A call in a batch: what makes its coroutine, where its answer goes, and whether the
/// coroutine ends in its first step.
struct Queued {
    make: MakeCoroutine,
    call: Arc<Call>,
    in_one_step: bool,
}

/// A batch as the loop's callback, which starts its calls.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct StartBatch(Arc<Batch>);

#[pymethods]
impl StartBatch {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        let calls = lock(&self.0.calls).take().unwrap_or_default();
        let (in_one_step, own_tasks): (Vec<_>, Vec<_>) = calls.into_iter().partition(|queued| queued.in_one_step);
        let started = start_tasks(py, own_tasks);
        let ran = run_without_tasks(py, &self.0.served, in_one_step);
        started.and(ran)
    }
}

/// Starts each call's coroutine as a task of its own.
fn start_tasks(py: Python<'_>, calls: Vec<Queued>) -> PyResult<()> {
    if calls.is_empty() {
        return Ok(());
    }
    let start = TaskStarter::for_running_loop(py).inspect_err(|e| refuse(py, &calls, e))?;
    for Queued { make, call, .. } in calls {
        // A call cancelled before its turn is not made.
        if call.cancelled.load(Ordering::SeqCst) {
            continue;
        }
        let started = make(py).and_then(|coroutine| {
            let reporting = Reporting {
                coroutine: coroutine.unbind(),
                call: Arc::clone(&call),
            };
            let task = start.task(reporting)?;
            // A task that ended in its eager first step answered already: holding it
            // would tie the call and the task in a cycle that is never collected.
            if !call.answered() {
                *lock(&call.task) = Some(task.unbind());
            }
            Ok(())
        });
        if let Err(e) = started {
            call.answer(Err(error::handler_error_from_py(py, &e)));
        }
    }
    Ok(())
}

/// Runs calls whose coroutines end in their first step, here and now, each in its own copy
/// of the contextvars, the loop's host task the current one while they run (where asyncio
/// lets it be told, as its eager tasks are). `KeyboardInterrupt` and `SystemExit` go on
/// once every call has its answer.
fn run_without_tasks(py: Python<'_>, served: &Served, calls: Vec<Queued>) -> PyResult<()> {
    static COPY_CONTEXT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static RUN_TO_END: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static ENTER_TASK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static LEAVE_TASK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    if calls.is_empty() {
        return Ok(());
    }
    let needed = COPY_CONTEXT
        .import(py, "contextvars", "copy_context")
        .and_then(|copy_context| {
            let run_to_end = RUN_TO_END.get_or_try_init(py, || {
                Ok::<_, PyErr>(wrap_pyfunction!(run_to_end, py)?.into_any().unbind())
            })?;
            Ok((copy_context, run_to_end.bind(py)))
        });
    let (copy_context, run_to_end) = needed.inspect_err(|e| refuse(py, &calls, e))?;
    let (event_loop, host) = (served.locals.event_loop(py), served.host.bind(py));
    let entered = tell_asyncio(py, &ENTER_TASK, "_enter_task", &event_loop, host);
    let mut uncaught = None;
    for Queued { make, call, .. } in calls {
        if call.cancelled.load(Ordering::SeqCst) {
            continue;
        }
        let returned = make(py).and_then(|coroutine| {
            copy_context
                .call0()?
                .call_method1(intern!(py, "run"), (run_to_end, coroutine))
        });
        match returned {
            Ok(value) => call.answer(convert::answer(&value)),
            Err(ended) => {
                call.answer(outcome_of_end(py, &ended));
                if ended.is_instance_of::<PyKeyboardInterrupt>(py) || ended.is_instance_of::<PySystemExit>(py) {
                    uncaught.get_or_insert(ended);
                }
            }
        }
    }
    if entered && !tell_asyncio(py, &LEAVE_TASK, "_leave_task", &event_loop, host) {
        return Err(PyRuntimeError::new_err("asyncio refused to leave the handlers' task"));
    }
    uncaught.map_or(Ok(()), Err)
}

/// Calls `asyncio.tasks.<name>(event_loop, task)` (`_enter_task`, `_leave_task`, which
/// set the loop's current task); whether asyncio has it and took it.
fn tell_asyncio(
    py: Python<'_>,
    function: &PyOnceLock<Py<PyAny>>,
    name: &str,
    event_loop: &Bound<'_, PyAny>,
    task: &Bound<'_, PyAny>,
) -> bool {
    function
        .import(py, "asyncio.tasks", name)
        .and_then(|function| function.call1((event_loop, task)))
        .is_ok()
}

/// Ends calls that could not be started with the error that kept them from it.
fn refuse(py: Python<'_>, calls: &[Queued], error: &PyErr) {
    for Queued { call, .. } in calls {
        call.answer(Err(error::handler_error_from_py(py, error)));
    }
}

/// How the loop's tasks are made: on a loop with no task factory of its own, by `Task`
/// itself (not through `create_task`, a Python function around it), and eagerly where
/// Python can (3.12 and later), so that a handler that does not wait for anything ends in
/// the step that starts it, without a turn of the loop; else by the loop's `create_task`.
enum TaskStarter<'py> {
    Direct {
        task: Bound<'py, PyAny>,
        options: Bound<'py, PyDict>,
    },
    Created(Bound<'py, PyAny>),
}

impl<'py> TaskStarter<'py> {
    fn for_running_loop(py: Python<'py>) -> PyResult<Self> {
        let asyncio = py.import("asyncio")?;
        let running = asyncio.call_method0("get_running_loop")?;
        if !running.call_method0("get_task_factory")?.is_none() {
            return Ok(Self::Created(running.getattr("create_task")?));
        }
        let options = PyDict::new(py);
        options.set_item("loop", &running)?;
        if py.version_info() >= (3, 12) {
            options.set_item("eager_start", true)?;
        }
        Ok(Self::Direct {
            task: asyncio.getattr("Task")?,
            options,
        })
    }

    fn task(&self, coroutine: Reporting) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Self::Direct { task, options } => task.call((coroutine,), Some(options)),
            Self::Created(create_task) => create_task.call1((coroutine,)),
        }
    }
}

/// A handler's coroutine as its task runs it, answering the call in the step that ends it:
/// no done callback, which would take one more turn of the loop.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct Reporting {
    coroutine: Py<PyAny>,
    call: Arc<Call>,
}

#[pymethods]
impl Reporting {
    fn __await__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The step the task takes (it sends only None): through `PyIter_Send`, so that a
    /// coroutine's return reaches here as its value, not as a `StopIteration` to make and
    /// read, and the task's end as none (no exception either).
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        match send_none(self.coroutine.bind(py)) {
            Ok(PySendResult::Next(awaited)) => Ok(Some(awaited.unbind())),
            Ok(PySendResult::Return(value)) => {
                self.finish(convert::answer(&value));
                Ok(None)
            }
            Err(ended) => self.step(py, Err(ended)).map(Some),
        }
    }

    fn send(&self, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.step(
            value.py(),
            self.coroutine.bind(value.py()).call_method1("send", (value,)),
        )
    }

    #[pyo3(signature = (kind, value = None, traceback = None))]
    fn throw(
        &self,
        kind: &Bound<'_, PyAny>,
        value: Option<&Bound<'_, PyAny>>,
        traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let coroutine = self.coroutine.bind(kind.py());
        let thrown = match (value, traceback) {
            (None, None) => coroutine.call_method1("throw", (kind,)),
            _ => coroutine.call_method1("throw", (kind, value, traceback)),
        };
        self.step(kind.py(), thrown)
    }

    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.coroutine.bind(py).call_method0("close").map(drop)
    }
}

impl Reporting {
    /// What a step of the coroutine gave: passed on to the task, the call answered first
    /// when the coroutine ended (returned, raised or was cancelled).
    fn step(&self, py: Python<'_>, stepped: PyResult<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let ended = match stepped {
            Ok(awaited) => return Ok(awaited.unbind()),
            Err(ended) => ended,
        };
        self.finish(outcome_of_end(py, &ended));
        // A handler's exception is its answer now, not the task's: the task ends with
        // None rather than an exception nobody retrieves. Cancellation, `SystemExit` and
        // `KeyboardInterrupt` go on as asyncio means them to.
        if ended.is_instance_of::<PyException>(py) {
            return Err(PyStopIteration::new_err(()));
        }
        Err(ended)
    }

    /// Answers the call with the coroutine's `outcome`.
    fn finish(&self, outcome: Result<Returned, HandlerError>) {
        // The task holds this coroutine, which holds the call: the call lets the task go.
        lock(&self.call.task).take();
        self.call.answer(outcome);
    }
}

/// The answer of a coroutine that ended with `ended`: its return (a `StopIteration`), its
/// cancellation or its exception.
fn outcome_of_end(py: Python<'_>, ended: &PyErr) -> Result<Returned, HandlerError> {
    if ended.is_instance_of::<PyStopIteration>(py) {
        return ended.value(py).getattr("value").map_or_else(
            |e| Err(error::handler_error_from_py(py, &e)),
            |value| convert::answer(&value),
        );
    }
    let cancelled = py
        .import("asyncio")
        .and_then(|asyncio| asyncio.getattr("CancelledError"));
    if cancelled.is_ok_and(|cancelled| ended.is_instance(py, &cancelled)) {
        return Err(HandlerError::message("the handler was cancelled"));
    }
    Err(error::handler_error_from_py(py, ended))
}

/// Whether `callable` is a coroutine function that never waits: no `await`, `async for` or
/// `async with` in its code, whose only way to suspend is the `YIELD_VALUE` they compile
/// to. Its coroutine ends in the step that starts it.
#[pyfunction]
pub fn runs_in_one_step(callable: &Bound<'_, PyAny>) -> bool {
    /// `inspect.CO_COROUTINE`: code of an `async def`.
    const CO_COROUTINE: u32 = 0x80;
    let never_waits = || -> PyResult<bool> {
        let code = callable.getattr("__code__")?;
        if code.getattr("co_flags")?.extract::<u32>()? & CO_COROUTINE == 0 {
            return Ok(false);
        }
        let yield_value: u8 = callable
            .py()
            .import("opcode")?
            .getattr("opmap")?
            .get_item("YIELD_VALUE")?
            .extract()?;
        let instructions = code.getattr("co_code")?;
        // Code units are two bytes, the opcode first (inline caches read as opcode 0).
        let units = instructions.cast::<PyBytes>()?.as_bytes().chunks_exact(2);
        Ok(units.into_iter().all(|unit| unit[0] != yield_value))
    };
    never_waits().unwrap_or(false)
}

/// What `coroutine`, whose code never awaits, returns in its first and only step: with
/// `PyIter_Send`, no `StopIteration` made to carry it.
#[pyfunction]
pub fn run_to_end(coroutine: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    match send_none(coroutine)? {
        PySendResult::Return(value) => Ok(value.unbind()),
        PySendResult::Next(_) => {
            coroutine.call_method0("close")?;
            Err(PyRuntimeError::new_err("a coroutine whose code never awaits waited"))
        }
    }
}

/// One step of `coroutine`, sent None, through `PyIter_Send`: a return comes back as its
/// value, not as a `StopIteration` to make and read.
fn send_none<'py>(coroutine: &Bound<'py, PyAny>) -> PyResult<PySendResult<'py>> {
    // SAFETY: `send` is `PyIter_Send`, which takes any object (a coroutine resumes through
    // its `am_send`), not only the iterators `PyIterator` stands for.
    let coroutine = unsafe { coroutine.cast_unchecked::<PyIterator>() };
    coroutine.send(&coroutine.py().None().into_bound(coroutine.py()))
}

/// One call of a Python handler: where its answer goes, its task once started.
struct Call {
    sender: Mutex<Option<oneshot::Sender<Result<Returned, HandlerError>>>>,
    task: Mutex<Option<Py<PyAny>>>,
    cancelled: AtomicBool,
}

impl Call {
    /// Whether the call has its answer.
    fn answered(&self) -> bool {
        lock(&self.sender).is_none()
    }

    fn answer(&self, outcome: Result<Returned, HandlerError>) {
        if let Some(sender) = lock(&self.sender).take() {
            let _ = sender.send(outcome);
        }
    }
}

/// A call from the loop's side, to cancel it. Its method runs on the loop's thread.
#[pyclass(frozen, module = "oxmcp._native")]
pub struct PendingCall(Arc<Call>);

#[pymethods]
impl PendingCall {
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
