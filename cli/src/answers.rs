//! What the server asks of the user while a verb runs: elicitation (a form, or a URL to
//! visit) and sampling (a message from the client's model). Asked at the terminal when
//! there is one, answered from `--answers FILE` in scripts, declined with `--no-input`
//! (and when there is neither a terminal nor a file).

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::Arc;

use oxmcp::client::ClientOptions;
use oxmcp::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult, ErrorObject,
    OneOrMany, Role, SamplingContent, TextContent,
};
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::args::Target;
use crate::coerce::typed;
use crate::failure::Failure;

/// The code of a sampling request the user turned down (the spec's suggestion).
const USER_REJECTED: i64 = -1;
/// The model a sample typed at the terminal claims.
const TYPED_MODEL: &str = "oxmcp-cli (typed by the user)";

/// Answers given ahead in `--answers FILE`, taken in order.
#[derive(Debug, Default, Deserialize)]
struct Script {
    /// Results of `elicitation/create`: `{"action": "accept", "content": {...}}`.
    #[serde(default)]
    elicitation: VecDeque<ElicitResult>,
    /// Results of `sampling/createMessage`, in full or as `{"text": "..."}`.
    #[serde(default)]
    sampling: VecDeque<ScriptedSample>,
}

/// A scripted sample.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ScriptedSample {
    Full(Box<CreateMessageResult>),
    Text { text: String },
}

/// How the server's questions get their answers.
#[derive(Clone)]
enum Answerer {
    /// Asked at the terminal, one question at a time.
    Terminal(Arc<Mutex<()>>),
    /// Taken from the script.
    Scripted(Arc<Mutex<Script>>),
    /// Declined.
    Declining,
}

/// `options` with handlers for the server's elicitation and sampling requests, as
/// `target` says to answer them.
pub fn answering(options: ClientOptions, target: &Target) -> Result<ClientOptions, Failure> {
    let answerer = match (&target.answers, target.no_input) {
        (Some(_), true) => return Err(Failure::Usage("--answers and --no-input exclude each other".into())),
        (Some(file), false) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Failure::Usage(format!("--answers {}: {e}", file.display())))?;
            let script = serde_json::from_str(&text)
                .map_err(|e| Failure::Usage(format!("--answers {}: {e}", file.display())))?;
            Answerer::Scripted(Arc::new(Mutex::new(script)))
        }
        (None, false) if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
            Answerer::Terminal(Arc::default())
        }
        (None, _) => Answerer::Declining,
    };
    let eliciting = answerer.clone();
    Ok(options
        .on_elicitation(
            move |params| {
                let answerer = eliciting.clone();
                async move { Ok(answerer.elicit(params).await) }
            },
            true,
        )
        .on_sampling(
            move |params| {
                let answerer = answerer.clone();
                async move { answerer.sample(params).await }
            },
            false,
        ))
}

impl Answerer {
    async fn elicit(&self, params: ElicitRequestParams) -> ElicitResult {
        match self {
            Answerer::Terminal(turn) => {
                let _turn = turn.lock().await;
                ask_elicitation(params).await
            }
            Answerer::Scripted(script) => script.lock().await.elicitation.pop_front().unwrap_or_else(|| {
                eprintln!("oxmcp: --answers has no elicitation left: declined");
                result(ElicitAction::Decline, None)
            }),
            Answerer::Declining => result(ElicitAction::Decline, None),
        }
    }

    async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, ErrorObject> {
        let rejected = |why: &str| Err(ErrorObject::new(USER_REJECTED, why));
        match self {
            Answerer::Terminal(turn) => {
                let _turn = turn.lock().await;
                match ask_sample(params).await {
                    Some(text) => Ok(typed_sample(text)),
                    None => rejected("the user declined to answer"),
                }
            }
            Answerer::Scripted(script) => match script.lock().await.sampling.pop_front() {
                Some(ScriptedSample::Full(result)) => Ok(*result),
                Some(ScriptedSample::Text { text }) => Ok(typed_sample(text)),
                None => rejected("no sampling answer left in --answers"),
            },
            Answerer::Declining => rejected("no one to answer: run at a terminal, or with --answers FILE"),
        }
    }
}

