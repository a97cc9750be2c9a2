//! Newline-delimited JSON framing with a size limit that discards, rather than fails on,
//! an oversized line.

use std::io;

use bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use super::Frame;

/// Splits a byte stream into lines of at most `max_size` bytes. A longer line becomes one
/// [`Frame::Oversized`] and reading resumes after its newline, so one bad message does not
/// end the connection.
#[derive(Debug, Clone)]
pub struct JsonLinesCodec {
    max_size: usize,
    /// Bytes already scanned for a newline in the buffered, unfinished line.
    scanned: usize,
    /// Inside an oversized line, dropping bytes until its newline.
    discarding: bool,
}

impl JsonLinesCodec {
    /// A codec that accepts lines of at most `max_size` bytes.
    pub fn new(max_size: usize) -> Self {
        JsonLinesCodec {
            max_size,
            scanned: 0,
            discarding: false,
        }
    }
}

impl Decoder for JsonLinesCodec {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        loop {
            // memchr: a line of 64 KiB is scanned in a few thousand instructions, not 400 k.
            let newline = memchr::memchr(b'\n', &buf[self.scanned..]);
            match (newline, self.discarding) {
                (Some(offset), true) => {
                    buf.advance(self.scanned + offset + 1);
                    self.scanned = 0;
                    self.discarding = false;
                    return Ok(Some(Frame::Oversized { limit: self.max_size }));
                }
                (None, true) => {
                    buf.clear();
                    self.scanned = 0;
                    return Ok(None);
                }
                (Some(offset), false) => {
                    let end = self.scanned + offset;
                    self.scanned = 0;
                    let mut line = buf.split_to(end + 1);
                    line.truncate(end);
                    if line.last() == Some(&b'\r') {
                        line.truncate(end - 1);
                    }
                    if line.len() > self.max_size {
                        return Ok(Some(Frame::Oversized { limit: self.max_size }));
                    }
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Ok(Some(Frame::Message(line.freeze())));
                }
                (None, false) => {
                    // A last `\r` may be the start of the line's `\r\n`: it does not count.
                    let pending = buf.len() - usize::from(buf.last() == Some(&b'\r'));
                    if pending > self.max_size {
                        self.discarding = true;
                        continue;
                    }
                    self.scanned = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        // A last message without a trailing newline still counts.
        if buf.is_empty() || self.discarding {
            buf.clear();
            return Ok(None);
        }
        buf.put_u8(b'\n');
        self.decode(buf)
    }
}

impl Encoder<String> for JsonLinesCodec {
    type Error = io::Error;

    fn encode(&mut self, message: String, dst: &mut BytesMut) -> io::Result<()> {
        dst.reserve(message.len() + 1);
        dst.put_slice(message.as_bytes());
        dst.put_u8(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(codec: &mut JsonLinesCodec, input: &[u8]) -> Vec<Frame> {
        let mut buf = BytesMut::from(input);
        let mut frames = Vec::new();
        while let Some(frame) = codec.decode(&mut buf).unwrap() {
            frames.push(frame);
        }
        frames
    }

    #[test]
    fn a_line_of_the_limit_split_inside_its_crlf_is_still_a_message() {
        // Found by the stdio_codec fuzz target: the `\r` counted against the limit.
        let mut codec = JsonLinesCodec::new(4);
        let mut buf = BytesMut::from(&b"abcd\r"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(b"\n");
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(Frame::Message("abcd".into())));
    }

    #[test]
    fn splits_lines_and_skips_blank_ones() {
        let frames = decode_all(&mut JsonLinesCodec::new(100), b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"");
        assert_eq!(
            frames,
            vec![Frame::Message("{\"a\":1}".into()), Frame::Message("{\"b\":2}".into())]
        );
    }

    #[test]
    fn an_oversized_line_is_reported_once_and_reading_resumes() {
        let mut codec = JsonLinesCodec::new(8);
        let mut buf = BytesMut::from(&b"0123456789"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(b"abcdef\n{}\n");
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(Frame::Oversized { limit: 8 }));
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(Frame::Message("{}".into())));
    }

    #[test]
    fn a_last_line_without_newline_is_a_message_at_eof() {
        let mut codec = JsonLinesCodec::new(100);
        let mut buf = BytesMut::from(&b"{}"[..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(codec.decode_eof(&mut buf).unwrap(), Some(Frame::Message("{}".into())));
    }
}
