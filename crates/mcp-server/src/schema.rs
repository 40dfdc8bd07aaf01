//! Tool schemas: the JSON Schema of a Rust type, and the argument check of a raw tool's
//! schema.

use std::fmt;

use mcp_types::JsonObject;
use serde_json::Value;

use crate::error::{Error, Result};

pub(crate) fn invalid_arguments(tool: &str, e: impl fmt::Display) -> Error {
    Error::invalid_params(format!("Invalid arguments for tool {tool}: {e}"))
}

/// Checks a raw tool's arguments against its schema.
pub(crate) type Validate = Box<dyn Fn(&JsonObject) -> Result<()> + Send + Sync>;

/// The argument check of a raw tool: the compiled schema.
#[cfg(feature = "jsonschema")]
pub(crate) fn raw_validator(tool: &str, schema: &Value) -> Result<Validate> {
    let validator = jsonschema::validator_for(schema).map_err(|e| Error::InvalidSchema {
        tool: tool.to_owned(),
        message: e.to_string(),
    })?;
    let tool = tool.to_owned();
    Ok(Box::new(move |args: &JsonObject| {
        // The validator takes a `Value`; the arguments are an object inside one.
        let args = Value::Object(args.clone());
        let errors: Vec<String> = validator
            .iter_errors(&args)
            .map(|e| e.to_string())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(invalid_arguments(&tool, errors.join("; ")))
        }
    }))
}

/// Without the `jsonschema` feature, raw tools check nothing beyond the arguments being an
/// object.
#[cfg(not(feature = "jsonschema"))]
pub(crate) fn raw_validator(_tool: &str, _schema: &Value) -> Result<Validate> {
    Ok(Box::new(|_| Ok(())))
}

/// The JSON Schema of `T` as a JSON object (JSON Schema 2020-12, schemars' defaults).
#[cfg(feature = "schemars")]
pub(crate) fn schema_object<T: schemars::JsonSchema>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(o) => o,
        other => {
            // `true`/`false` schemas: accept anything or nothing.
            let mut o = JsonObject::new();
            if other == Value::Bool(false) {
                o.insert("not".to_owned(), Value::Object(JsonObject::new()));
            }
            o
        }
    }
}
