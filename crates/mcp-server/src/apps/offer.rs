//! What the extension offers to which client: its declaration, the filters that keep
//! app-only tools and views from clients without the extension, the plain definitions those
//! clients are listed, and the check, at build, that every linked view is served.

use std::sync::Arc;

use mcp_types::{
    JsonObject, McpUiToolMeta, ProtocolVersion, UI_EXTENSION, UI_META_KEY, UI_MIME_TYPE,
    UI_RESOURCE_URI_META_KEY, is_ui_uri,
};
use serde_json::Value;

use super::error::BrokenUiLink;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::extension::Extension;
use crate::resource::Resource;
use crate::server::{ClientTest, Filter};
use crate::tool::Tool;

/// The MCP Apps extension: no method of its own, only its declaration and filters.
struct Apps;

/// The extension, as the builder adds it.
pub(crate) fn extension() -> Arc<dyn Extension> {
    Arc::new(Apps)
}

impl Extension for Apps {
    fn id(&self) -> &'static str {
        UI_EXTENSION
    }

    /// Offered in every revision (hosts declare it from 2024-11-05 on), with the MIME type
    /// of the views served: `{"mimeTypes": ["text/html;profile=mcp-app"]}`.
    fn settings(&self, _version: &ProtocolVersion) -> Option<JsonObject> {
        let mime_types = Value::Array(vec![UI_MIME_TYPE.into()]);
        Some(JsonObject::from_iter([(
            "mimeTypes".to_owned(),
            mime_types,
        )]))
    }

    fn needs_resources(&self) -> bool {
        true
    }

    fn tool_filter(&self) -> Option<Filter<Tool>> {
        Some(Arc::new(|tool: &Tool, cx: &Context| {
            for_model(tool) || cx.client_capabilities().supports_ui()
        }))
    }

    fn resource_filter(&self) -> Option<Filter<Resource>> {
        Some(Arc::new(|resource: &Resource, cx: &Context| {
            !is_ui_uri(resource.uri()) || cx.client_capabilities().supports_ui()
        }))
    }

    fn plain_tools(&self) -> Option<ClientTest> {
        Some(Arc::new(|cx: &Context| {
            !cx.client_capabilities().supports_ui()
        }))
    }
}

/// Whether `tool` is for the model: it has no `_meta.ui`, or its `visibility` is absent or
/// names `"model"`. Read in place: this runs on every call of a tool with a view.
pub(super) fn for_model(tool: &Tool) -> bool {
    let ui = tool
        .definition()
        .meta
        .as_ref()
        .and_then(|m| m.get(UI_META_KEY));
    match ui.and_then(|ui| ui.get("visibility")) {
        Some(Value::Array(scopes)) => scopes.iter().any(|s| s == "model"),
        _ => true,
    }
}

/// `tool` without its MCP Apps `_meta` (`ui` and the deprecated `ui/resourceUri`), if it has
/// any: what a client without the extension is listed.
pub(crate) fn plain_definition(tool: &mcp_types::Tool) -> Option<mcp_types::Tool> {
    if !has_ui_meta(tool) {
        return None;
    }
    let mut plain = tool.clone();
    if let Some(meta) = &mut plain.meta {
        meta.remove(UI_META_KEY);
        meta.remove(UI_RESOURCE_URI_META_KEY);
        if meta.is_empty() {
            plain.meta = None;
        }
    }
    Some(plain)
}

/// Whether `tool` has MCP Apps `_meta` (`ui`, or the deprecated `ui/resourceUri`).
fn has_ui_meta(tool: &mcp_types::Tool) -> bool {
    tool.meta.as_ref().is_some_and(|meta| {
        meta.contains_key(UI_META_KEY) || meta.contains_key(UI_RESOURCE_URI_META_KEY)
    })
}

/// Whether the server has views or tools linking them, and so the extension.
pub(crate) fn has_ui(tools: &[Tool], resources: &[Resource]) -> bool {
    tools.iter().any(|t| has_ui_meta(t.definition()))
        || resources.iter().any(|r| is_ui_uri(r.uri()))
}

/// Every view a tool links is a `ui://` resource among `resources`.
pub(crate) fn check_links(tools: &[Tool], resources: &[Resource]) -> Result<()> {
    let broken: Vec<BrokenUiLink> = tools
        .iter()
        .filter_map(|tool| {
            let uri = McpUiToolMeta::from_tool(tool.definition())?.resource_uri?;
            let reason = if !is_ui_uri(&uri) {
                "not a ui:// URI"
            } else if !resources.iter().any(|r| r.uri() == uri) {
                "no resource of the server has this URI"
            } else {
                return None;
            };
            Some(BrokenUiLink {
                tool: tool.name().to_owned(),
                uri,
                reason,
            })
        })
        .collect();
    if broken.is_empty() {
        Ok(())
    } else {
        Err(Error::BrokenUiLinks(broken))
    }
}
