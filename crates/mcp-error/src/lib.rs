//! The JSON-RPC wire error of the Model Context Protocol SDK: [`ErrorObject`] (the `error`
//! member of a response) and [`ErrorCode`].
//!
//! It is its own crate so that the two leaves of the workspace, `mcp-types` (the protocol
//! types, no IO) and `mcp-jsonrpc` (the engine), share one type without depending on each
//! other. Both re-export it; depend on either of them rather than on this crate.
//!
//! ```
//! use mcp_error::{ErrorCode, ErrorObject};
//!
//! let e = ErrorObject::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
//!     .with_data(serde_json::json!({"uri": "file:///missing"}));
//! assert_eq!(
//!     serde_json::to_string(&e).unwrap(),
//!     r#"{"code":-32002,"message":"Resource not found","data":{"uri":"file:///missing"}}"#
//! );
//! // Custom codes round-trip unchanged.
//! let custom: ErrorObject = serde_json::from_str(r#"{"code":-31999,"message":"x"}"#).unwrap();
//! assert_eq!(custom.code, ErrorCode(-31999));
//! ```
//!
//! # Cargo features
//!
//! None; it depends on `serde` and `serde_json` only.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code. A newtype over `i32`, so custom codes round-trip unchanged; the
/// named constants are the ones JSON-RPC 2.0 and MCP define.
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
    /// Invalid method parameters (-32602; MCP also uses it for an unknown tool, an invalid
    /// cursor, a missing prompt argument, and from 2026-07-28 an unknown resource).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal error (-32603).
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// The requested resource does not exist (-32002, MCP up to 2025-11-25, with the `uri`
    /// in `data`).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// The request needs the user to complete a URL-mode elicitation first (-32042,
    /// 2025-11-25).
    pub const URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// An HTTP header does not match the message body (-32020, 2026-07-28).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// The request needs a client capability that it did not declare (-32021, 2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// The request's protocol version is not supported by the server (-32022, 2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code as a plain integer.
    pub const fn as_i32(self) -> i32 {
        self.0
    }
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
    /// What kind of error this is.
    pub code: ErrorCode,
    /// A short, single-sentence description.
    pub message: String,
    /// Extra information defined by the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with the given code and message and no data.
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        ErrorObject {
            code: code.into(),
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
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
    fn display_names_message_and_code() {
        assert_eq!(
            ErrorObject::method_not_found("x/y").to_string(),
            "method not found: x/y (-32601)"
        );
    }

    #[test]
    fn data_is_omitted_when_absent() {
        let e = ErrorObject::invalid_params("bad");
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"code":-32602,"message":"bad"}"#
        );
        let back: ErrorObject =
            serde_json::from_str(r#"{"code":-32602,"message":"bad","data":null}"#).unwrap();
        assert_eq!(back.data, None);
    }
}
