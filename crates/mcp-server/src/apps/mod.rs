//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865), server side (feature
//! `apps`): tools whose results a host shows in an interactive HTML view.
//!
//! A view is a resource at a `ui://` URI, served as `text/html;profile=mcp-app`
//! ([`UiResource`], given to [`ServerBuilder::ui_resource`]); a tool links it with
//! [`Tool::ui`], and says who may call it with [`Tool::ui_visibility`] (the model and the
//! app by default; [`McpUiToolVisibility::App`] alone for a tool only the view calls, such
//! as a refresh button's). The view's `_meta.ui` (content security policy domains,
//! permissions, a dedicated domain, `prefersBorder`) is on the listed resource and on the
//! contents of every read.
//!
//! ```
//! use mcp_server::apps::UiResource;
//! use mcp_server::types::{McpUiResourceCsp, McpUiToolVisibility};
//! use mcp_server::{Server, Tool};
//!
//! # fn main() -> mcp_server::Result<()> {
//! let view = UiResource::html("ui://clock/view", "Clock", "<!DOCTYPE html><html>...</html>")?
//!     .description("The time, ticking")
//!     .csp(McpUiResourceCsp::default().with_connect_domains(["https://time.example.com"]))
//!     .prefers_border(true);
//! let server = Server::builder()
//!     .ui_resource(view)
//!     .tool(Tool::new("show_time", || async { "It is 12:00." }).ui("ui://clock/view"))
//!     .tool(
//!         Tool::new("tick", || async { "12:01" })
//!             .ui("ui://clock/view")
//!             .ui_visibility([McpUiToolVisibility::App]),
//!     )
//!     .try_build()?;
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # What each client is offered
//!
//! A server with views or linked tools declares the extension under
//! `capabilities.extensions["io.modelcontextprotocol/ui"]`, in every protocol revision, with
//! the MIME type of its views (`{"mimeTypes": ["text/html;profile=mcp-app"]}`), and the
//! `resources` capability. Then, per request, from the client's capabilities (those of
//! `initialize` for a session; those in the request's `_meta` on 2026-07-28):
//!
//! - a client that declared the extension with `text/html;profile=mcp-app` among its
//!   `mimeTypes` is listed every tool with its `_meta.ui`, app-only tools included (its host
//!   keeps those from the model), and reads the views;
//! - any other client is served as if the server had no views: tools for the model are
//!   listed without their `_meta.ui` (the plain, text-only tool), app-only tools are neither
//!   listed nor callable (a call gets the "unknown tool" error of a tool that does not
//!   exist), and `ui://` resources are neither listed nor readable.
//!
//! These are filters, joined with the application's own
//! ([`ServerBuilder::tool_filter`](crate::ServerBuilder::tool_filter) and
//! [`resource_filter`](crate::ServerBuilder::resource_filter)): an item is offered when all
//! let it through. With 2026-07-28 cache hints, a `tools/list` that differs by client is
//! best left `private` (the default).
//!
//! # Checked before serving
//!
//! - A view's URI must be a `ui://` URI: the constructors of [`UiResource`] refuse any other
//!   ([`UiError::NotUiUri`]).
//! - Every view a tool links must be a `ui://` resource of the server:
//!   [`try_build`](crate::ServerBuilder::try_build) fails with
//!   [`Error::BrokenUiLinks`](crate::Error::BrokenUiLinks) naming each tool and URI
//!   ([`build`](crate::ServerBuilder::build) panics with that text). Tools added later with
//!   [`Server::add_tool`](crate::Server::add_tool) are not checked, since their view may
//!   come after them.
//! - A tool with a view always returns text: its results pass through a check that adds the
//!   JSON of `structuredContent` as a text block when there is no text (a [`Json`](crate::Json)
//!   result has it already), and turns a result with neither into an error result naming the
//!   tool, so that the model and hosts without views always read something meaningful.
//!
//! # Views from files
//!
//! [`UiResource::file`] serves a file of a directory, read again on every read (edit it
//! while the server runs). The path is relative, without `..`, and must resolve to a
//! regular file inside the directory, checked when the view is made and again on every
//! read: a symbolic link pointing out of the directory, even one planted later, serves
//! nothing. Files are read with blocking calls on the task serving the request (the crate
//! starts no thread).
//!
//! # Not here
//!
//! What happens in the host and in the view (the sandbox, `ui/*` messages between them,
//! keeping app-only tools from the model, enforcing the content security policy) is the
//! host's. The deprecated flat `_meta["ui/resourceUri"]` is read (a tool carrying it, set
//! with [`Tool::meta`](crate::Tool::meta), counts as linked) and never written.

