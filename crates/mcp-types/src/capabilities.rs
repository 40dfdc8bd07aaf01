//! What each side supports: [`ClientCapabilities`] and [`ServerCapabilities`].
//!
//! Stateful revisions (up to 2025-11-25) exchange capabilities once, in `initialize`. In
//! 2026-07-28 the client sends its capabilities with every request (under the `_meta` key
//! [`CLIENT_CAPABILITIES_META_KEY`]) and the server advertises its own in `server/discover`.
//!
//! Every capability object keeps keys this crate does not know in an `extra` map.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::JsonObject;

/// The `_meta` key carrying the client's capabilities for one request (2026-07-28, required on
/// every request of that revision).
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// Capabilities a client supports. All revisions; each field says where it exists.
///
/// ```
/// use mcp_types::ClientCapabilities;
///
/// // 2025-06-18 declared elicitation as an empty object; it means form mode.
/// let caps: ClientCapabilities = serde_json::from_str(r#"{"elicitation":{}}"#).unwrap();
/// assert!(caps.supports_elicitation_form());
/// assert!(!caps.supports_elicitation_url());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Protocol extensions the client supports, keyed by extension id such as
    /// `io.modelcontextprotocol/ui` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
    /// Present if the client can list roots (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Present if the client supports sampling from an LLM (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Present if the client supports elicitation (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Present if the client supports task-augmented requests (2025-11-25 only; in 2026-07-28
    /// tasks are the `io.modelcontextprotocol/tasks` extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

// Read without `#[serde(flatten)]`: in every 2026-07-28 request's `_meta` (see `extra_fields`).
crate::extra_fields::deserialize_with_extra!(ClientCapabilities, "client capabilities",
    required {}
    optional {
        experimental: Option<BTreeMap<String, JsonObject>> = "experimental",
        extensions: Option<BTreeMap<String, JsonObject>> = "extensions",
        roots: Option<RootsCapability> = "roots",
        sampling: Option<SamplingCapability> = "sampling",
        elicitation: Option<ElicitationCapability> = "elicitation",
        tasks: Option<ClientTasksCapability> = "tasks",
    }
);

impl ClientCapabilities {
    /// Whether the client accepts form-mode elicitation: `elicitation.form` is present, or
    /// `elicitation` is present with neither `form` nor `url` (the 2025-06-18 shape `{}`, which
    /// 2025-11-25 and later keep reading as form support).
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// Whether the client accepts URL-mode elicitation (`elicitation.url`, 2025-11-25 and later).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Whether the client supports `sampling/createMessage`.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether the client accepts `tools` and `toolChoice` in sampling requests (2025-11-25 and
    /// later).
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether the client supports `roots/list`.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// The settings of extension `id`, if the client declared it (2026-07-28).
    pub fn extension(&self, id: &str) -> Option<&JsonObject> {
        self.extensions.as_ref()?.get(id)
    }
}

/// The client's `roots` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootsCapability {
    /// Whether the client sends `notifications/roots/list_changed` (up to 2025-11-25; 2026-07-28
    /// has no such notification and declares `roots` as an empty object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client's `sampling` capability. Up to 2025-06-18 it is an empty object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Present if the client honours `includeContext` other than `"none"` (2025-11-25 and later;
    /// soft-deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Present if the client supports tool use in sampling (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client's `elicitation` capability (2025-06-18 and later).
///
/// On 2025-06-18 it is an empty object and means form mode. From 2025-11-25 `form` and `url`
/// say which modes are supported; an empty object still means form mode only. Use
/// [`ClientCapabilities::supports_elicitation_form`] and
/// [`ClientCapabilities::supports_elicitation_url`] rather than reading the fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Present if the client supports form-mode elicitation (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// Present if the client supports URL-mode elicitation (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client's `tasks` capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientTasksCapability {
    /// Present if the client supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Present if the client supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which server-to-client requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequestsCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Which requests a client accepts as tasks (`tasks.requests`, 2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientTaskRequestsCapability {
    /// Task support for sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTasksCapability>,
    /// Task support for elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTasksCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks.requests.sampling` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTasksCapability {
    /// Present if `sampling/createMessage` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks.requests.elicitation` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationTasksCapability {
    /// Present if `elicitation/create` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Capabilities a server supports. All revisions; each field says where it exists.
///
/// ```
/// use mcp_types::ServerCapabilities;
///
/// let caps: ServerCapabilities =
///     serde_json::from_str(r#"{"tools":{"listChanged":true},"logging":{}}"#).unwrap();
/// assert_eq!(caps.tools.unwrap().list_changed, Some(true));
/// assert!(caps.logging.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Protocol extensions the server supports, keyed by extension id such as
    /// `io.modelcontextprotocol/tasks` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
    /// Present if the server can send log messages (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Present if the server supports argument completion (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Present if the server offers prompts (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Present if the server offers resources (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present if the server offers tools (all revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Present if the server supports task-augmented requests (2025-11-25 only; in 2026-07-28
    /// tasks are the `io.modelcontextprotocol/tasks` extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ServerCapabilities {
    /// Whether the server supports `resources/subscribe` (before 2026-07-28) or resource
    /// subscriptions on `subscriptions/listen` (2026-07-28).
    pub fn supports_resource_subscriptions(&self) -> bool {
        self.resources
            .as_ref()
            .and_then(|r| r.subscribe)
            .unwrap_or(false)
    }

    /// The settings of extension `id`, if the server declared it (2026-07-28).
    pub fn extension(&self, id: &str) -> Option<&JsonObject> {
        self.extensions.as_ref()?.get(id)
    }
}

/// The server's `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// Whether the server sends `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server's `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to updates of single resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server's `tools` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server's `tasks` capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerTasksCapability {
    /// Present if the server supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Present if the server supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which client-to-server requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequestsCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Which requests a server accepts as tasks (`tasks.requests`, 2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerTaskRequestsCapability {
    /// Task support for tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsTasksCapability>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks.requests.tools` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsTasksCapability {
    /// Present if `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

#[cfg(test)]
#[path = "capabilities_tests.rs"]
mod tests;
