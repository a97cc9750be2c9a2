//! Multi round-trip requests (2026-07-28): the server answers `input_required`, the client
//! retries with the answers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::elicitation::{ElicitRequestParams, ElicitResult};
use super::meta::Meta;
use super::result::{protocol_result, ResultType};
use super::roots::ListRootsResult;
use super::sampling::{CreateMessageRequestParams, CreateMessageResult};

/// Something the server needs from the client before it can finish: `method` and
/// `params`, as in a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "InputRequestWire", into = "InputRequestWire")]
// A few per multi round-trip exchange, each built to be sent at once: boxing the largest
// would cost an allocation for nothing and make every match on it clumsier.
#[allow(clippy::large_enum_variant)]
pub enum InputRequest {
    /// An LLM completion.
    Sampling(CreateMessageRequestParams),
    /// The user's input.
    Elicitation(ElicitRequestParams),
    /// The client's roots. `params` is optional on the wire: absent reads as empty, and
    /// empty is written as absent.
    Roots(ListRootsRequestParams),
}

/// The wire form of [`InputRequest`], where `roots/list` may come without `params`.
#[derive(Serialize, Deserialize)]
#[serde(tag = "method")]
#[allow(clippy::large_enum_variant)] // as InputRequest: passed through, never stored
enum InputRequestWire {
    #[serde(rename = "sampling/createMessage")]
    Sampling { params: CreateMessageRequestParams },
    #[serde(rename = "elicitation/create")]
    Elicitation { params: ElicitRequestParams },
    #[serde(rename = "roots/list")]
    Roots {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        params: Option<ListRootsRequestParams>,
    },
}

impl From<InputRequestWire> for InputRequest {
    fn from(wire: InputRequestWire) -> Self {
        match wire {
            InputRequestWire::Sampling { params } => InputRequest::Sampling(params),
            InputRequestWire::Elicitation { params } => InputRequest::Elicitation(params),
            InputRequestWire::Roots { params } => InputRequest::Roots(params.unwrap_or_default()),
        }
    }
}

impl From<InputRequest> for InputRequestWire {
    fn from(request: InputRequest) -> Self {
        match request {
            InputRequest::Sampling(params) => InputRequestWire::Sampling { params },
            InputRequest::Elicitation(params) => InputRequestWire::Elicitation { params },
            InputRequest::Roots(params) => InputRequestWire::Roots {
                params: (params != ListRootsRequestParams::default()).then_some(params),
            },
        }
    }
}

/// Params of `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The client's answer to one [`InputRequest`]. The shapes do not overlap, so the answer
/// is recognised by its members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to a sampling request.
    Sampling(CreateMessageResult),
    /// Answer to an elicitation.
    Elicitation(ElicitResult),
    /// Answer to a roots request.
    Roots(ListRootsResult),
}

/// Input requests by key.
pub type InputRequests = BTreeMap<String, InputRequest>;
/// Input responses by the key of the request they answer.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// An interim result: the server needs input, and the client should retry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InputRequiredResult {
    /// What the server needs.
    #[serde(rename = "inputRequests", default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo on the retry.
    #[serde(rename = "requestState", default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `input_required`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

protocol_result!(InputRequiredResult);
