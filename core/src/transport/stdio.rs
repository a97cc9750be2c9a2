//! The server side of the stdio transport: messages on stdin, answers on stdout.

use tokio_util::codec::{FramedRead, FramedWrite};

use super::{JsonLinesCodec, Transport};

/// A transport over this process's stdin and stdout, accepting messages of at most
/// `max_message_size` bytes. Nothing else may write to stdout while it is in use.
pub fn stdio(max_message_size: usize) -> Transport {
    let codec = JsonLinesCodec::new(max_message_size);
    Transport::new(
        FramedRead::new(tokio::io::stdin(), codec.clone()),
        FramedWrite::new(tokio::io::stdout(), codec),
    )
}

/// A transport over any pair of byte streams, with newline-delimited framing.
pub fn from_streams(
    reader: impl tokio::io::AsyncRead + Send + 'static,
    writer: impl tokio::io::AsyncWrite + Send + 'static,
    max_message_size: usize,
) -> Transport {
    let codec = JsonLinesCodec::new(max_message_size);
    Transport::new(FramedRead::new(reader, codec.clone()), FramedWrite::new(writer, codec))
}
