//! The `_meta` of a stream client's last `tools/call`, and the protocol facts it read as.
//!
//! A 2026-07-28 client sends the same `_meta` (its protocol version, info and
//! capabilities) with every request, and reading it, most of a small call's params, was
//! most of what the modern era cost a call over the legacy one. A frame in which the text
//! of the last `_meta` learned stands as is, where it stood (a client writes its calls
//! alike: the `_meta` ends as far from the frame's end, or begins as far from its start,
//! as in the call it was learned from), is read without it, and its facts are the ones
//! learned. Anything else is left to the usual read.
//!
//! A JSON reader is in the same state at the same place of two texts that agree up to
//! there, and a `_meta`, an object, ends where it ends whatever follows. So where the
//! learned `_meta` is the last member of the frame's last member (`,"_meta":{…}}}` ends
//! the frame, as most clients write a call), it is known to be the call's own when the
//! frame without it reads as a call whose params, without a `_meta`, are the envelope's
//! last member. Anywhere else a short stand-in takes its place, known to have been read as
//! the call's own `_meta` (not as an argument's member, say) by where its one member's
//! value was borrowed from.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::call_frame::CallFrame;
use super::Exchange;
use crate::lock;
use crate::protocol::RequestId;
use crate::server::tools::CallParams;

/// What precedes a call's `_meta` as clients write it.
const MEMBER_NAME: &[u8] = br#""_meta":"#;

/// What stands in for a learned `_meta`: the one member the read then finds.
const STAND_IN: &str = r#"{"io.modelcontextprotocol/clientInfo":0}"#;

/// The longest `_meta` learned, so that no client fills the memory.
const LONGEST: usize = 4096;

/// A `_meta` learned: its member as the frame carried it, where, and what it read as.
struct Learned {
    member: Box<[u8]>,
    from_start: usize,
    from_end: usize,
    exchange: Exchange,
}

impl Learned {
    /// Where `frame` holds the member where the frame it was learned from did.
    fn find(&self, frame: &[u8]) -> Option<usize> {
        let holds = |at: usize| frame.get(at..at + self.member.len()) == Some(&self.member[..]);
        let from_end = frame.len().checked_sub(self.from_end);
        [Some(self.from_start), from_end]
            .into_iter()
            .flatten()
            .find(|&at| holds(at))
    }
}

/// The `_meta` one stream client sent last, learned now and then.
#[derive(Default)]
pub(crate) struct LastMeta {
    learned: Mutex<Option<Arc<Learned>>>,
    /// Frames read since one last held the learned `_meta`.
    misses: AtomicU64,
}

impl LastMeta {
    /// `frame`, a `tools/call` ([`CallFrame::named`]), read with the learned `_meta` as its
    /// own: its id, its params, and the facts of that `_meta`. `None` when the frame does
    /// not hold it where a call's `_meta` goes.
    pub(crate) fn read(&self, frame: &[u8]) -> Option<(RequestId, CallParams<'static>, Exchange)> {
        let learned = lock(&self.learned).clone();
        let read = learned.and_then(|learned| {
            let at = learned.find(frame)?;
            let len = learned.member.len();
            let (id, call) = match ends_the_call(frame, at, len) {
                true => read_without(frame, at),
                false => read_standing_in(frame, at, len),
            }?;
            Some((id, call, learned.exchange.clone()))
        });
        match read {
            Some(_) => self.misses.store(0, Ordering::Relaxed),
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
            }
        }
        read
    }

    /// Learns the `_meta` of `frame`, a `tools/call` the usual way read as `exchange`, after
    /// the first, second, fourth, eighth … miss in a row: a client whose `_meta` changes with
    /// each request (a progress token in it, say) has it read again for learning a number
    /// of times that grows as the logarithm of its requests.
    pub(crate) fn learn(&self, frame: &[u8], exchange: &Exchange) {
        if !self.misses.load(Ordering::Relaxed).is_power_of_two() {
            return;
        }
        let Some(text) = meta_text(frame).filter(|text| text.len() <= LONGEST) else {
            return;
        };
        let end = text.as_ptr() as usize - frame.as_ptr() as usize + text.len();
        let Some(at) = (end - text.len()).checked_sub(MEMBER_NAME.len()) else {
            return;
        };
        // A client that writes a space after the name is read the usual way.
        if &frame[at..end - text.len()] != MEMBER_NAME {
            return;
        }
        *lock(&self.learned) = Some(Arc::new(Learned {
            member: frame[at..end].into(),
            from_start: at,
            from_end: frame.len() - at,
            exchange: exchange.clone(),
        }));
    }
}

