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

/// The JSON Schema of `T` as a JSON object (JSON Schema 2020-12, schemars' defaults), without
/// the `format` values schemars gives Rust's numeric types (see [`drop_numeric_format`]).
#[cfg(feature = "schemars")]
pub(crate) fn schema_object<T: schemars::JsonSchema>() -> JsonObject {
    // schemars' own transform mechanism rather than a walk of the finished JSON: a transform
    // on the generator's settings runs once over the root schema after its `$defs` are
    // attached, and `RecursiveTransform` takes it into every subschema schemars knows of
    // (`properties`, `items`, `prefixItems`, `additionalProperties`, `anyOf`/`oneOf`/`allOf`,
    // `$defs`, ...), which is everywhere schemars itself writes one.
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with_transform(schemars::transform::RecursiveTransform(drop_numeric_format))
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

/// The `format` values schemars writes for Rust's integer and float types (`u8` is
/// `"uint8"`, `usize` `"uint"`, `f64` `"double"`, ...). None is a JSON Schema 2020-12 format,
/// so validators that check formats (ajv, as in the MCP Inspector and the TypeScript SDK)
/// warn about each or refuse the schema; the range they stand for is already in `minimum`
/// and `maximum`, which stay.
#[cfg(feature = "schemars")]
const NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// Removes one schema's `format` if it is one of [`NUMERIC_FORMATS`] on a number or integer
/// schema (`type` naming `integer` or `number`, alone or with `null` as for an `Option`).
/// A format set by hand on a string (`date-time`, `uri`, even a custom one) is kept.
#[cfg(feature = "schemars")]
fn drop_numeric_format(schema: &mut schemars::Schema) {
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    let is_numeric = match schema.get("type") {
        Some(Value::Array(types)) => types.iter().any(numeric),
        Some(t) => numeric(t),
        None => false,
    };
    let schemars_format = schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| NUMERIC_FORMATS.contains(&f));
    if is_numeric && schemars_format {
        schema.remove("format");
    }
}

#[cfg(all(test, feature = "schemars"))]
mod tests;