mod error;
mod file;
mod offer;
mod text;

#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;

pub use error::{BrokenUiLink, UiError};
use mcp_types::{
    McpUiResourceCsp, McpUiResourceMeta, McpUiResourcePermissions, McpUiToolMeta,
    McpUiToolVisibility, Meta, ReadResourceResult, ResourceContents, TextResourceContents,
    UI_META_KEY, UI_MIME_TYPE, is_ui_uri,
};

pub(crate) use error::broken_links_text;
pub(crate) use offer::{check_links, extension, has_ui, plain_definition};

use crate::builder::ServerBuilder;
use crate::context::Context;
use crate::error::{HandlerError, Result};
use crate::handler::BoxFuture;
use crate::resource::{IntoReadResult, Resource};
use crate::tool::Tool;
use file::DirFile;

/// Makes a view's contents for one read.
type RenderFn =
    Arc<dyn Fn(Context) -> BoxFuture<Result<ReadResourceResult, HandlerError>> + Send + Sync>;

/// Where a view's HTML comes from.
#[derive(Clone)]
enum Source {
    Html(Arc<str>),
    File(DirFile),
    Dynamic(RenderFn),
}

impl Source {
    /// The contents of `uri` for the read of `cx`.
    fn read(&self, uri: &str, cx: Context) -> BoxFuture<Result<ReadResourceResult, HandlerError>> {
        match self {
            Source::Html(html) => {
                let contents = html_contents(uri, html.to_string());
                Box::pin(std::future::ready(Ok(contents)))
            }
            Source::File(file) => {
                let (file, uri) = (file.clone(), uri.to_owned());
                Box::pin(async move {
                    let html = file.read().map_err(HandlerError::new)?;
                    Ok(html_contents(&uri, html))
                })
            }
            Source::Dynamic(render) => render(cx),
        }
    }
}

fn html_contents(uri: &str, html: String) -> ReadResourceResult {
    let mut contents = TextResourceContents::new(uri, html);
    contents.mime_type = Some(UI_MIME_TYPE.to_owned());
    ReadResourceResult::new(vec![contents.into()])
}

/// Gives every content the view's MIME type and, unless it has its own, the view's
/// `_meta.ui`.
fn stamp(result: &mut ReadResourceResult, ui: &McpUiResourceMeta) {
    for contents in &mut result.contents {
        let (mime_type, meta) = match contents {
            ResourceContents::Text(c) => (&mut c.mime_type, &mut c.meta),
            ResourceContents::Blob(c) => (&mut c.mime_type, &mut c.meta),
            _ => continue,
        };
        *mime_type = Some(UI_MIME_TYPE.to_owned());
        if !ui.is_empty() && !meta.as_ref().is_some_and(|m| m.contains_key(UI_META_KEY)) {
            ui.write(meta.get_or_insert_with(Meta::new));
        }
    }
}

/// A view of the MCP Apps extension: an HTML document at a `ui://` URI, served as
/// `text/html;profile=mcp-app` with its `_meta.ui`. Give it to
/// [`ServerBuilder::ui_resource`], or make it a [`Resource`] with
/// [`into_resource`](Self::into_resource) to add it to a running server.
#[derive(Clone)]
pub struct UiResource {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    meta: McpUiResourceMeta,
    source: Source,
}

