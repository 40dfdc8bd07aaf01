//! `cargo xtask spec-check <dir>`: checks `mcp-types` against the protocol's own schema files.
//!
//! 1. Every example message under `<dir>/2026-07-28/examples/<Type>/` deserializes into the Rust
//!    type its folder names and serializes back JSON-equal (numbers compared by value), and the
//!    re-serialized message validates against that revision's schema.
//! 2. For every revision, a serialized sample of every request, result and notification the
//!    revision defines validates against `<dir>/<rev>/schema.json`. A definition without a sample
//!    is a failure, so a type added to the schema cannot go unnoticed.

use std::path::Path;

use anyhow::{Context, Result, bail};
use mcp_types::ProtocolVersion;
use serde_json::Value;

use crate::samples;

/// Counts and failure messages of one spec-check run.
#[derive(Debug, Default)]
struct Report {
    passed: usize,
    failures: Vec<String>,
}

impl Report {
    fn check(&mut self, what: impl FnOnce() -> String, result: Result<()>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(e) => self.failures.push(format!("{}: {e:#}", what())),
        }
    }
}

pub(crate) fn spec_check(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        bail!(
            "spec directory {} does not exist: spec-check needs <dir>/<revision>/schema.json for every \
             revision and <dir>/2026-07-28/examples/",
            dir.display()
        );
    }
    let mut report = Report::default();
    for rev in ProtocolVersion::ALL {
        let schema = load_schema(dir, rev)?;
        if *rev == ProtocolVersion::V2026_07_28 {
            roundtrip_examples(dir, &schema, &mut report)?;
        }
        validate_samples(rev, &schema, &mut report);
    }
    for f in &report.failures {
        eprintln!("spec-check FAILED {f}");
    }
    println!(
        "spec-check: {} passed, {} failed",
        report.passed,
        report.failures.len()
    );
    if report.failures.is_empty() {
        Ok(())
    } else {
        bail!("{} spec check(s) failed", report.failures.len())
    }
}

fn load_schema(dir: &Path, rev: &ProtocolVersion) -> Result<Value> {
    let path = dir.join(rev.as_str()).join("schema.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("spec-check needs the schema file {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", path.display()))
}

/// The definitions map of a schema document and the JSON pointer prefix that reaches it.
fn definitions(schema: &Value) -> Result<(&serde_json::Map<String, Value>, &'static str)> {
    if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
        Ok((defs, "#/$defs/"))
    } else if let Some(defs) = schema.get("definitions").and_then(Value::as_object) {
        Ok((defs, "#/definitions/"))
    } else {
        bail!("schema has neither $defs nor definitions")
    }
}

/// Validates `instance` against definition `name` of `schema`.
fn validate(schema: &Value, name: &str, instance: &Value) -> Result<()> {
    let (defs, prefix) = definitions(schema)?;
    if !defs.contains_key(name) {
        bail!("the schema has no definition {name}");
    }
    let mut root = schema.clone();
    if let Some(obj) = root.as_object_mut() {
        obj.insert("$ref".to_owned(), Value::String(format!("{prefix}{name}")));
    }
    let validator = jsonschema::validator_for(&root)
        .map_err(|e| anyhow::anyhow!("schema does not compile: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .take(5)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        bail!("{}\n  instance: {instance}", errors.join("; "))
    }
}

/// JSON equality where numbers compare by value (`1` equals `1.0`).
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn roundtrip_examples(dir: &Path, schema: &Value, report: &mut Report) -> Result<()> {
    let examples = dir.join("2026-07-28").join("examples");
    let mut folders: Vec<_> = std::fs::read_dir(&examples)
        .with_context(|| {
            format!(
                "spec-check needs the examples directory {}",
                examples.display()
            )
        })?
        .collect::<Result<_, _>>()?;
    folders.sort_by_key(|e| e.file_name());
    if folders.is_empty() {
        bail!("{} holds no example folders", examples.display());
    }
    for folder in folders {
        let type_name = folder.file_name().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(folder.path())?.collect::<Result<_, _>>()?;
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let path = file.path();
            let what = || {
                format!(
                    "2026-07-28 example {type_name}/{}",
                    file.file_name().to_string_lossy()
                )
            };
            let result = std::fs::read_to_string(&path)
                .map_err(anyhow::Error::from)
                .and_then(|text| Ok(serde_json::from_str::<Value>(&text)?))
                .and_then(|original| {
                    let back = samples::roundtrip(&type_name, &original)?;
                    if !json_equal(&original, &back) {
                        bail!(
                            "round trip changed the message\n  before: {original}\n  after:  {back}"
                        );
                    }
                    validate(schema, &type_name, &back)
                });
            report.check(what, result);
        }
    }
    Ok(())
}

/// Definitions named like a request, result or notification that are unions or bases rather than
/// messages of their own; they get no sample.
const NOT_MESSAGES: &[&str] = &[
    "Request",
    "Result",
    "Notification",
    "PaginatedRequest",
    "PaginatedResult",
    "CacheableResult",
    "ClientRequest",
    "ClientResult",
    "ClientNotification",
    "ServerRequest",
    "ServerResult",
    "ServerNotification",
    "JSONRPCRequest",
    "JSONRPCNotification",
    "JSONRPCResponse",
    "JSONRPCResultResponse",
    "JSONRPCErrorResponse",
    "JSONRPCBatchRequest",
    "JSONRPCBatchResponse",
    "InputRequest",
    "InputResponse",
];

fn is_message(name: &str) -> bool {
    (name.ends_with("Request")
        || name.ends_with("Result")
        || name.ends_with("Notification")
        || name.ends_with("Response"))
        && !NOT_MESSAGES.contains(&name)
}

fn validate_samples(rev: &ProtocolVersion, schema: &Value, report: &mut Report) {
    let defs = match definitions(schema) {
        Ok((defs, _)) => defs,
        Err(e) => {
            report.check(|| format!("{rev} schema"), Err(e));
            return;
        }
    };
    let samples = samples::for_revision(rev);
    for name in defs.keys().filter(|n| is_message(n)) {
        let what = || format!("{rev} sample {name}");
        let matching: Vec<&Value> = samples
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v)
            .collect();
        if matching.is_empty() {
            report.check(
                what,
                Err(anyhow::anyhow!(
                    "no sample: add one in xtask/src/samples/ (by area)"
                )),
            );
            continue;
        }
        for sample in matching {
            report.check(what, validate(schema, name, sample));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_equal(
            &json!({"a": [1, 2.5]}),
            &json!({"a": [1.0, 2.5]})
        ));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
    }

    #[test]
    fn validation_reports_the_failing_definition() {
        let schema = json!({"$defs": {"Thing": {"type": "object", "required": ["name"]}}});
        assert!(validate(&schema, "Thing", &json!({"name": "x"})).is_ok());
        let err = validate(&schema, "Thing", &json!({}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("name"), "{err}");
        assert!(validate(&schema, "Other", &json!({})).is_err());
    }

    #[test]
    fn a_missing_directory_is_a_clear_failure() {
        let err = spec_check(Path::new("/nonexistent/spec"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn only_concrete_messages_need_samples() {
        assert!(is_message("CallToolRequest"));
        assert!(is_message("CallToolResultResponse"));
        assert!(!is_message("ClientRequest"));
        assert!(!is_message("JSONRPCResultResponse"));
        assert!(!is_message("Tool"));
    }
}
