//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::content::{extra_with_tag, type_of, variant};
use crate::{JsonObject, Meta};

fn prompt_ref_tag<'de, D: Deserializer<'de>>(d: D) -> Result<JsonObject, D::Error> {
    extra_with_tag(d, "ref/prompt")
}

fn resource_ref_tag<'de, D: Deserializer<'de>>(d: D) -> Result<JsonObject, D::Error> {
    extra_with_tag(d, "ref/resource")
}

/// Names a prompt to complete an argument of (`"type": "ref/prompt"`, all revisions).
///
/// `title`: 2025-06-18 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "ref/prompt", rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptReference {
    /// The name of the prompt.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "prompt_ref_tag")]
    pub extra: JsonObject,
}

impl PromptReference {
    /// A reference to prompt `name`.
    pub fn new(name: impl Into<String>) -> Self {
        PromptReference {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// Names a resource template to complete a variable of (`"type": "ref/resource"`).
///
/// Called `ResourceReference` up to 2025-03-26 (same shape); `uri` is the URI template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "ref/resource", rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateReference {
    /// The URI template.
    pub uri: String,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "resource_ref_tag")]
    pub extra: JsonObject,
}

impl ResourceTemplateReference {
    /// A reference to the template `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceTemplateReference {
            uri: uri.into(),
            extra: JsonObject::new(),
        }
    }
}

/// The 2024-11-05 and 2025-03-26 name of [`ResourceTemplateReference`].
pub type ResourceReference = ResourceTemplateReference;

/// What is being completed: the `ref` of [`CompleteRequestParams`], told apart by `"type"`
/// (all revisions; the schema leaves this union unnamed).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum CompletionReference {
    /// `"ref/prompt"`.
    Prompt(PromptReference),
    /// `"ref/resource"`.
    ResourceTemplate(ResourceTemplateReference),
}

impl<'de> Deserialize<'de> for CompletionReference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match type_of(&v).as_deref() {
            Some("ref/prompt") => variant(v).map(CompletionReference::Prompt),
            Some("ref/resource") => variant(v).map(CompletionReference::ResourceTemplate),
            Some(other) => Err(D::Error::custom(format_args!(
                "unknown reference type {other:?}"
            ))),
            None => Err(D::Error::missing_field("type")),
        }
    }
}

impl From<PromptReference> for CompletionReference {
    fn from(r: PromptReference) -> Self {
        CompletionReference::Prompt(r)
    }
}

impl From<ResourceTemplateReference> for CompletionReference {
    fn from(r: ResourceTemplateReference) -> Self {
        CompletionReference::ResourceTemplate(r)
    }
}

/// The argument being completed: the `argument` of [`CompleteRequestParams`] (all revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionArgument {
    /// The name of the argument.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Extra input for a completion: the `context` of [`CompleteRequestParams`] (2025-06-18 and
/// later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionContext {
    /// Arguments already resolved, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `completion/complete` (all revisions; named from 2025-11-25).
///
/// `context`: 2025-06-18 and later. On 2026-07-28 `_meta` is required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// The prompt or resource template whose argument is completed (`ref` on the wire).
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Arguments already resolved (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompleteRequestParams {
    /// Params completing argument `name`, typed so far as `value`, of `reference`.
    pub fn new(
        reference: impl Into<CompletionReference>,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteRequestParams {
            reference: reference.into(),
            argument: CompletionArgument {
                name: name.into(),
                value: value.into(),
                extra: JsonObject::new(),
            },
            context: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The completion values: the `completion` of [`CompleteResult`] (all revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// The suggestions, at most 100.
    pub values: Vec<String>,
    /// How many suggestions exist in total, which may exceed `values.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more suggestions exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of `completion/complete` (all revisions; `resultType`: 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// `"complete"` on 2026-07-28; absent on earlier revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Completion {
    /// Suggests `values`, with no `total` and no `hasMore`.
    pub fn new(values: Vec<String>) -> Self {
        Completion {
            values,
            ..Default::default()
        }
    }
}

impl CompleteResult {
    /// A result suggesting `values` and nothing more.
    pub fn new(values: Vec<String>) -> Self {
        CompleteResult {
            completion: Completion::new(values),
            ..Default::default()
        }
    }
}

/// `completion/complete`: asks the server to suggest values for an argument.
#[derive(Debug)]
pub enum Complete {}

impl crate::Request for Complete {
    const METHOD: &'static str = "completion/complete";
    type Params = CompleteRequestParams;
    type Result = CompleteResult;
}

/// A whole `completion/complete` request.
pub type CompleteRequest = crate::TypedRequest<Complete>;
/// A whole response to `completion/complete`.
pub type CompleteResultResponse = crate::JsonRpcResultResponse<CompleteResult>;

#[cfg(test)]
#[path = "completion_tests.rs"]
mod tests;
