//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865), host side: what a host
//! needs to render a tool's interactive view and to keep the model and the view to the tools
//! each may call (feature `apps`).
//!
//! - **Declare support**: [`ClientBuilder::apps`](crate::ClientBuilder::apps) puts
//!   `{"mimeTypes": ["text/html;profile=mcp-app"]}` under
//!   `capabilities.extensions["io.modelcontextprotocol/ui"]`, in either era. A server may offer
//!   its views (and its app-only tools) only to a client that declared them.
//! - **Tell the tools apart**: [`AppTools`] (from [`Client::list_app_tools`], or any list of
//!   tools) reads each tool's `_meta.ui`: the view that renders its results
//!   ([`AppTools::view_uri`]; the deprecated flat `_meta["ui/resourceUri"]` is read too) and
//!   who may call it. [`AppTools::for_model`] is what the host lists to its model (visibility
//!   includes `"model"`, the default); [`AppTools::check_app_call`] is the gate of a view's
//!   `tools/call` (visibility includes `"app"`, the default).
//! - **Fetch a view**: [`Client::read_ui_resource`] reads a `ui://` resource and returns its
//!   HTML with its `_meta.ui` ([`UiResource`]: the content security policy's domains, the
//!   permissions asked for, `domain`, `prefersBorder`), refusing contents that are not
//!   `text/html;profile=mcp-app`. [`Client::tool_ui_resource`] does it for a tool's view.
//! - **Forward a view's calls**: [`Client::call_tool_for_app`] calls a tool on the view's
//!   behalf, after the gate: a model-only tool, or one the server did not list, is refused
//!   without a request.
//!
//! Rendering is the host's: the extension's postMessage protocol (`ui/initialize`, the
//! `ui/notifications/*` that carry the tool's input and result, the sandbox proxy of web
//! hosts) runs between the host and the view, in the host's UI toolkit. This crate does the
//! MCP side of it. The view's HTML is untrusted: render it only in a sandboxed frame under
//! the content security policy its `_meta.ui.csp` declares (and nothing wider).
//!
//! A tool whose `_meta.ui` does not decode is treated as a host without the extension treats
//! every tool: it is listed to the model, it has no view, and no view may call it.
//!
//! ```
//! use mcp_client::Client;
//! use mcp_client::apps::AppError;
//! use mcp_server::{Resource, Server, Tool};
//! use mcp_types::{JsonObject, McpUiToolMeta, McpUiToolVisibility, UI_MIME_TYPE};
//!
//! fn ui(meta: McpUiToolMeta) -> JsonObject {
//!     let mut object = JsonObject::new();
//!     meta.write(&mut object);
//!     object
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let view = "<!doctype html><html><body>the clock</body></html>";
//! let server = Server::builder()
//!     .name("clock")
//!     .version("1.0")
//!     .tool(Tool::new("show_time", || async { "12:00" }).meta(ui(McpUiToolMeta::new("ui://clock/view"))))
//!     .tool(Tool::new("tick", || async { "12:01" }).meta(ui(
//!         McpUiToolMeta::new("ui://clock/view").with_visibility([McpUiToolVisibility::App]),
//!     )))
//!     .tool(Tool::new("reset", || async { "00:00" }).meta(ui(
//!         McpUiToolMeta::default().with_visibility([McpUiToolVisibility::Model]),
//!     )))
//!     .resource(Resource::text("ui://clock/view", "clock", view).mime_type(UI_MIME_TYPE))
//!     .build();
//! let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
//! tokio::spawn(async move { server.serve(server_end).await });
//! let (client, connection) = Client::builder().apps(true).connect(client_end).await?;
//! tokio::spawn(connection);
//!
//! let tools = client.list_app_tools().await?;
//! let for_model: Vec<&str> = tools.for_model().map(|t| t.name.as_str()).collect();
//! assert_eq!(for_model, ["show_time", "reset"]);
//! assert_eq!(tools.view_uri("show_time"), Some("ui://clock/view"));
//!
//! let tool = tools.get("show_time").expect("listed");
//! let resource = client.tool_ui_resource(tool).await?.expect("a view");
//! assert_eq!(resource.html, view);
//!
//! // The view may call `tick` (app-only) but not `reset` (model-only).
//! let result = client.call_tool_for_app(&tools, "tick").await?;
//! assert_eq!(result.content[0].as_text(), Some("12:01"));
//! let refused = client.call_tool_for_app(&tools, "reset").await.unwrap_err();
//! assert!(matches!(refused, mcp_client::Error::App(AppError::NotCallableByApp { .. })));
//! # Ok(())
//! # }
//! ```

