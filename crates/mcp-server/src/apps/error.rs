//! [`UiError`]: why a view is not served; [`BrokenUiLink`]: a tool linking a view the server
//! does not serve.

use std::fmt::Write as _;

/// Why a view ([`UiResource`](crate::apps::UiResource)) cannot be made or read. Each names
/// the URI or the file and what is wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UiError {
    /// The URI does not use the `ui://` scheme every view must use.
    #[error("{uri:?} is not a ui:// URI")]
    NotUiUri {
        /// The URI given.
        uri: String,
    },
    /// The file's path is absolute or climbs out of the directory (`..`).
    #[error("{path}: not a path inside the directory (relative, without `..`)")]
    PathOutsideDir {
        /// The path given.
        path: String,
    },
    /// The file resolves (through a symbolic link) to a place outside the directory.
    #[error("{path}: resolves outside the directory")]
    OutsideDir {
        /// The path given.
        path: String,
    },
    /// The file is not a regular file.
    #[error("{path}: not a regular file")]
    NotAFile {
        /// The path given.
        path: String,
    },
    /// The directory or the file cannot be read.
    #[error("{path}: cannot be read")]
    Read {
        /// The path given (the directory's, or the file's within it).
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A tool linking a view that is not served, as
/// [`Error::BrokenUiLinks`](crate::Error::BrokenUiLinks) lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BrokenUiLink {
    /// The tool's name.
    pub tool: String,
    /// The URI in its `_meta.ui.resourceUri`.
    pub uri: String,
    /// What is wrong: not a `ui://` URI, or no resource of the server has it.
    pub reason: &'static str,
}

/// The text of [`Error::BrokenUiLinks`](crate::Error::BrokenUiLinks).
pub(crate) fn broken_links_text(links: &[BrokenUiLink]) -> String {
    let mut text = String::from("tools link views the server does not serve: ");
    for (i, link) in links.iter().enumerate() {
        if i > 0 {
            text.push_str("; ");
        }
        let _ = write!(
            text,
            "tool {:?} links {:?} ({})",
            link.tool, link.uri, link.reason
        );
    }
    text.push_str("; give each view to ServerBuilder::ui_resource");
    text
}
