//! Transports move frames (one JSON-RPC message or batch each) between two peers.
//!
//! A [`Transport`] is a stream of incoming [`Frame`]s and a sink of outgoing message
//! texts; the connection engine reads and writes nothing else, so every transport gets
//! the same parsing, dispatch and error handling.

use std::io;
use std::pin::Pin;

use bytes::Bytes;
use futures::{Sink, Stream};

pub mod child;
mod codec;
#[cfg(feature = "http-client")]
pub mod http;
pub mod memory;
pub mod stdio;

pub use codec::JsonLinesCodec;

/// The default largest message a transport accepts: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// One unit of input.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// The bytes of one message (or batch), not yet parsed.
    Message(Bytes),
    /// A message longer than the transport's limit arrived and was discarded; the
    /// connection goes on.
    Oversized {
        /// The limit in bytes.
        limit: usize,
    },
}

/// Incoming frames. The stream ends when the peer closes; an `Err` is fatal.
pub type FrameStream = Pin<Box<dyn Stream<Item = io::Result<Frame>> + Send>>;
/// Outgoing message texts, one message each, without a trailing newline.
pub type FrameSink = Pin<Box<dyn Sink<String, Error = io::Error> + Send>>;

/// Both directions of a connection.
pub struct Transport {
    pub(crate) incoming: FrameStream,
    pub(crate) outgoing: FrameSink,
}

impl Transport {
    /// A transport from any frame stream and message sink.
    pub fn new(
        incoming: impl Stream<Item = io::Result<Frame>> + Send + 'static,
        outgoing: impl Sink<String, Error = io::Error> + Send + 'static,
    ) -> Self {
        Transport {
            incoming: Box::pin(incoming),
            outgoing: Box::pin(outgoing),
        }
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transport")
    }
}
