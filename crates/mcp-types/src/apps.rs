//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): a
//! server links a tool to an interactive HTML view, a resource at a `ui://` URI served as
//! [`UI_MIME_TYPE`], which a host renders in a sandboxed iframe.
//!
//! The extension adds no method; it lives in `_meta`:
//!
//! - on a [`Tool`], `_meta.ui` ([`McpUiToolMeta`]): the view's `resourceUri` and the tool's
//!   `visibility` (who may call it: the model, the app, or both, the default). The flat key
//!   `_meta["ui/resourceUri"]` ([`UI_RESOURCE_URI_META_KEY`]) of earlier drafts is deprecated:
//!   [`McpUiToolMeta::from_meta`] reads it, [`McpUiToolMeta::write`] never writes it;
//! - on a `ui://` resource and on its contents, `_meta.ui` ([`McpUiResourceMeta`]): the
//!   content security policy's domains ([`McpUiResourceCsp`]), the browser permissions the
//!   view asks for ([`McpUiResourcePermissions`]), a dedicated `domain` and `prefersBorder`;
//! - in the client's capabilities, `extensions["io.modelcontextprotocol/ui"]`
//!   ([`McpUiClientCapabilities`]): the view MIME types the host renders
//!   ([`ClientCapabilities::supports_ui`]).
//!
//! The names mirror the `McpUi*` definitions of the extension's `schema.json`. Every object
//! keeps members this crate does not know, and a visibility it does not know, so that it
//! survives a round trip.
//!
//! ```
//! use mcp_types::{McpUiToolMeta, McpUiToolVisibility, Tool};
//!
//! let tool: Tool = serde_json::from_str(r#"{"name":"refresh_dashboard",
//!     "inputSchema":{"type":"object"},
//!     "_meta":{"ui":{"resourceUri":"ui://weather-server/dashboard-template",
//!                    "visibility":["app"]}}}"#).unwrap();
//! let ui = McpUiToolMeta::from_tool(&tool).unwrap();
//! assert_eq!(ui.resource_uri.as_deref(), Some("ui://weather-server/dashboard-template"));
//! assert!(ui.visible_to(&McpUiToolVisibility::App));
//! assert!(!ui.visible_to(&McpUiToolVisibility::Model));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ClientCapabilities, JsonObject, Meta, Resource, ResourceContents, Tool};

/// The id of the MCP Apps extension, the key of its settings under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP Apps view: an HTML5 document.
pub const UI_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The `_meta` key of the extension's object on tools, resources and resource contents.
pub const UI_META_KEY: &str = "ui";

/// The deprecated flat `_meta` key for a tool's view URI, read when `_meta.ui.resourceUri` is
/// absent and never written.
pub const UI_RESOURCE_URI_META_KEY: &str = "ui/resourceUri";

/// The scheme every view URI uses, with its `://`.
pub const UI_URI_PREFIX: &str = "ui://";

/// Whether `uri` is a view URI: `ui://` followed by something (the scheme in any case).
///
/// ```
/// assert!(mcp_types::is_ui_uri("ui://notes/app"));
/// assert!(!mcp_types::is_ui_uri("https://example.com/app.html"));
/// assert!(!mcp_types::is_ui_uri("ui://"));
/// ```
pub fn is_ui_uri(uri: &str) -> bool {
    uri.len() > UI_URI_PREFIX.len()
        && uri
            .get(..UI_URI_PREFIX.len())
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case(UI_URI_PREFIX))
}

/// Whether `mime_type` is [`UI_MIME_TYPE`], ignoring ASCII case and whitespace
/// (`text/html; profile=mcp-app` is the same type).
pub fn is_ui_mime_type(mime_type: &str) -> bool {
    let mut given = mime_type.bytes().filter(|b| !b.is_ascii_whitespace());
    let mut wanted = UI_MIME_TYPE.bytes();
    loop {
        match (given.next(), wanted.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a.eq_ignore_ascii_case(&b) => {}
            _ => return false,
        }
    }
}

/// Who may call a tool that has a view (`_meta.ui.visibility`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum McpUiToolVisibility {
    /// The model: the host lists the tool to the agent, which may call it.
    Model,
    /// The app: the view may call the tool, through the host, on this server only.
    App,
    /// A scope this crate does not know, kept for the round trip.
    #[serde(untagged)]
    Other(String),
}