pub(crate) mod error;

use base64::Engine as _;
use futures::TryStreamExt as _;
use mcp_types::{
    CallToolResult, McpUiResourceMeta, McpUiToolMeta, McpUiToolVisibility, ResourceContents, Tool,
    UI_META_KEY, is_ui_mime_type, is_ui_uri,
};

pub use error::AppError;

use crate::arguments::IntoCallToolParams;
use crate::client::Client;
use crate::error::Result;

/// What a tool's `_meta.ui` says, as the host acts on it.
#[derive(Debug, Clone, PartialEq)]
enum ToolUi {
    /// No `_meta.ui` (nor the flat key): a plain tool, for the model and the app.
    Plain,
    /// A decoded `_meta.ui`.
    Ui(McpUiToolMeta),
    /// A `_meta.ui` that does not decode: a plain tool for the model, none for the app.
    Invalid,
}

impl ToolUi {
    fn of(tool: &Tool) -> ToolUi {
        let Some(meta) = tool.meta.as_ref() else {
            return ToolUi::Plain;
        };
        match McpUiToolMeta::from_meta(meta) {
            Some(ui) => ToolUi::Ui(ui),
            None if meta.contains_key(UI_META_KEY) => {
                tracing::debug!(tool = %tool.name, "a _meta.ui that does not decode: no view, no calls from apps");
                ToolUi::Invalid
            }
            None => ToolUi::Plain,
        }
    }

    fn visible_to(&self, who: &McpUiToolVisibility) -> bool {
        match self {
            ToolUi::Plain => true,
            ToolUi::Ui(ui) => ui.visible_to(who),
            ToolUi::Invalid => *who == McpUiToolVisibility::Model,
        }
    }

    fn view_uri(&self) -> Option<&str> {
        match self {
            ToolUi::Ui(ui) => ui.resource_uri.as_deref(),
            ToolUi::Plain | ToolUi::Invalid => None,
        }
    }
}

/// Whether the host lists `tool` to its model: its `_meta.ui.visibility` includes `"model"`,
/// or is absent (see [`AppTools::for_model`]).
pub fn visible_to_model(tool: &Tool) -> bool {
    ToolUi::of(tool).visible_to(&McpUiToolVisibility::Model)
}

/// Whether a view may call `tool`: its `_meta.ui.visibility` includes `"app"`, or is absent,
/// and its `_meta.ui` decodes.
pub fn callable_by_app(tool: &Tool) -> bool {
    ToolUi::of(tool).visible_to(&McpUiToolVisibility::App)
}

/// The URI of the view that renders `tool`'s results: `_meta.ui.resourceUri`, else the
/// deprecated `_meta["ui/resourceUri"]`; `None` for a tool without a view (or whose
/// `_meta.ui` does not decode).
pub fn view_uri(tool: &Tool) -> Option<String> {
    ToolUi::of(tool).view_uri().map(str::to_owned)
}

/// A server's tools as a host of MCP Apps sees them: which the model may see and call,
/// which a view may call, and which view renders each.
///
/// Keep it with the view it was made for: a view may call tools of its own server only, so
/// the gate of one server's views is that server's `AppTools`. Refresh it when the server's
/// tool list changes.
#[derive(Debug, Clone, Default)]
pub struct AppTools {
    tools: Vec<Tool>,
    ui: Vec<ToolUi>,
}

