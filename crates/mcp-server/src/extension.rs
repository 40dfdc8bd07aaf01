//! The seam a protocol extension plugs into: its entry under `capabilities.extensions`, the
//! methods it adds, and its say over what a request's client sees. The router asks the
//! server's extensions only for methods it does not know itself, before the fallback, so the
//! core methods' paths are unchanged.
//!
//! An extension whose content is resources (skills, an app's UI) registers them as ordinary
//! [`Resource`](crate::Resource)s, so that `resources/list`, `resources/read`, filters and
//! subscriptions treat them like any other. An extension that decides per client which tools
//! or resources it is offered (MCP Apps: app-only tools, for clients that declared the
//! extension) gives filters, which [`join_filters`] joins with the application's when the
//! server is built: the router applies them as it applies any filter.

use std::borrow::Cow;
use std::sync::Arc;

use mcp_types::{JsonObject, ProtocolVersion};
use serde_json::value::RawValue;

use crate::context::Context;
use crate::error::{BoxError, Error};
use crate::handler::BoxFuture;
use crate::resource::Resource;
use crate::server::{ClientTest, Filter, Filters, ServerInner};
use crate::service::McpResponse;
use crate::tool::Tool;

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

    /// Whether `method` is one of its methods (with its current settings). Default: it has
    /// none.
    fn serves(&self, _method: &str) -> bool {
        false
    }

    /// Answers a request for one of its methods (called only for a method it
    /// [`serves`](Self::serves)).
    fn route(
        &self,
        _server: &Arc<ServerInner>,
        method: Cow<'static, str>,
        _params: Option<Box<RawValue>>,
        _cx: Context,
    ) -> BoxFuture<Reply> {
        let error: BoxError = Box::new(Error::method_not_found(&method));
        Box::pin(std::future::ready(Err(error)))
    }

    /// Which tools a request's client may see (listed and called), besides the
    /// application's [tool filter](crate::ServerBuilder::tool_filter). Asked once, when the
    /// server is built. Default: no say.
    fn tool_filter(&self) -> Option<Filter<Tool>> {
        None
    }

    /// Like [`tool_filter`](Self::tool_filter), for resources.
    fn resource_filter(&self) -> Option<Filter<Resource>> {
        None
    }

    /// Which requests' clients are listed the tools' plain definitions, without what the
    /// extension adds to them (`registry::Entry::plain_definition`). Asked once, when the
    /// server is built. Default: none.
    fn plain_tools(&self) -> Option<ClientTest> {
        None
    }
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

/// The application's filters joined with those of `extensions`: an item is visible when
/// every filter lets it through; tools are listed plain when an extension says so.
pub(crate) fn join_filters(mut filters: Filters, extensions: &[Arc<dyn Extension>]) -> Filters {
    for extension in extensions {
        filters.tools = both(filters.tools, extension.tool_filter());
        filters.resources = both(filters.resources, extension.resource_filter());
        filters.plain_tools = match (filters.plain_tools, extension.plain_tools()) {
            (Some(a), Some(b)) => Some(Arc::new(move |cx: &Context| a(cx) || b(cx))),
            (a, b) => a.or(b),
        };
    }
    filters
}

/// A filter letting through what both `a` and `b` let through.
fn both<T: 'static>(a: Option<Filter<T>>, b: Option<Filter<T>>) -> Option<Filter<T>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Arc::new(move |item: &T, cx: &Context| {
            a(item, cx) && b(item, cx)
        })),
        (a, b) => a.or(b),
    }
}