/// A tool's `_meta.ui`: the view that renders its results and who may call it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpUiToolMeta {
    /// The `ui://` URI of the view resource the host renders the tool's results with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; absent means `["model", "app"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<McpUiToolVisibility>>,
    /// Members this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl McpUiToolMeta {
    /// The meta of a tool rendered by the view at `resource_uri`, visible to the model and the
    /// app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        McpUiToolMeta {
            resource_uri: Some(resource_uri.into()),
            ..Default::default()
        }
    }

    /// Sets who may call the tool.
    #[must_use]
    pub fn with_visibility(
        mut self,
        visibility: impl IntoIterator<Item = McpUiToolVisibility>,
    ) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// Whether `who` may call the tool: it is in `visibility`, or `visibility` is absent
    /// (the model and the app).
    pub fn visible_to(&self, who: &McpUiToolVisibility) -> bool {
        match &self.visibility {
            Some(visibility) => visibility.contains(who),
            None => matches!(who, McpUiToolVisibility::Model | McpUiToolVisibility::App),
        }
    }

    /// The extension's meta in a tool's `_meta`: `_meta.ui`, with the view URI of the
    /// deprecated `_meta["ui/resourceUri"]` when `ui` has none (or when there is no `ui`).
    /// `None` when neither is there, or when `_meta.ui` is not a valid object.
    pub fn from_meta(meta: &Meta) -> Option<Self> {
        let flat = meta
            .get(UI_RESOURCE_URI_META_KEY)
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut ui = match meta.get(UI_META_KEY) {
            Some(ui) => McpUiToolMeta::deserialize(ui).ok()?,
            None => McpUiToolMeta {
                resource_uri: Some(flat.clone()?),
                ..Default::default()
            },
        };
        if ui.resource_uri.is_none() {
            ui.resource_uri = flat;
        }
        Some(ui)
    }

    /// The extension's meta of `tool` (see [`from_meta`](Self::from_meta)).
    pub fn from_tool(tool: &Tool) -> Option<Self> {
        Self::from_meta(tool.meta.as_ref()?)
    }

    /// Sets `meta.ui` to this (the deprecated flat key is neither written nor removed).
    pub fn write(&self, meta: &mut Meta) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(UI_META_KEY.to_owned(), value);
        }
    }
}

/// The content security policy a view needs (`_meta.ui.csp`): the origins it may reach, each
/// list absent or empty for none (the restrictive default the host applies).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpUiResourceCsp {
    /// Origins for network requests (fetch, XHR, WebSocket): CSP `connect-src`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for scripts, styles, images, fonts and media (`https://*.example.com`
    /// allowed): CSP `script-src`, `style-src`, `img-src`, `font-src`, `media-src`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins for nested iframes: CSP `frame-src` (`'none'` without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Allowed base URIs of the document: CSP `base-uri` (`'self'` without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
    /// Members this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

fn strings(items: impl IntoIterator<Item = impl Into<String>>) -> Option<Vec<String>> {
    Some(items.into_iter().map(Into::into).collect())
}

impl McpUiResourceCsp {
    /// Sets `connectDomains`.
    #[must_use]
    pub fn with_connect_domains(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.connect_domains = strings(origins);
        self
    }

    /// Sets `resourceDomains`.
    #[must_use]
    pub fn with_resource_domains(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.resource_domains = strings(origins);
        self
    }

    /// Sets `frameDomains`.
    #[must_use]
    pub fn with_frame_domains(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.frame_domains = strings(origins);
        self
    }

    /// Sets `baseUriDomains`.
    #[must_use]
    pub fn with_base_uri_domains(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.base_uri_domains = strings(origins);
        self
    }
}

/// The browser permissions a view asks for (`_meta.ui.permissions`), each an empty object
/// when asked. Hosts may grant them; a view detects what it got.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpUiResourcePermissions {
    /// The camera (Permission Policy `camera`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// The microphone (Permission Policy `microphone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// The location (Permission Policy `geolocation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// Writing to the clipboard (Permission Policy `clipboard-write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
    /// Members this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl McpUiResourcePermissions {
    /// Asks for the camera.
    #[must_use]
    pub fn with_camera(mut self) -> Self {
        self.camera = Some(JsonObject::new());
        self
    }

    /// Asks for the microphone.
    #[must_use]
    pub fn with_microphone(mut self) -> Self {
        self.microphone = Some(JsonObject::new());
        self
    }

    /// Asks for the location.
    #[must_use]
    pub fn with_geolocation(mut self) -> Self {
        self.geolocation = Some(JsonObject::new());
        self
    }

    /// Asks to write to the clipboard.
    #[must_use]
    pub fn with_clipboard_write(mut self) -> Self {
        self.clipboard_write = Some(JsonObject::new());
        self
    }
}

