//! The aggregate message enums, one per direction, and the named error shapes of the schemas.
//!
//! [`ClientRequest`], [`ServerRequest`], [`ClientNotification`] and [`ServerNotification`] hold
//! the params of every method of every revision that travels in that direction, with one variant
//! per method marker. They decode from a method name and raw params with `from_parts`, which
//! tells an unknown method ([`MessageDecodeError::UnknownMethod`], answer `-32601`) from bad
//! params ([`MessageDecodeError::InvalidParams`], answer `-32602`). [`ServerResult`] and
//! [`ClientResult`] hold the matching results; a result carries no method, so they decode with
//! the method of the request they answer.
//!
//! Which methods a peer may use depends on the negotiated [`crate::ProtocolVersion`]; the enums
//! accept every revision's methods and leave that check to the caller.
//!
//! ```
//! use mcp_types::{ClientRequest, MessageDecodeError};
//!
//! let req = ClientRequest::from_value_parts(
//!     "tools/call",
//!     Some(serde_json::json!({"name": "echo", "arguments": {"text": "hi"}})),
//! )
//! .unwrap();
//! assert!(matches!(&req, ClientRequest::CallTool(p) if p.name == "echo"));
//! assert_eq!(req.method(), "tools/call");
//!
//! let err = ClientRequest::from_value_parts("tools/frobnicate", None).unwrap_err();
//! assert!(matches!(err, MessageDecodeError::UnknownMethod(_)));
//! ```

use std::fmt;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::tasks_extension::TaskChanged;
use crate::{
    CallTool, CancelTask, Cancelled, ClientCapabilities, Complete, CreateMessage, Discover, Elicit,
    ElicitRequestURLParams, ElicitationComplete, ErrorCode, ErrorObject, GetPrompt, GetTask,
    GetTaskPayload, Initialize, Initialized, InputRequiredResult, JsonObject, JsonRpcErrorResponse,
    ListPrompts, ListResourceTemplates, ListResources, ListRoots, ListTasks, ListTools,
    LoggingMessage, Notification, Ping, Progress, PromptListChanged, ReadResource, Request,
    ResourceListChanged, ResourceUpdated, ResultType, RootsListChanged, SetLevel, Subscribe,
    SubscriptionsAcknowledged, SubscriptionsListen, TaskStatusChanged, ToolListChanged,
    Unsubscribe,
};

/// Why a method name and params could not be decoded into one of the aggregate enums.
#[derive(Debug)]
#[non_exhaustive]
pub enum MessageDecodeError {
    /// No method of that name travels in this direction (answer with `-32601`).
    UnknownMethod(String),
    /// The method is known but its params (or result) do not fit (answer with `-32602`).
    InvalidParams {
        /// The method.
        method: &'static str,
        /// What did not fit.
        source: serde_json::Error,
    },
}

impl MessageDecodeError {
    /// The JSON-RPC error to answer a request with: `-32601` for an unknown method, `-32602`
    /// for invalid params.
    pub fn to_error_object(&self) -> ErrorObject {
        match self {
            MessageDecodeError::UnknownMethod(_) => {
                ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, self.to_string())
            }
            MessageDecodeError::InvalidParams { .. } => {
                ErrorObject::new(ErrorCode::INVALID_PARAMS, self.to_string())
            }
        }
    }
}

impl fmt::Display for MessageDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageDecodeError::UnknownMethod(m) => write!(f, "method not found: {m}"),
            MessageDecodeError::InvalidParams { method, source } => {
                write!(f, "invalid params for {method}: {source}")
            }
        }
    }
}

impl std::error::Error for MessageDecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MessageDecodeError::UnknownMethod(_) => None,
            MessageDecodeError::InvalidParams { source, .. } => Some(source),
        }
    }
}

fn decode_raw<T: DeserializeOwned>(
    method: &'static str,
    raw: Option<&RawValue>,
) -> Result<T, MessageDecodeError> {
    match raw {
        Some(raw) => serde_json::from_str(raw.get()),
        None => serde_json::from_value(Value::Object(JsonObject::new())),
    }
    .map_err(|source| MessageDecodeError::InvalidParams { method, source })
}

fn decode_value<T: DeserializeOwned>(
    method: &'static str,
    value: Option<Value>,
) -> Result<T, MessageDecodeError> {
    serde_json::from_value(value.unwrap_or_else(|| Value::Object(JsonObject::new())))
        .map_err(|source| MessageDecodeError::InvalidParams { method, source })
}

#[derive(Serialize)]
struct PartsOut<'a, P> {
    method: &'a str,
    params: &'a P,
}

