//! Where a connection runs its work: tokio's workers, unless its transport names a
//! [`Spawner`] of its own.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::{AbortHandle, Abortable};
use tokio::sync::oneshot;

use crate::BoxFuture;

/// Runs the futures of the connections whose transport names it
/// ([`Transport::spawning_on`](super::Transport::spawning_on)): the reading of their input,
/// the writing of their output, and each request they serve.
///
/// A binding whose handlers live on one thread of its own runs them there: the Node
/// binding reads stdin on Node's thread and polls a request there until its handler
/// answers, so that a call wakes one thread, not three (tokio's worker for the request,
/// Node's for the handler, the worker again for the answer). The futures are polled within
/// the tokio runtime's context (timers and `tokio::spawn` work in them).
pub trait Spawner: Send + Sync + 'static {
    /// Runs `task` to completion (or until it is dropped, when the spawner stops).
    fn spawn(&self, task: BoxFuture<'static, ()>);
}

/// How one connection spawns: on tokio's workers, or on its transport's [`Spawner`].
#[derive(Clone, Default)]
pub(crate) struct Spawn(Option<Arc<dyn Spawner>>);

impl Spawn {
    pub(crate) fn on(spawner: Arc<dyn Spawner>) -> Self {
        Spawn(Some(spawner))
    }

    /// Runs `task`, which nobody waits for.
    pub(crate) fn detached(&self, task: impl Future<Output = ()> + Send + 'static) {
        match &self.0 {
            None => drop(tokio::spawn(task)),
            Some(spawner) => spawner.spawn(Box::pin(task)),
        }
    }

    /// Runs `task`; the handle tells when it ends and stops it.
    pub(crate) fn run(&self, task: impl Future<Output = ()> + Send + 'static) -> Running {
        match &self.0 {
            None => Running::Tokio(tokio::spawn(task)),
            Some(spawner) => {
                let (abort, registration) = AbortHandle::new_pair();
                let (finished, done) = oneshot::channel();
                spawner.spawn(Box::pin(async move {
                    // Aborted, the task ends without `finished`: its handle says it stopped.
                    if Abortable::new(task, registration).await.is_ok() {
                        let _ = finished.send(());
                    }
                }));
                Running::Spawned { done, abort }
            }
        }
    }
}

/// A task [`Spawn::run`] started: a future of how it ended.
pub(crate) enum Running {
    Tokio(tokio::task::JoinHandle<()>),
    Spawned {
        done: oneshot::Receiver<()>,
        abort: AbortHandle,
    },
}

/// How a task ended other than by finishing: stopped, or its panic when it panicked (on
/// tokio's workers; a [`Spawner`] deals with the panics of its own tasks).
pub(crate) type Stopped = Option<Box<dyn Any + Send>>;

impl Running {
    /// Stops the task.
    pub(crate) fn abort(&self) {
        match self {
            Running::Tokio(handle) => handle.abort(),
            Running::Spawned { abort, .. } => abort.abort(),
        }
    }
}

impl Future for Running {
    type Output = Result<(), Stopped>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Running::Tokio(handle) => Pin::new(handle)
                .poll(cx)
                .map(|ended| ended.map_err(|e| e.try_into_panic().ok())),
            Running::Spawned { done, .. } => Pin::new(done).poll(cx).map(|ended| ended.map_err(|_| None)),
        }
    }
}

/// A [`Running`] task stopped when the handle is dropped.
pub(crate) struct AbortOnDrop(pub(crate) Running);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Future for AbortOnDrop {
    type Output = Result<(), Stopped>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.get_mut().0).poll(cx)
    }
}
