//! Errors: the crate's [`Error`], and the wire-level [`ErrorObject`] (shared with `mcp-types`
//! through the `mcp-error` crate).

use std::time::Duration;

pub use mcp_error::{ErrorCode, ErrorObject};

/// A boxed error, as carried by [`Error::Transport`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong with a JSON-RPC call or a connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer answered with a JSON-RPC error object.
    #[error("peer returned an error: {0}")]
    Rpc(ErrorObject),
    /// No response arrived in time; the request was cancelled on the peer.
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// The connection is closed (or closed while the request was pending).
    #[error("connection closed: {reason}")]
    Closed {
        /// Why the connection closed.
        reason: String,
    },
    /// The transport failed.
    #[error("transport error")]
    Transport(#[source] BoxError),
    /// JSON could not be encoded or decoded.
    #[error("invalid json")]
    Decode(#[from] serde_json::Error),
    /// A request was given (through [`RequestOptions::id`](crate::RequestOptions::id)) the id
    /// of a request still pending; it was not sent.
    #[error("request id {0} is already in use")]
    DuplicateId(crate::Id),
    /// The peer's response to the request could not be read (say, a malformed error
    /// object); the error says what was wrong with it.
    #[error("invalid response from the peer: {0}")]
    InvalidResponse(ErrorObject),
    /// A message exceeded the configured maximum size.
    #[error("message of {size} bytes exceeds the limit of {limit} bytes")]
    MessageTooLarge {
        /// The size of the message, in bytes.
        size: usize,
        /// The configured limit, in bytes.
        limit: usize,
    },
}

impl Error {
    pub(crate) fn closed(reason: impl Into<String>) -> Self {
        Error::Closed {
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_lowercase_without_period() {
        let e = Error::Rpc(ErrorObject::method_not_found("x/y"));
        assert_eq!(
            e.to_string(),
            "peer returned an error: method not found: x/y (-32601)"
        );
    }
}
