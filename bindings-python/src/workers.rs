//! The threads that run plain Python functions (handlers declared with `def`), off the
//! asyncio loop.
//!
//! Each thread keeps its Python thread state for its whole life and waits for work
//! detached from the interpreter; after a call it takes the next queued one without
//! letting the interpreter lock go. Under load one thread so makes call after call in one
//! turn at the lock, where a thread of tokio's blocking pool per call made a thread state
//! and took the lock anew for each, and handed the lock from thread to thread. A call that
//! blocks (sleeps, waits on I/O) lets the lock go, and an idle thread takes the next one:
//! as many calls run at once as `asyncio.to_thread` would allow (CPUs + 4, up to 32).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use pyo3::prelude::*;
use tokio::sync::oneshot;

use crate::runtime;

/// One call, made attached to the interpreter.
type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// The binding's threads: `None` until the first call, and again after a `fork()` in the
/// child, whose copy of the parent's has no threads.
static POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);

/// Runs `f` on one of the threads; resolves to its result, or `None` when it could not
/// run (the interpreter is exiting). A thread holds its place until `f` returns, so
/// dropping this future (a cancelled request) frees none while `f` runs; dropped before a
/// thread took it, `f` is not called at all.
pub async fn run<R: Send + 'static>(f: impl for<'py> FnOnce(Python<'py>) -> R + Send + 'static) -> Option<R> {
    let (sender, receiver) = oneshot::channel();
    let job: Job = Box::new(move |py| {
        if !sender.is_closed() {
            let _ = sender.send(f(py));
        }
    });
    if !pool()?.submit(job) {
        return None;
    }
    receiver.await.ok()
}

/// Stops the threads at interpreter exit: the idle ones leave the interpreter at once,
/// the busy ones after their call; queued calls are not made.
pub fn stop() {
    let pool = lock(&POOL).take();
    if let Some(pool) = pool {
        pool.lock().stopping = true;
        pool.work.notify_all();
    }
}

/// Forgets the parent's threads in a forked child (see [`POOL`]).
pub fn forget_after_fork() {
    if let Ok(mut pool) = POOL.try_lock() {
        std::mem::forget(pool.take());
    }
}

fn pool() -> Option<Arc<Pool>> {
    if runtime::exiting() {
        return None;
    }
    let mut pool = lock(&POOL);
    let pool = pool.get_or_insert_with(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Arc::new(Pool {
            state: Mutex::default(),
            work: Condvar::new(),
            max_threads: (cpus + 4).min(32),
        })
    });
    Some(Arc::clone(pool))
}

/// The queue of calls and the threads that take them.
struct Pool {
    state: Mutex<State>,
    /// Signalled when a call is queued, or the pool stops.
    work: Condvar,
    max_threads: usize,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    threads: usize,
    /// Threads waiting for a call.
    idle: usize,
    stopping: bool,
}

impl Pool {
    /// Queues `job`, waking an idle thread for it or starting one when every thread is
    /// spoken for; whether it was queued.
    fn submit(self: Arc<Self>, job: Job) -> bool {
        let mut state = self.lock();
        if state.stopping {
            return false;
        }
        state.queue.push_back(job);
        if state.queue.len() <= state.idle {
            drop(state);
            self.work.notify_one();
            return true;
        }
        if state.threads >= self.max_threads {
            return true;
        }
        state.threads += 1;
        drop(state);
        let pool = Arc::clone(&self);
        let started = std::thread::Builder::new()
            .name("oxmcp-python".into())
            .spawn(move || pool.serve());
        if started.is_err() {
            let mut state = self.lock();
            state.threads -= 1;
            // With no thread at all, nobody would ever make the call.
            if state.threads == 0 {
                state.queue.clear();
            }
        }
        true
    }

    /// A thread's life: attached to the interpreter (counted as such for the exit hook,
    /// see [`runtime::attach`]), making calls until the pool stops.
    fn serve(self: Arc<Self>) {
        runtime::attach(|py| {
            while let Some(job) = self.next(py) {
                job(py);
            }
        });
        self.lock().threads -= 1;
    }

    /// The next call: one queued now, taken without letting the interpreter go, else one
    /// waited for detached from it. `None` once the pool stops.
    fn next(&self, py: Python<'_>) -> Option<Job> {
        loop {
            if let Some(job) = self.lock().queue.pop_front() {
                return Some(job);
            }
            // The call is taken after the interpreter is back: a thread that still holds
            // it may have taken the call meanwhile, and this one waits again.
            if !py.detach(|| self.wait()) {
                return None;
            }
        }
    }

    /// Waits until a call is queued (`true`) or the pool stops (`false`).
    fn wait(&self) -> bool {
        let mut state = self.lock();
        state.idle += 1;
        while state.queue.is_empty() && !state.stopping {
            state = self.work.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.idle -= 1;
        !state.stopping
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

/// Locks `mutex`; what it guards holds no invariant a panic could break.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
