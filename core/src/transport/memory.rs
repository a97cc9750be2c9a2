//! An in-process transport: two connected ends, for tests and for embedding a server in
//! the same process as its client.

use std::io;

use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::PollSender;

use super::{Frame, Transport, TransportKind};

/// How many messages may wait in each direction before the sender waits.
const CHANNEL_CAPACITY: usize = 1024;

/// Two connected transports: what one end sends, the other receives.
///
/// ```
/// let (client_end, server_end) = oxmcp::transport::memory::pair();
/// # drop((client_end, server_end));
/// ```
pub fn pair() -> (Transport, Transport) {
    let (a_tx, a_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    let (b_tx, b_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    (end(a_tx, b_rx), end(b_tx, a_rx))
}

fn end(tx: mpsc::Sender<String>, rx: mpsc::Receiver<String>) -> Transport {
    let incoming = ReceiverStream::new(rx).map(|text| Ok(Frame::Message(text.into())));
    let outgoing = PollSender::new(tx).sink_map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "peer closed"));
    Transport::new(incoming, outgoing).with_kind(TransportKind::Memory)
}
