//! A view read from a file, never from outside the directory it was given.

use std::path::{Component, Path, PathBuf};

use super::error::UiError;

/// A file inside a directory: the directory (resolved when given) and the file's path in it.
#[derive(Debug, Clone)]
pub(crate) struct DirFile {
    dir: PathBuf,
    file: PathBuf,
}

impl DirFile {
    /// `file` inside `dir`, checked now as [`read`](Self::read) checks it: `file` is relative
    /// without `..`, and names a regular file that resolves inside `dir`.
    pub(crate) fn new(dir: &Path, file: &Path) -> Result<Self, UiError> {
        let inside = file
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
            && file.components().any(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(UiError::PathOutsideDir {
                path: file.display().to_string(),
            });
        }
        let dir = dir.canonicalize().map_err(|source| UiError::Read {
            path: dir.display().to_string(),
            source,
        })?;
        let file = DirFile {
            dir,
            file: file.to_path_buf(),
        };
        file.resolve()?;
        Ok(file)
    }

    /// The file's path as given, for messages.
    pub(crate) fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// The file's real path, if it is a regular file inside the directory.
    fn resolve(&self) -> Result<PathBuf, UiError> {
        let path = self.name();
        let real = self
            .dir
            .join(&self.file)
            .canonicalize()
            .map_err(|source| UiError::Read {
                path: path.clone(),
                source,
            })?;
        if !real.starts_with(&self.dir) {
            return Err(UiError::OutsideDir { path });
        }
        if !real.is_file() {
            return Err(UiError::NotAFile { path });
        }
        Ok(real)
    }

    /// The file's text, read now (a blocking read, on the task serving the request: the
    /// crate starts no thread), after checking again where it resolves, so that a link
    /// planted since construction serves nothing.
    pub(crate) fn read(&self) -> Result<String, UiError> {
        let real = self.resolve()?;
        std::fs::read_to_string(real).map_err(|source| UiError::Read {
            path: self.name(),
            source,
        })
    }
}
