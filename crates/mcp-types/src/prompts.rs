//! Prompts: `prompts/list`, `prompts/get` and `notifications/prompts/list_changed`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ContentBlock, Cursor, JsonObject, Meta, PaginatedRequestParams, Role};

use crate::extra_fields::deserialize_with_extra;

/// A prompt template the server offers (all revisions).
///
/// `title` and `_meta`: 2025-06-18 and later. `icons`: 2025-11-25 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// The programmatic name of the prompt.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the prompt takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons for the prompt (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<crate::Icon>>,
    /// Metadata attached to the prompt (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Prompt {
    /// A prompt called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            ..Default::default()
        }
    }
}

/// An argument a prompt takes (all revisions; `title`: 2025-06-18 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    /// The programmatic name of the argument.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PromptArgument {
    /// An argument called `name`, required or not.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            required: Some(required),
            ..Default::default()
        }
    }
}

/// One message of a prompt (all revisions).
///
/// The content is text, image or embedded resource on 2024-11-05; audio is 2025-03-26 and later,
/// resource links 2025-06-18 and later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PromptMessage {
    /// A message from `role` holding `content`.
    pub fn new(role: Role, content: impl Into<ContentBlock>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
            extra: JsonObject::new(),
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::User, ContentBlock::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        PromptMessage::new(Role::Assistant, ContentBlock::text(text))
    }
}

/// The result of `prompts/list` (all revisions).
///
/// `resultType`, `ttlMs` and `cacheScope`: 2026-07-28 (where it is a `CacheableResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// The prompts on this page.
    pub prompts: Vec<Prompt>,
    /// Present when there are more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the client may cache this result, in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<crate::CacheScope>,
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

/// Params of `prompts/get` (all revisions; named from 2025-11-25).
///
/// 2026-07-28 requires `_meta` and adds `inputResponses` and `requestState` (for retrying after
/// an `InputRequiredResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptRequestParams {
    /// The name of the prompt.
    pub name: String,
    /// The argument values, all strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// The client's answers to the input requests of an `InputRequiredResult`, keyed like its
    /// `inputRequests` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<crate::InputResponses>,
    /// The opaque `requestState` of an `InputRequiredResult`, echoed back (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

from_required_string!(
    GetPromptRequestParams,
    "The params getting the prompt of that name without arguments."
);

// Read without `#[serde(flatten)]`: this is on every `prompts/get`'s path (see `extra_fields`).
deserialize_with_extra!(GetPromptRequestParams, "prompts/get params",
    required { name: String = "name" }
    optional {
        arguments: Option<BTreeMap<String, String>> = "arguments",
        input_responses: Option<crate::InputResponses> = "inputResponses",
        request_state: Option<String> = "requestState",
        meta: Option<Meta> = "_meta",
    }
);

impl GetPromptRequestParams {
    /// Params getting prompt `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptRequestParams {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Params getting prompt `name` with `arguments` (their values are strings on the wire).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    ///
    /// use mcp_types::GetPromptRequestParams;
    ///
    /// let arguments = BTreeMap::from([("language".to_owned(), "rust".to_owned())]);
    /// let params = GetPromptRequestParams::with_arguments("code_review", arguments);
    /// assert_eq!(
    ///     serde_json::to_string(&params).unwrap(),
    ///     r#"{"name":"code_review","arguments":{"language":"rust"}}"#
    /// );
    /// ```
    pub fn with_arguments(name: impl Into<String>, arguments: BTreeMap<String, String>) -> Self {
        GetPromptRequestParams {
            name: name.into(),
            arguments: Some(arguments),
            ..Default::default()
        }
    }
}

/// The result of `prompts/get` (all revisions; `resultType`: 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The prompt's messages.
    pub messages: Vec<PromptMessage>,
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

impl GetPromptResult {
    /// A result holding `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            messages,
            ..Default::default()
        }
    }
}

/// `prompts/list`: lists the server's prompts, a page at a time.
#[derive(Debug)]
pub enum ListPrompts {}

impl crate::Request for ListPrompts {
    const METHOD: &'static str = "prompts/list";
    type Params = PaginatedRequestParams;
    type Result = ListPromptsResult;
}

/// `prompts/get`: fills in a prompt with arguments.
#[derive(Debug)]
pub enum GetPrompt {}

impl crate::Request for GetPrompt {
    const METHOD: &'static str = "prompts/get";
    type Params = GetPromptRequestParams;
    type Result = GetPromptResult;
}

/// `notifications/prompts/list_changed`: the server's prompt list changed.
#[derive(Debug)]
pub enum PromptListChanged {}

impl crate::Notification for PromptListChanged {
    const METHOD: &'static str = "notifications/prompts/list_changed";
    type Params = crate::EmptyParams;
}

/// A whole `prompts/list` request.
pub type ListPromptsRequest = crate::TypedRequest<ListPrompts>;
/// A whole `prompts/get` request.
pub type GetPromptRequest = crate::TypedRequest<GetPrompt>;
/// A whole response to `prompts/list`.
pub type ListPromptsResultResponse = crate::JsonRpcResultResponse<ListPromptsResult>;
/// A whole response to `prompts/get`.
///
/// On 2026-07-28 the result may instead be an `InputRequiredResult`, which this type does not
/// hold; decode the result generically when that can happen.
pub type GetPromptResultResponse = crate::JsonRpcResultResponse<GetPromptResult>;
/// A whole `notifications/prompts/list_changed` notification.
pub type PromptListChangedNotification = crate::TypedNotification<PromptListChanged>;

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