impl AppTools {
    /// The tools of one server, in its listing order.
    pub fn new(tools: impl IntoIterator<Item = Tool>) -> AppTools {
        let tools: Vec<Tool> = tools.into_iter().collect();
        let ui = tools.iter().map(ToolUi::of).collect();
        AppTools { tools, ui }
    }

    /// Every tool, app-only ones included, in listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tools to list to the model: those whose visibility includes `"model"` (the
    /// default). The extension forbids listing the others (`"app"`-only tools) to it.
    pub fn for_model(&self) -> impl Iterator<Item = &Tool> + '_ {
        self.visible(McpUiToolVisibility::Model)
    }

    /// The tools a view of this server may call: those whose visibility includes `"app"`
    /// (the default).
    pub fn for_app(&self) -> impl Iterator<Item = &Tool> + '_ {
        self.visible(McpUiToolVisibility::App)
    }

    fn visible(&self, who: McpUiToolVisibility) -> impl Iterator<Item = &Tool> + '_ {
        self.tools
            .iter()
            .zip(&self.ui)
            .filter(move |(_, ui)| ui.visible_to(&who))
            .map(|(tool, _)| tool)
    }

    fn find(&self, name: &str) -> Option<(&Tool, &ToolUi)> {
        self.tools
            .iter()
            .zip(&self.ui)
            .find(|(tool, _)| tool.name == name)
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.find(name).map(|(tool, _)| tool)
    }

    /// The decoded `_meta.ui` of the tool named `name` (with the deprecated flat key's URI
    /// when `ui` has none); `None` for an unknown tool, a plain one, or one whose `_meta.ui`
    /// does not decode.
    pub fn ui(&self, name: &str) -> Option<&McpUiToolMeta> {
        match self.find(name)?.1 {
            ToolUi::Ui(ui) => Some(ui),
            ToolUi::Plain | ToolUi::Invalid => None,
        }
    }

    /// The URI of the view that renders the results of the tool named `name`, if it has one.
    pub fn view_uri(&self, name: &str) -> Option<&str> {
        self.find(name)?.1.view_uri()
    }

    /// The gate of a view's `tools/call`: the tool, if a view may call it.
    ///
    /// # Errors
    ///
    /// [`AppError::UnknownTool`] if the server did not list `name`;
    /// [`AppError::NotCallableByApp`] if its visibility does not include `"app"`.
    pub fn check_app_call(&self, name: &str) -> Result<&Tool, AppError> {
        let (tool, ui) = self.find(name).ok_or_else(|| AppError::UnknownTool {
            name: name.to_owned(),
        })?;
        if ui.visible_to(&McpUiToolVisibility::App) {
            Ok(tool)
        } else {
            Err(AppError::NotCallableByApp {
                name: name.to_owned(),
            })
        }
    }
}

/// A view, read and checked: its HTML and its `_meta.ui`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UiResource {
    /// The view's `ui://` URI.
    pub uri: String,
    /// The HTML document (from `text`, or decoded from a base64 `blob`).
    pub html: String,
    /// The contents' `_meta.ui` (empty when absent or when it does not decode): the domains
    /// of the content security policy to render it under, the permissions it asks for, its
    /// `domain` and `prefersBorder`.
    pub meta: McpUiResourceMeta,
}

impl Client {
    /// Whether this client declared the MCP Apps extension with
    /// `text/html;profile=mcp-app` ([`ClientBuilder::apps`](crate::ClientBuilder::apps)).
    pub fn declares_apps(&self) -> bool {
        self.capabilities().supports_ui()
    }

