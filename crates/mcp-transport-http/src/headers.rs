//! The names of the Streamable HTTP transport's own headers, shared by client and server.

use http::HeaderName;

/// `Mcp-Session-Id`.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Last-Event-ID`.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
