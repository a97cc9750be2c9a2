//! The capabilities and info of the clients a dispatcher served lately, by the text they
//! sent: a 2026-07-28 client sends both with every request, and reading them into their
//! types cost more than the rest of a small call.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::lock;
use crate::protocol::meta::{CLIENT_CAPABILITIES, CLIENT_INFO};
use crate::protocol::{ClientCapabilities, ErrorObject, Implementation};

/// How many clients are remembered: a session's dispatcher serves one, a shared one the
/// few that call it most.
const REMEMBERED: usize = 8;

/// The longest text remembered (capabilities and info together): a client that sends
/// more has it read with each request, so that no client fills the memory.
const LONGEST: usize = 4096;

/// What a client says of itself on each modern request.
pub(crate) struct ClientFacts {
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) info: Option<Arc<Implementation>>,
}

/// One client remembered: what it sent and what that reads as.
struct Known {
    capabilities_text: Box<str>,
    info_text: Option<Box<str>>,
    capabilities: Arc<ClientCapabilities>,
    info: Option<Arc<Implementation>>,
}

impl Known {
    fn facts(&self) -> ClientFacts {
        ClientFacts {
            capabilities: Arc::clone(&self.capabilities),
            info: self.info.clone(),
        }
    }
}

/// The clients a dispatcher served lately, newest first.
#[derive(Default)]
pub(crate) struct RecentClients {
    known: Mutex<VecDeque<Known>>,
}

impl RecentClients {
    /// The facts of the client that sent `capabilities` and `info`: read once and
    /// remembered, or remembered already.
    pub(crate) fn read(&self, capabilities: &RawValue, info: Option<&RawValue>) -> Result<ClientFacts, ErrorObject> {
        let info_text = info.map(RawValue::get);
        let sent =
            |known: &&Known| &*known.capabilities_text == capabilities.get() && known.info_text.as_deref() == info_text;
        if let Some(known) = lock(&self.known).iter().find(sent) {
            return Ok(known.facts());
        }
        let known = Known {
            capabilities: Arc::new(read_member(CLIENT_CAPABILITIES, capabilities)?),
            info: info
                .map(|info| read_member(CLIENT_INFO, info))
                .transpose()?
                .map(Arc::new),
            capabilities_text: capabilities.get().into(),
            info_text: info_text.map(Into::into),
        };
        let facts = known.facts();
        if capabilities.get().len() + info_text.map_or(0, str::len) <= LONGEST {
            let mut recent = lock(&self.known);
            recent.truncate(REMEMBERED - 1);
            recent.push_front(known);
        }
        Ok(facts)
    }
}

/// A member of `_meta`, read into its type; an error names it.
fn read_member<T: DeserializeOwned>(key: &str, raw: &RawValue) -> Result<T, ErrorObject> {
    serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("_meta[\"{key}\"]: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_client_sending_the_same_is_read_once() {
        let recent = RecentClients::default();
        let capabilities = raw(r#"{"roots":{}}"#);
        let info = raw(r#"{"name":"c","version":"1"}"#);
        let first = recent.read(&capabilities, Some(&info)).unwrap();
        let again = recent.read(&capabilities, Some(&info)).unwrap();
        assert!(Arc::ptr_eq(&first.capabilities, &again.capabilities));
        assert_eq!(again.info.unwrap().name, "c");
        let without_info = recent.read(&capabilities, None).unwrap();
        assert!(!Arc::ptr_eq(&first.capabilities, &without_info.capabilities));
        assert!(without_info.info.is_none());
    }

    #[test]
    fn only_the_latest_clients_are_remembered() {
        let recent = RecentClients::default();
        let capabilities = raw("{}");
        let infos: Vec<_> = (0..=REMEMBERED)
            .map(|n| raw(&format!(r#"{{"name":"c{n}","version":"1"}}"#)))
            .collect();
        let first = recent.read(&capabilities, Some(&infos[0])).unwrap();
        for info in &infos[1..] {
            recent.read(&capabilities, Some(info)).unwrap();
        }
        assert_eq!(lock(&recent.known).len(), REMEMBERED);
        let read_again = recent.read(&capabilities, Some(&infos[0])).unwrap();
        assert!(
            !Arc::ptr_eq(&first.capabilities, &read_again.capabilities),
            "the oldest was forgotten"
        );
    }

    #[test]
    fn long_texts_are_read_each_time() {
        let recent = RecentClients::default();
        let capabilities = raw(&format!(r#"{{"experimental":{{"x":"{}"}}}}"#, "a".repeat(LONGEST)));
        let first = recent.read(&capabilities, None).unwrap();
        let again = recent.read(&capabilities, None).unwrap();
        assert!(!Arc::ptr_eq(&first.capabilities, &again.capabilities));
        assert!(lock(&recent.known).is_empty());
    }

    #[test]
    fn a_malformed_member_is_named() {
        let recent = RecentClients::default();
        let error = recent.read(&raw(r#""all""#), None).err().unwrap();
        assert_eq!(error.code, -32602);
        assert!(error.message.contains(CLIENT_CAPABILITIES), "{}", error.message);
        let error = recent.read(&raw("{}"), Some(&raw("3"))).err().unwrap();
        assert!(error.message.contains(CLIENT_INFO), "{}", error.message);
        assert!(lock(&recent.known).is_empty());
    }
}
