//! Tools: `tools/list`, `tools/call` and `notifications/tools/list_changed`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ContentBlock, Cursor, JsonObject, Meta};

use crate::extra_fields::deserialize_with_extra;

/// A tool the client can call.
///
/// `annotations`: 2025-03-26 and later. `title`, `outputSchema` and `_meta`: 2025-06-18 and later.
/// `icons`: 2025-11-25 and later. `execution`: 2025-11-25 only.
///
/// `inputSchema` and `outputSchema` are JSON Schema objects kept verbatim (`$schema`, `$defs`,
/// composition keywords, `additionalProperties`, ...). 2026-07-28 defaults them to JSON Schema
/// 2020-12 and lets `outputSchema` have any root type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The programmatic name of the tool.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the tool's arguments (`"type": "object"` at the root).
    pub input_schema: JsonObject,
    /// The JSON Schema of the tool's `structuredContent` (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Hints about the tool's behavior (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons for the tool (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<crate::Icon>>,
    /// Metadata attached to the tool (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Tool {
    /// A tool called `name` whose arguments follow `input_schema`.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool {
            name: name.into(),
            input_schema,
            ..Default::default()
        }
    }

    /// The schema `{"type": "object"}`, for a tool that takes no arguments.
    pub fn empty_input_schema() -> JsonObject {
        let mut schema = JsonObject::new();
        schema.insert("type".to_owned(), Value::String("object".to_owned()));
        schema
    }
}

/// Hints about a tool's behavior (2025-03-26 and later). Clients must not trust them from
/// untrusted servers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable name for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default `true`; meaningless when read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ToolAnnotations {
    /// Sets `readOnlyHint`: the tool does not change its environment.
    pub fn with_read_only_hint(mut self, read_only: bool) -> Self {
        self.read_only_hint = Some(read_only);
        self
    }

    /// Sets `destructiveHint`: an update may destroy something (meaningful when not read-only).
    pub fn with_destructive_hint(mut self, destructive: bool) -> Self {
        self.destructive_hint = Some(destructive);
        self
    }

    /// Sets `idempotentHint`: calling again with the same arguments has no further effect.
    pub fn with_idempotent_hint(mut self, idempotent: bool) -> Self {
        self.idempotent_hint = Some(idempotent);
        self
    }

    /// Sets `openWorldHint`: the tool reaches beyond a closed domain (the web, say).
    pub fn with_open_world_hint(mut self, open_world: bool) -> Self {
        self.open_world_hint = Some(open_world);
        self
    }
}

/// Execution properties of a tool (2025-11-25 only; removed with tasks in 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether the tool can run as a task; absent means [`ToolTaskSupport::Forbidden`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<ToolTaskSupport>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Whether a tool supports task-augmented execution (`ToolExecution.taskSupport`, 2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolTaskSupport {
    /// The tool cannot run as a task (the default).
    Forbidden,
    /// The tool may run as a task.
    Optional,
    /// The tool must run as a task.
    Required,
}

/// Params of a request that pages through a list (`cursor`, all revisions).
///
/// On 2026-07-28 `_meta` is required and carries the per-request `io.modelcontextprotocol/...`
/// keys; earlier revisions make the whole params object optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Where to continue: the `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PaginatedRequestParams {
    /// Params asking for the page after `cursor`.
    pub fn at(cursor: impl Into<Cursor>) -> Self {
        PaginatedRequestParams {
            cursor: Some(cursor.into()),
            ..Default::default()
        }
    }
}

/// The result of `tools/list` (all revisions).
///
/// `resultType`, `ttlMs` and `cacheScope`: 2026-07-28 (where it is a `CacheableResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools on this page.
    pub tools: Vec<Tool>,
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

impl ListToolsResult {
    /// A single page holding `tools`.
    pub fn new(tools: Vec<Tool>) -> Self {
        ListToolsResult {
            tools,
            ..Default::default()
        }
    }
}