/// What ends a frame whose last member is the params, after their last member.
const CLOSING: &[u8] = b"}}";

/// Whether the member of `len` bytes at `at` follows another and ends the frame's last
/// member, which ends the frame.
fn ends_the_call(frame: &[u8], at: usize, len: usize) -> bool {
    at > 0 && frame[at - 1] == b',' && &frame[at + len..] == CLOSING
}

/// `frame` read without the `_meta` member at `at` that [`ends_the_call`], when what is
/// left is a call whose params, without a `_meta`, are the envelope's last member.
fn read_without(frame: &[u8], at: usize) -> Option<(RequestId, CallParams<'static>)> {
    let text = spliced(frame, at - 1..frame.len() - CLOSING.len(), b"")?;
    let CallFrame {
        id,
        params,
        params_last,
    } = serde_json::from_str(&text).ok()?;
    if !params_last || params.has_meta() {
        return None;
    }
    Some((id, params.split().1))
}

/// `frame` read with [`STAND_IN`] for the `_meta` member of `len` bytes at `at`, when the
/// stand-in is what the read took for the call's `_meta`.
fn read_standing_in(frame: &[u8], at: usize, len: usize) -> Option<(RequestId, CallParams<'static>)> {
    let value_at = at + MEMBER_NAME.len();
    let text = spliced(frame, value_at..at + len, STAND_IN.as_bytes())?;
    let CallFrame { id, params, .. } = serde_json::from_str(&text).ok()?;
    let (meta, call) = params.split();
    let stand_in = value_at..value_at + STAND_IN.len();
    let borrowed_from_stand_in = meta
        .client_info
        .is_some_and(|info| within(&text, info.get(), &stand_in));
    let only_the_stand_in = meta.protocol_version.is_none() && meta.client_capabilities.is_none();
    (borrowed_from_stand_in && only_the_stand_in).then_some((id, call))
}

/// `frame` with `with` in place of `range`, which holds (part of) the learned `_meta`: UTF-8,
/// both ends of it ASCII, so the frame is UTF-8 when the text given is.
fn spliced(frame: &[u8], range: Range<usize>, with: &[u8]) -> Option<String> {
    let mut text = Vec::with_capacity(frame.len() - range.len() + with.len());
    text.extend_from_slice(&frame[..range.start]);
    text.extend_from_slice(with);
    text.extend_from_slice(&frame[range.end..]);
    String::from_utf8(text).ok()
}

/// Whether `part`, borrowed from `text`, lies within `range` of it.
fn within(text: &str, part: &str, range: &Range<usize>) -> bool {
    let start = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    range.contains(&start) && start + part.len() <= range.end
}

