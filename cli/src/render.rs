//! What people read: lists as tables, results as text. (`--json` prints the protocol's
//! objects instead; nothing here.)

use comfy_table::{presets, ContentArrangement, Table};
use oxmcp::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Role, Tool,
};
use serde_json::Value;

/// A table with a header row and no borders, fitted to the terminal.
fn table<const N: usize>(header: [&str; N], rows: impl IntoIterator<Item = [String; N]>) -> String {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header);
    for row in rows {
        table.add_row(row);
    }
    table.trim_fmt()
}

/// The first line of a description, if any.
fn summary(description: Option<&str>) -> String {
    description
        .and_then(|d| d.lines().next())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The tools: name, arguments (required ones marked `*`), description.
pub fn tools(tools: &[Tool]) -> String {
    table(
        ["TOOL", "ARGUMENTS", "DESCRIPTION"],
        tools.iter().map(|tool| {
            [
                tool.name.clone(),
                arguments(&tool.input_schema),
                summary(tool.description.as_deref()),
            ]
        }),
    )
}

/// A tool's input properties, `name*` for required ones, with their types.
fn arguments(schema: &serde_json::Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mark = if required.contains(&name.as_str()) { "*" } else { "" };
            match property.get("type").and_then(Value::as_str) {
                Some(kind) => format!("{name}{mark}: {kind}"),
                None => format!("{name}{mark}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The resources: URI, name, MIME type, description.
pub fn resources(resources: &[Resource]) -> String {
    addressed(
        "URI",
        resources
            .iter()
            .map(|r| (&r.uri, &r.name, &r.mime_type, &r.description)),
    )
}

/// The resource templates: URI template, name, MIME type, description.
pub fn templates(templates: &[ResourceTemplate]) -> String {
    addressed(
        "URI TEMPLATE",
        templates
            .iter()
            .map(|t| (&t.uri_template, &t.name, &t.mime_type, &t.description)),
    )
}

/// Things with an address, a name, a MIME type and a description.
fn addressed<'a>(
    address: &str,
    items: impl Iterator<Item = (&'a String, &'a String, &'a Option<String>, &'a Option<String>)>,
) -> String {
    table(
        [address, "NAME", "MIME TYPE", "DESCRIPTION"],
        items.map(|(address, name, mime_type, description)| {
            [
                address.clone(),
                name.clone(),
                mime_type.clone().unwrap_or_default(),
                summary(description.as_deref()),
            ]
        }),
    )
}

/// The prompts: name, arguments (required ones marked `*`), description.
pub fn prompts(prompts: &[Prompt]) -> String {
    table(
        ["PROMPT", "ARGUMENTS", "DESCRIPTION"],
        prompts.iter().map(|prompt| {
            let arguments = prompt.arguments.iter().flatten().map(|argument| {
                let mark = if argument.required == Some(true) { "*" } else { "" };
                format!("{}{mark}", argument.name)
            });
            [
                prompt.name.clone(),
                arguments.collect::<Vec<_>>().join(", "),
                summary(prompt.description.as_deref()),
            ]
        }),
    )
}

/// A tool's result: its content blocks one after another; its structured content when
/// no block is text.
pub fn call_result(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result.content.iter().map(content).collect();
    let has_text = result
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::Text(_)));
    if let (false, Some(structured)) = (has_text, &result.structured_content) {
        parts.push(pretty(structured));
    }
    parts.join("\n")
}

/// A resource's contents: text as it is, binary contents described.
pub fn read_result(result: &ReadResourceResult) -> String {
    result.contents.iter().map(contents).collect::<Vec<_>>().join("\n")
}

/// A prompt's messages, each under its role.
pub fn prompt_result(result: &GetPromptResult) -> String {
    result
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            format!("[{role}]\n{}", content(&message.content))
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One content block as text.
fn content(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(media) => format!("[image {}, {} bytes]", media.mime_type, decoded_len(&media.data)),
        ContentBlock::Audio(media) => format!("[audio {}, {} bytes]", media.mime_type, decoded_len(&media.data)),
        ContentBlock::ResourceLink(link) => format!("[resource {} ({})]", link.uri, link.name),
        ContentBlock::Resource(embedded) => contents(&embedded.resource),
    }
}

fn contents(contents: &ResourceContents) -> String {
    match contents {
        ResourceContents::Text(text) => text.text.clone(),
        ResourceContents::Blob(blob) => format!(
            "[{} {}, {} bytes]",
            blob.uri,
            blob.mime_type.as_deref().unwrap_or("binary"),
            decoded_len(&blob.blob)
        ),
    }
}

/// The size of what base64 `data` encodes.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// JSON, indented.
pub fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
