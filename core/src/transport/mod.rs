//! Transports move frames (one JSON-RPC message or batch each) between two peers.
//!
//! A [`Transport`] is a stream of incoming [`Frame`]s and a sink of outgoing messages
//! ([`OutgoingMessage`]: the text, and its [`Envelope`], what the sender knows about it that
//! a transport may carry outside the body); the connection engine reads and writes nothing
//! else, so every transport gets the same parsing, dispatch and error handling.

use std::io;
use std::pin::Pin;

use bytes::Bytes;
use futures::{Sink, SinkExt, Stream, StreamExt};

use crate::protocol::RequestId;

pub mod child;
mod codec;
mod envelope;
#[cfg(feature = "http-client")]
pub mod http;
pub mod memory;
mod spawner;
pub mod stdio;

pub use codec::JsonLinesCodec;
pub use envelope::{Envelope, MessageKind};
pub use spawner::Spawner;
pub(crate) use spawner::{AbortOnDrop, Running, Spawn};

/// The key, in an error's `data`, that says the server no longer knows the client's legacy
/// session (Streamable HTTP: it answered 404 for it, as a server that restarted does): the
/// request was not handled, and the client begins a new session ([`crate::client::Client`]
/// does).
pub const SESSION_EXPIRED_KEY: &str = "sessionExpired";

/// The default largest message a transport accepts: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// One unit of input.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// The bytes of one message (or batch), not yet parsed.
    Message(Bytes),
    /// The bytes of one message the server sent while answering a request of the client's,
    /// on that request's own stream (Streamable HTTP): a question or notification of its
    /// that belongs to the request.
    Answering {
        /// The message, not yet parsed.
        message: Bytes,
        /// The request it was sent while answering.
        request: RequestId,
    },
    /// A message longer than the transport's limit arrived and was discarded; the
    /// connection goes on.
    Oversized {
        /// The limit in bytes.
        limit: usize,
    },
    /// The server no longer knows the client's legacy session (Streamable HTTP: its GET
    /// stream was answered 404, as a server that restarted answers): the client begins a
    /// new one ([`SESSION_EXPIRED_KEY`] marks the same news on a request's error).
    SessionExpired,
}

impl Frame {
    /// The bytes of the message, unless it was discarded.
    pub fn message(&self) -> Option<&Bytes> {
        match self {
            Frame::Message(message) | Frame::Answering { message, .. } => Some(message),
            Frame::Oversized { .. } | Frame::SessionExpired => None,
        }
    }
}

/// One outgoing message (or batch), as the connection hands it to the transport.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutgoingMessage {
    /// The message text, without a trailing newline.
    pub text: String,
    /// What the sender says the message is, if it says ([`MessageKind::Unknown`] when not);
    /// transports that carry only text ignore it. Boxed: every message moves through the
    /// connection's queue, and most (a server's) carry none.
    pub envelope: Option<Box<Envelope>>,
}

impl OutgoingMessage {
    /// A message and what its sender says it is.
    pub fn described(text: String, envelope: Envelope) -> Self {
        OutgoingMessage {
            text,
            envelope: Some(Box::new(envelope)),
        }
    }
}

/// A message its sender does not describe.
impl From<String> for OutgoingMessage {
    fn from(text: String) -> Self {
        OutgoingMessage { text, envelope: None }
    }
}

/// Incoming frames. The stream ends when the peer closes; an `Err` is fatal.
pub type FrameStream = Pin<Box<dyn Stream<Item = io::Result<Frame>> + Send>>;
/// Outgoing messages, one message (or batch) each.
pub type FrameSink = Pin<Box<dyn Sink<OutgoingMessage, Error = io::Error> + Send>>;

