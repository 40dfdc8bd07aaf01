//! Errors: the crate's [`Error`], and [`HandlerError`] for handlers that mix error types.

use std::any::Any;
use std::fmt;
use std::time::Duration;

use mcp_types::{ErrorCode, ErrorObject};

/// A boxed error, as carried by [`Error::Transport`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while serving a session or talking to the client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A JSON-RPC error: the client answered a request with one, or a handler wants this
    /// exact error sent as the response (see [`Error::resource_not_found`]).
    #[error("json-rpc error: {0}")]
    Rpc(ErrorObject),
    /// The transport failed.
    #[error("transport error")]
    Transport(#[source] BoxError),
    /// The connection is closed.
    #[error("connection closed: {reason}")]
    Closed {
        /// Why the connection closed.
        reason: String,
    },
    /// A request to the client got no answer in time (it was cancelled on the client).
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// The client did not declare the capability this call needs; nothing was sent.
    #[error("the client did not declare the {0} capability")]
    CapabilityNotDeclared(&'static str),
    /// The negotiated protocol version lacks this feature; nothing was sent.
    #[error("{feature} is not available in protocol version {version}")]
    NotInProtocolVersion {
        /// The feature, e.g. `"url-mode elicitation"`.
        feature: &'static str,
        /// The negotiated version.
        version: mcp_types::ProtocolVersion,
    },
    /// The handler needs input from the client first (protocol revision 2026-07-28). Return it
    /// with `?` from the handler: the router answers with an `InputRequiredResult` and the
    /// client retries the call with the answers.
    #[error("input required from the client")]
    InputRequired,
    /// [`Context::report_progress`](crate::Context::report_progress) was called with a
    /// progress value that does not increase; nothing was sent.
    #[error("progress must increase: {progress} does not exceed {last}")]
    ProgressNotIncreasing {
        /// The rejected value.
        progress: f64,
        /// The last value sent.
        last: f64,
    },
    /// A tool's raw JSON Schema is not a valid schema.
    #[error("invalid json schema for tool {tool}: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong with the schema.
        message: String,
    },
    /// A resource template is not a valid RFC 6570 URI template.
    #[error("invalid uri template {template:?}: {message}")]
    InvalidUriTemplate {
        /// The template.
        template: String,
        /// What is wrong with it.
        message: String,
    },
    /// JSON could not be encoded or decoded.
    #[error("invalid json")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// The -32002 "resource not found" error with `{"uri": uri}` as data, to return from a
    /// resource handler.
    pub fn resource_not_found(uri: &str) -> Self {
        Error::Rpc(resource_not_found(uri))
    }

    /// A JSON-RPC error with `code` and `message`, sent as is when returned from a resource,
    /// prompt or completion handler.
    pub fn rpc(code: i32, message: impl Into<String>) -> Self {
        Error::Rpc(ErrorObject::new(ErrorCode(code), message))
    }
}

pub(crate) fn resource_not_found(uri: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
        .with_data(serde_json::json!({ "uri": uri }))
}

impl From<mcp_jsonrpc::Error> for Error {
    fn from(e: mcp_jsonrpc::Error) -> Self {
        match e {
            mcp_jsonrpc::Error::Rpc(obj) => Error::Rpc(from_wire(obj)),
            mcp_jsonrpc::Error::Timeout(d) => Error::Timeout(d),
            mcp_jsonrpc::Error::Closed { reason } => Error::Closed { reason },
            mcp_jsonrpc::Error::Transport(e) => Error::Transport(e),
            mcp_jsonrpc::Error::Decode(e) => Error::Json(e),
            other => Error::Transport(Box::new(other)),
        }
    }
}

/// `mcp_jsonrpc::ErrorObject` -> `mcp_types::ErrorObject` (the two crates are siblings and
/// each has its own copy of the wire error).
pub(crate) fn from_wire(e: mcp_jsonrpc::ErrorObject) -> ErrorObject {
    ErrorObject {
        code: ErrorCode(e.code.0),
        message: e.message,
        data: e.data,
    }
}

