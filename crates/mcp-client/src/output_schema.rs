//! Output-schema checks of tool results: a tool that declares an `outputSchema` must return
//! `structuredContent`, and with the `jsonschema` feature that content is validated against the
//! schema (validators compiled once per `tools/list`).

use std::collections::HashMap;
#[cfg(feature = "jsonschema")]
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

use mcp_types::{CallToolResult, Tool};
#[cfg(feature = "jsonschema")]
use serde_json::Value;

use crate::error::{Error, Result};

/// A tool's compiled output schema, or why it would not compile.
#[cfg(feature = "jsonschema")]
type Compiled = std::result::Result<Arc<jsonschema::Validator>, String>;
/// Without the `jsonschema` feature only the presence of `structuredContent` is checked.
#[cfg(not(feature = "jsonschema"))]
type Compiled = std::result::Result<(), String>;

#[cfg(feature = "jsonschema")]
fn compile(schema: &mcp_types::JsonObject) -> Compiled {
    jsonschema::validator_for(&Value::Object(schema.clone()))
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

#[cfg(not(feature = "jsonschema"))]
fn compile(_schema: &mcp_types::JsonObject) -> Compiled {
    Ok(())
}

/// The schema errors of `structured`, each with its JSON pointer.
#[cfg(feature = "jsonschema")]
fn validate(validator: &jsonschema::Validator, structured: &Value) -> Vec<String> {
    validator
        .iter_errors(structured)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{path}: {e}")
            }
        })
        .collect()
}

/// The output schemas of the tools seen in the last `tools/list`, compiled once per tool.
#[derive(Default)]
pub(crate) struct OutputSchemas {
    tools: Mutex<HashMap<String, Compiled>>,
}

impl OutputSchemas {
    /// Records a page of `tools/list`; the first page (no cursor) replaces what was known.
    pub(crate) fn update(&self, tools: &[Tool], first_page: bool) {
        let compiled: Vec<(String, Option<Compiled>)> = tools
            .iter()
            .map(|tool| (tool.name.clone(), tool.output_schema.as_ref().map(compile)))
            .collect();
        let mut map = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        if first_page {
            map.clear();
        }
        for (name, compiled) in compiled {
            match compiled {
                Some(c) => {
                    map.insert(name, c);
                }
                None => {
                    map.remove(&name);
                }
            }
        }
    }

    /// Checks a result of tool `name` against its output schema, if it declared one. Results
    /// with `isError: true` are not checked.
    pub(crate) fn check(&self, name: &str, result: &CallToolResult) -> Result<()> {
        if result.is_error() {
            return Ok(());
        }
        let compiled = {
            let map = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
            match map.get(name) {
                None => return Ok(()),
                Some(c) => c.clone(),
            }
        };
        let compiled = compiled.map_err(|message| Error::InvalidOutputSchema {
            tool: name.to_owned(),
            message,
        });
        #[cfg(feature = "jsonschema")]
        let validator = compiled?;
        #[cfg(not(feature = "jsonschema"))]
        compiled?;
        #[cfg_attr(not(feature = "jsonschema"), allow(unused_variables))]
        let Some(structured) = &result.structured_content else {
            return Err(Error::OutputSchemaMismatch {
                tool: name.to_owned(),
                errors: vec![
                    "the tool declares an output schema but returned no structuredContent"
                        .to_owned(),
                ],
            });
        };
        #[cfg(feature = "jsonschema")]
        {
            let errors = validate(&validator, structured);
            if !errors.is_empty() {
                return Err(Error::OutputSchemaMismatch {
                    tool: name.to_owned(),
                    errors,
                });
            }
        }
        Ok(())
    }
}