impl fmt::Debug for UiResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.source {
            Source::Html(html) => format!("{} bytes of HTML", html.len()),
            Source::File(file) => format!("file {}", file.name()),
            Source::Dynamic(_) => "rendered per read".to_owned(),
        };
        f.debug_struct("UiResource")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .field("meta", &self.meta)
            .field("source", &source)
            .finish_non_exhaustive()
    }
}

/// `uri`, if it is a `ui://` URI.
fn ui_uri(uri: String) -> Result<String> {
    if is_ui_uri(&uri) {
        Ok(uri)
    } else {
        Err(UiError::NotUiUri { uri }.into())
    }
}

impl UiResource {
    fn with_source(uri: String, name: String, source: Source) -> Self {
        UiResource {
            uri,
            name,
            title: None,
            description: None,
            meta: McpUiResourceMeta::default(),
            source,
        }
    }

    /// The view `html`, fixed.
    ///
    /// # Errors
    ///
    /// [`Error::Ui`](crate::Error::Ui) ([`UiError::NotUiUri`]) when `uri` is not a `ui://`
    /// URI.
    pub fn html(
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
    ) -> Result<Self> {
        let source = Source::Html(html.into().into());
        Ok(Self::with_source(ui_uri(uri.into())?, name.into(), source))
    }

    /// The view in the file `file` (a path relative to `dir`), read on every read (see
    /// [Views from files](crate::apps#views-from-files)).
    ///
    /// ```
    /// use mcp_server::apps::{UiError, UiResource};
    /// use mcp_server::Error;
    ///
    /// let dir = std::env::temp_dir();
    /// let refused = UiResource::file("ui://x/view", "view", &dir, "../etc/passwd").unwrap_err();
    /// assert!(matches!(refused, Error::Ui(UiError::PathOutsideDir { .. })));
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Ui`](crate::Error::Ui): `uri` is not a `ui://` URI; `file` is absolute or has
    /// `..`; it resolves outside `dir`, is not a regular file, or cannot be read.
    pub fn file(
        uri: impl Into<String>,
        name: impl Into<String>,
        dir: impl AsRef<Path>,
        file: impl AsRef<Path>,
    ) -> Result<Self> {
        let uri = ui_uri(uri.into())?;
        let file = DirFile::new(dir.as_ref(), file.as_ref())?;
        Ok(Self::with_source(uri, name.into(), Source::File(file)))
    }

    /// The view that `render` makes for each read, from the request's [`Context`] (its
    /// state, its client): anything implementing [`IntoReadResult`], such as a `String` of
    /// HTML or a `Result` of one (an error is sent as a JSON-RPC error).
    ///
    /// ```
    /// use mcp_server::apps::UiResource;
    /// use mcp_server::Context;
    ///
    /// # fn main() -> mcp_server::Result<()> {
    /// let view = UiResource::dynamic("ui://hello/view", "Hello", |cx: Context| async move {
    ///     let who = cx.client_info().map(|c| c.name.clone()).unwrap_or_default();
    ///     format!("<!DOCTYPE html><p>Hello, {who}!</p>")
    /// })?;
    /// # let _ = view;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Ui`](crate::Error::Ui) ([`UiError::NotUiUri`]) when `uri` is not a `ui://`
    /// URI.
    pub fn dynamic<F, Fut, R>(
        uri: impl Into<String>,
        name: impl Into<String>,
        render: F,
    ) -> Result<Self>
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        let uri = ui_uri(uri.into())?;
        let target = uri.clone();
        let render: RenderFn = Arc::new(move |cx| {
            let rendered = render(cx);
            let target = target.clone();
            Box::pin(async move { rendered.await.into_read_result(&target, Some(UI_MIME_TYPE)) })
        });
        Ok(Self::with_source(uri, name.into(), Source::Dynamic(render)))
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the origins the view may reach (`_meta.ui.csp`); without, the host allows none.
    #[must_use]
    pub fn csp(mut self, csp: McpUiResourceCsp) -> Self {
        self.meta.csp = Some(csp);
        self
    }

