//! A Server-Sent Events parser (the WHATWG `text/event-stream` format) fed with chunks
//! split anywhere: inside a line, inside a `\r\n`, inside a UTF-8 sequence.

use std::time::Duration;

use bytes::Bytes;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The event type; `message` when the event named none.
    pub(crate) event: String,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: Bytes,
}

/// What a chunk of input produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseItem {
    /// A complete event.
    Event(SseEvent),
    /// An event whose data passed the size limit; its data was discarded.
    Oversized,
}

/// The parser's state between chunks. The last event id and the reconnection time
/// persist across events (and across reconnections of the same stream).
#[derive(Debug)]
pub(crate) struct SseParser {
    max: usize,
    /// The current line, without its terminator; at most `max` bytes are kept.
    line: Vec<u8>,
    line_overflow: bool,
    /// A `\r` ended the last chunk: a `\n` starting the next one belongs to it.
    skip_lf: bool,
    first_line: bool,
    data: Vec<u8>,
    event: String,
    oversized: bool,
    last_event_id: String,
    retry: Option<Duration>,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseParser {
    /// A parser that discards events with more than `max` bytes of data.
    pub(crate) fn new(max: usize) -> Self {
        SseParser {
            max,
            line: Vec::new(),
            line_overflow: false,
            skip_lf: false,
            first_line: true,
            data: Vec::new(),
            event: String::new(),
            oversized: false,
            last_event_id: String::new(),
            retry: None,
        }
    }

    /// The id of the last event that set one; `None` before any (or after an empty `id:`).
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        (!self.last_event_id.is_empty()).then_some(self.last_event_id.as_str())
    }

    /// The reconnection time the server asked for with `retry:`.
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Starts a new connection of the same stream: drops the partial line and event,
    /// keeps the last event id and the reconnection time.
    pub(crate) fn reconnected(&mut self) {
        self.line.clear();
        self.line_overflow = false;
        self.skip_lf = false;
        self.first_line = true;
        self.data.clear();
        self.event.clear();
        self.oversized = false;
    }

