//! One JSON-RPC connection: the writer task, requests this side sent and awaits, and the
//! raw incoming frames. Shared by the server and the client, which differ only in what
//! they do with incoming requests and notifications.
//!
//! The table of requests awaiting an answer is [`PendingRequests`], apart from the
//! connection: the server keeps one per session, whose requests to the client may leave
//! on one HTTP response and be answered on another.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use futures::{SinkExt, StreamExt};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::protocol::jsonrpc::Response;
use crate::protocol::{ErrorObject, RequestId};
use crate::transport::{Envelope, FrameSink, FrameStream, OutgoingMessage, Running, Spawn, Transport, TransportKind};

/// How long closing waits for the writer to flush and close the transport.
const WRITER_CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// How many outgoing messages may queue before senders wait for the writer.
const OUTBOUND_CAPACITY: usize = 1024;

type PendingReply = oneshot::Sender<std::result::Result<Box<RawValue>, ErrorObject>>;
/// Where a registered request's answer arrives.
pub(crate) type PendingReceiver = oneshot::Receiver<std::result::Result<Box<RawValue>, ErrorObject>>;

/// Requests this side sent and awaits, by id.
pub(crate) struct PendingRequests {
    /// `None` once no answer can come any more: the peer closed, or this side closed.
    table: Mutex<Option<HashMap<RequestId, PendingReply>>>,
    next_id: AtomicI64,
    /// When set, ids are strings that start with it (see [`name_ids`](Self::name_ids)).
    id_prefix: OnceLock<String>,
}

impl Default for PendingRequests {
    fn default() -> Self {
        PendingRequests {
            table: Mutex::new(Some(HashMap::new())),
            next_id: AtomicI64::new(0),
            id_prefix: OnceLock::new(),
        }
    }
}

impl PendingRequests {
    /// Allocates an id and registers it; the returned receiver gets the answer. Fails once
    /// the input has ended, since no answer could arrive.
    pub(crate) fn register(&self) -> Result<(RequestId, PendingReceiver)> {
        let number = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = match self.id_prefix.get() {
            Some(prefix) => RequestId::String(format!("{prefix}{number}").into()),
            None => RequestId::Number(number),
        };
        let (tx, rx) = oneshot::channel();
        self.table()
            .as_mut()
            .ok_or(Error::ConnectionClosed)?
            .insert(id.clone(), tx);
        Ok((id, rx))
    }

