//! The arguments of `mcp call` and `mcp prompt`: `--args JSON` and `--arg KEY=VALUE`, each
//! value converted to the type the tool's input schema gives it.

use std::io::Read as _;

use anyhow::{Context as _, bail};
use mcp_client::types::JsonObject;
use serde_json::Value;

/// The object of `--args`: JSON text, `@FILE`, or `-` (stdin).
pub(crate) fn json_object(text: &str) -> anyhow::Result<JsonObject> {
    let (what, text) = if text == "-" {
        let mut buf = String::new();
        std::io::stdin()
            .read_to_string(&mut buf)
            .context("cannot read --args from stdin")?;
        ("stdin".to_owned(), buf)
    } else if let Some(path) = text.strip_prefix('@') {
        let buf = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read --args from {path}"))?;
        (path.to_owned(), buf)
    } else {
        ("--args".to_owned(), text.to_owned())
    };
    match serde_json::from_str(&text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => bail!("{what} is not a JSON object: {}", kind(&other)),
        Err(e) => bail!("{what} is not valid JSON: {e}"),
    }
}

/// The arguments of a tool: `base` (from `--args`) with each `--arg` pair added, its value
/// converted by the tool's `input_schema` (see [`convert`]).
pub(crate) fn tool_arguments(
    base: JsonObject,
    pairs: &[(String, String)],
    input_schema: Option<&Value>,
) -> anyhow::Result<JsonObject> {
    let mut arguments = base;
    for (key, raw) in pairs {
        let schema = input_schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key));
        let value = convert(raw, schema).with_context(|| format!("--arg {key}={raw}"))?;
        arguments.insert(key.clone(), value);
    }
    Ok(arguments)
}

/// The arguments of a prompt: `base` with each `--arg` pair added as a string.
pub(crate) fn prompt_arguments(base: JsonObject, pairs: &[(String, String)]) -> JsonObject {
    let mut arguments = base;
    for (key, value) in pairs {
        arguments.insert(key.clone(), Value::String(value.clone()));
    }
    arguments
}

/// A `--arg` value as JSON: of the type `schema` gives the argument (`string` keeps the
/// text as it is; `integer`, `number`, `boolean`, `null`, `array` and `object` parse it); of
/// several types, the first the text parses as, else a string if allowed; without a type,
/// JSON if it parses, else a string.
pub(crate) fn convert(raw: &str, schema: Option<&Value>) -> anyhow::Result<Value> {
    let types: Vec<&str> = match schema.and_then(|s| s.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let parsed = serde_json::from_str::<Value>(raw).ok();
    if types.is_empty() {
        // No type: an enum of strings wants the text; otherwise guess.
        let string_enum = schema
            .and_then(|s| s.get("enum"))
            .and_then(Value::as_array)
            .is_some_and(|e| e.iter().any(|v| v.as_str() == Some(raw)));
        return Ok(match parsed {
            Some(value) if !string_enum => value,
            _ => Value::String(raw.to_owned()),
        });
    }
    for t in types.iter().filter(|t| **t != "string") {
        if let Some(value) = as_type(raw, parsed.as_ref(), t) {
            return Ok(value);
        }
    }
    if types.contains(&"string") {
        return Ok(Value::String(raw.to_owned()));
    }
    bail!(
        "the tool takes {}, and `{raw}` is not one",
        types
            .iter()
            .map(|t| article(t))
            .collect::<Vec<_>>()
            .join(" or ")
    )
}

/// `raw` as a value of JSON Schema type `t`, if it is one.
fn as_type(raw: &str, parsed: Option<&Value>, t: &str) -> Option<Value> {
    let value = match t {
        "boolean" => match raw.trim().to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return None,
        },
        "integer" => {
            let v = parsed?;
            let integral = v.is_i64()
                || v.is_u64()
                || v.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.is_finite());
            if !integral {
                return None;
            }
            v.clone()
        }
        "number" => parsed.filter(|v| v.is_number())?.clone(),
        "null" => parsed.filter(|v| v.is_null())?.clone(),
        "array" => parsed.filter(|v| v.is_array())?.clone(),
        "object" => parsed.filter(|v| v.is_object())?.clone(),
        _ => return None,
    };
    Some(value)
}