#[derive(Deserialize)]
struct PartsIn {
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

/// Generates an aggregate enum over method markers (requests or notifications).
macro_rules! method_enum {
    (
        $(#[$meta:meta])*
        $name:ident: $trait:ident {
            $( $(#[$vmeta:meta])* $variant:ident ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        // Variants hold params inline: a message is decoded once and matched right away, so an
        // allocation per message would cost more than the size difference.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant(<$variant as $trait>::Params), )*
        }

        impl $name {
            /// Every method name this enum accepts.
            pub const METHODS: &'static [&'static str] = &[$( <$variant as $trait>::METHOD, )*];

            /// The method name.
            pub fn method(&self) -> &'static str {
                match self {
                    $( $name::$variant(_) => <$variant as $trait>::METHOD, )*
                }
            }

            /// Decodes params for `method`. Absent params decode as `{}`.
            pub fn from_parts(
                method: &str,
                params: Option<&RawValue>,
            ) -> Result<Self, MessageDecodeError> {
                match method {
                    $( <$variant as $trait>::METHOD =>
                        decode_raw(<$variant as $trait>::METHOD, params).map($name::$variant), )*
                    _ => Err(MessageDecodeError::UnknownMethod(method.to_owned())),
                }
            }

            /// Like [`Self::from_parts`], from an already parsed value.
            pub fn from_value_parts(
                method: &str,
                params: Option<Value>,
            ) -> Result<Self, MessageDecodeError> {
                match method {
                    $( <$variant as $trait>::METHOD =>
                        decode_value(<$variant as $trait>::METHOD, params).map($name::$variant), )*
                    _ => Err(MessageDecodeError::UnknownMethod(method.to_owned())),
                }
            }

            /// The params as JSON.
            pub fn params_value(&self) -> Result<Value, serde_json::Error> {
                match self {
                    $( $name::$variant(p) => serde_json::to_value(p), )*
                }
            }
        }

        /// Encodes as `{"method": ..., "params": ...}`.
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $name::$variant(p) =>
                        PartsOut { method: <$variant as $trait>::METHOD, params: p }.serialize(s), )*
                }
            }
        }

        /// Decodes `{"method": ..., "params": ...}`; other members (`jsonrpc`, `id`) are ignored.
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let parts = PartsIn::deserialize(d)?;
                $name::from_value_parts(&parts.method, parts.params).map_err(D::Error::custom)
            }
        }
    };
}

/// Generates an aggregate result enum over request markers.
macro_rules! result_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        // See `method_enum!` on why results are held inline.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant(<$variant as Request>::Result), )*
            /// The server needs more input first (2026-07-28; `resultType: "input_required"`).
            InputRequired(InputRequiredResult),
        }

        impl $name {
            /// Decodes the result of a request for `method`. A result whose `resultType` is
            /// `"input_required"` decodes as `InputRequired` whatever the method.
            pub fn from_parts(method: &str, result: &RawValue) -> Result<Self, MessageDecodeError> {
                let value: Value = serde_json::from_str(result.get()).map_err(|source| {
                    MessageDecodeError::InvalidParams { method: known_method(method), source }
                })?;
                $name::from_value_parts(method, value)
            }

            /// Like [`Self::from_parts`], from an already parsed value.
            pub fn from_value_parts(method: &str, result: Value) -> Result<Self, MessageDecodeError> {
                let input_required = result.get("resultType").and_then(Value::as_str)
                    == Some(ResultType::InputRequired.as_str());
                match method {
                    _ if input_required => decode_value(known_method(method), Some(result))
                        .map($name::InputRequired),
                    $( <$variant as Request>::METHOD =>
                        decode_value(<$variant as Request>::METHOD, Some(result))
                            .map($name::$variant), )*
                    _ => Err(MessageDecodeError::UnknownMethod(method.to_owned())),
                }
            }
        }

        /// Encodes the inner result unchanged.
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $name::$variant(r) => r.serialize(s), )*
                    $name::InputRequired(r) => r.serialize(s),
                }
            }
        }
    };
}

/// The `&'static` name of a method for error reports, or `"(unknown method)"`.
fn known_method(method: &str) -> &'static str {
    ClientRequest::METHODS
        .iter()
        .chain(ServerRequest::METHODS)
        .find(|m| **m == method)
        .copied()
        .unwrap_or("(unknown method)")
}