    /// Makes the ids of later requests strings that start with `prefix` (once; later calls
    /// change nothing): ids that the other copies of a session on other replicas never use.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) fn name_ids(&self, prefix: String) {
        let _ = self.id_prefix.set(prefix);
    }

    /// How many requests await their answer.
    pub(crate) fn count(&self) -> usize {
        self.table().as_ref().map_or(0, HashMap::len)
    }

    /// Forgets a request (it timed out or was cancelled).
    pub(crate) fn forget(&self, id: &RequestId) {
        if let Some(table) = self.table().as_mut() {
            table.remove(id);
        }
    }

    /// Routes a response to the request that awaits it; hands it back when no request
    /// with that id is pending.
    pub(crate) fn resolve(&self, response: Response) -> std::result::Result<(), Response> {
        let waiter = self.table().as_mut().and_then(|table| table.remove(&response.id));
        match waiter {
            Some(waiter) => {
                // The waiter may have given up (timeout); nothing to do then.
                let _ = waiter.send(response.outcome);
                Ok(())
            }
            None => Err(response),
        }
    }

    /// Fails every pending request with [`Error::ConnectionClosed`], and every later one.
    pub(crate) fn close(&self) {
        // Dropping the waiters fails them.
        self.table().take();
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Option<HashMap<RequestId, PendingReply>>> {
        // The table holds no invariant a panic could break.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The sending half of a connection plus the table of requests awaiting an answer.
pub(crate) struct Connection {
    outbound: mpsc::Sender<OutgoingMessage>,
    pending: PendingRequests,
    /// Cancelled to make the writer drain its queue, close the transport and stop.
    stop_writing: CancellationToken,
    /// Cancelled once nothing more can arrive: the peer went away, or the connection
    /// was closed.
    input_over: CancellationToken,
    writer: Mutex<Option<Running>>,
    /// Whether the transport reads envelopes (Streamable HTTP); over stdio and in memory
    /// none is built.
    reads_envelopes: bool,
    /// What carries it.
    kind: TransportKind,
    /// Where it runs its work.
    spawn: Spawn,
}

impl Connection {
    /// Starts the writer task and returns the connection and its incoming frames.
    pub(crate) fn start(transport: Transport) -> (Arc<Connection>, FrameStream) {
        let (outbound, queue) = mpsc::channel(OUTBOUND_CAPACITY);
        let stop_writing = CancellationToken::new();
        let writer = transport
            .spawn
            .run(write_loop(queue, transport.outgoing, stop_writing.clone()));
        let connection = Arc::new(Connection {
            outbound,
            pending: PendingRequests::default(),
            stop_writing,
            input_over: CancellationToken::new(),
            writer: Mutex::new(Some(writer)),
            reads_envelopes: transport.reads_envelopes,
            kind: transport.kind,
            spawn: transport.spawn,
        });
        (connection, transport.incoming)
    }

    /// What carries the connection.
    pub(crate) fn kind(&self) -> TransportKind {
        self.kind
    }

    /// Where the connection runs its work.
    pub(crate) fn spawn(&self) -> &Spawn {
        &self.spawn
    }

    /// Queues one message its sender does not describe (see [`OutgoingMessage`]).
    pub(crate) async fn send(&self, text: String) -> Result<()> {
        self.send_message(text.into()).await
    }

    /// Queues one message with its envelope (what the transport may need beyond its text),
    /// which `envelope` builds only for a transport that reads it.
    pub(crate) async fn send_described(&self, text: String, envelope: impl FnOnce() -> Envelope) -> Result<()> {
        self.send_message(self.describe(text, envelope)).await
    }

    /// [`send_described`](Self::send_described) if there is room, without waiting; whether
    /// it was queued.
    pub(crate) fn try_send_described(&self, text: String, envelope: impl FnOnce() -> Envelope) -> bool {
        let message = self.describe(text, envelope);
        !self.stop_writing.is_cancelled() && self.outbound.try_send(message).is_ok()
    }

    fn describe(&self, text: String, envelope: impl FnOnce() -> Envelope) -> OutgoingMessage {
        if self.reads_envelopes {
            OutgoingMessage::described(text, envelope())
        } else {
            text.into()
        }
    }

    async fn send_message(&self, message: OutgoingMessage) -> Result<()> {
        if self.stop_writing.is_cancelled() {
            return Err(Error::ConnectionClosed);
        }
        self.outbound.send(message).await.map_err(|_| Error::ConnectionClosed)
    }

    /// The requests this side sent on the connection and awaits.
    pub(crate) fn pending(&self) -> &PendingRequests {
        &self.pending
    }

    /// Marks the input as over and fails every pending request with
    /// [`Error::ConnectionClosed`]; queued output is still written.
    pub(crate) fn input_ended(&self) {
        self.pending.close();
        self.input_over.cancel();
    }

    /// Resolves once nothing more can arrive (see [`input_ended`](Self::input_ended)).
    pub(crate) async fn ended(&self) {
        self.input_over.cancelled().await;
    }

    /// Ends the connection: fails pending requests, writes what is queued, then closes
    /// the transport (for a child process: its stdin).
    pub(crate) fn close(&self) {
        self.input_ended();
        self.stop_writing.cancel();
    }

    /// [`Connection::close`], then waits until the transport is closed (for HTTP: until
    /// the session is deleted).
    pub(crate) async fn shutdown(&self) {
        self.close();
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(writer) = writer {
            // A peer that stopped reading must not hold the caller forever.
            let _ = tokio::time::timeout(WRITER_CLOSE_TIMEOUT, writer).await;
        }
    }
}

/// Waits for a registered request's answer.
pub(crate) async fn await_reply(reply: PendingReceiver) -> Result<Box<RawValue>> {
    match reply.await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(Error::Remote(error)),
        Err(_) => Err(Error::ConnectionClosed),
    }
}

/// Writes queued messages, flushing once the queue is empty so that bursts share a write.
/// Ends when every sender is gone or `stop` fires (then what is queued is written first).
async fn write_loop(mut queue: mpsc::Receiver<OutgoingMessage>, mut sink: FrameSink, stop: CancellationToken) {
    loop {
        let first = tokio::select! {
            biased;
            message = queue.recv() => message,
            _ = stop.cancelled() => None,
        };
        let Some(first) = first else { break };
        if sink.feed(first).await.is_err() {
            stop.cancel();
            return;
        }
        while let Ok(next) = queue.try_recv() {
            if sink.feed(next).await.is_err() {
                stop.cancel();
                return;
            }
        }
        if sink.flush().await.is_err() {
            stop.cancel();
            return;
        }
    }
    while let Ok(next) = queue.try_recv() {
        if sink.feed(next).await.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
    stop.cancel();
}

/// Reads frames until the stream ends, handing each to `on_frame`; then closes the
/// connection so that pending requests fail promptly.
pub(crate) async fn read_loop<F>(connection: &Connection, mut incoming: FrameStream, mut on_frame: F)
where
    F: FnMut(crate::transport::Frame),
{
    loop {
        let frame = tokio::select! {
            frame = incoming.next() => frame,
            _ = connection.stop_writing.cancelled() => None,
        };
        match frame {
            Some(Ok(frame)) => on_frame(frame),
            Some(Err(e)) => {
                tracing::debug!(error = %e, "transport failed");
                break;
            }
            None => break,
        }
    }
    connection.input_ended();
}

#[cfg(test)]
mod tests {
    use futures::SinkExt;

    use super::*;
    use crate::protocol::methods;

    /// A connection over a transport that reads envelopes (`describing`) or only texts,
    /// and what its sink received.
    fn sent_over(describing: bool) -> (Arc<Connection>, tokio::sync::mpsc::UnboundedReceiver<OutgoingMessage>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let sink = futures::sink::unfold(tx, |tx, message: OutgoingMessage| async move {
            let _ = tx.send(message);
            Ok::<_, std::io::Error>(tx)
        });
        let incoming = futures::stream::pending();
        let transport = if describing {
            Transport::with_message_sink(incoming, sink)
        } else {
            let texts = sink.with(|text: String| futures::future::ready(Ok::<_, std::io::Error>(text.into())));
            Transport::new(incoming, texts)
        };
        let (connection, _) = Connection::start(transport);
        (connection, rx)
    }

    #[tokio::test]
    async fn an_envelope_is_built_only_for_a_transport_that_reads_it() {
        let (text_only, mut sent) = sent_over(false);
        let described = text_only
            .send_described("{}".into(), || unreachable!("no envelope for a text transport"))
            .await;
        assert!(described.is_ok());
        assert_eq!(sent.recv().await.map(|message| message.envelope), Some(None));

        let (http_like, mut sent) = sent_over(true);
        let envelope = || Envelope::notification(methods::INITIALIZED, None);
        http_like.send_described("{}".into(), envelope).await.unwrap();
        let received = sent.recv().await.and_then(|message| message.envelope);
        assert_eq!(received.as_deref(), Some(&envelope()));
    }
}