    /// Parses one chunk, appending what it completes to `out`.
    pub(crate) fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseItem>) {
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        while let Some(end) = chunk.iter().position(|&b| b == b'\r' || b == b'\n') {
            self.push_line_bytes(&chunk[..end]);
            self.end_line(out);
            let mut next = end + 1;
            if chunk[end] == b'\r' {
                match chunk.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            chunk = &chunk[next..];
        }
        self.push_line_bytes(chunk);
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) {
        let room = self.max.saturating_sub(self.line.len());
        if bytes.len() > room {
            self.line.extend_from_slice(&bytes[..room]);
            self.line_overflow = true;
        } else {
            self.line.extend_from_slice(bytes);
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseItem>) {
        let mut line = std::mem::take(&mut self.line);
        let overflow = std::mem::take(&mut self.line_overflow);
        if std::mem::take(&mut self.first_line) && line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        self.process(&line, overflow, out);
        line.clear();
        // Reuse the allocation unless one huge line made it large.
        if line.capacity() <= 64 * 1024 {
            self.line = line;
        }
    }

    fn process(&mut self, line: &[u8], overflow: bool, out: &mut Vec<SseItem>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if overflow || self.data.len() + value.len() + 1 > self.max {
                    self.oversized = true;
                    self.data = Vec::new();
                }
                if !self.oversized {
                    self.data.extend_from_slice(value);
                    self.data.push(b'\n');
                }
            }
            // A truncated line's value is not the value the server sent.
            _ if overflow => {}
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => self.last_event_id = String::from_utf8_lossy(value).into_owned(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Some(ms) = std::str::from_utf8(value).ok().and_then(|v| v.parse::<u64>().ok()) {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseItem>) {
        let event = std::mem::take(&mut self.event);
        if std::mem::take(&mut self.oversized) {
            out.push(SseItem::Oversized);
            return;
        }
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        let event = if event.is_empty() { "message".to_owned() } else { event };
        out.push(SseItem::Event(SseEvent {
            event,
            data: Bytes::from(data),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(event: &str, data: &str) -> SseItem {
        SseItem::Event(SseEvent {
            event: event.into(),
            data: Bytes::copy_from_slice(data.as_bytes()),
        })
    }

    fn parse_chunks(chunks: &[&[u8]], max: usize) -> (Vec<SseItem>, SseParser) {
        let mut parser = SseParser::new(max);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out);
        }
        (out, parser)
    }

    /// A stream with every feature: CRLF, CR and LF line ends, comments, multi-line data,
    /// ids, retry, named events, fields without a colon or a space, an empty-data priming
    /// event, non-ASCII data and a BOM.
    const STREAM: &[u8] = b"\xEF\xBB\xBF: keep-alive\r\n\
id: 1\r\n\
data:\r\n\
\r\n\
retry: 1500\r\n\
event: endpoint\r\n\
data: /messages?session=abc\r\n\
\r\n\
id: 2\n\
data: {\"a\":\n\
data:1}\n\
\n\
:comment with data: inside\r\
data: caf\xC3\xA9 \xE4\xB8\x96\r\
\r\
event\n\
data\n\
\n\
id: 3\r\n\
retry: soon\r\n\
data: last\r\n\
\r\n\
data: incomplete, never dispatched\r\n";

    fn expected() -> Vec<SseItem> {
        vec![
            event("message", ""),
            event("endpoint", "/messages?session=abc"),
            event("message", "{\"a\":\n1}"),
            event("message", "café 世"),
            event("message", ""),
            event("message", "last"),
        ]
    }

    #[test]
    fn parses_every_feature_in_one_chunk() {
        let (out, parser) = parse_chunks(&[STREAM], 1 << 20);
        assert_eq!(out, expected());
        assert_eq!(parser.last_event_id(), Some("3"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn any_split_point_gives_the_same_events() {
        for split in 0..=STREAM.len() {
            let (head, tail) = STREAM.split_at(split);
            let (out, parser) = parse_chunks(&[head, tail], 1 << 20);
            assert_eq!(out, expected(), "split at {split}");
            assert_eq!(parser.last_event_id(), Some("3"), "split at {split}");
        }
    }

    #[test]
    fn any_two_split_points_give_the_same_events() {
        for first in 0..=STREAM.len() {
            for second in first..=STREAM.len() {
                let chunks = [&STREAM[..first], &STREAM[first..second], &STREAM[second..]];
                let (out, _) = parse_chunks(&chunks, 1 << 20);
                assert_eq!(out, expected(), "splits at {first} and {second}");
            }
        }
    }

    #[test]
    fn byte_by_byte_gives_the_same_events() {
        let chunks: Vec<&[u8]> = STREAM.chunks(1).collect();
        let (out, _) = parse_chunks(&chunks, 1 << 20);
        assert_eq!(out, expected());
    }

    #[test]
    fn a_crlf_split_across_chunks_is_one_line_end() {
        // "data: a\r" + "\n\r\n": the \n after the split must not end another line.
        let (out, _) = parse_chunks(&[b"data: a\r", b"\n", b"data: b\r", b"\n\r", b"\n"], 1024);
        assert_eq!(out, vec![event("message", "a\nb")]);
    }

    #[test]
    fn ids_with_nul_are_ignored_and_empty_ids_reset() {
        let (_, parser) = parse_chunks(&[b"id: 7\n\nid: a\0b\n\n"], 1024);
        assert_eq!(parser.last_event_id(), Some("7"));
        let (_, parser) = parse_chunks(&[b"id: 7\n\nid\n\n"], 1024);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn oversized_events_are_reported_and_the_stream_goes_on() {
        let big = format!("data: {}\n\ndata: small\n\n", "x".repeat(100));
        let (out, _) = parse_chunks(&[big.as_bytes()], 32);
        assert_eq!(out, vec![SseItem::Oversized, event("message", "small")]);
        // Many small lines that add up past the limit.
        let many = format!("{}\ndata: ok\n\n", "data: 0123456789\n".repeat(10));
        let (out, _) = parse_chunks(&[many.as_bytes()], 64);
        assert_eq!(out, vec![SseItem::Oversized, event("message", "ok")]);
        // A huge comment or id line is skipped, not reported.
        let comment = format!(":{}\nid: {}\ndata: fine\n\n", "c".repeat(100), "9".repeat(100));
        let (out, parser) = parse_chunks(&[comment.as_bytes()], 32);
        assert_eq!(out, vec![event("message", "fine")]);
        assert_eq!(parser.last_event_id(), None);
    }

    #[test]
    fn reconnecting_keeps_the_cursor_and_drops_the_partial_event() {
        let mut parser = SseParser::new(1024);
        let mut out = Vec::new();
        parser.feed(b"retry: 10\nid: 4\ndata: done\n\ndata: half", &mut out);
        parser.reconnected();
        parser.feed(b"data: fresh\n\n", &mut out);
        assert_eq!(out, vec![event("message", "done"), event("message", "fresh")]);
        assert_eq!(parser.last_event_id(), Some("4"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(10)));
    }
}
