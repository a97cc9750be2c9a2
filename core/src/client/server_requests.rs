//! Answering the server's requests with the client's handlers (sampling, elicitation,
//! roots): as JSON-RPC requests in the legacy era, as the input requests of an
//! `input_required` result in the modern era; within the limits of
//! [`ClientOptions`](super::ClientOptions) in both.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{to_value, Client};
use crate::error::{Error, Result};
use crate::protocol::jsonrpc::{self, Request};
use crate::protocol::{
    code, methods, ElicitRequestParams, ErrorObject, InputRequest, InputRequests, InputResponse, InputResponses,
    RequestId,
};
use crate::transport::Envelope;

impl Client {
    /// Takes a request from the server (legacy era), sent while `answering` one of the
    /// client's if the transport says so: answered on a task of its own while fewer than
    /// `max_server_requests` are, else refused at once, so that a server cannot pile work
    /// up in the client.
    pub(super) fn accept_server_request(&self, request: Request, answering: Option<RequestId>) {
        match Arc::clone(&self.inner.server_requests).try_acquire_owned() {
            Ok(permit) => {
                let client = self.clone();
                self.inner.connection.spawn().detached(async move {
                    client.answer_server(request, answering).await;
                    drop(permit);
                });
            }
            Err(_) => {
                let limit = self.inner.options.max_server_requests;
                let error = ErrorObject::new(
                    code::INTERNAL_ERROR,
                    format!(
                        "the client is answering {limit} requests of the server already, its limit; try again later"
                    ),
                );
                // The reader cannot wait for room in the outgoing queue: when even that
                // is full, the server's flood goes unanswered.
                let refusal = jsonrpc::error_text(Some(&request.id), &error);
                if !self
                    .inner
                    .connection
                    .try_send_described(refusal, || self.answer_envelope())
                {
                    tracing::warn!(method = %request.method, "dropped a request of the server: too many at once");
                }
            }
        }
    }

    /// Answers a request from the server (legacy era): ping, sampling, elicitation, roots.
    async fn answer_server(&self, request: Request, answering: Option<RequestId>) {
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
                    Ok(input) => self
                        .answer_asked(input, answering)
                        .await
                        .map(|answer| to_value(&answer)),
                    Err(e) => Err(ErrorObject::invalid_params(e)),
                }
            }
            other => Err(ErrorObject::method_not_found(other)),
        };
        let text = match outcome {
            Ok(result) => jsonrpc::result_text(&request.id, &result),
            Err(error) => jsonrpc::error_text(Some(&request.id), &error),
        };
        let _ = self
            .inner
            .connection
            .send_described(text, || self.answer_envelope())
            .await;
    }

    /// The envelope of an answer to one of the server's requests.
    fn answer_envelope(&self) -> Envelope {
        Envelope::response(self.settled_version())
    }

    /// Answers the input requests of one `input_required` round (modern era) for a
    /// `method` request. A round with more sampling requests than
    /// `max_sampling_per_round` is refused before any reaches the handler.
    pub(super) async fn answer_round(&self, method: &str, requests: InputRequests) -> Result<InputResponses> {
        let sampling = requests
            .values()
            .filter(|request| matches!(request, InputRequest::Sampling(_)))
            .count();
        let limit = self.inner.options.max_sampling_per_round;
        if sampling > limit {
            return Err(Error::Unsupported(format!(
                "{method}: the server asked for {sampling} sampling requests in one round; the client's limit is {limit}"
            )));
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let answer = self.answer_input(request).await.map_err(|e| {
                Error::Unsupported(format!(
                    "{method}: the server's input request {key:?} could not be answered: {e}"
                ))
            })?;
            responses.insert(key, answer);
        }
        Ok(responses)
    }

    /// Answers a question of the server (legacy era) by the asker of the request it
    /// belongs to, else by the registered handlers. It belongs to the request the server
    /// was `answering` (on that request's stream), or, sent apart from any, to the one
    /// request pending: with several pending, which one cannot be told (a question of
    /// one caller's must not reach another).
    async fn answer_asked(
        &self,
        request: InputRequest,
        answering: Option<RequestId>,
    ) -> std::result::Result<InputResponse, ErrorObject> {
        match self.relay_of(answering.as_ref()).and_then(|relay| relay.asker) {
            Some(asker) => asker(request).await,
            None => self.answer_input(request).await,
        }
    }

    /// Answers one request of the server with the registered handlers: sampling,
    /// elicitation or roots, in either era.
    async fn answer_input(&self, request: InputRequest) -> std::result::Result<InputResponse, ErrorObject> {
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