fn result(action: ElicitAction, content: Option<Map<String, Value>>) -> ElicitResult {
    ElicitResult {
        action,
        content,
        meta: None,
    }
}

fn typed_sample(text: String) -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: OneOrMany::One(SamplingContent::Text(TextContent {
            text,
            annotations: None,
            meta: None,
        })),
        model: TYPED_MODEL.into(),
        stop_reason: Some("endTurn".into()),
        meta: None,
    }
}

/// One line from the terminal, without its end; `None` at the end of input.
async fn line(prompt: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        eprint!("{prompt}");
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

/// Asks the user whether to answer at all: accept, decline or cancel.
async fn choice(prompt: &str) -> ElicitAction {
    loop {
        match line(format!("{prompt} [y]es, [n]o, [c]ancel: "))
            .await
            .as_deref()
            .map(str::trim)
        {
            Some("y" | "Y" | "yes" | "") => return ElicitAction::Accept,
            Some("n" | "N" | "no") => return ElicitAction::Decline,
            Some("c" | "C" | "cancel") | None => return ElicitAction::Cancel,
            Some(_) => continue,
        }
    }
}

async fn ask_elicitation(params: ElicitRequestParams) -> ElicitResult {
    match params {
        ElicitRequestParams::Url(url) => {
            eprintln!("\nThe server asks you to visit a page: {}\n  {}", url.message, url.url);
            result(choice("Will you?").await, None)
        }
        ElicitRequestParams::Form(form) => {
            eprintln!("\nThe server asks: {}", form.message);
            match choice("Answer?").await {
                ElicitAction::Accept => match fill(&form.requested_schema).await {
                    Some(content) => result(ElicitAction::Accept, Some(content)),
                    None => result(ElicitAction::Cancel, None),
                },
                other => result(other, None),
            }
        }
    }
}

/// Asks for each property of a form's schema; `None` when the input ends.
async fn fill(schema: &Map<String, Value>) -> Option<Map<String, Value>> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    for (name, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let needed = required.contains(&name.as_str());
        let label = property.get("title").and_then(Value::as_str).unwrap_or(name);
        let mut prompt = format!("  {label}");
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            prompt.push_str(&format!(" ({description})"));
        }
        if let Some(options) = property.get("enum").and_then(Value::as_array) {
            let options: Vec<String> = options.iter().map(Value::to_string).collect();
            prompt.push_str(&format!(" one of {}", options.join(", ")));
        }
        let default = property.get("default");
        if let Some(default) = default {
            prompt.push_str(&format!(" [{default}]"));
        } else if needed {
            prompt.push_str(" (required)");
        }
        prompt.push_str(": ");
        loop {
            let text = line(prompt.clone()).await?;
            if text.is_empty() {
                match (default, needed) {
                    (Some(default), _) => {
                        content.insert(name.clone(), default.clone());
                    }
                    (None, true) => continue,
                    (None, false) => {}
                }
                break;
            }
            match typed(&text, Some(property)) {
                Ok(value) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Err(why) => eprintln!("  {why}"),
            }
        }
    }
    Some(content)
}

/// Shows what the server would have the model read, and takes the user's answer in its
/// place; `None` when the user gives none.
async fn ask_sample(params: CreateMessageRequestParams) -> Option<String> {
    eprintln!("\nThe server asks the client's model (you answer in its place):");
    if let Some(system) = &params.system_prompt {
        eprintln!("  [system] {system}");
    }
    for message in &params.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        for content in message.content.as_slice() {
            match content {
                SamplingContent::Text(text) => eprintln!("  [{role}] {}", text.text),
                _ => eprintln!("  [{role}] (content other than text)"),
            }
        }
    }
    line("Answer (an empty line declines): ".into())
        .await
        .filter(|text| !text.is_empty())
}
