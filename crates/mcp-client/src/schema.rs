//! Output-schema checks of tool results, and the `default`s of elicitation forms.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_types::{
    CallToolResult, ElicitRequestedSchema, ElicitValue, EnumSchema, MultiSelectEnumSchema,
    PrimitiveSchemaDefinition, SingleSelectEnumSchema, Tool,
};
use serde_json::Value;

use crate::error::{Error, Result};

/// A tool's compiled output schema, or why it would not compile.
type Compiled = std::result::Result<Arc<jsonschema::Validator>, String>;

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
            .map(|tool| {
                let compiled = tool.output_schema.as_ref().map(|schema| {
                    jsonschema::validator_for(&Value::Object(schema.clone()))
                        .map(Arc::new)
                        .map_err(|e| e.to_string())
                });
                (tool.name.clone(), compiled)
            })
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
        let validator = compiled.map_err(|message| Error::InvalidOutputSchema {
            tool: name.to_owned(),
            message,
        })?;
        let Some(structured) = &result.structured_content else {
            return Err(Error::OutputSchemaMismatch {
                tool: name.to_owned(),
                errors: vec![
                    "the tool declares an output schema but returned no structuredContent"
                        .to_owned(),
                ],
            });
        };
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::OutputSchemaMismatch {
                tool: name.to_owned(),
                errors,
            })
        }
    }
}

/// Fills the fields of `content` that the user left out with the `default`s of `schema`.
pub(crate) fn apply_defaults(
    schema: &ElicitRequestedSchema,
    content: &mut BTreeMap<String, ElicitValue>,
) {
    for (name, field) in &schema.properties {
        if content.contains_key(name) {
            continue;
        }
        if let Some(value) = default_of(field) {
            content.insert(name.clone(), value);
        }
    }
}

fn default_of(field: &PrimitiveSchemaDefinition) -> Option<ElicitValue> {
    match field {
        PrimitiveSchemaDefinition::String(s) => s.default.clone().map(ElicitValue::String),
        PrimitiveSchemaDefinition::Number(n) => {
            let d = n.default?;
            // Keep integers integral on the wire.
            let number = if d.fract() == 0.0 && d.abs() < 9.0e15 {
                #[allow(clippy::cast_possible_truncation)]
                serde_json::Number::from(d as i64)
            } else {
                serde_json::Number::from_f64(d)?
            };
            Some(ElicitValue::Number(number))
        }
        PrimitiveSchemaDefinition::Boolean(b) => b.default.map(ElicitValue::Boolean),
        PrimitiveSchemaDefinition::Enum(e) => match e {
            EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled(s)) => {
                s.default.clone().map(ElicitValue::String)
            }
            EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled(s)) => {
                s.default.clone().map(ElicitValue::String)
            }
            EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled(s)) => {
                s.default.clone().map(ElicitValue::StringArray)
            }
            EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled(s)) => {
                s.default.clone().map(ElicitValue::StringArray)
            }
            EnumSchema::LegacyTitled(s) => s.default.clone().map(ElicitValue::String),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fill_only_missing_fields() {
        let schema: ElicitRequestedSchema = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "anon"},
                "age": {"type": "integer", "default": 30},
                "ratio": {"type": "number", "default": 0.5},
                "ok": {"type": "boolean", "default": true},
                "color": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                         "default": ["a"]},
                "none": {"type": "string"}
            }
        }))
        .unwrap();
        let mut content = BTreeMap::from([("name".to_owned(), ElicitValue::from("bob"))]);
        apply_defaults(&schema, &mut content);
        assert_eq!(
            serde_json::to_value(&content).unwrap(),
            serde_json::json!({"name": "bob", "age": 30, "ratio": 0.5, "ok": true,
                               "color": "blue", "tags": ["a"]})
        );
    }
}
