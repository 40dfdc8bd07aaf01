//! Errors: the crate's [`Error`] and the wire-level [`ErrorObject`].

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// A JSON-RPC error code.
///
/// A newtype over `i32`, so any code (including application-defined ones) round-trips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received (-32700).
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON sent is not a valid request object (-32600).
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist or is not available (-32601).
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters (-32602).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal JSON-RPC error (-32603).
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
}

impl From<i32> for ErrorCode {
    fn from(code: i32) -> Self {
        ErrorCode(code)
    }
}

impl From<ErrorCode> for i32 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object with the given code and message and no data.
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        ErrorObject {
            code: code.into(),
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data` to the error.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// A -32700 parse error.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// A -32600 invalid request error.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// A -32601 error saying that `method` is unknown.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// A -32602 invalid params error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// A -32603 internal error.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_object_round_trips_custom_codes() {
        let e = ErrorObject::new(-32002, "resource not found")
            .with_data(serde_json::json!({"uri": "x"}));
        let s = serde_json::to_string(&e).unwrap();
        assert_eq!(
            s,
            r#"{"code":-32002,"message":"resource not found","data":{"uri":"x"}}"#
        );
        let back: ErrorObject = serde_json::from_str(&s).unwrap();
        assert_eq!(back, e);
        assert_eq!(i32::from(back.code), -32002);
    }

    #[test]
    fn display_is_lowercase_without_period() {
        let e = Error::Rpc(ErrorObject::method_not_found("x/y"));
        assert_eq!(
            e.to_string(),
            "peer returned an error: method not found: x/y (-32601)"
        );
    }
}