    /// Every tool of the server (`tools/list`, all pages) as an [`AppTools`].
    ///
    /// # Errors
    ///
    /// As for [`list_tools_stream`](Self::list_tools_stream).
    pub async fn list_app_tools(&self) -> Result<AppTools> {
        let tools: Vec<Tool> = self.list_tools_stream().try_collect().await?;
        Ok(AppTools::new(tools))
    }

    /// Reads the view at `uri` (`resources/read`) and checks it as the extension requires:
    /// a `ui://` URI (checked before anything is sent), contents for that URI, of MIME type
    /// `text/html;profile=mcp-app`, as text or as a base64 blob of UTF-8 text.
    ///
    /// # Errors
    ///
    /// [`Error::App`](crate::Error::App) with [`AppError::NotUiUri`] (nothing is sent),
    /// [`AppError::NoContents`], [`AppError::WrongMimeType`] or [`AppError::NotText`]; as for
    /// [`read_resource`](Self::read_resource).
    pub async fn read_ui_resource(&self, uri: &str) -> Result<UiResource> {
        if !is_ui_uri(uri) {
            return Err(AppError::NotUiUri {
                uri: uri.to_owned(),
            }
            .into());
        }
        let result = self.read_resource(uri).await?;
        let contents = result
            .contents
            .into_iter()
            .find(|c| c.uri() == uri)
            .ok_or_else(|| AppError::NoContents {
                uri: uri.to_owned(),
            })?;
        Ok(checked(uri, contents)?)
    }

    /// The view of `tool`, read and checked ([`read_ui_resource`](Self::read_ui_resource));
    /// `None` if the tool has none.
    ///
    /// # Errors
    ///
    /// As for [`read_ui_resource`](Self::read_ui_resource).
    pub async fn tool_ui_resource(&self, tool: &Tool) -> Result<Option<UiResource>> {
        match view_uri(tool) {
            Some(uri) => self.read_ui_resource(&uri).await.map(Some),
            None => Ok(None),
        }
    }

    /// Calls a tool on behalf of a view of this server, whose tools are `tools`: refused
    /// without a request unless [`AppTools::check_app_call`] lets it through. Otherwise as
    /// [`call_tool`](Self::call_tool) (a tool failure is a result with `isError: true`, which
    /// the host hands to the view).
    ///
    /// # Errors
    ///
    /// [`Error::App`](crate::Error::App) with [`AppError::UnknownTool`] or
    /// [`AppError::NotCallableByApp`]; as for [`call_tool`](Self::call_tool).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the call on the server (a view's cancelled request).
    pub async fn call_tool_for_app(
        &self,
        tools: &AppTools,
        call: impl IntoCallToolParams,
    ) -> Result<CallToolResult> {
        let params = call.into_call_tool_params()?;
        tools.check_app_call(&params.name)?;
        self.call_tool(params).await
    }
}

/// `contents` of the view at `uri`, checked: the MIME type, and HTML text.
fn checked(uri: &str, contents: ResourceContents) -> Result<UiResource, AppError> {
    if !contents.mime_type().is_some_and(is_ui_mime_type) {
        return Err(AppError::WrongMimeType {
            uri: uri.to_owned(),
            mime_type: contents.mime_type().map(str::to_owned),
        });
    }
    let meta = McpUiResourceMeta::from_contents(&contents).unwrap_or_default();
    let html = match contents {
        ResourceContents::Text(text) => text.text,
        ResourceContents::Blob(blob) => {
            let not_text = |reason: String| AppError::NotText {
                uri: uri.to_owned(),
                reason,
            };
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.blob.as_bytes())
                .map_err(|e| not_text(format!("the blob is not base64: {e}")))?;
            String::from_utf8(bytes).map_err(|e| not_text(format!("not UTF-8: {e}")))?
        }
        _ => {
            return Err(AppError::NotText {
                uri: uri.to_owned(),
                reason: "contents of an unknown kind".to_owned(),
            });
        }
    };
    Ok(UiResource {
        uri: uri.to_owned(),
        html,
        meta,
    })
}

#[cfg(test)]
mod tests;