/// Params of `tools/call`.
///
/// 2025-11-25 names this type and adds `task`. 2026-07-28 requires `_meta` and adds
/// `inputResponses` and `requestState` (for retrying after an `InputRequiredResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The name of the tool to call.
    pub name: String,
    /// The arguments, following the tool's input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Asks for task-augmented execution (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::TaskMetadata>,
    /// The client's answers to the input requests of an `InputRequiredResult`, keyed like its
    /// `inputRequests` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<crate::InputResponses>,
    /// The opaque `requestState` of an `InputRequiredResult`, echoed back (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata attached to the request (`progressToken`, and on 2026-07-28 the per-request
    /// `io.modelcontextprotocol/...` keys).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

from_required_string!(
    CallToolRequestParams,
    "The params calling the tool of that name without arguments."
);

// Read without `#[serde(flatten)]`: this is on every `tools/call`'s path (see `extra_fields`).
deserialize_with_extra!(CallToolRequestParams, "tools/call params",
    required { name: String = "name" }
    optional {
        arguments: Option<JsonObject> = "arguments",
        task: Option<crate::TaskMetadata> = "task",
        input_responses: Option<crate::InputResponses> = "inputResponses",
        request_state: Option<String> = "requestState",
        meta: Option<Meta> = "_meta",
    }
);

impl CallToolRequestParams {
    /// A call of tool `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolRequestParams {
            name: name.into(),
            ..Default::default()
        }
    }

    /// A call of tool `name` with `arguments`.
    pub fn with_arguments(name: impl Into<String>, arguments: JsonObject) -> Self {
        CallToolRequestParams {
            name: name.into(),
            arguments: Some(arguments),
            ..Default::default()
        }
    }
}

/// The result of `tools/call` (all revisions).
///
/// `structuredContent`: 2025-06-18 and later, an object up to 2025-11-25 and any JSON value on
/// 2026-07-28 (a present `null` is kept as `Some(Value::Null)`). `resultType`: 2026-07-28.
/// A failing tool reports `isError: true` here rather than a JSON-RPC error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result, following the tool's output schema.
    #[serde(
        default,
        deserialize_with = "crate::content::some_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool call failed; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
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

impl CallToolResult {
    /// A successful result holding `content`.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::new(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) holding one text block that tells the model what went
    /// wrong.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..CallToolResult::text(message)
        }
    }

    /// A successful result holding `value` as `structuredContent`, and its JSON text as a text
    /// block for clients that read only `content`.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            structured_content: Some(value.clone()),
            ..CallToolResult::text(value.to_string())
        }
    }

    /// Whether the tool reported failure (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// `tools/list`: lists the server's tools, a page at a time.
#[derive(Debug)]
pub enum ListTools {}

impl crate::Request for ListTools {
    const METHOD: &'static str = "tools/list";
    type Params = PaginatedRequestParams;
    type Result = ListToolsResult;
}

/// `tools/call`: calls a tool.
#[derive(Debug)]
pub enum CallTool {}

impl crate::Request for CallTool {
    const METHOD: &'static str = "tools/call";
    type Params = CallToolRequestParams;
    type Result = CallToolResult;
}

/// `notifications/tools/list_changed`: the server's tool list changed.
#[derive(Debug)]
pub enum ToolListChanged {}

impl crate::Notification for ToolListChanged {
    const METHOD: &'static str = "notifications/tools/list_changed";
    type Params = crate::EmptyParams;
}

/// A whole `tools/list` request.
pub type ListToolsRequest = crate::TypedRequest<ListTools>;
/// A whole `tools/call` request.
pub type CallToolRequest = crate::TypedRequest<CallTool>;
/// A whole response to `tools/list`.
pub type ListToolsResultResponse = crate::JsonRpcResultResponse<ListToolsResult>;
/// A whole response to `tools/call`.
///
/// On 2026-07-28 the result may instead be an `InputRequiredResult`, which this type does not
/// hold; decode the result generically when that can happen.
pub type CallToolResultResponse = crate::JsonRpcResultResponse<CallToolResult>;
/// A whole `notifications/tools/list_changed` notification.
pub type ToolListChangedNotification = crate::TypedNotification<ToolListChanged>;

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