/// The text of the `_meta` of `frame`'s params.
fn meta_text(frame: &[u8]) -> Option<&str> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        params: Params<'a>,
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: &'a RawValue,
    }
    let envelope: Envelope<'_> = serde_json::from_slice(frame).ok()?;
    Some(envelope.params.meta.get())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::protocol::{ClientCapabilities, ProtocolVersion};

    const META: &str =
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn exchange() -> Exchange {
        Exchange {
            version: ProtocolVersion::LATEST,
            client_capabilities: Arc::new(ClientCapabilities::default()),
            client_info: None,
            log_level: None,
        }
    }

    fn call(id: u32, arguments: &str, meta: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{arguments},"_meta":{meta}}}}}"#
        )
    }

    /// A call with its `_meta` first in its params, as the official Python SDK writes one.
    fn meta_first(id: u32, arguments: &str, meta: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{meta},"name":"echo","arguments":{arguments}}}}}"#
        )
    }

    /// A `LastMeta` that learned [`META`] from a call `written` so.
    fn learned_from(written: fn(u32, &str, &str) -> String) -> LastMeta {
        let last = LastMeta::default();
        assert!(last.read(written(1, "{}", META).as_bytes()).is_none());
        last.learn(written(1, "{}", META).as_bytes(), &exchange());
        last
    }

    fn learned() -> LastMeta {
        learned_from(call)
    }

    #[test]
    fn a_call_with_the_learned_meta_is_read_with_its_facts() {
        // Its `_meta` last (read without it) or first (read with the stand-in).
        for written in [call, meta_first] {
            let last = learned_from(written);
            let frame = written(2, r#"{"text":"hé"}"#, META);
            let (id, params, _) = last.read(frame.as_bytes()).expect(&frame);
            assert_eq!(id, RequestId::Number(2));
            assert_eq!(params.name(), "echo");
            assert_eq!(params.arguments().unwrap()["text"], "hé");
        }
    }

    #[test]
    fn the_learned_text_elsewhere_than_the_calls_meta_is_not_taken_for_it() {
        let last = learned();
        let envelope = |params: &str, x: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{params},"x":{{{x}"_meta":{META}}}}}"#)
        };
        for frame in [
            // In an argument, where the learned `_meta` began (the id two digits longer);
            // the call's own `_meta` what stands in for it.
            call(100, &format!(r#"{{"_meta":{META}}}"#), STAND_IN),
            // In the envelope, where the learned `_meta` ended; the call's own `_meta` what
            // stands in for it, or none; after another member, as a call's last `_meta`
            // would be.
            envelope(&format!(r#"{{"name":"echo","_meta":{STAND_IN}}}"#), ""),
            envelope(r#"{"name":"echo"}"#, ""),
            envelope(r#"{"name":"echo"}"#, r#""a":1,"#),
            // After a `_meta` of the call's own.
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","_meta":{{}},"_meta":{META}}}}}"#
            ),
        ] {
            let held = lock(&last.learned).as_ref().unwrap().find(frame.as_bytes());
            assert!(held.is_some(), "where it was learned: {frame}");
            assert!(last.read(frame.as_bytes()).is_none(), "{frame}");
        }
    }

    #[test]
    fn a_frame_that_is_not_utf_8_is_left_to_the_usual_read() {
        let last = learned();
        let mut frame = call(2, r#"{"text":"ab"}"#, META).into_bytes();
        let at = frame.windows(2).position(|w| w == b"ab").unwrap();
        frame[at] = 0xff;
        assert!(last.read(&frame).is_none());
    }

    #[test]
    fn learning_backs_off_while_the_meta_keeps_changing() {
        let last = LastMeta::default();
        let mut learned_at = Vec::new();
        for n in 1..=20 {
            let meta = META.replace("{}}", &format!(r#"{{"experimental":{{"n":{{"v":{n}}}}}}}}}"#));
            let frame = call(n, "{}", &meta);
            assert!(last.read(frame.as_bytes()).is_none());
            let before = lock(&last.learned).as_ref().map(Arc::as_ptr);
            last.learn(frame.as_bytes(), &exchange());
            if lock(&last.learned).as_ref().map(Arc::as_ptr) != before {
                learned_at.push(n);
            }
        }
        assert_eq!(learned_at, [1, 2, 4, 8, 16]);
    }

    #[test]
    fn a_long_meta_is_not_learned() {
        let last = LastMeta::default();
        let meta = META.replace(
            "{}}",
            &format!(r#"{{"experimental":{{"x":"{}"}}}}}}"#, "a".repeat(LONGEST)),
        );
        last.read(call(1, "{}", &meta).as_bytes());
        last.learn(call(1, "{}", &meta).as_bytes(), &exchange());
        assert!(lock(&last.learned).is_none());
    }
}