/// `mcp_types::ErrorObject` -> `mcp_jsonrpc::ErrorObject`.
pub(crate) fn to_wire(e: ErrorObject) -> mcp_jsonrpc::ErrorObject {
    mcp_jsonrpc::ErrorObject {
        code: mcp_jsonrpc::ErrorCode(e.code.0),
        message: e.message,
        data: e.data,
    }
}

/// The error type for handlers that use `?` on several error types, like `anyhow::Error`.
///
/// Any `std::error::Error + Send + Sync + 'static` converts into it, so `?` works on IO
/// errors, serde errors and this crate's [`Error`] alike; [`HandlerError::msg`] makes one
/// from a message. An [`Error::InputRequired`] inside is recognised by the router (and so is
/// an [`Error::Rpc`] returned from a resource, prompt or completion handler).
///
/// ```
/// use mcp_server::HandlerError;
///
/// fn parse(s: &str) -> Result<i64, HandlerError> {
///     if s.is_empty() {
///         return Err(HandlerError::msg("empty input"));
///     }
///     Ok(s.parse::<i64>()?)
/// }
/// assert_eq!(parse("7").unwrap(), 7);
/// assert_eq!(parse("").unwrap_err().to_string(), "empty input");
/// assert_eq!(parse("x").unwrap_err().to_string(), "invalid digit found in string");
/// ```
pub struct HandlerError(BoxError);

impl HandlerError {
    /// An error with this message.
    pub fn msg(message: impl fmt::Display) -> Self {
        HandlerError(message.to_string().into())
    }

    /// The inner error.
    pub fn into_inner(self) -> BoxError {
        self.0
    }

    /// The inner error, if it is this crate's [`Error`].
    pub fn as_mcp_error(&self) -> Option<&Error> {
        self.0.downcast_ref::<Error>()
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for HandlerError {
    fn from(e: E) -> Self {
        HandlerError(Box::new(e))
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Finds this crate's [`Error`] inside a handler's error value, whatever its type: the error
/// itself, a [`HandlerError`], or a boxed error.
pub(crate) fn find_mcp_error<E: Any>(e: &E) -> Option<&Error> {
    let any = e as &dyn Any;
    if let Some(e) = any.downcast_ref::<Error>() {
        return Some(e);
    }
    if let Some(e) = any.downcast_ref::<HandlerError>() {
        return e.as_mcp_error();
    }
    if let Some(e) = any.downcast_ref::<BoxError>() {
        return e.downcast_ref::<Error>();
    }
    None
}

/// How a handler's error reaches the wire for resources, prompts and completion: an
/// [`Error::Rpc`] as is, [`Error::InputRequired`] for the router, anything else -32603.
pub(crate) fn handler_error<E: fmt::Display + Any>(e: E) -> Error {
    match find_mcp_error(&e) {
        Some(Error::Rpc(obj)) => Error::Rpc(obj.clone()),
        Some(Error::InputRequired) => Error::InputRequired,
        _ => Error::Rpc(ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_crate_error_through_wrappers() {
        let e: HandlerError = Error::InputRequired.into();
        assert!(matches!(find_mcp_error(&e), Some(Error::InputRequired)));
        let b: BoxError = Box::new(Error::InputRequired);
        assert!(matches!(find_mcp_error(&b), Some(Error::InputRequired)));
        assert!(find_mcp_error(&"text").is_none());
        let rpc = handler_error(Error::resource_not_found("x://y"));
        assert!(matches!(rpc, Error::Rpc(o) if o.code == ErrorCode::RESOURCE_NOT_FOUND));
        let other = handler_error("boom".to_owned());
        assert!(
            matches!(other, Error::Rpc(o) if o.code == ErrorCode::INTERNAL_ERROR && o.message == "boom")
        );
    }

    #[test]
    fn display_is_lowercase_without_period() {
        assert_eq!(
            Error::CapabilityNotDeclared("sampling").to_string(),
            "the client did not declare the sampling capability"
        );
    }
}
