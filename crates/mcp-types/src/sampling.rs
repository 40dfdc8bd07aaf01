//! Sampling: `sampling/createMessage`, sent by the server to have the client's LLM generate a
//! message.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::content::variant;
use crate::{JsonObject, Meta, Role, SamplingMessageContentBlock, Tool};

/// The content of a [`SamplingMessage`] or [`CreateMessageResult`]: one block, or an array of
/// blocks.
///
/// Up to 2025-06-18 it is always one block (text, image, and from 2025-03-26 audio). From
/// 2025-11-25 it may also be an array, and blocks may be `tool_use` / `tool_result`. Both forms
/// round-trip as they came.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SamplingContent {
    /// A single block (every revision).
    Single(SamplingMessageContentBlock),
    /// An array of blocks (2025-11-25 and later).
    Multiple(Vec<SamplingMessageContentBlock>),
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.is_array() {
            variant(v).map(SamplingContent::Multiple)
        } else {
            variant(v).map(SamplingContent::Single)
        }
    }
}

impl SamplingContent {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Single(SamplingMessageContentBlock::text(text))
    }

    /// The blocks, one or many.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b),
            SamplingContent::Multiple(bs) => bs,
        }
    }

    /// The text of the first text block, if any.
    pub fn first_text(&self) -> Option<&str> {
        self.blocks()
            .iter()
            .find_map(SamplingMessageContentBlock::as_text)
    }
}

impl<T: Into<SamplingMessageContentBlock>> From<T> for SamplingContent {
    fn from(block: T) -> Self {
        SamplingContent::Single(block.into())
    }
}

impl From<Vec<SamplingMessageContentBlock>> for SamplingContent {
    fn from(blocks: Vec<SamplingMessageContentBlock>) -> Self {
        SamplingContent::Multiple(blocks)
    }
}

/// A message given to or produced by the client's LLM (all revisions).
///
/// `_meta`: 2025-11-25 and later. See [`SamplingContent`] for how `content` differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Metadata attached to the message (2025-11-25 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SamplingMessage {
    /// A message from `role` holding `content`.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage {
            role,
            content: content.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::User, SamplingContent::text(text))
    }

    /// A text message from the assistant.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        SamplingMessage::new(Role::Assistant, SamplingContent::text(text))
    }
}

/// The server's preferences for which model the client picks (all revisions). Priorities run
/// from 0 to 1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names to consider, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A hint for model selection (all revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelHint {
    /// A full or partial model name, e.g. `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ModelHint {
    /// A hint naming `name`.
    pub fn new(name: impl Into<String>) -> Self {
        ModelHint {
            name: Some(name.into()),
            extra: JsonObject::new(),
        }
    }
}

/// Which MCP servers' context to add to the prompt (`includeContext`, all revisions).
///
/// `thisServer` and `allServers` are soft-deprecated from 2025-11-25.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum IncludeContext {
    /// No context (the default).
    None,
    /// Context from the requesting server.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}

/// How the model may use the offered tools (2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolChoice {
    /// The mode; absent means [`ToolChoiceMode::Auto`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ToolChoice {
    /// A tool choice with `mode`.
    pub fn new(mode: ToolChoiceMode) -> Self {
        ToolChoice {
            mode: Some(mode),
            extra: JsonObject::new(),
        }
    }
}

/// The `mode` of a [`ToolChoice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// Params of `sampling/createMessage` (all revisions; named from 2025-11-25).
///
/// `tools` and `toolChoice`: 2025-11-25 and later. `task`: 2025-11-25 only. `_meta`: up to
/// 2025-11-25 (on 2026-07-28 the request is embedded in an `InputRequiredResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Which model the server would like.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use, change or drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which servers' context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata passed through to the LLM provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use `tools` (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Asks for task-augmented execution (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::TaskMetadata>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateMessageRequestParams {
    /// Params sampling at most `max_tokens` tokens after `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequestParams {
            messages,
            max_tokens,
            ..Default::default()
        }
    }
}

/// The result of `sampling/createMessage` (all revisions).
///
/// See [`SamplingContent`] for how `content` differs. On 2026-07-28 this is an `InputResponse`
/// and has no `resultType`; the field is kept for symmetry with other results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who produced the message (normally the assistant).
    pub role: Role,
    /// The generated content.
    pub content: SamplingContent,
    /// The name of the model that produced it.
    pub model: String,
    /// Why sampling stopped: `"endTurn"`, `"stopSequence"`, `"maxTokens"`, `"toolUse"`
    /// (2025-11-25) or another string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Absent on every revision so far; kept in case a peer sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateMessageResult {
    /// An assistant message produced by `model`.
    pub fn new(model: impl Into<String>, content: impl Into<SamplingContent>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
            result_type: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `sampling/createMessage`: asks the client to sample its LLM.
///
/// Up to 2025-11-25 this is a JSON-RPC request from server to client; on 2026-07-28 it is sent
/// as an input request inside an `InputRequiredResult`.
#[derive(Debug)]
pub enum CreateMessage {}

impl crate::Request for CreateMessage {
    const METHOD: &'static str = "sampling/createMessage";
    type Params = CreateMessageRequestParams;
    type Result = CreateMessageResult;
}

/// A whole `sampling/createMessage` request, in either era's shape.
///
/// Up to 2025-11-25 it is a JSON-RPC request (`jsonrpc`, `id`, `method`, `params`). On
/// 2026-07-28 it is an entry of an `InputRequiredResult`'s `inputRequests` and has only `method`
/// and `params`. Both forms round-trip.
pub type CreateMessageRequest = crate::TypedInputRequest<CreateMessage>;

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
