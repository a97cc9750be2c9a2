//! A `tools/call` request read from its frame in one pass, envelope and params together.
//!
//! The usual read ([`jsonrpc::parse`](crate::protocol::jsonrpc::parse)) keeps a request's
//! params as text, which it finds the end of by reading through them, and the call then
//! reads them again: on the hot path that first pass was a tenth of what a call cost in
//! the legacy era and more in the modern one, whose `_meta` is most of the params. The
//! params can only be read as a call's once the method is known, so this read takes a
//! frame whose `method` comes before its `params`, as clients write them. Any other frame,
//! and any frame this read does not take exactly as it is (a member twice, an escaped
//! name, params that do not read as a call's), is left to the usual read, which answers
//! it as it always did: this read only ever says yes to what the usual one accepts.

use std::fmt;
use std::marker::PhantomData;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::protocol::{methods, RequestId};
use crate::server::tools::CallParams;

/// A `tools/call` request with its params read as a call's.
pub(crate) struct CallFrame<'a> {
    pub(crate) id: RequestId,
    pub(crate) params: CallParams<'a>,
    /// Whether the params were the envelope's last member.
    pub(crate) params_last: bool,
}

impl<'a> CallFrame<'a> {
    /// Whether `frame` names the method anywhere. A frame that does not is not read in
    /// one pass: reading another method's envelope up to its method, to give up there,
    /// cost that request more than this read saves a call (serde's error for it is made
    /// with a message).
    pub(crate) fn named(frame: &[u8]) -> bool {
        static NAMED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""tools/call""#));
        NAMED.find(frame).is_some()
    }

    /// `frame`, which names the method ([`named`](Self::named)), as a `tools/call` request
    /// whose `method` comes before its `params`; `None` for anything else, and for a frame
    /// that is not UTF-8 (the usual read says so). The whole frame is checked first: serde
    /// reading bytes would not check the strings it skips.
    pub(crate) fn read(frame: &'a [u8]) -> Option<Self> {
        serde_json::from_str(std::str::from_utf8(frame).ok()?).ok()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CallFrame<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Members(PhantomData))
    }
}

/// The envelope's members, in the order they come.
struct Members<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for Members<'a> {
    type Value = CallFrame<'a>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a tools/call request with its method before its params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let not_taken = || de::Error::custom("left to the usual read");
        let (mut version, mut id, mut method, mut params) = (false, None, false, None);
        let mut params_last = false;
        // A name the input escapes cannot be borrowed, and fails the read.
        while let Some(name) = map.next_key::<&'de str>()? {
            params_last = name == "params";
            match name {
                "jsonrpc" if !version => {
                    version = map.next_value::<&'de str>()? == "2.0";
                    if !version {
                        return Err(not_taken());
                    }
                }
                "id" if id.is_none() => id = Some(map.next_value::<RequestId>()?),
                "method" if !method => {
                    method = map.next_value::<&'de str>()? == methods::TOOLS_CALL;
                    if !method {
                        return Err(not_taken());
                    }
                }
                "params" if method && params.is_none() => params = Some(map.next_value::<CallParams<'a>>()?),
                // A member twice, params before the method, or a response's members.
                "jsonrpc" | "id" | "method" | "params" | "result" | "error" => return Err(not_taken()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (version, id, params) {
            (true, Some(id), Some(params)) => Ok(CallFrame {
                id,
                params,
                params_last,
            }),
            _ => Err(not_taken()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::{self, Message};

    /// What the one-pass read gives (the id and the tool), checked against the usual read
    /// of the same text.
    fn read(text: &str) -> Option<(RequestId, String)> {
        if !CallFrame::named(text.as_bytes()) {
            return None;
        }
        let frame = CallFrame::read(text.as_bytes())?;
        let Ok(Message::Request(request)) = jsonrpc::parse_message(text) else {
            panic!("the one-pass read took what the usual read refuses: {text}");
        };
        let (_, usual) = CallParams::read(request.params.as_deref()).unwrap().split();
        let (_, params) = frame.params.split();
        assert_eq!((&request.id, request.method.as_str()), (&frame.id, methods::TOOLS_CALL));
        assert_eq!(params.name(), usual.name());
        assert_eq!(params.arguments(), usual.arguments());
        Some((frame.id, params.name().to_owned()))
    }

    #[test]
    fn a_call_written_as_clients_write_it_is_read_in_one_pass() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(read(call), Some((RequestId::Number(7), "echo".into())));
        let spaced =
            r#" { "method" : "tools/call", "id" : "a", "params" : { "name" : "t" }, "jsonrpc" : "2.0", "x" : [1] } "#;
        assert_eq!(read(spaced), Some((RequestId::from("a"), "t".into())));
    }

    #[test]
    fn a_frame_that_is_not_utf_8_is_left_to_the_usual_read() {
        // A byte that is not UTF-8 in a string the read skips: a member of the params, and
        // one of the envelope, neither of which a call reads.
        let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","x":"?"},"y":"?"}"#;
        for at in [frame.len() - 4, frame.len() - 12] {
            let mut broken = frame.to_vec();
            broken[at] = 0xff;
            assert!(jsonrpc::parse(&broken).is_err());
            assert!(
                CallFrame::named(&broken) && CallFrame::read(&broken).is_none(),
                "{}",
                String::from_utf8_lossy(&broken)
            );
        }
    }

    #[test]
    fn anything_else_is_left_to_the_usual_read() {
        for text in [
            // Params before the method.
            r#"{"jsonrpc":"2.0","id":1,"params":{"name":"t"},"method":"tools/call"}"#,
            // Another method, an escaped one, a member twice.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"params":{"name":"u"}}"#,
            // An escaped member name, no version or the wrong one, no id (a notification),
            // a null id, no params.
            r#"{"jsonrpc":"2.0","\u0069d":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            // Params that are not a call's, a response's member, text after the message,
            // a batch.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}} {}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}]"#,
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
