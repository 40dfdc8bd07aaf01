//! The restricted JSON Schema of a form elicitation: [`ElicitRequestedSchema`] and its
//! [`PrimitiveSchemaDefinition`]s (strings, numbers, booleans, single- and multi-select
//! enums, titled or not, and the legacy `enumNames` form).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::JsonObject;

/// Decodes a value already classified by its discriminating fields.
pub(crate) fn from_value<T: DeserializeOwned, E: serde::de::Error>(v: Value) -> Result<T, E> {
    serde_json::from_value(v).map_err(E::custom)
}

/// The literal `"object"`: the `type` of an [`ElicitRequestedSchema`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaObjectType {
    /// `"object"`.
    #[default]
    Object,
}

/// The literal `"string"` of string and single-select enum schemas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaStringType {
    /// `"string"`.
    #[default]
    String,
}

/// The literal `"boolean"` of [`BooleanSchema`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaBooleanType {
    /// `"boolean"`.
    #[default]
    Boolean,
}

/// The literal `"array"` of multi-select enum schemas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaArrayType {
    /// `"array"`.
    #[default]
    Array,
}

/// The `type` of a [`NumberSchema`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberSchemaType {
    /// `"number"`: any number.
    #[default]
    Number,
    /// `"integer"`: whole numbers only.
    Integer,
}

/// The `requestedSchema` of a form-mode elicitation: a flat object schema (no nesting).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitRequestedSchema {
    /// `$schema`, the JSON Schema dialect (2025-11-25 and later).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    pub r#type: SchemaObjectType,
    /// The fields of the form, by name. Kept sorted by name: JSON objects are unordered.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// The names of the fields the user must fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One field of an [`ElicitRequestedSchema`] (2025-06-18 and later).
///
/// Decoding looks at `type` and at the enum keywords: `"string"` with `oneOf` is a titled
/// single-select enum, with `enum` and `enumNames` a legacy titled enum, with `enum` alone an
/// untitled single-select enum, otherwise a plain string; `"array"` is a multi-select enum
/// (titled if `items.anyOf`); `"number"`/`"integer"` and `"boolean"` are what they say.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// A string field.
    String(StringSchema),
    /// A number or integer field.
    Number(NumberSchema),
    /// A boolean field.
    Boolean(BooleanSchema),
    /// A choice among fixed values.
    Enum(EnumSchema),
}

/// The kinds of [`PrimitiveSchemaDefinition`], found from the JSON.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    String,
    Number,
    Boolean,
    UntitledSingle,
    TitledSingle,
    UntitledMulti,
    TitledMulti,
    Legacy,
}

fn kind<E: serde::de::Error>(v: &Value) -> Result<Kind, E> {
    let Some(obj) = v.as_object() else {
        return Err(E::custom("a schema definition must be an object"));
    };
    Ok(match obj.get("type").and_then(Value::as_str) {
        Some("string") if obj.contains_key("oneOf") => Kind::TitledSingle,
        Some("string") if obj.contains_key("enum") && obj.contains_key("enumNames") => Kind::Legacy,
        Some("string") if obj.contains_key("enum") => Kind::UntitledSingle,
        Some("string") => Kind::String,
        Some("number" | "integer") => Kind::Number,
        Some("boolean") => Kind::Boolean,
        Some("array") if v.pointer("/items/anyOf").is_some() => Kind::TitledMulti,
        Some("array") => Kind::UntitledMulti,
        Some(other) => return Err(E::custom(format_args!("unsupported schema type {other:?}"))),
        None => return Err(E::custom("schema definition without a string `type`")),
    })
}

fn single<E: serde::de::Error>(k: Kind, v: Value) -> Result<SingleSelectEnumSchema, E> {
    match k {
        Kind::TitledSingle => from_value(v).map(SingleSelectEnumSchema::Titled),
        Kind::UntitledSingle => from_value(v).map(SingleSelectEnumSchema::Untitled),
        _ => Err(E::custom(
            "expected a single-select enum schema (`type: string` with `enum` or `oneOf`)",
        )),
    }
}

fn multi<E: serde::de::Error>(k: Kind, v: Value) -> Result<MultiSelectEnumSchema, E> {
    match k {
        Kind::TitledMulti => from_value(v).map(MultiSelectEnumSchema::Titled),
        Kind::UntitledMulti => from_value(v).map(MultiSelectEnumSchema::Untitled),
        _ => Err(E::custom(
            "expected a multi-select enum schema (`type: array`)",
        )),
    }
}

fn enum_schema<E: serde::de::Error>(k: Kind, v: Value) -> Result<EnumSchema, E> {
    match k {
        Kind::TitledSingle | Kind::UntitledSingle => single(k, v).map(EnumSchema::SingleSelect),
        Kind::TitledMulti | Kind::UntitledMulti => multi(k, v).map(EnumSchema::MultiSelect),
        Kind::Legacy => from_value(v).map(EnumSchema::LegacyTitled),
        _ => Err(E::custom(
            "expected an enum schema (`enum`, `oneOf` or `type: array`)",
        )),
    }
}

impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PrimitiveSchemaDefinition::String(x) => x.serialize(s),
            PrimitiveSchemaDefinition::Number(x) => x.serialize(s),
            PrimitiveSchemaDefinition::Boolean(x) => x.serialize(s),
            PrimitiveSchemaDefinition::Enum(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match kind(&v)? {
            Kind::String => from_value(v).map(PrimitiveSchemaDefinition::String),
            Kind::Number => from_value(v).map(PrimitiveSchemaDefinition::Number),
            Kind::Boolean => from_value(v).map(PrimitiveSchemaDefinition::Boolean),
            k => enum_schema(k, v).map(PrimitiveSchemaDefinition::Enum),
        }
    }
}

impl From<StringSchema> for PrimitiveSchemaDefinition {
    fn from(s: StringSchema) -> Self {
        PrimitiveSchemaDefinition::String(s)
    }
}

impl From<NumberSchema> for PrimitiveSchemaDefinition {
    fn from(s: NumberSchema) -> Self {
        PrimitiveSchemaDefinition::Number(s)
    }
}

impl From<BooleanSchema> for PrimitiveSchemaDefinition {
    fn from(s: BooleanSchema) -> Self {
        PrimitiveSchemaDefinition::Boolean(s)
    }
}

impl From<EnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: EnumSchema) -> Self {
        PrimitiveSchemaDefinition::Enum(s)
    }
}

/// The `format` of a [`StringSchema`]. Formats this crate does not know are kept in
/// [`StringFormat::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StringFormat {
    /// `"email"`.
    Email,
    /// `"uri"`.
    Uri,
    /// `"date"`.
    Date,
    /// `"date-time"`.
    DateTime,
    /// Any other format, kept verbatim.
    #[serde(untagged)]
    Other(String),
}

/// A string field (2025-06-18 and later; `default` from 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// Always `"string"`.
    pub r#type: SchemaStringType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// The maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A format the value must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// The initial value (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A number field (2025-06-18 and later; `default` from 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    pub r#type: NumberSchemaType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The smallest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// The largest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// The initial value (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A boolean field (2025-06-18 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    pub r#type: SchemaBooleanType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The initial value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A choice among fixed values (2025-06-18 and later).
///
/// 2025-06-18 has a single `EnumSchema` shape (`enum` with optional `enumNames`), which decodes
/// as [`SingleSelectEnumSchema::Untitled`] without `enumNames` and as
/// [`EnumSchema::LegacyTitled`] with them. 2025-11-25 adds titled and multi-select forms.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EnumSchema {
    /// Choose one value.
    SingleSelect(SingleSelectEnumSchema),
    /// Choose several values (2025-11-25 and later).
    MultiSelect(MultiSelectEnumSchema),
    /// Choose one value, with display names in `enumNames` (deprecated from 2025-11-25).
    LegacyTitled(LegacyTitledEnumSchema),
}

impl Serialize for EnumSchema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EnumSchema::SingleSelect(x) => x.serialize(s),
            EnumSchema::MultiSelect(x) => x.serialize(s),
            EnumSchema::LegacyTitled(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for EnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        enum_schema(kind(&v)?, v)
    }
}

/// A single-select enum (2025-11-25 and later).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SingleSelectEnumSchema {
    /// Values without display names (`enum`).
    Untitled(UntitledSingleSelectEnumSchema),
    /// Values with display names (`oneOf` of `const`/`title`).
    Titled(TitledSingleSelectEnumSchema),
}

impl Serialize for SingleSelectEnumSchema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SingleSelectEnumSchema::Untitled(x) => x.serialize(s),
            SingleSelectEnumSchema::Titled(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SingleSelectEnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        single(kind(&v)?, v)
    }
}

/// A multi-select enum (2025-11-25 and later).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MultiSelectEnumSchema {
    /// Values without display names (`items.enum`).
    Untitled(UntitledMultiSelectEnumSchema),
    /// Values with display names (`items.anyOf` of `const`/`title`).
    Titled(TitledMultiSelectEnumSchema),
}

impl Serialize for MultiSelectEnumSchema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MultiSelectEnumSchema::Untitled(x) => x.serialize(s),
            MultiSelectEnumSchema::Titled(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for MultiSelectEnumSchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        multi(kind(&v)?, v)
    }
}

/// One titled choice: a value and its display name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TitledEnumOption {
    /// The value (`const`).
    pub r#const: String,
    /// The display name.
    pub title: String,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TitledEnumOption {
    /// A choice with value `value` shown as `title`.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        TitledEnumOption {
            r#const: value.into(),
            title: title.into(),
            extra: JsonObject::new(),
        }
    }
}

/// Single-select enum without display names (2025-11-25 and later; the 2025-06-18
/// `EnumSchema` without `enumNames` has the same shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    pub r#type: SchemaStringType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// The initial value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Single-select enum with display names (2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    pub r#type: SchemaStringType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values with their display names.
    pub one_of: Vec<TitledEnumOption>,
    /// The initial value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    pub r#type: SchemaStringType,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The allowed values with their display names.
    pub any_of: Vec<TitledEnumOption>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Multi-select enum without display names (2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    pub r#type: SchemaArrayType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest values the user must pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most values the user may pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// The initially selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Multi-select enum with display names (2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    pub r#type: SchemaArrayType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest values the user must pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most values the user may pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: TitledEnumItems,
    /// The initially selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Single-select enum with display names in `enumNames`: the 2025-06-18 `EnumSchema` form,
/// deprecated from 2025-11-25 (non-standard JSON Schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    pub r#type: SchemaStringType,
    /// A label for the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A longer explanation of the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// Display names, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// The initial value (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}
