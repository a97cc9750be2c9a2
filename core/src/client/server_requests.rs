//! Answering the server's requests with the client's handlers (sampling, elicitation,
//! roots): as JSON-RPC requests in the legacy era, as the input requests of an
//! `input_required` result in the modern era.

use serde_json::{Map, Value};

use super::{to_value, Client};
use crate::protocol::jsonrpc::{self, Request};
use crate::protocol::{methods, ElicitRequestParams, ErrorObject, InputRequest, InputResponse};
use crate::transport::{Envelope, OutgoingMessage};

impl Client {
    /// Answers a request from the server (legacy era): ping, sampling, elicitation, roots.
    pub(super) async fn answer_server(&self, request: Request) {
        let outcome = match request.method.as_str() {
            methods::PING => Ok(Value::Object(Map::new())),
            methods::SAMPLING_CREATE_MESSAGE | methods::ELICITATION_CREATE | methods::ROOTS_LIST => {
                let params = request
                    .params
                    .as_deref()
                    .map_or(Ok(Value::Object(Map::new())), |raw| serde_json::from_str(raw.get()));
                let input = params.and_then(|params| {
                    serde_json::from_value::<InputRequest>(
                        serde_json::json!({"method": request.method, "params": params}),
                    )
                });
                match input {
                    Ok(input) => self.answer_input(input).await.map(|answer| to_value(&answer)),
                    Err(e) => Err(ErrorObject::invalid_params(e)),
                }
            }
            other => Err(ErrorObject::method_not_found(other)),
        };
        let text = match outcome {
            Ok(result) => jsonrpc::result_text(&request.id, &result),
            Err(error) => jsonrpc::error_text(Some(&request.id), &error),
        };
        let envelope = Envelope::response(self.settled_version());
        let _ = self
            .inner
            .connection
            .send_message(OutgoingMessage { text, envelope })
            .await;
    }

    /// Answers one request of the server with the registered handlers: sampling,
    /// elicitation or roots, in either era.
    pub(super) async fn answer_input(&self, request: InputRequest) -> std::result::Result<InputResponse, ErrorObject> {
        let options = &self.inner.options;
        let missing = |what: &str| ErrorObject::method_not_found(what);
        match request {
            InputRequest::Sampling(params) => match &options.sampling {
                Some(handler) => handler.create_message(params).await.map(InputResponse::Sampling),
                None => Err(missing(methods::SAMPLING_CREATE_MESSAGE)),
            },
            InputRequest::Elicitation(ElicitRequestParams::Url(_)) if !options.elicitation_url => Err(
                ErrorObject::invalid_params("this client does not support URL-mode elicitation"),
            ),
            InputRequest::Elicitation(params) => match &options.elicitation {
                Some(handler) => handler.elicit(params).await.map(InputResponse::Elicitation),
                None => Err(missing(methods::ELICITATION_CREATE)),
            },
            InputRequest::Roots(_) => match &options.roots {
                Some(handler) => handler.list_roots().await.map(InputResponse::Roots),
                None => Err(missing(methods::ROOTS_LIST)),
            },
        }
    }
}
