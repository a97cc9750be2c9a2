//! A session on a connection: frames in, through the [`Dispatcher`], messages out. Serves
//! stream transports (stdio, child process, in-memory) and the HTTP sessions whose
//! notifications leave on a stream of their own.

use std::sync::Arc;

use tokio_util::task::AbortOnDropHandle;

use super::auth::{Caller, Principal};
use super::dispatch::{Dispatcher, Sender};
use super::reply::Reply;
use super::subscriptions;
use super::Server;
use crate::connection::Connection;
use crate::protocol::jsonrpc::{self, Incoming, InvalidMessage, Message};
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::transport::{Frame, FrameStream};

/// The server side of one connection.
pub(crate) struct Session {
    dispatcher: Arc<Dispatcher>,
    connection: Arc<Connection>,
    /// Who opened the session, on an HTTP endpoint that requires tokens: it serves no one
    /// else.
    owner: Option<Principal>,
}

impl Session {
    pub(crate) fn new(server: Server, connection: Arc<Connection>) -> Arc<Self> {
        Self::owned(server, connection, None)
    }

    /// A session that serves only `owner` (anyone when `None`).
    pub(crate) fn owned(server: Server, connection: Arc<Connection>, owner: Option<Principal>) -> Arc<Self> {
        let dispatcher = Dispatcher::for_connection(server, &connection);
        dispatcher.attach_channel(Reply::Connection(Arc::clone(&connection)));
        Arc::new(Session {
            dispatcher,
            connection,
            owner,
        })
    }

    /// Who the session serves, as [`Principal::key`] writes it; `None` for anyone.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn owner_key(&self) -> Option<String> {
        self.owner.as_ref().map(Principal::key)
    }

    /// Whether `caller` may use the session: the principal who opened it, or anyone on
    /// an endpoint without tokens.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn serves(&self, caller: Option<&Caller>) -> bool {
        match (&self.owner, caller) {
            (None, None) => true,
            (Some(owner), Some(caller)) => owner.is(caller.token()),
            _ => false,
        }
    }

    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn dispatcher(&self) -> &Arc<Dispatcher> {
        &self.dispatcher
    }

    /// Serves frames until the input ends, then lets the requests in flight finish within
    /// the server's grace period, and cancels those that do not; ends once what they
    /// answered is written. Dropped before then
    /// (serving stopped), it ends the session at once: the requests in flight are
    /// cancelled and the connection closes, so that the client hears of it (a request it
    /// sent as the reading stopped would otherwise wait for good).
    pub(crate) async fn run(self: Arc<Self>, incoming: FrameStream) {
        let _ending = Ending(&self);
        let _forwarder = AbortOnDropHandle::new(self.forward_events());
        crate::connection::read_loop(&self.connection, incoming, |frame| self.on_frame(frame)).await;
        self.dispatcher.end();
        let grace = self.dispatcher.server().limits().end_grace;
        if tokio::time::timeout(grace, self.dispatcher.wait()).await.is_err() {
            tracing::debug!(?grace, "cancelled the requests still in flight after the input ended");
            self.dispatcher.cancel_in_flight();
            self.dispatcher.wait().await;
        }
        // What the requests answered is written before serving ends: a process may exit
        // right after.
        self.connection.shutdown().await;
    }

    /// Starts sending list-changed and resource-updated notifications to a legacy client
    /// on the connection; abort the handle to stop.
    pub(crate) fn forward_events(&self) -> tokio::task::JoinHandle<()> {
        self.forward_events_when(|| true)
    }

    /// [`forward_events`](Self::forward_events), of the events that come while `wanted`
    /// says so (one copy of a session that replicas share forwards them, the one whose
    /// client listens).
    pub(crate) fn forward_events_when(
        &self,
        wanted: impl Fn() -> bool + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(subscriptions::forward_legacy_events(
            Arc::clone(&self.dispatcher),
            self.connection_reply(),
            wanted,
        ))
    }

    /// Ends the session: subscription streams stop, requests in flight are cancelled, and
    /// the connection closes (what is queued is still written).
    pub(crate) fn end(&self) {
        self.dispatcher.end();
        self.dispatcher.cancel_in_flight();
        self.connection.close();
    }

    /// Takes one message that arrived outside the connection (an HTTP POST by `sender`); a
    /// request is answered on the connection.
    pub(crate) fn accept(&self, message: Message, sender: Sender) {
        if let Some(request) = self.dispatcher.receive(message) {
            self.dispatcher.serve(request, self.connection_reply(), sender);
        }
    }

    fn on_frame(&self, frame: Frame) {
        let bytes = match frame {
            Frame::Message(bytes) | Frame::Answering { message: bytes, .. } => bytes,
            Frame::Oversized { limit } => {
                let error = ErrorObject::invalid_request(format!("message larger than {limit} bytes"));
                self.send_later(jsonrpc::error_text(None, &error));
                return;
            }
            // Only a client's transport says so.
            Frame::SessionExpired => return,
        };
        // The hot path: a `tools/call` read in one pass; anything else the usual way.
        if let Some((request, read)) = self.dispatcher.read_call_frame(&bytes) {
            self.dispatcher
                .serve_read(request, Some(read), self.connection_reply(), Sender::default());
            return;
        }
        match jsonrpc::parse(&bytes) {
            Ok(Incoming::Single(message)) => self.accept(message, Sender::default()),
            Ok(Incoming::Batch(entries)) => self.on_batch(entries),
            Err(invalid) => self.reject(&invalid),
        }
    }

    /// The route of every message on a stream connection.
    fn connection_reply(&self) -> Reply {
        Reply::Connection(Arc::clone(&self.connection))
    }

    fn reject(&self, invalid: &InvalidMessage) {
        tracing::debug!(%invalid, "rejected a message");
        self.send_later(jsonrpc::error_text(invalid.id(), &ErrorObject::from(invalid)));
    }

    /// JSON-RPC batches: only a 2025-03-26 session may send them.
    fn on_batch(&self, entries: Vec<Result<Message, InvalidMessage>>) {
        if !self
            .dispatcher
            .handshake_version()
            .is_some_and(ProtocolVersion::allows_batches)
        {
            let error = ErrorObject::invalid_request("batches are only allowed in protocol version 2025-03-26");
            self.send_later(jsonrpc::error_text(None, &error));
            return;
        }
        let dispatcher = Arc::clone(&self.dispatcher);
        let connection = Arc::clone(&self.connection);
        self.dispatcher.spawn(async move {
            let reply = Reply::Connection(Arc::clone(&connection));
            if let Some(answers) = dispatcher.answer_batch(entries, reply, Sender::default(), None).await {
                let _ = connection.send(answers).await;
            }
        });
    }

    fn send_later(&self, text: String) {
        let connection = Arc::clone(&self.connection);
        self.dispatcher.spawn(async move {
            let _ = connection.send(text).await;
        });
    }
}

/// Ends its session when dropped: when its run ends, or is dropped.
struct Ending<'a>(&'a Session);

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}
