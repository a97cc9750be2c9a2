//! Multi round-trip requests (2026-07-28) in the imperative style: a handler's
//! `ctx.elicit(...)`, `ctx.sample(...)` or `ctx.list_roots()` ends the run with an
//! `input_required` result, and the retry runs the handler again from the start with the
//! answers, so each call returns its answer.
//!
//! Calls are keyed by their order in the run (`q0`, `q1`, …). The sealed `requestState`
//! carries every answer so far, the round number, an expiry, and any state of the
//! handler's own; it is bound to the method, the tool, prompt or resource name, and the
//! arguments. The binding is worked out only when state is opened or sealed: most calls
//! do neither, and writing out their arguments cost a tenth of a small call.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::Notify;

use super::context::Context;
use super::handler::HandlerError;
use super::Server;
use crate::protocol::{Era, ErrorObject, InputRequest, InputRequiredResult, InputResponse, InputResponses, ResultType};
use crate::state::KeyRing;

/// How long other calls made at the same time get to join the first one's round.
const GATHER_WINDOW: Duration = Duration::from_millis(2);

/// The version of the sealed state's layout.
const STATE_VERSION: u8 = 1;

/// How the server seals state and bounds rounds.
#[derive(Debug, Clone)]
pub(crate) struct InputPolicy {
    pub(crate) keys: KeyRing,
    pub(crate) max_rounds: u32,
    pub(crate) state_ttl: Duration,
}

/// What one run of a handler knows and asks.
pub(crate) struct InputRound {
    /// Every answer so far: from the sealed state and this request's `inputResponses`.
    answers: BTreeMap<String, InputResponse>,
    /// This request's `inputResponses` as sent, for handlers in the explicit style.
    pub(crate) responses: Option<InputResponses>,
    /// The handler's own state from an earlier explicit `input_required` result.
    pub(crate) handler_state: Option<String>,
    round: u32,
    next_key: AtomicUsize,
    asked: Mutex<BTreeMap<String, InputRequest>>,
    asked_signal: Notify,
    /// Whether the handler may end this run by becoming a task (`Context::begin_task`).
    may_begin_task: AtomicBool,
    /// Whether it did.
    began_task: AtomicBool,
}

/// The sealed payload.
#[derive(Serialize, Deserialize)]
struct SealedState {
    v: u8,
    /// Expiry, in seconds since the Unix epoch.
    exp: u64,
    round: u32,
    answers: BTreeMap<String, InputResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    handler: Option<String>,
}

/// The outcome of one run of a handler.
pub(crate) enum Run<T> {
    /// The handler finished.
    Done(T),
    /// The handler asked for input it does not have yet.
    NeedsInput,
    /// The handler asked to go on as a task (`Context::begin_task`).
    BeginTask,
}

/// The one error any state that cannot be used is refused with, as the official SDKs word
/// it; why is logged, never told (it would help whoever forges state).
fn state_refused(why: &dyn std::fmt::Display) -> ErrorObject {
    tracing::debug!("requestState refused: {why}");
    ErrorObject::new(crate::protocol::code::INVALID_PARAMS, "Invalid or expired requestState")
        .with_data(serde_json::json!({ "reason": "invalid_request_state" }))
}

impl InputRound {
    /// Opens the request's state (if any), bound to what `bind` gives, and merges its
    /// responses. Invalid, expired or foreign state is rejected with -32602 before any
    /// handler runs.
    pub(crate) fn start(
        policy: &InputPolicy,
        bind: impl FnOnce() -> Vec<u8>,
        request_state: Option<&str>,
        responses: Option<InputResponses>,
    ) -> Result<Self, ErrorObject> {
        let (mut answers, round, handler_state) = match request_state {
            None => (BTreeMap::new(), 0, None),
            Some(sealed) => {
                let plaintext = policy.keys.open(sealed, &bind()).map_err(|e| state_refused(&e))?;
                let state: SealedState = serde_json::from_slice(&plaintext)
                    .ok()
                    .filter(|s: &SealedState| s.v == STATE_VERSION)
                    .ok_or_else(|| state_refused(&"its layout is unknown"))?;
                if state.exp < now_secs() {
                    return Err(state_refused(&"it expired"));
                }
                (state.answers, state.round, state.handler)
            }
        };
        // Answers count only as a retry of a round we started.
        if request_state.is_some() {
            answers.extend(responses.iter().flatten().map(|(k, v)| (k.clone(), v.clone())));
        }
        Ok(InputRound {
            answers,
            responses,
            handler_state,
            round,
            next_key: AtomicUsize::new(0),
            asked: Mutex::new(BTreeMap::new()),
            asked_signal: Notify::new(),
            may_begin_task: AtomicBool::new(false),
            began_task: AtomicBool::new(false),
        })
    }

