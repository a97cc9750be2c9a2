//! The server side of the stdio transport: messages on stdin, answers on stdout.

use std::io;
use std::pin::Pin;

use bytes::BytesMut;
use futures::channel::mpsc;
use tokio::io::AsyncWrite;
use tokio_util::codec::{Decoder, FramedRead, FramedWrite};

use super::{Frame, JsonLinesCodec, Transport, TransportKind};

/// A transport over this process's stdin and stdout, accepting messages of at most
/// `max_message_size` bytes. Nothing else may write to stdout while it is in use.
///
/// When both are pipes (as when an MCP client spawns the server) on Linux, they are read
/// and written through tokio's reactor; otherwise through tokio's blocking handles, which
/// hand every read and write to a worker thread and so add a thread switch to each message.
pub fn stdio(max_message_size: usize) -> Transport {
    stdin_stdout(max_message_size).with_kind(TransportKind::Stdio)
}

fn stdin_stdout(max_message_size: usize) -> Transport {
    #[cfg(target_os = "linux")]
    if let Some((reader, writer)) = pipes::stdin_stdout() {
        return from_streams(reader, writer, max_message_size);
    }
    from_streams(tokio::io::stdin(), tokio::io::stdout(), max_message_size)
}

/// A stdio transport whose input its caller reads and hands over, chunk by chunk, through
/// the [`StdinFeed`], and whose answers go to `output`: [`stdout`], or a stream of the
/// caller's. For a runtime that reads its input on its own event loop (Node's), where the
/// requests are then served ([`Transport::spawning_on`]).
pub fn stdio_fed(output: impl AsyncWrite + Send + 'static, max_message_size: usize) -> (Transport, StdinFeed) {
    let (frames, incoming) = mpsc::unbounded();
    let codec = JsonLinesCodec::new(max_message_size);
    let transport = Transport::new(incoming, FramedWrite::new(output, codec.clone())).with_kind(TransportKind::Stdio);
    let feed = StdinFeed {
        codec,
        buffer: BytesMut::new(),
        frames,
    };
    (transport, feed)
}

/// The input of a [`stdio_fed`] transport.
pub struct StdinFeed {
    codec: JsonLinesCodec,
    buffer: BytesMut,
    frames: mpsc::UnboundedSender<io::Result<Frame>>,
}

impl StdinFeed {
    /// Takes the next bytes read from stdin; the lines they complete reach the connection.
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
        while let Ok(Some(frame)) = self.codec.decode(&mut self.buffer) {
            let _ = self.frames.unbounded_send(Ok(frame));
        }
    }

    /// Stdin ended: a last line without its newline still counts, then the input ends.
    pub fn end(&mut self) {
        if let Ok(Some(frame)) = self.codec.decode_eof(&mut self.buffer) {
            let _ = self.frames.unbounded_send(Ok(frame));
        }
        self.frames.close_channel();
    }
}

/// This process's stdout: a non-blocking pipe end when it is one (Linux), else tokio's
/// blocking handle. Call it within the tokio runtime's context.
pub fn stdout() -> Pin<Box<dyn AsyncWrite + Send>> {
    #[cfg(target_os = "linux")]
    if let Some(writer) = pipes::stdout() {
        return Box::pin(writer);
    }
    Box::pin(tokio::io::stdout())
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

#[cfg(target_os = "linux")]
mod pipes {
    use std::os::fd::OwnedFd;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

    use tokio::net::unix::pipe;

    /// Stdin and stdout as non-blocking pipe ends, or `None` when either is not a pipe.
    ///
    /// Each is opened anew through `/proc/self/fd`, which gives it an open file description
    /// of its own: `O_NONBLOCK` set there does not reach fd 0 and 1 themselves, nor stderr
    /// when it shares stdout's pipe, nor the children that inherit them.
    pub(super) fn stdin_stdout() -> Option<(pipe::Receiver, pipe::Sender)> {
        let reader = reopen_fifo(0, false)?;
        let writer = reopen_fifo(1, true)?;
        Some((
            pipe::Receiver::from_owned_fd(reader).ok()?,
            pipe::Sender::from_owned_fd(writer).ok()?,
        ))
    }

    /// Stdout alone, as [`stdin_stdout`] opens it.
    pub(super) fn stdout() -> Option<pipe::Sender> {
        pipe::Sender::from_owned_fd(reopen_fifo(1, true)?).ok()
    }

    fn reopen_fifo(fd: i32, write: bool) -> Option<OwnedFd> {
        let file = std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NONBLOCK)
            .open(format!("/proc/self/fd/{fd}"))
            .ok()?;
        file.metadata().ok()?.file_type().is_fifo().then(|| file.into())
    }
}
