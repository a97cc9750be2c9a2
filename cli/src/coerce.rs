//! `KEY=VALUE` arguments: read as the tool's input schema types each property, so that
//! `count=3` is a number and `name=3` a string.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::failure::Failure;

/// A tool call's arguments: the `--args` object, then each pair set on it.
pub fn tool_arguments(
    schema: Option<&Map<String, Value>>,
    json: Option<&str>,
    pairs: &[String],
) -> Result<Map<String, Value>, Failure> {
    let mut arguments = match json {
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err(Failure::Usage("--args must be a JSON object".into())),
            Err(e) => return Err(Failure::Usage(format!("--args is not JSON: {e}"))),
        },
        None => Map::new(),
    };
    let properties = schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object);
    for pair in pairs {
        let (key, text) = split(pair)?;
        let property = properties.and_then(|properties| properties.get(key));
        let value = typed(text, property).map_err(|why| Failure::Usage(format!("{key}={text}: {why}")))?;
        arguments.insert(key.to_owned(), value);
    }
    Ok(arguments)
}

/// Arguments that are strings whatever they hold (a prompt's, a completion's context).
pub fn string_arguments(pairs: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    pairs
        .iter()
        .map(|pair| split(pair).map(|(key, value)| (key.to_owned(), value.to_owned())))
        .collect()
}

fn split(pair: &str) -> Result<(&str, &str), Failure> {
    pair.split_once('=')
        .filter(|(key, _)| !key.is_empty())
        .ok_or_else(|| Failure::Usage(format!("{pair:?} is not KEY=VALUE")))
}

/// `text` as the JSON value `property` asks for.
pub(crate) fn typed(text: &str, property: Option<&Value>) -> Result<Value, String> {
    let types = property.map(declared_types).unwrap_or_default();
    if types.is_empty() {
        // Untyped: JSON when it reads as JSON, else the text.
        return Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())));
    }
    let mut reasons = Vec::new();
    for kind in &types {
        match as_type(text, kind) {
            Ok(value) => return Ok(value),
            Err(why) => reasons.push(why),
        }
    }
    Err(reasons.join("; "))
}

/// The JSON types a property allows, in the schema's order (`type` as a string or a
/// list, or the types of its `anyOf`/`oneOf` branches); `string` last, as the fallback.
fn declared_types(property: &Value) -> Vec<String> {
    let mut types: Vec<String> = match property.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| property.get(*key).and_then(Value::as_array))
            .flatten()
            .flat_map(declared_types)
            .collect(),
    };
    if property.get("enum").is_some() && types.is_empty() {
        types.push("enum".into());
    }
    types.sort_by_key(|kind| kind == "string");
    types.dedup();
    types
}

fn as_type(text: &str, kind: &str) -> Result<Value, String> {
    match kind {
        "string" => Ok(Value::String(text.to_owned())),
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "not an integer".into()),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "not a number".into()),
        "boolean" => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("not true or false".into()),
        },
        "null" if text == "null" => Ok(Value::Null),
        "null" => Err("not null".into()),
        "array" | "object" | "enum" => {
            let value: Value = serde_json::from_str(text).map_err(|_| format!("not a JSON {kind}"))?;
            let fits = match kind {
                "array" => value.is_array(),
                "object" => value.is_object(),
                _ => true,
            };
            if fits {
                Ok(value)
            } else {
                Err(format!("not a JSON {kind}"))
            }
        }
        other => Err(format!("the schema's type {other:?} is unknown")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "maybe": {"type": ["integer", "null"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        }})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn call(pairs: &[&str]) -> Result<Value, Failure> {
        let pairs: Vec<String> = pairs.iter().map(|p| (*p).to_owned()).collect();
        tool_arguments(Some(&schema()), None, &pairs).map(Value::Object)
    }

    #[test]
    fn values_take_the_types_of_the_schema() {
        let arguments = call(&[
            "name=3",
            "count=3",
            "ratio=0.5",
            "on=true",
            r#"tags=["a","b"]"#,
            "maybe=null",
            "either=7",
            "free={\"a\":1}",
            "text=x=y",
        ])
        .unwrap();
        assert_eq!(
            arguments,
            json!({"name": "3", "count": 3, "ratio": 0.5, "on": true, "tags": ["a", "b"], "maybe": null,
                   "either": 7, "free": {"a": 1}, "text": "x=y"})
        );
    }

    #[test]
    fn a_value_that_fits_no_type_is_a_usage_error() {
        for pair in ["count=three", "on=yes", "tags=a", "maybe=x"] {
            assert!(
                matches!(call(&[pair]), Err(Failure::Usage(m)) if m.starts_with(pair)),
                "{pair}"
            );
        }
        assert!(matches!(call(&["novalue"]), Err(Failure::Usage(_))));
    }

    #[test]
    fn pairs_are_set_on_the_json_arguments() {
        let pairs = vec!["count=2".to_owned()];
        let arguments = tool_arguments(Some(&schema()), Some(r#"{"count": 1, "name": "n"}"#), &pairs).unwrap();
        assert_eq!(Value::Object(arguments), json!({"count": 2, "name": "n"}));
        assert!(tool_arguments(None, Some("[1]"), &[]).is_err());
    }
}
