//! What every 2026-07-28 result carries besides its own members: its `resultType` and the
//! server's name and version in `_meta`.
//!
//! Most results have no `_meta` of their own, so the server's info goes into their JSON
//! text as text, written once per server: building a `_meta` map with a copy of the info in
//! it for every result, and writing that map out, cost more than the rest of a small call.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::protocol::{meta, Implementation, ProtocolResult, ResultType};

/// The bytes set aside for a result before it is written: most are smaller.
const SMALL_RESULT: usize = 256;

/// The server's info as modern results carry it, made once per server.
pub(crate) struct Stamp {
    /// The info as a JSON value, for results with a `_meta` of their own.
    info: Value,
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":…}`, for results without one.
    meta_member: String,
    /// `"resultType":"complete",` and the `_meta` member, for results without either.
    complete_members: String,
}

impl Stamp {
    /// The stamp of a server that says it is `info`.
    pub(crate) fn new(info: &Implementation) -> serde_json::Result<Self> {
        let info = serde_json::to_value(info)?;
        let mut only_info = Map::new();
        only_info.insert(meta::SERVER_INFO.to_owned(), info.clone());
        let meta_member = format!("\"_meta\":{}", serde_json::to_string(&only_info)?);
        let complete_members = format!(
            "\"resultType\":{},{meta_member}",
            serde_json::to_string(&ResultType::Complete)?
        );
        Ok(Stamp {
            info,
            meta_member,
            complete_members,
        })
    }

    /// `result` as JSON text, its `resultType` `complete` unless it set one, and the
    /// server's info added to its `_meta`.
    pub(crate) fn write<R: ProtocolResult + Serialize>(&self, mut result: R) -> serde_json::Result<String> {
        if result.meta_mut().is_none() {
            let members = match result.result_type_mut() {
                None => &self.complete_members,
                Some(_) => &self.meta_member,
            };
            // Room for a small result and the stamp, so that stamping it copies nothing.
            let mut text = Vec::with_capacity(SMALL_RESULT + members.len() + 1);
            serde_json::to_writer(&mut text, &result)?;
            // A result is written as an object: the stamp goes in as its last members.
            if text.starts_with(b"{") && text.ends_with(b"}") {
                text.pop();
                if text.len() > 1 {
                    text.push(b',');
                }
                text.extend_from_slice(members.as_bytes());
                text.push(b'}');
                return String::from_utf8(text).map_err(serde::ser::Error::custom);
            }
        }
        result.result_type_mut().get_or_insert(ResultType::Complete);
        self.add_info(result.meta_mut().get_or_insert_with(Map::new));
        serde_json::to_string(&result)
    }

    /// Stamps a result that is a JSON object (a custom method's): `resultType` `complete`
    /// unless it has one, and the server's info in its `_meta` (made when absent; left
    /// alone when it is not an object).
    pub(crate) fn stamp_object(&self, result: &mut Map<String, Value>) {
        result
            .entry("resultType")
            .or_insert_with(|| serde_json::to_value(ResultType::Complete).unwrap_or_default());
        if let Value::Object(own) = result.entry("_meta").or_insert_with(|| Value::Object(Map::new())) {
            self.add_info(own);
        }
    }

    fn add_info(&self, meta: &mut Map<String, Value>) {
        meta.insert(meta::SERVER_INFO.to_owned(), self.info.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CallToolResult, ContentBlock, EmptyResult, InputRequiredResult};

    fn stamp() -> Stamp {
        Stamp::new(&Implementation::new("stamped", "1.2.3")).unwrap()
    }

    fn written(result: impl ProtocolResult + Serialize) -> Value {
        serde_json::from_str(&stamp().write(result).unwrap()).unwrap()
    }

    #[test]
    fn a_result_without_meta_gets_the_type_and_the_info() {
        let result = written(CallToolResult::success(vec![ContentBlock::text("hi")]));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["content"][0]["text"], "hi");
        assert_eq!(
            result["_meta"],
            serde_json::json!({ meta::SERVER_INFO: {"name": "stamped", "version": "1.2.3"} })
        );
    }

    #[test]
    fn an_empty_result_is_stamped_too() {
        let result = written(EmptyResult::default());
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"][meta::SERVER_INFO]["name"], "stamped");
    }

    #[test]
    fn a_result_of_another_type_keeps_it_once() {
        let text = stamp()
            .write(InputRequiredResult {
                input_requests: None,
                request_state: Some("sealed".into()),
                result_type: Some(ResultType::InputRequired),
                meta: None,
            })
            .unwrap();
        assert_eq!(text.matches("resultType").count(), 1, "{text}");
        let result: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["_meta"][meta::SERVER_INFO]["name"], "stamped");
    }

    #[test]
    fn a_result_keeps_its_own_meta_and_type() {
        let mut own = Map::new();
        own.insert("example.com/trace".into(), "t-1".into());
        let result = written(InputRequiredResult {
            input_requests: None,
            request_state: Some("sealed".into()),
            result_type: Some(ResultType::InputRequired),
            meta: Some(own),
        });
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["_meta"]["example.com/trace"], "t-1");
        assert_eq!(result["_meta"][meta::SERVER_INFO]["version"], "1.2.3");
    }

    #[test]
    fn an_object_result_is_stamped_in_place() {
        let mut result = Map::new();
        result.insert("_meta".into(), serde_json::json!({"example.com/trace": "t-1"}));
        stamp().stamp_object(&mut result);
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"]["example.com/trace"], "t-1");
        assert_eq!(result["_meta"][meta::SERVER_INFO]["name"], "stamped");
    }
}
