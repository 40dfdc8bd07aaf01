//! The session lifecycle of the stateful revisions (up to 2025-11-25): `initialize`,
//! `notifications/initialized` and `ping`, plus [`Implementation`], which every revision uses to
//! name the software on each side.
//!
//! 2026-07-28 has none of these three methods: the client sends its version, capabilities and
//! [`Implementation`] with every request (`_meta` keys [`crate::PROTOCOL_VERSION_META_KEY`],
//! [`crate::CLIENT_CAPABILITIES_META_KEY`], [`CLIENT_INFO_META_KEY`]), and `server/discover`
//! replaces the server side of `initialize`.

use serde::{Deserialize, Serialize};

use crate::{
    ClientCapabilities, EmptyParams, EmptyResult, Icon, JsonObject, JsonRpcResultResponse, Meta,
    Notification, ProtocolVersion, Request, ResultType, ServerCapabilities, TypedNotification,
    TypedRequest,
};

/// The `_meta` key naming the client software on each request (2026-07-28).
pub const CLIENT_INFO_META_KEY: &str = "io.modelcontextprotocol/clientInfo";

/// The `_meta` key naming the server software on each result (2026-07-28).
pub const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The name and version of an MCP implementation (all revisions).
///
/// `title` exists from 2025-06-18; `icons` and `websiteUrl` from 2025-11-25; `description` from
/// 2025-11-25.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// The programmatic name; also the display name when `title` is absent.
    pub name: String,
    /// A human-readable display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The implementation's version.
    pub version: String,
    /// What the implementation does (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons a user interface may show (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The implementation's website (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

// Read without `#[serde(flatten)]`: in every 2026-07-28 request's `_meta` (see `extra_fields`).
crate::extra_fields::deserialize_with_extra!(Implementation, "an implementation",
    required { name: String = "name", version: String = "version" }
    optional {
        title: Option<String> = "title",
        description: Option<String> = "description",
        icons: Option<Vec<Icon>> = "icons",
        website_url: Option<String> = "websiteUrl",
    }
);

impl Implementation {
    /// An implementation called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            ..Default::default()
        }
    }
}

/// Marker for `initialize` (client to server; up to 2025-11-25).
#[derive(Debug)]
pub enum Initialize {}

impl Request for Initialize {
    const METHOD: &'static str = "initialize";
    type Params = InitializeRequestParams;
    type Result = InitializeResult;
}

/// Marker for `notifications/initialized` (client to server; up to 2025-11-25).
#[derive(Debug)]
pub enum Initialized {}

impl Notification for Initialized {
    const METHOD: &'static str = "notifications/initialized";
    type Params = EmptyParams;
}

/// Marker for `ping` (either direction; up to 2025-11-25).
#[derive(Debug)]
pub enum Ping {}

impl Request for Ping {
    const METHOD: &'static str = "ping";
    type Params = EmptyParams;
    type Result = EmptyResult;
}

/// A whole `initialize` request.
pub type InitializeRequest = TypedRequest<Initialize>;
/// A whole response to `initialize`.
pub type InitializeResultResponse = JsonRpcResultResponse<InitializeResult>;
/// A whole `notifications/initialized` notification.
pub type InitializedNotification = TypedNotification<Initialized>;
/// A whole `ping` request.
pub type PingRequest = TypedRequest<Ping>;

/// The params of `initialize` (up to 2025-11-25; named in the schema from 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// The latest version the client supports. Unknown versions are kept, so a server can
    /// answer with [`ProtocolVersion::negotiate`].
    pub protocol_version: ProtocolVersion,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// The client software.
    pub client_info: Implementation,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl InitializeRequestParams {
    /// Params for a client `client_info` speaking `protocol_version` with `capabilities`.
    pub fn new(
        protocol_version: ProtocolVersion,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        InitializeRequestParams {
            protocol_version,
            capabilities,
            client_info,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The server's answer to `initialize` (up to 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The version the session will use; the client disconnects if it does not support it.
    pub protocol_version: ProtocolVersion,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// The server software.
    pub server_info: Implementation,
    /// How to use the server, e.g. for a system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `resultType` (never sent: `initialize` does not exist in 2026-07-28; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl InitializeResult {
    /// A result for server `server_info` agreeing on `protocol_version` with `capabilities`.
    pub fn new(
        protocol_version: ProtocolVersion,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        InitializeResult {
            protocol_version,
            capabilities,
            server_info,
            instructions: None,
            result_type: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
