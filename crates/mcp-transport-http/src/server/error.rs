//! The server's [`Error`].

/// The result type of the server half.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong on the server side.
///
/// HTTP-level rejections (403, 404, 406, …) are not errors of this type: they are answered on
/// the wire and never reach the caller. This type is what [`HttpSessionTransport`] returns to
/// the connection driving it, and what the runner returns when it cannot bind or serve.
///
/// [`HttpSessionTransport`]: super::HttpSessionTransport
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session has ended (DELETE, idle expiry, [`SessionHandle::end`], or the stateless
    /// request it served is done); start a new one.
    ///
    /// [`SessionHandle::end`]: super::SessionHandle::end
    #[error("session closed")]
    SessionClosed,
    /// An outbound message could not be serialized (only [`Message::Invalid`] cannot).
    ///
    /// [`Message::Invalid`]: mcp_jsonrpc::Message::Invalid
    #[error("failed to serialize a message")]
    Encode(#[source] serde_json::Error),
    /// Binding or accepting failed.
    #[error("i/o error")]
    Io(#[from] std::io::Error),
}
