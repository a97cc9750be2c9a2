//! `NativeStdio`: a server's stdio connection, served on Node's thread.
//!
//! The facade reads stdin (`process.stdin`, or the stream the official
//! `StdioServerTransport` was given, on Node's event loop) and hands each chunk to
//! [`NativeStdio::push`], which serves the requests it completes within the same turn
//! ([`crate::js_thread`]); answers are written to stdout from there, or handed to the
//! facade's stream ([`JsOutput`]).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use napi::bindgen_prelude::{Buffer, BufferSlice, Function, FunctionRef};
use napi::Env;
use napi_derive::napi;
use tokio::io::AsyncWrite;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use oxmcp::server::Server;
use oxmcp::transport::stdio::{self, StdinFeed};
use oxmcp::transport::Spawner;

use crate::error::client_error;
use crate::js_thread::{self, JsThread};
use crate::runtime::{self, JsReturn};

/// The facade's `(chunk) => boolean`: writes to its stream, `false` when the stream asks to
/// wait for `'drain'` (a Node `Writable`'s `write`).
pub(crate) type WriteFunction<'env> = Function<'env, Buffer, bool>;

/// A server's connection over this process's stdin and stdout.
#[napi]
pub struct NativeStdio {
    thread: Arc<JsThread>,
    feed: Mutex<StdinFeed>,
    /// The facade's stream's backpressure, when answers go there.
    drain: Option<Arc<Drain>>,
    /// How serving ended, until `done()` takes it.
    ended: Mutex<Option<oneshot::Receiver<oxmcp::Result<()>>>>,
}

impl NativeStdio {
    /// Starts serving `server`, answering on stdout or through `write`, until the input
    /// ends or `stop` fires; `bell` is the facade's function that calls
    /// [`turn`](NativeStdio::turn).
    pub(crate) fn serve(
        env: Env,
        server: &Server,
        stop: CancellationToken,
        bell: Function<'_, (), JsReturn>,
        write: Option<WriteFunction<'_>>,
    ) -> napi::Result<Self> {
        let thread = JsThread::new(runtime::callback(&bell)?);
        let output = write.map(JsOutput::new).transpose()?;
        let drain = output.as_ref().map(|output| Arc::clone(&output.drain));
        let (report, ended) = oneshot::channel();
        let feed = thread.turn(env, || {
            let spawner = Arc::clone(&thread) as Arc<dyn Spawner>;
            let output: Pin<Box<dyn AsyncWrite + Send>> = match output {
                Some(output) => Box::pin(output),
                None => stdio::stdout(),
            };
            let (serving, feed) = server.serve_stdio_fed(spawner, output);
            thread.spawn(Box::pin(async move {
                let served = tokio::select! {
                    served = serving => served,
                    () = stop.cancelled() => Ok(()),
                };
                let _ = report.send(served);
            }));
            feed
        });
        Ok(NativeStdio {
            thread,
            feed: Mutex::new(feed),
            drain,
            ended: Mutex::new(Some(ended)),
        })
    }

    fn feed(&self) -> std::sync::MutexGuard<'_, StdinFeed> {
        self.feed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[napi]
impl NativeStdio {
    /// Takes a chunk read from stdin and serves the requests it completes.
    #[napi]
    pub fn push(&self, env: Env, chunk: BufferSlice<'_>) {
        self.thread.turn(env, || self.feed().push(&chunk));
    }

    /// Stdin ended: the requests in flight finish (within the server's grace period), then
    /// `done()` resolves.
    #[napi]
    pub fn end(&self, env: Env) {
        self.thread.turn(env, || self.feed().end());
    }

    /// The facade's stream emitted `'drain'`: answers are written to it again.
    #[napi]
    pub fn drained(&self, env: Env) {
        if let Some(drain) = &self.drain {
            self.thread.turn(env, || drain.release());
        }
    }

    /// Polls the tasks woken since the last turn (the bell's call).
    #[napi]
    pub fn turn(&self, env: Env) {
        self.thread.turn(env, || ());
    }

    /// Resolves when serving ended (the input ended and its requests finished, or the
    /// server was closed).
    #[napi]
    pub async fn done(&self) -> napi::Result<()> {
        let ended = self.ended.lock().unwrap_or_else(|e| e.into_inner()).take();
        match ended {
            Some(ended) => ended.await.unwrap_or(Ok(())).map_err(client_error),
            None => Ok(()),
        }
    }
}

/// Answers written to the facade's stream, through its `write`, on Node's thread (where the
/// connection writes: [`JsThread`]). As the official transport does, writing waits while
/// the stream asks for it (`write` gave `false`) until its `'drain'`.
struct JsOutput {
    write: FunctionRef<Buffer, bool>,
    drain: Arc<Drain>,
}

impl JsOutput {
    fn new(write: WriteFunction<'_>) -> napi::Result<Self> {
        Ok(JsOutput {
            write: write.create_ref()?,
            drain: Arc::default(),
        })
    }
}

impl AsyncWrite for JsOutput {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        if self.drain.wait(cx) {
            return Poll::Pending;
        }
        let Some(env) = js_thread::current_env() else {
            return Poll::Ready(Err(io::Error::other("the stream is written on Node's thread only")));
        };
        let written = self
            .write
            .borrow_back(&env)
            .and_then(|write| write.call(Buffer::from(bytes)))
            .map_err(|e| io::Error::other(format!("writing to the stream failed: {}", e.reason)))?;
        if !written {
            self.drain.hold();
        }
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.drain.wait(cx) {
            Poll::Pending
        } else {
            Poll::Ready(Ok(()))
        }
    }

    /// The stream stays open: it is the caller's (the official transport leaves it so too).
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Whether the facade's stream asked the writer to wait, and the writer waiting.
#[derive(Default)]
struct Drain(Mutex<Option<Option<Waker>>>);

impl Drain {
    /// The stream asked to wait for its `'drain'`.
    fn hold(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(None);
    }

    /// Whether the writer must wait; if so, `cx` is woken on [`release`](Self::release).
    fn wait(&self, cx: &Context<'_>) -> bool {
        match &mut *self.0.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(waiting) => {
                *waiting = Some(cx.waker().clone());
                true
            }
            None => false,
        }
    }

    /// The stream drained: the writer goes on.
    fn release(&self) {
        if let Some(Some(waker)) = self.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            waker.wake();
        }
    }
}
