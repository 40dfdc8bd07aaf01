//! Errors: the crate's [`Error`], [`HandlerError`] for handlers that mix error types, the
//! [`IntoHandlerError`] conversion, and how any of them reaches the wire.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use mcp_types::{Era, ErrorCode, ErrorObject, ProtocolVersion};

/// A boxed error, as carried by [`Error::Transport`] and returned by middleware services.
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while serving a session or talking to the client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A JSON-RPC error: the client answered a request with one, or a handler wants this
    /// exact error sent as the response (see [`Error::rpc`]).
    #[error("json-rpc error: {0}")]
    Rpc(ErrorObject),
    /// The resource does not exist. Sent as -32002 with `{"uri": uri}` as data up to protocol
    /// revision 2025-11-25, and as -32602 with the same data from 2026-07-28 on.
    #[error("resource not found: {uri}")]
    ResourceNotFound {
        /// The URI that was asked for.
        uri: String,
    },
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
    /// The client did not declare the capability this call needs; nothing was sent. On
    /// 2026-07-28 a request that fails with it is answered -32021 with the capability in
    /// `data.requiredCapabilities` (its path, like `elicitation.form`, as nested objects).
    #[error("the client did not declare the {0} capability")]
    CapabilityNotDeclared(&'static str),
    /// An HTTP header of a 2026-07-28 request does not match its body (for example an
    /// `Mcp-Param-*` header and the tool argument it mirrors); sent as -32020.
    #[error("header mismatch: {0}")]
    HeaderMismatch(String),
    /// The negotiated protocol version lacks this feature; nothing was sent.
    #[error("{feature} is not available in protocol version {version}")]
    NotInProtocolVersion {
        /// The feature, e.g. `"url-mode elicitation"`.
        feature: &'static str,
        /// The negotiated version.
        version: ProtocolVersion,
    },
    /// The handler needs input from the client first (protocol revision 2026-07-28). Return it
    /// with `?` from the handler: the router answers with an `InputRequiredResult` and the
    /// client retries the call with the answers.
    #[error("input required from the client")]
    InputRequired,
    /// A handler takes [`State<T>`](crate::State) but no `T` was given to
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    #[error("no state of type {0} was given to ServerBuilder::state")]
    MissingState(&'static str),
    /// Handlers take [`State<T>`](crate::State) of types the builder was not given: found
    /// by [`ServerBuilder::try_build`](crate::ServerBuilder::try_build) (and
    /// [`build`](crate::ServerBuilder::build), which panics with this text) before the server
    /// serves anything.
    #[error("{}", crate::extract::states_not_given_text(.0))]
    StatesNotGiven(Vec<crate::extract::StateNotGiven>),
    /// A handler takes [`Extension<T>`](crate::Extension) but the transport attached no `T`
    /// to the request.
    #[error("the request carries no extension of type {0}")]
    MissingExtension(&'static str),
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
    /// A skill could not be served (feature `skills`): registration or reload found a file
    /// or a skill that breaks a rule of the Skills extension or a limit.
    #[cfg(feature = "skills")]
    #[error("skill not served")]
    Skill(#[from] crate::skills::SkillError),
    /// A view of the MCP Apps extension could not be made (feature `apps`): its URI is not a
    /// `ui://` URI, or its file is not a readable file inside the directory given.
    #[cfg(feature = "apps")]
    #[error("ui resource not served")]
    Ui(#[from] crate::apps::UiError),
    /// Tools link views the server does not serve (feature `apps`): found by
    /// [`ServerBuilder::try_build`](crate::ServerBuilder::try_build) (and
    /// [`build`](crate::ServerBuilder::build), which panics with this text), naming each tool
    /// and the URI it links.
    #[cfg(feature = "apps")]
    #[error("{}", crate::apps::broken_links_text(.0))]
    BrokenUiLinks(Vec<crate::apps::BrokenUiLink>),
}

impl Error {
    /// The "resource not found" error, to return from a resource handler: -32002 with
    /// `{"uri": uri}` as data (-32602 from protocol revision 2026-07-28 on).
    pub fn resource_not_found(uri: impl Into<String>) -> Self {
        Error::ResourceNotFound { uri: uri.into() }
    }

    /// A JSON-RPC error with `code` and `message`, sent as is when returned from a handler
    /// (from a tool: only by middleware; see [`IntoToolResult`](crate::IntoToolResult)).
    pub fn rpc(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        Error::Rpc(ErrorObject::new(code, message))
    }

    /// Whether this is [`Error::InputRequired`]: a handler that catches the errors of
    /// [`Context::sample`](crate::Context::sample) and its siblings must pass this one on (it
    /// is how a 2026-07-28 request asks for input, not a failure).
    pub fn is_input_required(&self) -> bool {
        matches!(self, Error::InputRequired)
    }

    /// -32601 "method not found" for `method`, e.g. from a
    /// [fallback](crate::ServerBuilder::fallback) that does not serve it either.
    pub fn method_not_found(method: &str) -> Self {
        Error::Rpc(ErrorObject::method_not_found(method))
    }

    /// -32602 "invalid params" with `message`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Error::Rpc(ErrorObject::invalid_params(message))
    }
}

impl From<ErrorObject> for Error {
    fn from(e: ErrorObject) -> Self {
        Error::Rpc(e)
    }
}

impl From<mcp_jsonrpc::Error> for Error {
    fn from(e: mcp_jsonrpc::Error) -> Self {
        match e {
            mcp_jsonrpc::Error::Rpc(obj) => Error::Rpc(obj),
            mcp_jsonrpc::Error::Timeout(d) => Error::Timeout(d),
            mcp_jsonrpc::Error::Closed { reason } => Error::Closed { reason },
            mcp_jsonrpc::Error::Transport(e) => Error::Transport(e),
            mcp_jsonrpc::Error::Decode(e) => Error::Json(e),
            other => Error::Transport(Box::new(other)),
        }
    }
}

/// The error type for handlers that use `?` on several error types.
///
/// Any `std::error::Error + Send + Sync + 'static` converts into it, so `?` works on IO
/// errors, serde errors and this crate's [`Error`] alike; [`HandlerError::msg`] makes one
/// from a message. An [`Error`] anywhere in its source chain keeps its meaning: an
/// [`Error::resource_not_found`] wrapped in it still reaches the client as "resource not
/// found", an [`Error::InputRequired`] still asks the client for input.
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
    /// Wraps an error (its source chain is kept).
    pub fn new(error: impl StdError + Send + Sync + 'static) -> Self {
        HandlerError(Box::new(error))
    }

    /// An error with this message.
    pub fn msg(message: impl fmt::Display) -> Self {
        HandlerError(message.to_string().into())
    }

    /// The inner error.
    pub fn into_inner(self) -> BoxError {
        self.0
    }

    /// This crate's [`Error`], if the inner error is one or has one in its source chain.
    pub fn as_mcp_error(&self) -> Option<&Error> {
        find_mcp_error(&*self.0)
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for HandlerError {
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

/// How a handler's error type becomes a [`HandlerError`], keeping what it means on the wire.
///
/// The error of a handler's `Result` must implement this trait. It is implemented for this
/// crate's [`Error`] and [`HandlerError`], for [`ErrorObject`] (sent as is), `String` and
/// `&'static str` (a message), boxed errors, the standard library's common errors,
/// `serde_json::Error`, `Infallible`, and `anyhow::Error` with the `anyhow` feature. An
/// [`Error`] found anywhere in the source chain keeps its JSON-RPC code: an `anyhow::Error`
/// made from [`Error::resource_not_found`], with or without added context, is still sent as
/// "resource not found".
///
/// Implement it for your own error type to choose what each variant becomes; an error that
/// should just be an error with its message, or keeps an [`Error`] in its source chain, is
/// `HandlerError::new(self)`:
///
/// ```
/// use mcp_server::{Error, HandlerError, IntoHandlerError};
///
/// #[derive(Debug, thiserror::Error)]
/// enum StoreError {
///     #[error("no such key: {0}")]
///     Missing(String),
///     #[error(transparent)]
///     Io(#[from] std::io::Error),
/// }
///
/// impl IntoHandlerError for StoreError {
///     fn into_handler_error(self) -> HandlerError {
///         match self {
///             StoreError::Missing(key) => Error::resource_not_found(format!("store://{key}")).into(),
///             other => HandlerError::new(other),
///         }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler's error: it does not implement `IntoHandlerError`",
    label = "not a handler error",
    note = "for `anyhow::Error` (and `anyhow::Result`), turn on mcp-server's `anyhow` feature: \
            `features = [\"anyhow\"]` on the `mcp-rs-server` dependency",
    note = "any other error: return `Result<T, mcp_server::HandlerError>` and use `?` (every \
            `std::error::Error + Send + Sync + 'static` converts), or implement \
            `IntoHandlerError` for your error type"
)]
pub trait IntoHandlerError: Send + 'static {
    /// Converts the error.
    fn into_handler_error(self) -> HandlerError;
}

impl IntoHandlerError for HandlerError {
    fn into_handler_error(self) -> HandlerError {
        self
    }
}

impl IntoHandlerError for BoxError {
    fn into_handler_error(self) -> HandlerError {
        HandlerError(self)
    }
}

impl IntoHandlerError for String {
    fn into_handler_error(self) -> HandlerError {
        HandlerError(self.into())
    }
}

impl IntoHandlerError for &'static str {
    fn into_handler_error(self) -> HandlerError {
        HandlerError(self.into())
    }
}

impl IntoHandlerError for std::convert::Infallible {
    fn into_handler_error(self) -> HandlerError {
        match self {}
    }
}

/// `IntoHandlerError` for error types whose meaning is their message and source chain.
macro_rules! std_errors {
    ($($t:ty),* $(,)?) => {$(
        impl IntoHandlerError for $t {
            fn into_handler_error(self) -> HandlerError {
                HandlerError::new(self)
            }
        }
    )*};
}

std_errors!(
    Error,
    ErrorObject,
    serde_json::Error,
    std::io::Error,
    std::fmt::Error,
    std::num::ParseIntError,
    std::num::ParseFloatError,
    std::num::TryFromIntError,
    std::str::ParseBoolError,
    std::str::Utf8Error,
    std::string::FromUtf8Error,
    std::time::SystemTimeError,
);

#[cfg(feature = "anyhow")]
impl IntoHandlerError for anyhow::Error {
    fn into_handler_error(self) -> HandlerError {
        HandlerError::new(Anyhow(self))
    }
}

/// An `anyhow::Error` in a source chain. anyhow's own conversion to a boxed error hides the
/// error it was made from behind a private wrapper that downcasts to neither; here that error
/// is the source, so the chain walk finds an [`Error`] inside (and, past a `.context()`, the
/// context's source in turn).
#[cfg(feature = "anyhow")]
#[derive(Debug)]
struct Anyhow(anyhow::Error);

#[cfg(feature = "anyhow")]
impl fmt::Display for Anyhow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "anyhow")]
impl StdError for Anyhow {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.0)
    }
}