    /// A run of a task's handler, with every answer the task got so far (a task keeps its
    /// answers itself: nothing is sealed).
    pub(crate) fn with_answers(answers: BTreeMap<String, InputResponse>) -> Self {
        InputRound {
            answers,
            responses: None,
            handler_state: None,
            round: 0,
            next_key: AtomicUsize::new(0),
            asked: Mutex::new(BTreeMap::new()),
            asked_signal: Notify::new(),
            may_begin_task: AtomicBool::new(false),
            began_task: AtomicBool::new(false),
        }
    }

    /// Lets the handler end this run by becoming a task.
    pub(crate) fn allow_task_start(&self) {
        self.may_begin_task.store(true, Ordering::SeqCst);
    }

    /// The handler asks to go on as a task: true when this run ends for it (the server
    /// then starts the task, which runs the handler again with this round's answers).
    pub(crate) fn begin_task(&self) -> bool {
        if !self.may_begin_task.load(Ordering::SeqCst) {
            return false;
        }
        self.began_task.store(true, Ordering::SeqCst);
        self.asked_signal.notify_one();
        true
    }

    /// Every answer so far.
    pub(crate) fn answers(&self) -> &BTreeMap<String, InputResponse> {
        &self.answers
    }

    /// What this run asked and has no answer to, taken out.
    pub(crate) fn take_asked(&self) -> BTreeMap<String, InputRequest> {
        std::mem::take(&mut *crate::lock(&self.asked))
    }

    /// The answer to the next call in this run from an earlier round; `None` records the
    /// request for the `input_required` result, and the run ends before an answer comes.
    pub(crate) fn ask(&self, request: InputRequest) -> Option<InputResponse> {
        let key = format!("q{}", self.next_key.fetch_add(1, Ordering::SeqCst));
        if let Some(answer) = self.answers.get(&key) {
            return Some(answer.clone());
        }
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, request);
        self.asked_signal.notify_one();
        None
    }

    /// Runs `handler` until it finishes or asks for input; calls made at about the same
    /// time as the first ask join the same round.
    pub(crate) async fn run<F: Future>(&self, handler: F) -> Run<F::Output> {
        let mut handler = std::pin::pin!(handler);
        tokio::select! {
            biased;
            output = &mut handler => return Run::Done(output),
            _ = self.asked_signal.notified() => {}
        }
        if self.began_task.load(Ordering::SeqCst) {
            return Run::BeginTask;
        }
        loop {
            tokio::select! {
                biased;
                output = &mut handler => return Run::Done(output),
                _ = self.asked_signal.notified() => continue,
                _ = tokio::time::sleep(GATHER_WINDOW) => return Run::NeedsInput,
            }
        }
    }

    /// The `input_required` result for what this run asked (or, in the explicit style,
    /// what the handler returned), with the next round's state sealed to `binding`.
    pub(crate) fn input_required(
        &self,
        policy: &InputPolicy,
        explicit: Option<InputRequiredResult>,
        binding: &[u8],
    ) -> Result<InputRequiredResult, ErrorObject> {
        let round = self.round + 1;
        if round > policy.max_rounds {
            return Err(ErrorObject::internal(format!(
                "the handler still needs input after {} rounds",
                policy.max_rounds
            )));
        }
        let asked = self.take_asked();
        let (input_requests, handler) = match explicit {
            Some(result) => (result.input_requests, result.request_state),
            None => (Some(asked), None),
        };
        let state = SealedState {
            v: STATE_VERSION,
            exp: now_secs().saturating_add(policy.state_ttl.as_secs()),
            round,
            answers: self.answers.clone(),
            handler,
        };
        let plaintext = serde_json::to_vec(&state).map_err(ErrorObject::internal)?;
        let sealed = policy.keys.seal(&plaintext, binding).map_err(ErrorObject::internal)?;
        Ok(InputRequiredResult {
            input_requests: input_requests.filter(|r| !r.is_empty()),
            request_state: Some(sealed),
            result_type: Some(ResultType::InputRequired),
            meta: None,
        })
    }
}