    /// Sets the browser permissions the view asks for (`_meta.ui.permissions`).
    #[must_use]
    pub fn permissions(mut self, permissions: McpUiResourcePermissions) -> Self {
        self.meta.permissions = Some(permissions);
        self
    }

    /// Sets the dedicated origin of the view's sandbox (`_meta.ui.domain`), in the form the
    /// host documents.
    #[must_use]
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.meta.domain = Some(domain.into());
        self
    }

    /// Sets whether the host should draw a border around the view (`_meta.ui.prefersBorder`).
    #[must_use]
    pub fn prefers_border(mut self, prefers_border: bool) -> Self {
        self.meta.prefers_border = Some(prefers_border);
        self
    }

    /// Sets the whole `_meta.ui` at once (replacing what the setters above set).
    #[must_use]
    pub fn ui_meta(mut self, meta: McpUiResourceMeta) -> Self {
        self.meta = meta;
        self
    }

    /// The view's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The view as a [`Resource`]: its MIME type and `_meta.ui` on the definition, and on
    /// the contents of every read.
    pub fn into_resource(self) -> Resource {
        let UiResource {
            uri,
            name,
            title,
            description,
            meta,
            source,
        } = self;
        let ui = Arc::new(meta.clone());
        let target = uri.clone();
        let mut resource = Resource::new(uri, name, move |cx: Context| {
            let read = source.read(&target, cx);
            let ui = ui.clone();
            async move {
                let mut result = read.await?;
                stamp(&mut result, &ui);
                Ok::<_, HandlerError>(result)
            }
        })
        .mime_type(UI_MIME_TYPE);
        if let Some(title) = title {
            resource = resource.title(title);
        }
        if let Some(description) = description {
            resource = resource.description(description);
        }
        if !meta.is_empty() {
            let mut definition_meta = Meta::new();
            meta.write(&mut definition_meta);
            resource = resource.meta(definition_meta);
        }
        resource
    }
}

impl ServerBuilder {
    /// Serves the view `ui` (feature `apps`; see [`crate::apps`]), which tools link with
    /// [`Tool::ui`]. The server then declares the MCP Apps extension.
    #[must_use]
    pub fn ui_resource(self, ui: UiResource) -> Self {
        self.resource(ui.into_resource())
    }
}

impl Tool {
    /// Links the view at `resource_uri` (feature `apps`; see [`crate::apps`]): the host
    /// renders the tool's results with it. Sets `_meta.ui.resourceUri` (call it after
    /// [`meta`](Self::meta), which replaces the whole `_meta`); the server's build checks
    /// that the view is served. The tool's results always carry text: one is added from
    /// `structuredContent` when they have none, and a result with neither becomes an error.
    #[must_use]
    pub fn ui(mut self, resource_uri: impl Into<String>) -> Self {
        self.set_ui(|ui| ui.resource_uri = Some(resource_uri.into()));
        let name: Arc<str> = self.name().into();
        self.wrap_service(|service| text::ensure_text(service, name))
    }

    /// Who may call the tool (feature `apps`; `_meta.ui.visibility`): by default the model
    /// and the app. A tool for the view alone (`[McpUiToolVisibility::App]`) is offered only
    /// to clients that declared the extension.
    #[must_use]
    pub fn ui_visibility(
        mut self,
        visibility: impl IntoIterator<Item = McpUiToolVisibility>,
    ) -> Self {
        let visibility = visibility.into_iter().collect();
        self.set_ui(|ui| ui.visibility = Some(visibility));
        self
    }

    /// Changes the tool's `_meta.ui` with `change`.
    fn set_ui(&mut self, change: impl FnOnce(&mut McpUiToolMeta)) {
        let meta = self.definition_mut().meta.get_or_insert_with(Meta::new);
        let mut ui = McpUiToolMeta::from_meta(meta).unwrap_or_default();
        change(&mut ui);
        ui.write(meta);
    }
}
