//! The example tools that ask the client for input: the same code in both protocol eras.

use oxmcp::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitResult, SamplingContent,
};
use oxmcp::server::{Context, HandlerError};
use serde_json::{json, Value};

/// Asks the user to fill in a form with these properties (all required).
pub(crate) async fn ask(ctx: &Context, message: &str, properties: Value) -> Result<ElicitResult, HandlerError> {
    let required: Vec<&String> = properties.as_object().map(|p| p.keys().collect()).unwrap_or_default();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    ctx.elicit(ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: None,
        message: message.into(),
        requested_schema: schema.as_object().cloned().unwrap_or_default(),
        meta: None,
    }))
    .await
}

/// Asks the user for one text value.
pub(crate) async fn ask_text(ctx: &Context, message: &str, field: &str) -> Result<String, HandlerError> {
    let answer = ask(ctx, message, json!({ field: {"type": "string"} })).await?;
    if answer.action != ElicitAction::Accept {
        return Err(HandlerError::message(format!(
            "the user did not answer: {:?}",
            answer.action
        )));
    }
    let value = answer
        .content
        .as_ref()
        .and_then(|c| c.get(field))
        .and_then(Value::as_str);
    Ok(value.unwrap_or_default().to_owned())
}

/// A user message with text, as sampling JSON.
pub(crate) fn user_text(text: &str) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

/// Asks the client's model; `messages` and `tools` are sampling JSON.
pub(crate) async fn sample(
    ctx: &Context,
    messages: Value,
    tools: Option<Value>,
) -> Result<CreateMessageResult, HandlerError> {
    let mut params = json!({"messages": messages, "maxTokens": 200});
    if let Some(tools) = tools {
        params["tools"] = tools;
    }
    let params: CreateMessageRequestParams = serde_json::from_value(params)?;
    ctx.sample(params).await
}

/// The text of a model's reply.
pub(crate) fn text_of(reply: &CreateMessageResult) -> String {
    reply
        .content
        .as_slice()
        .iter()
        .filter_map(|c| match c {
            SamplingContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

/// Lets the model call `get_weather` until it answers in text (at most three turns).
pub(crate) async fn weather_agent(ctx: &Context) -> Result<String, HandlerError> {
    let tools = json!([{
        "name": "get_weather",
        "description": "The weather in a city",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    }]);
    let mut messages = vec![user_text("What is the weather in Paris?")];
    for _ in 0..3 {
        let reply = sample(ctx, Value::Array(messages.clone()), Some(tools.clone())).await?;
        let uses: Vec<(String, String)> = reply
            .content
            .as_slice()
            .iter()
            .filter_map(|c| match c {
                SamplingContent::ToolUse(u) => Some((
                    u.id.clone(),
                    u.input.get("city").and_then(Value::as_str).unwrap_or("?").to_owned(),
                )),
                _ => None,
            })
            .collect();
        if uses.is_empty() {
            return Ok(text_of(&reply));
        }
        messages.push(json!({"role": "assistant", "content": reply.content}));
        let results: Vec<Value> = uses
            .iter()
            .map(|(id, city)| {
                json!({"type": "tool_result", "toolUseId": id, "content": [{"type": "text", "text": format!("18°C in {city}")}]})
            })
            .collect();
        messages.push(json!({"role": "user", "content": results}));
    }
    Err(HandlerError::message("the model did not answer within three turns"))
}