/// What sealed state is bound to: the method, the target's name (or URI) and arguments as
/// the request's `params` give them (read again: the handler has taken the parsed ones by
/// then), and the caller's principal on an endpoint that requires tokens (so that state
/// replayed by another caller does not open).
pub(crate) fn binding(method: &str, params: Option<&RawValue>, principal: &str) -> Vec<u8> {
    #[derive(Deserialize, Default)]
    struct Target {
        #[serde(default, alias = "uri")]
        name: String,
        #[serde(default)]
        arguments: Option<Value>,
    }
    let Target { name, arguments } = params
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or_default();
    let mut binding = format!("{method}\0{name}\0{principal}\0").into_bytes();
    // Written out, not as sent: equal arguments in other spacing give equal bytes.
    binding.extend(serde_json::to_vec(&arguments).unwrap_or_default());
    binding
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The multi round-trip state of a modern request that may ask the client for input
/// (none in the legacy era, where the client is asked directly); `bind` gives what its
/// state is bound to ([`binding`]).
pub(crate) fn input_round(
    server: &Server,
    ctx: &Context,
    bind: impl FnOnce() -> Vec<u8>,
    request_state: Option<String>,
    responses: Option<InputResponses>,
) -> Result<Option<Arc<InputRound>>, ErrorObject> {
    if ctx.era() != Era::Modern {
        return Ok(None);
    }
    let round = Arc::new(InputRound::start(
        server.input_policy(),
        bind,
        request_state.as_deref(),
        responses,
    )?);
    ctx.attach_input(Arc::clone(&round));
    Ok(Some(round))
}

/// How a handler run ended.
pub(crate) enum Handled<T> {
    /// The handler's own outcome.
    Done(T),
    /// The `input_required` result to send instead (or why it could not be made).
    NeedsInput(Result<InputRequiredResult, ErrorObject>),
    /// The handler asked to go on as a task (only where the round allowed it).
    BeginTask,
}

/// Runs a handler; in the modern era, a request for input ends the run with the
/// `input_required` result, its state sealed to what `bind` gives.
pub(crate) async fn run_handler<T>(
    server: &Server,
    round: Option<&InputRound>,
    handler: impl Future<Output = Result<T, HandlerError>>,
    bind: impl FnOnce() -> Vec<u8>,
) -> Handled<Result<T, HandlerError>> {
    let Some(round) = round else {
        return Handled::Done(handler.await);
    };
    let policy = server.input_policy();
    match round.run(handler).await {
        Run::Done(Err(HandlerError::InputRequired(explicit))) => {
            Handled::NeedsInput(round.input_required(policy, Some(*explicit), &bind()))
        }
        Run::Done(outcome) => Handled::Done(outcome),
        Run::NeedsInput => Handled::NeedsInput(round.input_required(policy, None, &bind())),
        Run::BeginTask => Handled::BeginTask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitAction, ElicitResult, ListRootsRequestParams};
    use crate::server::auth::AccessToken;

    fn policy() -> InputPolicy {
        InputPolicy {
            keys: KeyRing::random().unwrap(),
            max_rounds: 2,
            state_ttl: Duration::from_secs(60),
        }
    }

    fn accept() -> InputResponse {
        InputResponse::Elicitation(ElicitResult {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        })
    }

    fn roots() -> InputRequest {
        InputRequest::Roots(ListRootsRequestParams::default())
    }

    /// The binding of a call of tool `t` with `arguments`, by `principal`.
    fn bound(arguments: Value, principal: &str) -> Vec<u8> {
        let params = RawValue::from_string(serde_json::json!({ "name": "t", "arguments": arguments }).to_string());
        binding("tools/call", Some(&params.unwrap()), principal)
    }

    #[test]
    fn the_binding_reads_the_arguments_whatever_their_spacing() {
        let spaced = RawValue::from_string(r#"{ "name": "t", "arguments": { "a" : 1 } }"#.into()).unwrap();
        assert_eq!(
            binding("tools/call", Some(&spaced), ""),
            bound(serde_json::json!({"a": 1}), "")
        );
        assert_ne!(
            bound(serde_json::json!({"a": 1}), ""),
            bound(serde_json::json!({"a": 2}), "")
        );
    }

    #[tokio::test]
    async fn a_second_round_answers_the_first_and_asks_the_next() {
        let policy = policy();
        let bind = || bound(serde_json::json!({"a": 1}), "");
        let first = InputRound::start(&policy, bind, None, None).unwrap();
        assert!(first.ask(roots()).is_none());
        let result = first.input_required(&policy, None, &bind()).unwrap();
        assert_eq!(
            result.input_requests.as_ref().unwrap().keys().collect::<Vec<_>>(),
            ["q0"]
        );

        let responses = BTreeMap::from([("q0".to_owned(), accept())]);
        let state = result.request_state.unwrap();
        let second = InputRound::start(&policy, bind, Some(&state), Some(responses.clone())).unwrap();
        assert!(second.ask(roots()).is_some());
        assert!(second.ask(roots()).is_none());
        let third_state = second
            .input_required(&policy, None, &bind())
            .unwrap()
            .request_state
            .unwrap();
        let third = InputRound::start(&policy, bind, Some(&third_state), None).unwrap();
        assert!(
            third.input_required(&policy, None, &bind()).is_err(),
            "past the round limit"
        );

        let alice = AccessToken::new("a").issuer("as").subject("alice");
        let mallory = AccessToken::new("m").issuer("as").subject("mallory");
        let args = serde_json::json!({"a": 1});
        let for_alice = bound(args.clone(), &alice.principal().key());
        let alices_state = InputRound::start(&policy, || for_alice.clone(), None, None)
            .unwrap()
            .input_required(&policy, None, &for_alice);
        let alices_state = alices_state.map(|r| r.request_state.unwrap());
        let refused = |binding: Vec<u8>, state: &str| {
            InputRound::start(&policy, || binding, Some(state), None)
                .err()
                .unwrap()
                .code
        };
        assert_eq!(refused(bound(serde_json::json!({"a": 2}), ""), &state), -32602);
        assert_eq!(
            refused(
                bound(args.clone(), &mallory.principal().key()),
                &alices_state.clone().unwrap()
            ),
            -32602
        );
        assert_eq!(refused(bound(args.clone(), ""), &alices_state.clone().unwrap()), -32602);
        let again = AccessToken::new("a2").issuer("as").subject("alice");
        assert!(InputRound::start(
            &policy,
            || bound(args, &again.principal().key()),
            Some(&alices_state.unwrap()),
            None
        )
        .is_ok());
    }

    #[tokio::test]
    async fn calls_at_the_same_time_share_one_round() {
        let round = InputRound::start(&policy(), Vec::new, None, None).unwrap();
        let ask_two = async {
            let both = futures::join!(
                async {
                    round.ask(roots());
                    std::future::pending::<()>().await
                },
                async {
                    tokio::task::yield_now().await;
                    round.ask(roots());
                    std::future::pending::<()>().await
                }
            );
            both.0
        };
        assert!(matches!(round.run(ask_two).await, Run::NeedsInput));
        assert_eq!(round.asked.lock().unwrap().len(), 2);
    }
}
