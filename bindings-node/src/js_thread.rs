//! Running a connection's futures on Node's own thread.
//!
//! Over stdio the official SDK reads, dispatches, calls the handler and writes on Node's
//! thread: a call wakes that one thread. Served on tokio, a call woke three (the worker
//! reading the request, Node's thread for the handler through a threadsafe function, the
//! worker again for the answer), and one call at a time was bound by those wake-ups.
//! [`JsThread`] is the core's [`Spawner`] for such a connection: its tasks are polled on
//! Node's thread, where the bridge calls a handler directly ([`current_env`]), so a request
//! read from stdin is answered before Node's thread returns to its event loop unless its
//! handler waits for something. A task woken from another thread (a timer, a Promise of a
//! handler) rings the bell, a threadsafe function whose call polls the queue on Node's
//! thread.

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};

use futures::task::{waker_ref, ArcWake};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::{sys, Env};

use oxmcp::transport::Spawner;
use oxmcp::BoxFuture;

use crate::runtime::{self, Callback};

/// The most tasks one turn polls before it lets Node's event loop run (and rings for the
/// rest): a task that wakes itself must not hold the thread.
const POLLS_PER_TURN: usize = 1024;

thread_local! {
    /// Node's environment and the executor whose turn runs on this thread (Node's), while
    /// it runs: handlers may be called directly.
    static TURN: Cell<Option<(sys::napi_env, *const JsThread)>> = const { Cell::new(None) };
}

/// Node's environment when the caller runs within a turn of a [`JsThread`], on Node's
/// thread; `None` anywhere else.
pub(crate) fn current_env() -> Option<Env> {
    TURN.with(Cell::get).map(|(env, _)| Env::from_raw(env))
}

/// The tasks of the connections served on Node's thread.
pub(crate) struct JsThread {
    queue: Mutex<VecDeque<Arc<Task>>>,
    /// Called (from any thread) to have the queue polled on Node's thread.
    bell: Callback<()>,
    /// Whether the bell was rung and its turn has not begun.
    rung: AtomicBool,
    /// Itself, for its tasks' wakers: a waiting task must not keep its executor alive.
    this: Weak<JsThread>,
}

impl JsThread {
    /// An executor whose `bell` (a function that calls [`turn`](Self::turn)) is called
    /// when tasks are woken outside a turn.
    pub(crate) fn new(bell: Callback<()>) -> Arc<Self> {
        Arc::new_cyclic(|this| JsThread {
            queue: Mutex::new(VecDeque::new()),
            bell,
            rung: AtomicBool::new(false),
            this: Weak::clone(this),
        })
    }

    /// Runs `step` on Node's thread (`env`'s), then polls the tasks it woke, and those
    /// queued before, within a turn: in the tokio runtime's context, handlers called
    /// directly. Not re-entrant: within a turn, it only runs `step`.
    pub(crate) fn turn<R>(&self, env: Env, step: impl FnOnce() -> R) -> R {
        if TURN.with(Cell::get).is_some() {
            return step();
        }
        self.rung.store(false, Ordering::Release);
        let _runtime = runtime::handle().enter();
        let _turn = Turn::begin(env, self);
        let stepped = step();
        for _ in 0..POLLS_PER_TURN {
            let Some(task) = lock(&self.queue).pop_front() else {
                return stepped;
            };
            task.poll();
        }
        if !lock(&self.queue).is_empty() {
            self.ring();
        }
        stepped
    }

    fn schedule(&self, task: Arc<Task>) {
        lock(&self.queue).push_back(task);
        // Within its own turn, the turn polls it; from anywhere else, the bell.
        let in_turn = TURN
            .with(Cell::get)
            .is_some_and(|(_, thread)| std::ptr::eq(thread, self));
        if !in_turn {
            self.ring();
        }
    }

    fn ring(&self) {
        if !self.rung.swap(true, Ordering::AcqRel) {
            self.bell.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

impl Spawner for JsThread {
    fn spawn(&self, task: BoxFuture<'static, ()>) {
        let task = Arc::new(Task {
            future: Mutex::new(Some(task)),
            queued: AtomicBool::new(true),
            thread: Weak::clone(&self.this),
        });
        self.schedule(task);
    }
}

/// Locks `mutex`, also after a panic while it was held: a queue or a task slot holds no
/// invariant a panic could break.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks a turn on Node's thread while it lasts.
struct Turn;

impl Turn {
    fn begin(env: Env, thread: &JsThread) -> Self {
        TURN.with(|cell| cell.set(Some((env.raw(), thread))));
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        TURN.with(|cell| cell.set(None));
    }
}

/// One spawned future and whether it waits in the queue.
struct Task {
    /// `None` once it finished (or panicked).
    future: Mutex<Option<BoxFuture<'static, ()>>>,
    queued: AtomicBool,
    thread: Weak<JsThread>,
}

impl Task {
    fn poll(self: Arc<Self>) {
        self.queued.store(false, Ordering::Release);
        let mut slot = lock(&self.future);
        let Some(future) = slot.as_mut() else { return };
        let waker = waker_ref(&self);
        let mut cx = Context::from_waker(&waker);
        // A panicking task is dropped; the others go on (the core's requests each answer
        // on their own).
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx))) {
            Ok(Poll::Pending) => {}
            Ok(Poll::Ready(())) | Err(_) => *slot = None,
        }
    }
}

impl ArcWake for Task {
    fn wake_by_ref(task: &Arc<Self>) {
        if task.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(thread) = task.thread.upgrade() {
            thread.schedule(Arc::clone(task));
        }
    }
}
