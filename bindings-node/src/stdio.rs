//! `NativeStdio`: a server's stdio connection, served on Node's thread.
//!
//! The facade reads stdin (`process.stdin`, on Node's event loop) and hands each chunk to
//! [`NativeStdio::push`], which serves the requests it completes within the same turn
//! ([`crate::js_thread`]); answers are written to stdout from there.

use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{BufferSlice, Function};
use napi::Env;
use napi_derive::napi;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use oxmcp::server::Server;
use oxmcp::transport::stdio::StdinFeed;
use oxmcp::transport::Spawner;

use crate::error::client_error;
use crate::js_thread::JsThread;
use crate::runtime::{self, JsReturn};

/// A server's connection over this process's stdin and stdout.
#[napi]
pub struct NativeStdio {
    thread: Arc<JsThread>,
    feed: Mutex<StdinFeed>,
    /// How serving ended, until `done()` takes it.
    ended: Mutex<Option<oneshot::Receiver<oxmcp::Result<()>>>>,
}

impl NativeStdio {
    /// Starts serving `server` on stdout, until the input ends or `stop` fires; `bell` is
    /// the facade's function that calls [`turn`](NativeStdio::turn).
    pub(crate) fn serve(
        env: Env,
        server: &Server,
        stop: CancellationToken,
        bell: Function<'_, (), JsReturn>,
    ) -> napi::Result<Self> {
        let thread = JsThread::new(runtime::callback(&bell)?);
        let (report, ended) = oneshot::channel();
        let feed = thread.turn(env, || {
            let (serving, feed) = server.serve_stdio_fed(Arc::clone(&thread) as _);
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