fn article(t: &str) -> String {
    match t {
        "integer" | "array" | "object" => format!("an {t}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    }
}

/// The JSON type of `value`, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "s": {"type": "string"},
            "b": {"type": "boolean"},
            "list": {"type": "array", "items": {"type": "string"}},
            "obj": {"type": "object"},
            "maybe": {"type": ["integer", "string"]},
            "color": {"enum": ["red", "1"]},
            "free": {},
        }})
    }

    fn one(key: &str, raw: &str) -> anyhow::Result<Value> {
        let pairs = [(key.to_owned(), raw.to_owned())];
        let args = tool_arguments(JsonObject::new(), &pairs, Some(&schema()))?;
        Ok(args[key].clone())
    }

    #[test]
    fn values_follow_the_schema() {
        assert_eq!(one("n", "42").unwrap(), json!(42));
        assert_eq!(one("n", "3.0").unwrap(), json!(3.0));
        assert_eq!(one("x", "2.5").unwrap(), json!(2.5));
        assert_eq!(one("s", "02134").unwrap(), json!("02134"));
        assert_eq!(one("s", "true").unwrap(), json!("true"));
        assert_eq!(one("b", "TRUE").unwrap(), json!(true));
        assert_eq!(one("list", r#"["a","b"]"#).unwrap(), json!(["a", "b"]));
        assert_eq!(one("obj", r#"{"k":1}"#).unwrap(), json!({"k": 1}));
        assert_eq!(one("maybe", "7").unwrap(), json!(7));
        assert_eq!(one("maybe", "seven").unwrap(), json!("seven"));
        assert_eq!(one("color", "1").unwrap(), json!("1"));
        assert_eq!(one("free", "1").unwrap(), json!(1));
        assert_eq!(one("free", "one").unwrap(), json!("one"));
        assert_eq!(one("unknown", "[1]").unwrap(), json!([1]));
        assert_eq!(one("unknown", "").unwrap(), json!(""));
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_with_the_reason() {
        for (key, raw, expected) in [
            ("n", "4.5", "an integer"),
            ("n", "x", "an integer"),
            ("x", "\"1\"", "a number"),
            ("b", "yes", "a boolean"),
            ("list", "a,b", "an array"),
            ("obj", "[]", "an object"),
        ] {
            let e = format!("{:#}", one(key, raw).unwrap_err());
            assert!(e.contains(&format!("--arg {key}={raw}")), "{e}");
            assert!(e.contains(&format!("the tool takes {expected}")), "{e}");
        }
    }

    #[test]
    fn without_a_schema_json_wins_else_a_string() {
        let pairs = [
            ("a".to_owned(), "1".to_owned()),
            ("b".to_owned(), "hello world".to_owned()),
            ("c".to_owned(), "{\"k\":[true,null]}".to_owned()),
        ];
        let args = tool_arguments(JsonObject::new(), &pairs, None).unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 1, "b": "hello world", "c": {"k": [true, null]}})
        );
    }

    #[test]
    fn arg_pairs_are_added_to_the_json_object() {
        let base = json_object(r#"{"a": 1, "b": 2}"#).unwrap();
        let pairs = [("b".to_owned(), "3".to_owned())];
        let args = tool_arguments(base, &pairs, None).unwrap();
        assert_eq!(Value::Object(args), json!({"a": 1, "b": 3}));
        let prompt = prompt_arguments(JsonObject::new(), &pairs);
        assert_eq!(Value::Object(prompt), json!({"b": "3"}));
    }

    #[test]
    fn json_objects_from_text_and_files() {
        assert!(format!("{:#}", json_object("[1]").unwrap_err()).contains("not a JSON object"));
        assert!(format!("{:#}", json_object("{").unwrap_err()).contains("not valid JSON"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("args.json");
        std::fs::write(&file, r#"{"x": "y"}"#).unwrap();
        let object = json_object(&format!("@{}", file.display())).unwrap();
        assert_eq!(Value::Object(object), json!({"x": "y"}));
        let missing = format!("@{}", dir.path().join("none").display());
        assert!(format!("{:#}", json_object(&missing).unwrap_err()).contains("cannot read"));
    }
}