method_enum! {
    /// A request from client to server, any revision.
    ClientRequest: Request {
        /// `initialize` (up to 2025-11-25).
        Initialize,
        /// `ping` (up to 2025-11-25).
        Ping,
        /// `server/discover` (2026-07-28).
        Discover,
        /// `subscriptions/listen` (2026-07-28).
        SubscriptionsListen,
        /// `resources/list`.
        ListResources,
        /// `resources/templates/list`.
        ListResourceTemplates,
        /// `resources/read`.
        ReadResource,
        /// `resources/subscribe` (up to 2025-11-25).
        Subscribe,
        /// `resources/unsubscribe` (up to 2025-11-25).
        Unsubscribe,
        /// `prompts/list`.
        ListPrompts,
        /// `prompts/get`.
        GetPrompt,
        /// `tools/list`.
        ListTools,
        /// `tools/call`.
        CallTool,
        /// `logging/setLevel` (up to 2025-11-25).
        SetLevel,
        /// `completion/complete`.
        Complete,
        /// `tasks/get` (2025-11-25).
        GetTask,
        /// `tasks/result` (2025-11-25).
        GetTaskPayload,
        /// `tasks/list` (2025-11-25).
        ListTasks,
        /// `tasks/cancel` (2025-11-25).
        CancelTask,
    }
}

method_enum! {
    /// A request from server to client (up to 2025-11-25; in 2026-07-28 the server embeds
    /// these as [`crate::InputRequest`]s in an [`InputRequiredResult`] instead).
    ServerRequest: Request {
        /// `ping`.
        Ping,
        /// `sampling/createMessage`.
        CreateMessage,
        /// `roots/list`.
        ListRoots,
        /// `elicitation/create` (2025-06-18 and later).
        Elicit,
        /// `tasks/get` (2025-11-25).
        GetTask,
        /// `tasks/result` (2025-11-25).
        GetTaskPayload,
        /// `tasks/list` (2025-11-25).
        ListTasks,
        /// `tasks/cancel` (2025-11-25).
        CancelTask,
    }
}

method_enum! {
    /// A notification from client to server, any revision.
    ClientNotification: Notification {
        /// `notifications/cancelled`.
        Cancelled,
        /// `notifications/initialized` (up to 2025-11-25).
        Initialized,
        /// `notifications/progress` (up to 2025-11-25).
        Progress,
        /// `notifications/roots/list_changed` (up to 2025-11-25).
        RootsListChanged,
        /// `notifications/tasks/status` (2025-11-25).
        TaskStatusChanged,
    }
}

method_enum! {
    /// A notification from server to client, any revision.
    ServerNotification: Notification {
        /// `notifications/cancelled` (on 2026-07-28 only to end a `subscriptions/listen` stream
        /// on stdio).
        Cancelled,
        /// `notifications/progress`.
        Progress,
        /// `notifications/message`.
        LoggingMessage,
        /// `notifications/resources/updated`.
        ResourceUpdated,
        /// `notifications/resources/list_changed`.
        ResourceListChanged,
        /// `notifications/tools/list_changed`.
        ToolListChanged,
        /// `notifications/prompts/list_changed`.
        PromptListChanged,
        /// `notifications/elicitation/complete` (2025-11-25).
        ElicitationComplete,
        /// `notifications/tasks/status` (2025-11-25).
        TaskStatusChanged,
        /// `notifications/subscriptions/acknowledged` (2026-07-28).
        SubscriptionsAcknowledged,
        /// `notifications/tasks` (2026-07-28 tasks extension, on a `subscriptions/listen`
        /// stream that named the task).
        TaskChanged,
    }
}

result_enum! {
    /// The result of a [`ClientRequest`], sent by the server. Variants are named after the
    /// request they answer.
    ServerResult {
        /// Answer to `initialize`.
        Initialize,
        /// Answer to `ping`.
        Ping,
        /// Answer to `server/discover`.
        Discover,
        /// Answer to `subscriptions/listen`.
        SubscriptionsListen,
        /// Answer to `resources/list`.
        ListResources,
        /// Answer to `resources/templates/list`.
        ListResourceTemplates,
        /// Answer to `resources/read`.
        ReadResource,
        /// Answer to `resources/subscribe`.
        Subscribe,
        /// Answer to `resources/unsubscribe`.
        Unsubscribe,
        /// Answer to `prompts/list`.
        ListPrompts,
        /// Answer to `prompts/get`.
        GetPrompt,
        /// Answer to `tools/list`.
        ListTools,
        /// Answer to `tools/call`.
        CallTool,
        /// Answer to `logging/setLevel`.
        SetLevel,
        /// Answer to `completion/complete`.
        Complete,
        /// Answer to `tasks/get`.
        GetTask,
        /// Answer to `tasks/result`.
        GetTaskPayload,
        /// Answer to `tasks/list`.
        ListTasks,
        /// Answer to `tasks/cancel`.
        CancelTask,
    }
}

