//! Resources: `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe`, `resources/unsubscribe` and their notifications.

use serde::{Deserialize, Serialize};

use crate::{Annotations, Cursor, JsonObject, Meta, PaginatedRequestParams, ResourceContents};

use crate::extra_fields::deserialize_with_extra;

/// A resource the server can read (all revisions).
///
/// `annotations` is the inline `Annotated` object on 2024-11-05. `title` and `_meta`: 2025-06-18
/// and later. `icons`: 2025-11-25 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// The URI of the resource.
    pub uri: String,
    /// The programmatic name of the resource.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw content in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for the resource (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<crate::Icon>>,
    /// Metadata attached to the resource (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Resource {
    /// A resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// A family of resources named by an RFC 6570 URI template (all revisions).
///
/// `title` and `_meta`: 2025-06-18 and later. `icons`: 2025-11-25 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// The programmatic name of the template.
    pub name: String,
    /// A human-readable name for display (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the template is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, if they all share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for the template (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<crate::Icon>>,
    /// Metadata attached to the template (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceTemplate {
    /// A template `uri_template` called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// The result of `resources/list` (all revisions).
///
/// `resultType`, `ttlMs` and `cacheScope`: 2026-07-28 (where it is a `CacheableResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// The resources on this page.
    pub resources: Vec<Resource>,
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

/// The result of `resources/templates/list` (all revisions).
///
/// `resultType`, `ttlMs` and `cacheScope`: 2026-07-28 (where it is a `CacheableResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    pub resource_templates: Vec<ResourceTemplate>,
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

/// Params naming one resource by `uri` (2025-11-25 and later name this base type; on 2026-07-28
/// `_meta` is required).
///
/// [`SubscribeRequestParams`] and [`UnsubscribeRequestParams`] have exactly this shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceRequestParams {
    /// The URI of the resource.
    pub uri: String,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

from_required_string!(
    ResourceRequestParams,
    "The params naming the resource at that URI."
);

impl ResourceRequestParams {
    /// Params naming `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// Params of `resources/subscribe` (2024-11-05 to 2025-11-25; 2026-07-28 replaces it with
/// `subscriptions/listen`).
pub type SubscribeRequestParams = ResourceRequestParams;

/// Params of `resources/unsubscribe` (2024-11-05 to 2025-11-25).
pub type UnsubscribeRequestParams = ResourceRequestParams;

/// Params of `resources/read` (all revisions).
///
/// 2026-07-28 requires `_meta` and adds `inputResponses` and `requestState` (for retrying after
/// an `InputRequiredResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceRequestParams {
    /// The URI of the resource to read.
    pub uri: String,
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
    ReadResourceRequestParams,
    "The params reading the resource at that URI."
);

// Read without `#[serde(flatten)]`: this is on every `resources/read`'s path (see
// `extra_fields`).
deserialize_with_extra!(ReadResourceRequestParams, "resources/read params",
    required { uri: String = "uri" }
    optional {
        input_responses: Option<crate::InputResponses> = "inputResponses",
        request_state: Option<String> = "requestState",
        meta: Option<Meta> = "_meta",
    }
);

impl ReadResourceRequestParams {
    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// The result of `resources/read` (all revisions).
///
/// `resultType`, `ttlMs` and `cacheScope`: 2026-07-28 (where it is a `CacheableResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents: one entry for the resource, or several (e.g. for a directory).
    pub contents: Vec<ResourceContents>,
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

impl ReadResourceResult {
    /// A result holding `contents`.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            ..Default::default()
        }
    }
}

/// Params of `notifications/resources/updated` (all revisions; named from 2025-11-25).
///
/// On 2026-07-28 `_meta` may carry `io.modelcontextprotocol/subscriptionId`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceUpdatedNotificationParams {
    /// The URI of the resource that changed (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// Metadata attached to the notification.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceUpdatedNotificationParams {
    /// Params announcing a change of `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUpdatedNotificationParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// `resources/list`: lists the server's resources, a page at a time.
#[derive(Debug)]
pub enum ListResources {}

impl crate::Request for ListResources {
    const METHOD: &'static str = "resources/list";
    type Params = PaginatedRequestParams;
    type Result = ListResourcesResult;
}

/// `resources/templates/list`: lists the server's resource templates, a page at a time.
#[derive(Debug)]
pub enum ListResourceTemplates {}

impl crate::Request for ListResourceTemplates {
    const METHOD: &'static str = "resources/templates/list";
    type Params = PaginatedRequestParams;
    type Result = ListResourceTemplatesResult;
}

/// `resources/read`: reads one resource.
#[derive(Debug)]
pub enum ReadResource {}

impl crate::Request for ReadResource {
    const METHOD: &'static str = "resources/read";
    type Params = ReadResourceRequestParams;
    type Result = ReadResourceResult;
}

/// `resources/subscribe`: asks for `notifications/resources/updated` about one resource
/// (2024-11-05 to 2025-11-25).
#[derive(Debug)]
pub enum Subscribe {}

impl crate::Request for Subscribe {
    const METHOD: &'static str = "resources/subscribe";
    type Params = SubscribeRequestParams;
    type Result = crate::EmptyResult;
}

/// `resources/unsubscribe`: cancels a [`Subscribe`] (2024-11-05 to 2025-11-25).
#[derive(Debug)]
pub enum Unsubscribe {}

impl crate::Request for Unsubscribe {
    const METHOD: &'static str = "resources/unsubscribe";
    type Params = UnsubscribeRequestParams;
    type Result = crate::EmptyResult;
}

/// `notifications/resources/list_changed`: the server's resource list changed.
#[derive(Debug)]
pub enum ResourceListChanged {}

impl crate::Notification for ResourceListChanged {
    const METHOD: &'static str = "notifications/resources/list_changed";
    type Params = crate::EmptyParams;
}

/// `notifications/resources/updated`: a subscribed resource changed.
#[derive(Debug)]
pub enum ResourceUpdated {}

impl crate::Notification for ResourceUpdated {
    const METHOD: &'static str = "notifications/resources/updated";
    type Params = ResourceUpdatedNotificationParams;
}

/// A whole `resources/list` request.
pub type ListResourcesRequest = crate::TypedRequest<ListResources>;
/// A whole `resources/templates/list` request.
pub type ListResourceTemplatesRequest = crate::TypedRequest<ListResourceTemplates>;
/// A whole `resources/read` request.
pub type ReadResourceRequest = crate::TypedRequest<ReadResource>;
/// A whole `resources/subscribe` request.
pub type SubscribeRequest = crate::TypedRequest<Subscribe>;
/// A whole `resources/unsubscribe` request.
pub type UnsubscribeRequest = crate::TypedRequest<Unsubscribe>;
/// A whole response to `resources/list`.
pub type ListResourcesResultResponse = crate::JsonRpcResultResponse<ListResourcesResult>;
/// A whole response to `resources/templates/list`.
pub type ListResourceTemplatesResultResponse =
    crate::JsonRpcResultResponse<ListResourceTemplatesResult>;
/// A whole response to `resources/read`.
///
/// On 2026-07-28 the result may instead be an `InputRequiredResult`, which this type does not
/// hold; decode the result generically when that can happen.
pub type ReadResourceResultResponse = crate::JsonRpcResultResponse<ReadResourceResult>;
/// A whole `notifications/resources/list_changed` notification.
pub type ResourceListChangedNotification = crate::TypedNotification<ResourceListChanged>;
/// A whole `notifications/resources/updated` notification.
pub type ResourceUpdatedNotification = crate::TypedNotification<ResourceUpdated>;

#[cfg(test)]
#[path = "resources_tests.rs"]
mod tests;