/// This crate's [`Error`] in `e` or its source chain.
pub(crate) fn find_mcp_error<'a>(e: &'a (dyn StdError + 'static)) -> Option<&'a Error> {
    let mut cur = Some(e);
    while let Some(e) = cur {
        if let Some(found) = e.downcast_ref::<Error>() {
            return Some(found);
        }
        cur = e.source();
    }
    None
}

/// Whether `e` asks the client for input ([`Error::InputRequired`] in its chain).
pub(crate) fn is_input_required(e: &(dyn StdError + 'static)) -> bool {
    matches!(find_mcp_error(e), Some(Error::InputRequired))
}

/// How an error reaches the wire at protocol `version`: an [`Error`] in the source chain by
/// its meaning ([`Error::Rpc`] as is, resource not found by the revision's code), an
/// [`ErrorObject`] in the chain as is, anything else -32603 with the error's message.
pub(crate) fn error_object(e: &(dyn StdError + 'static), version: &ProtocolVersion) -> ErrorObject {
    let mut cur = Some(e);
    while let Some(link) = cur {
        if let Some(found) = link.downcast_ref::<Error>() {
            return mcp_error_object(found, version);
        }
        if let Some(obj) = link.downcast_ref::<ErrorObject>() {
            return obj.clone();
        }
        cur = link.source();
    }
    ErrorObject::internal_error(e.to_string())
}

fn mcp_error_object(e: &Error, version: &ProtocolVersion) -> ErrorObject {
    let modern = version.era() == Era::Stateless;
    match e {
        Error::Rpc(obj) => obj.clone(),
        Error::HeaderMismatch(what) => ErrorObject::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Header mismatch: {what}"),
        ),
        Error::CapabilityNotDeclared(path) if modern => ErrorObject::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("Missing required client capability: {path}"),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": capability_object(path) })),
        Error::ResourceNotFound { uri } => {
            let code = match version.era() {
                Era::Stateful => ErrorCode::RESOURCE_NOT_FOUND,
                Era::Stateless => ErrorCode::INVALID_PARAMS,
            };
            ErrorObject::new(code, "Resource not found")
                .with_data(serde_json::json!({ "uri": uri }))
        }
        other => ErrorObject::internal_error(other.to_string()),
    }
}

/// `"elicitation.form"` as `{"elicitation": {"form": {}}}`.
fn capability_object(path: &str) -> serde_json::Value {
    path.rsplit('.').fold(
        serde_json::json!({}),
        |inner, name| serde_json::json!({ name: inner }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(e: impl IntoHandlerError, version: ProtocolVersion) -> ErrorObject {
        error_object(&*e.into_handler_error().into_inner(), &version)
    }

    #[test]
    fn an_error_keeps_its_code_through_wrappers() {
        let legacy = ProtocolVersion::V2025_11_25;
        let modern = ProtocolVersion::V2026_07_28;
        let direct = wire(Error::resource_not_found("x://y"), legacy.clone());
        assert_eq!(direct.code, ErrorCode::RESOURCE_NOT_FOUND);
        assert_eq!(direct.data, Some(serde_json::json!({"uri": "x://y"})));
        let wrapped: HandlerError = Error::resource_not_found("x://y").into();
        assert_eq!(wire(wrapped, legacy.clone()), direct);
        let boxed: BoxError = Box::new(Error::resource_not_found("x://y"));
        assert_eq!(wire(boxed, legacy.clone()), direct);
        let on_modern = wire(Error::resource_not_found("x://y"), modern);
        assert_eq!(on_modern.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(on_modern.data, direct.data);
        let custom = wire(ErrorObject::new(-31000, "custom"), legacy.clone());
        assert_eq!(custom.code, ErrorCode(-31000));
        let other = wire("boom", legacy);
        assert_eq!(other, ErrorObject::internal_error("boom"));
    }

    #[cfg(feature = "anyhow")]
    #[test]
    fn anyhow_keeps_the_code_in_both_eras() {
        use anyhow::Context as _;

        let made = || anyhow::Error::from(Error::resource_not_found("file:///x"));
        let with_context = || {
            Err::<(), _>(Error::resource_not_found("file:///x"))
                .context("reading x")
                .unwrap_err()
        };
        for e in [made(), with_context()] {
            let legacy = wire(e, ProtocolVersion::V2025_11_25);
            assert_eq!(legacy.code, ErrorCode::RESOURCE_NOT_FOUND);
            assert_eq!(legacy.data, Some(serde_json::json!({"uri": "file:///x"})));
        }
        for e in [made(), with_context()] {
            let modern = wire(e, ProtocolVersion::V2026_07_28);
            assert_eq!(modern.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(modern.data, Some(serde_json::json!({"uri": "file:///x"})));
        }
        let input = anyhow::Error::from(Error::InputRequired).context("asking");
        assert!(is_input_required(&*input.into_handler_error().into_inner()));
        let plain = wire(
            anyhow::anyhow!("disk on fire"),
            ProtocolVersion::V2025_11_25,
        );
        assert_eq!(plain, ErrorObject::internal_error("disk on fire"));
    }

    #[test]
    fn the_source_chain_is_searched() {
        #[derive(Debug, thiserror::Error)]
        #[error("while reading")]
        struct Reading(#[source] Error);
        let e: HandlerError = Reading(Error::InputRequired).into();
        assert!(is_input_required(&*e.into_inner()));
        let e: HandlerError = Reading(Error::resource_not_found("a:b")).into();
        assert!(matches!(
            e.as_mcp_error(),
            Some(Error::ResourceNotFound { .. })
        ));
        assert!(!is_input_required(&*HandlerError::msg("x").into_inner()));
    }

    #[test]
    fn missing_capabilities_are_named_on_the_modern_era() {
        let e = Error::CapabilityNotDeclared("elicitation.form");
        let modern = mcp_error_object(&e, &ProtocolVersion::V2026_07_28);
        assert_eq!(modern.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            modern.data,
            Some(serde_json::json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
        );
        let legacy = mcp_error_object(&e, &ProtocolVersion::V2025_11_25);
        assert_eq!(legacy.code, ErrorCode::INTERNAL_ERROR);
        let mismatch = mcp_error_object(
            &Error::HeaderMismatch("x".into()),
            &ProtocolVersion::V2026_07_28,
        );
        assert_eq!(mismatch.code, ErrorCode::HEADER_MISMATCH);
    }

    #[test]
    fn display_is_lowercase_without_period() {
        assert_eq!(
            Error::CapabilityNotDeclared("sampling").to_string(),
            "the client did not declare the sampling capability"
        );
        assert_eq!(
            Error::MissingState("app::Db").to_string(),
            "no state of type app::Db was given to ServerBuilder::state"
        );
    }
}