/// A view resource's `_meta.ui`, on the listed resource and on its contents (the contents'
/// wins where both are set): how the host sandboxes and frames the view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpUiResourceMeta {
    /// The origins the view may reach; absent for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<McpUiResourceCsp>,
    /// The browser permissions the view asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<McpUiResourcePermissions>,
    /// A dedicated origin for the view's sandbox, in the form the host documents (for OAuth
    /// callbacks or CORS allow-lists); absent for the host's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around the view; absent lets
    /// the host decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
    /// Members this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl McpUiResourceMeta {
    /// Sets the content security policy's domains.
    #[must_use]
    pub fn with_csp(mut self, csp: McpUiResourceCsp) -> Self {
        self.csp = Some(csp);
        self
    }

    /// Sets the permissions asked for.
    #[must_use]
    pub fn with_permissions(mut self, permissions: McpUiResourcePermissions) -> Self {
        self.permissions = Some(permissions);
        self
    }

    /// Sets the dedicated origin.
    #[must_use]
    pub fn with_domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Sets `prefersBorder`.
    #[must_use]
    pub fn with_prefers_border(mut self, prefers_border: bool) -> Self {
        self.prefers_border = Some(prefers_border);
        self
    }

    /// Whether no member is set.
    pub fn is_empty(&self) -> bool {
        *self == McpUiResourceMeta::default()
    }

    /// The extension's meta in `meta` (`meta.ui`); `None` when absent or not a valid object.
    pub fn from_meta(meta: &Meta) -> Option<Self> {
        McpUiResourceMeta::deserialize(meta.get(UI_META_KEY)?).ok()
    }

    /// The extension's meta of a listed resource.
    pub fn from_resource(resource: &Resource) -> Option<Self> {
        Self::from_meta(resource.meta.as_ref()?)
    }

    /// The extension's meta of read contents.
    pub fn from_contents(contents: &ResourceContents) -> Option<Self> {
        let meta = match contents {
            ResourceContents::Text(c) => c.meta.as_ref(),
            ResourceContents::Blob(c) => c.meta.as_ref(),
        };
        Self::from_meta(meta?)
    }

    /// Sets `meta.ui` to this.
    pub fn write(&self, meta: &mut Meta) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(UI_META_KEY.to_owned(), value);
        }
    }
}

/// The client's settings of the extension, under
/// `capabilities.extensions["io.modelcontextprotocol/ui"]`: the view MIME types the host
/// renders (required by the extension; [`UI_MIME_TYPE`] for HTML views).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpUiClientCapabilities {
    /// The view MIME types the host renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_types: Option<Vec<String>>,
    /// Settings this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl McpUiClientCapabilities {
    /// The settings of a host rendering HTML views: `{"mimeTypes": ["text/html;profile=mcp-app"]}`.
    pub fn html() -> Self {
        McpUiClientCapabilities {
            mime_types: Some(vec![UI_MIME_TYPE.to_owned()]),
            extra: JsonObject::new(),
        }
    }

    /// Whether `mimeTypes` lists [`UI_MIME_TYPE`] (see [`is_ui_mime_type`]).
    pub fn supports_html(&self) -> bool {
        self.mime_types.iter().flatten().any(|m| is_ui_mime_type(m))
    }

    /// These settings as the object to put under `capabilities.extensions`.
    pub fn to_settings(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(Value::Object(settings)) => settings,
            _ => JsonObject::new(),
        }
    }
}

impl ClientCapabilities {
    /// The client's settings of the MCP Apps extension, if it declared it (and they decode).
    pub fn ui(&self) -> Option<McpUiClientCapabilities> {
        McpUiClientCapabilities::deserialize(&Value::Object(self.extension(UI_EXTENSION)?.clone()))
            .ok()
    }

    /// Whether the client declared the MCP Apps extension with [`UI_MIME_TYPE`] among its
    /// `mimeTypes`: whether it renders HTML views. Reads the declaration in place.
    ///
    /// ```
    /// use mcp_types::ClientCapabilities;
    ///
    /// let host: ClientCapabilities = serde_json::from_str(r#"{"extensions":
    ///     {"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}"#).unwrap();
    /// assert!(host.supports_ui());
    /// assert!(!ClientCapabilities::default().supports_ui());
    /// ```
    pub fn supports_ui(&self) -> bool {
        self.extension(UI_EXTENSION)
            .and_then(|settings| settings.get("mimeTypes"))
            .and_then(Value::as_array)
            .is_some_and(|types| types.iter().filter_map(Value::as_str).any(is_ui_mime_type))
    }
}

#[cfg(test)]
#[path = "apps_tests.rs"]
mod tests;
