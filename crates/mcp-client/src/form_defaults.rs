//! The `default`s of elicitation forms, filled in for fields the user left out when the
//! client declared `applyDefaults`.

use std::collections::BTreeMap;

use mcp_types::{
    ElicitRequestedSchema, ElicitValue, EnumSchema, MultiSelectEnumSchema,
    PrimitiveSchemaDefinition, SingleSelectEnumSchema,
};

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
            // A kind of enum this crate does not know: no default to apply.
            _ => None,
        },
        _ => None,
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