/// What carries a connection, as a server's handlers may ask ([`Context::transport`]:
/// FastMCP's `ctx.transport`, say).
///
/// [`Context::transport`]: crate::server::Context::transport
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// This process's stdin and stdout.
    Stdio,
    /// A client in the same process ([`memory::pair`]).
    Memory,
    /// Streamable HTTP.
    StreamableHttp,
    /// The 2024-11-05 revision's HTTP with Server-Sent Events.
    Sse,
    /// A transport made of any stream and sink ([`Transport::new`]).
    Other,
}

impl TransportKind {
    /// Its name: `stdio`, `memory`, `streamable-http`, `sse` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Memory => "memory",
            TransportKind::StreamableHttp => "streamable-http",
            TransportKind::Sse => "sse",
            TransportKind::Other => "other",
        }
    }
}

/// Both directions of a connection.
pub struct Transport {
    pub(crate) incoming: FrameStream,
    pub(crate) outgoing: FrameSink,
    /// Whether the sink reads [`OutgoingMessage::envelope`]: only then do senders build one.
    pub(crate) reads_envelopes: bool,
    /// What carries it.
    pub(crate) kind: TransportKind,
    /// Where its connection runs its work.
    pub(crate) spawn: Spawn,
}

impl Transport {
    /// A transport from any frame stream and sink of message texts.
    pub fn new(
        incoming: impl Stream<Item = io::Result<Frame>> + Send + 'static,
        outgoing: impl Sink<String, Error = io::Error> + Send + 'static,
    ) -> Self {
        let texts = outgoing.with(|message: OutgoingMessage| futures::future::ready(Ok::<_, io::Error>(message.text)));
        Transport {
            reads_envelopes: false,
            ..Self::with_message_sink(incoming, texts)
        }
    }

    /// A transport whose sink takes whole [`OutgoingMessage`]s, for a transport that carries
    /// more than the text (Streamable HTTP: headers, and a POST per request).
    pub fn with_message_sink(
        incoming: impl Stream<Item = io::Result<Frame>> + Send + 'static,
        outgoing: impl Sink<OutgoingMessage, Error = io::Error> + Send + 'static,
    ) -> Self {
        Transport {
            incoming: Box::pin(incoming),
            outgoing: Box::pin(outgoing),
            reads_envelopes: true,
            kind: TransportKind::Other,
            spawn: Spawn::default(),
        }
    }

    /// This transport, said to be of `kind` (what a server's handlers are told).
    pub fn with_kind(self, kind: TransportKind) -> Transport {
        Transport { kind, ..self }
    }

    /// This transport, whose connection runs its work (reading, writing, each request
    /// served) on `spawner` rather than on tokio's workers.
    pub fn spawning_on(self, spawner: std::sync::Arc<dyn Spawner>) -> Transport {
        Transport {
            spawn: Spawn::on(spawner),
            ..self
        }
    }
}

/// Which way a message went, for an observer of a connection ([`Transport::observed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageDirection {
    /// Sent to the peer.
    Outgoing,
    /// Received from the peer.
    Incoming,
}

/// What sees every message of a connection, as its text.
pub type MessageObserver = std::sync::Arc<dyn Fn(MessageDirection, &str) + Send + Sync>;

impl Transport {
    /// This transport with `observer` seeing each message (or batch) it carries, as the
    /// connection writes or reads it: for inspectors and debugging logs.
    pub fn observed(self, observer: MessageObserver) -> Transport {
        let reading = std::sync::Arc::clone(&observer);
        let incoming = self.incoming.inspect(move |frame| {
            if let Some(bytes) = frame.as_ref().ok().and_then(Frame::message) {
                reading(MessageDirection::Incoming, &String::from_utf8_lossy(bytes));
            }
        });
        let outgoing = self.outgoing.with(move |message: OutgoingMessage| {
            observer(MessageDirection::Outgoing, &message.text);
            futures::future::ready(Ok::<_, io::Error>(message))
        });
        Transport {
            incoming: Box::pin(incoming),
            outgoing: Box::pin(outgoing),
            reads_envelopes: self.reads_envelopes,
            kind: self.kind,
            spawn: self.spawn,
        }
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transport")
    }
}
