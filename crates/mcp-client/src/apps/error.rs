//! [`AppError`]: why a view or a call from a view was refused.

/// Why the client refused a view, or a tool call made from a view (carried by
/// [`Error::App`](crate::Error::App)). Nothing is rendered or sent in any of these cases.
///
/// - **The view cannot be rendered** ([`NotUiUri`](Self::NotUiUri),
///   [`NoContents`](Self::NoContents), [`WrongMimeType`](Self::WrongMimeType),
///   [`NotText`](Self::NotText)): the server broke the extension's rules for its `ui://`
///   resource. Show the tool's result as text, as a host without the extension does.
/// - **The view may not make this call** ([`NotCallableByApp`](Self::NotCallableByApp),
///   [`UnknownTool`](Self::UnknownTool)): answer the view's `tools/call` with an error; the
///   call never reaches the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// A view URI that does not use the `ui://` scheme (the extension requires it); it was
    /// not read.
    #[error("the view URI {uri} is not a ui:// URI")]
    NotUiUri {
        /// The URI the tool named.
        uri: String,
    },
    /// `resources/read` of the view returned no contents for its URI.
    #[error("resources/read of the view {uri} returned no contents for that URI")]
    NoContents {
        /// The view's URI.
        uri: String,
    },
    /// The view's contents are not of the extension's MIME type,
    /// `text/html;profile=mcp-app`, so they are not an MCP App (no other type is defined).
    #[error("the view {uri} has MIME type {}, not text/html;profile=mcp-app", .mime_type.as_deref().unwrap_or("(none)"))]
    WrongMimeType {
        /// The view's URI.
        uri: String,
        /// The MIME type the contents carried, if any.
        mime_type: Option<String>,
    },
    /// The view's `blob` is not base64 of UTF-8 text, so it is no HTML document.
    #[error("the view {uri} is not HTML text: {reason}")]
    NotText {
        /// The view's URI.
        uri: String,
        /// What is wrong with the blob.
        reason: String,
    },
    /// A view asked to call a tool whose visibility does not include `"app"` (a model-only
    /// tool, or one whose `_meta.ui` does not decode).
    #[error("tool {name} may not be called by an app: its visibility does not include \"app\"")]
    NotCallableByApp {
        /// The tool's name.
        name: String,
    },
    /// A view asked to call a tool the server did not list (not in the [`AppTools`]
    /// given); refreshing the list may help if the server's tools changed.
    ///
    /// [`AppTools`]: super::AppTools
    #[error("tool {name} is not among the server's listed tools")]
    UnknownTool {
        /// The tool's name.
        name: String,
    },
}
