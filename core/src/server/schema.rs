//! JSON Schema: generation from Rust types and validation, compiled once per schema.

use std::sync::OnceLock;

use serde_json::{Map, Value};

/// A tool, resource or prompt definition that cannot be served as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DefinitionError(String);

impl DefinitionError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        DefinitionError(message.into())
    }
}

/// The JSON Schema of `T`, as an object.
pub fn schema_for<T: schemars::JsonSchema>() -> Map<String, Value> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(map) => map,
        // `true` (anything goes) as an object schema.
        _ => Map::from_iter([("type".to_owned(), Value::from("object"))]),
    }
}

/// The output schema of `T`: an object type's own, any other type's as `{"result": T}`,
/// the shape [`Json`](super::Json) gives such a value (`structuredContent` is an object).
pub(crate) fn output_schema_for<T: schemars::JsonSchema>() -> Map<String, Value> {
    let mut schema = schema_for::<T>();
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return schema;
    }
    let mut wrapper = Map::new();
    // Definitions and the dialect belong to the root, where `$ref`s resolve.
    if let Some(dialect) = schema.remove("$schema") {
        wrapper.insert("$schema".into(), dialect);
    }
    let definitions = schema.remove("$defs");
    wrapper.insert("type".into(), "object".into());
    wrapper.insert("properties".into(), serde_json::json!({ "result": schema }));
    wrapper.insert("required".into(), serde_json::json!(["result"]));
    if let Some(definitions) = definitions {
        wrapper.insert("$defs".into(), definitions);
    }
    wrapper
}

/// A compiled validator. JSON Schema 2020-12 unless the schema names another dialect in
/// `$schema`; remote `$ref`s are never fetched.
pub(crate) struct CompiledSchema(jsonschema::Validator);

impl CompiledSchema {
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        let mut options = jsonschema::options();
        if schema.get("$schema").is_none() {
            options = options.with_draft(jsonschema::Draft::Draft202012);
        }
        options.build(&schema).map(CompiledSchema).map_err(|e| e.to_string())
    }

    /// `Ok` when `instance` is valid; otherwise its problems, one per line, each with the
    /// path of the offending value: at most [`PROBLEMS_SHOWN`], each cut to
    /// [`PROBLEM_LENGTH`] characters, since they quote what the peer sent.
    pub(crate) fn validate(&self, instance: &Value) -> Result<(), String> {
        let mut errors = self.0.iter_errors(instance);
        let mut problems: Vec<String> = errors
            .by_ref()
            .take(PROBLEMS_SHOWN)
            .map(|e| {
                let path = e.instance_path().to_string();
                let problem = if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                };
                shorten(problem)
            })
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        if errors.next().is_some() {
            problems.push("and more".to_owned());
        }
        Err(problems.join("; "))
    }
}

/// How many validation problems an error lists.
const PROBLEMS_SHOWN: usize = 10;
/// How long one listed problem may be, in characters.
const PROBLEM_LENGTH: usize = 200;

fn shorten(mut problem: String) -> String {
    if let Some((cut, _)) = problem.char_indices().nth(PROBLEM_LENGTH) {
        problem.truncate(cut);
        problem.push('…');
    }
    problem
}

/// The validator of a schema its owner keeps, compiled on first use. The first schema a
/// process compiles also builds jsonschema's validator of the meta-schema, about 12 million
/// instructions (three quarters of a server's start-up when done at registration);
/// `initialize` need not wait for it.
#[derive(Default)]
pub(crate) struct LazySchema(OnceLock<Result<CompiledSchema, String>>);

/// Why [`LazySchema::validate`] refused an instance.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// The schema itself does not compile.
    BadSchema(String),
    /// The instance breaks the schema: every problem, as [`CompiledSchema::validate`] lists them.
    Invalid(String),
}

impl LazySchema {
    /// Checks `instance` against `schema`, which must be the same schema on every call.
    pub(crate) fn validate(&self, schema: &Map<String, Value>, instance: &Value) -> Result<(), Rejection> {
        match self.0.get_or_init(|| CompiledSchema::compile(schema)) {
            Ok(compiled) => compiled.validate(instance).map_err(Rejection::Invalid),
            Err(problem) => Err(Rejection::BadSchema(problem.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: Value) -> CompiledSchema {
        CompiledSchema::compile(schema.as_object().unwrap()).unwrap()
    }

    #[test]
    fn reports_each_problem_with_its_path() {
        let schema = compile(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "required": ["a", "b"]
        }));
        assert!(schema.validate(&json!({"a": 1, "b": 2})).is_ok());
        let problems = schema.validate(&json!({"a": "x"})).unwrap_err();
        assert!(problems.contains("/a"), "{problems}");
        assert!(problems.contains("\"b\" is a required property"), "{problems}");
    }

    #[test]
    fn problems_are_capped_in_number_and_length() {
        let schema = compile(json!({"type": "array", "items": {"type": "integer"}}));
        let huge = "y".repeat(100_000);
        let problems = schema.validate(&json!(vec![huge; 50])).unwrap_err();
        assert_eq!(problems.matches('…').count(), 10, "{}", &problems[..300]);
        assert!(problems.ends_with("and more"));
        assert!(problems.len() < 10 * 210 + 20, "{} bytes", problems.len());
    }

    #[test]
    fn defaults_to_2020_12_and_honours_schema() {
        // `prefixItems` exists only from 2020-12 on.
        let modern = compile(json!({"type": "array", "prefixItems": [{"type": "integer"}]}));
        assert!(modern.validate(&json!(["x"])).is_err());
        let draft7 = compile(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array", "prefixItems": [{"type": "integer"}]
        }));
        assert!(draft7.validate(&json!(["x"])).is_ok());
    }

    #[test]
    fn a_lazy_schema_compiles_on_first_use_and_tells_a_bad_schema_from_a_bad_instance() {
        let integers = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let integers = integers.as_object().unwrap();
        let lazy = LazySchema::default();
        assert!(lazy.0.get().is_none());
        assert_eq!(lazy.validate(integers, &json!({"a": 1})), Ok(()));
        assert!(lazy.0.get().is_some(), "compiled once, then kept");
        let invalid = lazy.validate(integers, &json!({"a": "x"}));
        assert!(matches!(invalid, Err(Rejection::Invalid(p)) if p.contains("/a")));
        let broken = json!({"type": "object", "properties": {"a": {"type": "strnig"}}});
        let broken = LazySchema::default().validate(broken.as_object().unwrap(), &json!({}));
        assert!(matches!(broken, Err(Rejection::BadSchema(_))));
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: f64,
        y: f64,
    }

    #[test]
    fn generates_object_schemas_from_types() {
        let schema = schema_for::<Point>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["x", "y"]));
    }
}