result_enum! {
    /// The result of a [`ServerRequest`], sent by the client (up to 2025-11-25). Variants are
    /// named after the request they answer. (`InputRequired` never occurs in this direction;
    /// it is there because both result enums share one shape.)
    ClientResult {
        /// Answer to `ping`.
        Ping,
        /// Answer to `sampling/createMessage`.
        CreateMessage,
        /// Answer to `roots/list`.
        ListRoots,
        /// Answer to `elicitation/create`.
        Elicit,
        /// Answer to `tasks/get`.
        GetTask,
        /// Answer to `tasks/result`.
        GetTaskPayload,
        /// Answer to `tasks/list`.
        ListTasks,
        /// Answer to `tasks/cancel`.
        CancelTask,
    }
}

// ---------------------------------------------------------------------------------------------
// Named errors of the schemas.
// ---------------------------------------------------------------------------------------------

/// Invalid JSON was received (`-32700`; a bare error object, 2026-07-28 names it).
pub type ParseError = ErrorObject;
/// The message is not a valid request (`-32600`; a bare error object).
pub type InvalidRequestError = ErrorObject;
/// The method does not exist or is not available (`-32601`; a bare error object).
pub type MethodNotFoundError = ErrorObject;
/// Invalid params: unknown tool or prompt, bad arguments, bad cursor (`-32602`; a bare error
/// object).
pub type InvalidParamsError = ErrorObject;
/// Internal error (`-32603`; a bare error object).
pub type InternalError = ErrorObject;
/// A whole error response: an HTTP header does not match the body (`-32020`, 2026-07-28).
pub type HeaderMismatchError = JsonRpcErrorResponse;
/// A whole error response: the request needs client capabilities it did not declare
/// (`-32021`, 2026-07-28; `data` is [`MissingRequiredClientCapabilityErrorData`]).
pub type MissingRequiredClientCapabilityError = JsonRpcErrorResponse;
/// A whole error response: the request's protocol version is not supported (`-32022`,
/// 2026-07-28; `data` is [`UnsupportedProtocolVersionErrorData`]).
pub type UnsupportedProtocolVersionError = JsonRpcErrorResponse;
/// A whole error response: the request needs URL-mode elicitations completed first (`-32042`,
/// 2025-11-25; `data` is [`URLElicitationRequiredErrorData`]).
pub type URLElicitationRequiredError = JsonRpcErrorResponse;

/// Typed `data` of an error object, tied to its error code.
pub trait ErrorData: Serialize + DeserializeOwned {
    /// The error code this data belongs to.
    const CODE: ErrorCode;

    /// An error object with this data, [`Self::CODE`] and `message`.
    fn into_error_object(self, message: impl Into<String>) -> Result<ErrorObject, serde_json::Error>
    where
        Self: Sized,
    {
        let data = serde_json::to_value(self)?;
        Ok(ErrorObject::new(Self::CODE, message).with_data(data))
    }

    /// Reads the data of `error`, if it has [`Self::CODE`] and well-formed data.
    fn from_error_object(error: &ErrorObject) -> Option<Self>
    where
        Self: Sized,
    {
        if error.code != Self::CODE {
            return None;
        }
        serde_json::from_value(error.data.clone()?).ok()
    }
}

/// The `data` of an [`UnsupportedProtocolVersionError`] (2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnsupportedProtocolVersionErrorData {
    /// The versions the server supports.
    pub supported: Vec<crate::ProtocolVersion>,
    /// The version the client asked for.
    pub requested: crate::ProtocolVersion,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ErrorData for UnsupportedProtocolVersionErrorData {
    const CODE: ErrorCode = ErrorCode::UNSUPPORTED_PROTOCOL_VERSION;
}

/// The `data` of a [`MissingRequiredClientCapabilityError`] (2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MissingRequiredClientCapabilityErrorData {
    /// The capabilities the request needs.
    pub required_capabilities: ClientCapabilities,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ErrorData for MissingRequiredClientCapabilityErrorData {
    const CODE: ErrorCode = ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY;
}

/// The `data` of a [`URLElicitationRequiredError`] (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct URLElicitationRequiredErrorData {
    /// The elicitations the user must complete before retrying.
    pub elicitations: Vec<ElicitRequestURLParams>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ErrorData for URLElicitationRequiredErrorData {
    const CODE: ErrorCode = ErrorCode::URL_ELICITATION_REQUIRED;
}

#[cfg(test)]
#[path = "messages_tests.rs"]
mod tests;
