//! Elicitation (2025-06-18 and later): the server asks the user, through the client, for
//! structured input (form mode) or to visit a URL (URL mode, 2025-11-25 and later).
//!
//! Form mode sends a restricted JSON Schema, [`ElicitRequestedSchema`], whose properties are
//! [`PrimitiveSchemaDefinition`](crate::PrimitiveSchemaDefinition)s: strings, numbers,
//! booleans and enums (in `elicitation_schema.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::elicitation_schema::{ElicitRequestedSchema, from_value};
use crate::{JsonObject, Meta, Notification, Request, ResultType, TaskMetadata, TypedNotification};

/// Marker for `elicitation/create` (server to client; 2025-06-18 and later). In 2026-07-28 it is
/// sent as an [`crate::InputRequest`] inside an [`crate::InputRequiredResult`].
#[derive(Debug)]
pub enum Elicit {}

impl Request for Elicit {
    const METHOD: &'static str = "elicitation/create";
    type Params = ElicitRequestParams;
    type Result = ElicitResult;
}

/// Marker for `notifications/elicitation/complete` (server to client; 2025-11-25 only): a
/// URL-mode elicitation finished.
#[derive(Debug)]
pub enum ElicitationComplete {}

impl Notification for ElicitationComplete {
    const METHOD: &'static str = "notifications/elicitation/complete";
    type Params = ElicitationCompleteNotificationParams;
}

/// A whole `elicitation/create` request: a JSON-RPC request up to 2025-11-25, a bare
/// `{method, params}` input request on 2026-07-28.
pub type ElicitRequest = crate::TypedInputRequest<Elicit>;

/// A whole `notifications/elicitation/complete` notification (2025-11-25 only).
pub type ElicitationCompleteNotification = TypedNotification<ElicitationComplete>;

/// The params of `elicitation/create`: form mode or URL mode, told apart by `mode`.
///
/// A missing `mode` means form mode (2025-06-18 has no `mode`; later revisions make it optional
/// for forms). URL mode exists from 2025-11-25.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Ask for structured input with a form.
    Form(ElicitRequestFormParams),
    /// Send the user to a URL.
    Url(ElicitRequestURLParams),
}

impl ElicitRequestParams {
    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(p) => &p.message,
            ElicitRequestParams::Url(p) => &p.message,
        }
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(p)
    }
}

impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(p: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(p)
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(p) => p.serialize(s),
            ElicitRequestParams::Url(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.get("mode").and_then(Value::as_str) {
            Some("url") => from_value(v).map(ElicitRequestParams::Url),
            _ => from_value(v).map(ElicitRequestParams::Form),
        }
    }
}

/// The literal `"form"` of [`ElicitRequestFormParams::mode`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitFormMode {
    /// `"form"`.
    #[default]
    Form,
}

/// The literal `"url"` of [`ElicitRequestURLParams::mode`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitUrlMode {
    /// `"url"`.
    #[default]
    Url,
}

/// Form-mode elicitation params (2025-06-18 and later; named in the schema from 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// `"form"`, or absent (2025-06-18 has no `mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitFormMode>,
    /// What is being asked for.
    pub message: String,
    /// The shape of the answer.
    pub requested_schema: ElicitRequestedSchema,
    /// Asks for task-augmented execution (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (absent from the 2026-07-28 schema, where this is an input request).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitRequestFormParams {
    /// Form-mode params with `mode: "form"`.
    pub fn new(message: impl Into<String>, requested_schema: ElicitRequestedSchema) -> Self {
        ElicitRequestFormParams {
            mode: Some(ElicitFormMode::Form),
            message: message.into(),
            requested_schema,
            ..Default::default()
        }
    }
}

/// URL-mode elicitation params (2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: ElicitUrlMode,
    /// Why the user should visit the URL.
    pub message: String,
    /// The URL to visit.
    pub url: String,
    /// The server's id for this elicitation (required on 2025-11-25, where it pairs with
    /// `notifications/elicitation/complete`; absent on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Asks for task-augmented execution (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (2025-11-25).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitRequestURLParams {
    /// URL-mode params.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequestURLParams {
            message: message.into(),
            url: url.into(),
            ..Default::default()
        }
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form or confirmed the action.
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// One submitted form value: a string, number, boolean, or (multi-select, 2025-11-25 and later)
/// a list of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A boolean.
    Boolean(bool),
    /// A number, kept exactly as sent.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// The chosen values of a multi-select enum.
    StringArray(Vec<String>),
}

impl From<bool> for ElicitValue {
    fn from(b: bool) -> Self {
        ElicitValue::Boolean(b)
    }
}

impl From<i64> for ElicitValue {
    fn from(n: i64) -> Self {
        ElicitValue::Number(n.into())
    }
}

impl From<String> for ElicitValue {
    fn from(s: String) -> Self {
        ElicitValue::String(s)
    }
}

impl From<&str> for ElicitValue {
    fn from(s: &str) -> Self {
        ElicitValue::String(s.to_owned())
    }
}

impl From<Vec<String>> for ElicitValue {
    fn from(v: Vec<String>) -> Self {
        ElicitValue::StringArray(v)
    }
}

/// The client's answer to `elicitation/create` (2025-06-18 and later).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values, only for `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// `resultType` (not sent by any revision so far for this result; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result (up to 2025-11-25).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitResult {
    fn with_action(action: ElicitAction) -> Self {
        ElicitResult {
            action,
            content: None,
            result_type: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// The user accepted; `content` holds the form values (`None` for URL mode).
    pub fn accept(content: Option<BTreeMap<String, ElicitValue>>) -> Self {
        ElicitResult {
            content,
            ..ElicitResult::with_action(ElicitAction::Accept)
        }
    }

    /// The user declined.
    pub fn decline() -> Self {
        ElicitResult::with_action(ElicitAction::Decline)
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        ElicitResult::with_action(ElicitAction::Cancel)
    }
}

/// The params of `notifications/elicitation/complete` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the URL-mode elicitation that finished.
    pub elicitation_id: String,
    /// Metadata attached to the notification.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
