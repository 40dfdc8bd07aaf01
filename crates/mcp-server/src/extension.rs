//! The seam a protocol extension plugs into: its entry under `capabilities.extensions` and
//! the methods it adds. The router asks the server's extensions only for methods it does not
//! know itself, before the fallback, so the core methods' paths are unchanged.
//!
//! An extension whose content is resources (skills, an app's UI) registers them as ordinary
//! [`Resource`](crate::Resource)s, so that `resources/list`, `resources/read`, filters and
//! subscriptions treat them like any other.

use std::borrow::Cow;
use std::sync::Arc;

use mcp_types::{JsonObject, ProtocolVersion};
use serde_json::value::RawValue;

use crate::context::Context;
use crate::error::BoxError;
use crate::handler::BoxFuture;
use crate::server::ServerInner;
use crate::service::McpResponse;

/// What an extension's method answers.
pub(crate) type Reply = Result<McpResponse, BoxError>;

/// A protocol extension served by this crate.
pub(crate) trait Extension: Send + Sync + 'static {
    /// Its id, the key of its settings under `capabilities.extensions`.
    fn id(&self) -> &'static str;

    /// Its settings for a client of `version`, or `None` when it is not offered to it (then
    /// its methods are not served either).
    fn settings(&self, version: &ProtocolVersion) -> Option<JsonObject>;

    /// Whether declaring it requires the `resources` capability.
    fn needs_resources(&self) -> bool;

    /// Whether `method` is one of its methods (with its current settings).
    fn serves(&self, method: &str) -> bool;

    /// Answers a request for one of its methods.
    fn route(
        &self,
        server: &Arc<ServerInner>,
        method: Cow<'static, str>,
        params: Option<Box<RawValue>>,
        cx: Context,
    ) -> BoxFuture<Reply>;
}

/// The extension among `extensions` serving `method` for the request of `cx`, if any.
pub(crate) fn find<'a>(
    extensions: &'a [Arc<dyn Extension>],
    method: &str,
    cx: &Context,
) -> Option<&'a Arc<dyn Extension>> {
    extensions
        .iter()
        .find(|e| e.serves(method) && e.settings(cx.protocol_version()).is_some())
}
