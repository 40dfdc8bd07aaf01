//! Building blocks shared by every protocol type: ids, tokens, `_meta`, the typed method traits
//! and the JSON-RPC envelopes used when a whole message must be typed.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::ErrorObject;

/// A JSON object: the type of `_meta`, of extension maps and of free-form payloads.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The contents of a `_meta` field. Keys are kept verbatim, so reserved
/// `io.modelcontextprotocol/...` keys and vendor keys survive a round trip.
pub type Meta = JsonObject;

/// An opaque pagination position handed back by the server.
pub type Cursor = String;

/// The version string of the JSON-RPC protocol, always `"2.0"`.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id: a string or an integer, never null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => f.write_str(s),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// A token that ties progress notifications to the request that asked for them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgressToken::Number(n) => write!(f, "{n}"),
            ProgressToken::String(s) => f.write_str(s),
        }
    }
}

/// The `_meta` of a request's params, read without decoding the rest of them: any request's
/// params decode into this, and members other than `_meta` are skipped. Transports use it to
/// see a request's progress token without knowing its method. `M` is the type `_meta`
/// decodes into: [`RequestMeta`] (the default), or [`Meta`] for the raw object.
///
/// ```
/// use mcp_types::{ParamsMeta, ProgressToken};
///
/// let params = r#"{"name":"add","arguments":{"a":1},"_meta":{"progressToken":7,"x":true}}"#;
/// let meta = serde_json::from_str::<ParamsMeta>(params).unwrap().meta.unwrap();
/// assert_eq!(meta.progress_token, Some(ProgressToken::Number(7)));
/// assert_eq!(meta.extra["x"], true);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ParamsMeta<M = RequestMeta> {
    /// The request's `_meta`, if it has one.
    #[serde(rename = "_meta", default = "Option::default")]
    pub meta: Option<M>,
}

/// The `_meta` of a request, with the members every request may carry: the progress token,
/// and on protocol revision 2026-07-28 the client's per-request declarations (the version it
/// speaks, its capabilities and info, the log level it wants).
///
/// ```
/// use mcp_types::{ParamsMeta, ProtocolVersion};
///
/// let params = r#"{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{"sampling":{}},
///     "io.modelcontextprotocol/logLevel":"info"}}"#;
/// let meta = serde_json::from_str::<ParamsMeta>(params).unwrap().meta.unwrap();
/// assert_eq!(meta.protocol_version, Some(ProtocolVersion::V2026_07_28));
/// assert!(meta.client_capabilities.unwrap().supports_sampling());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestMeta {
    /// The token the request's progress notifications will carry.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// The protocol version of this request (2026-07-28; required there), under
    /// [`PROTOCOL_VERSION_META_KEY`](crate::PROTOCOL_VERSION_META_KEY).
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<crate::ProtocolVersion>,
    /// What the client supports for this request (2026-07-28; required there), under
    /// [`CLIENT_CAPABILITIES_META_KEY`](crate::CLIENT_CAPABILITIES_META_KEY).
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<crate::ClientCapabilities>,
    /// The client software (2026-07-28), under
    /// [`CLIENT_INFO_META_KEY`](crate::CLIENT_INFO_META_KEY).
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<crate::Implementation>,
    /// The lowest level of log messages the client wants for this request (2026-07-28), under
    /// [`LOG_LEVEL_META_KEY`](crate::LOG_LEVEL_META_KEY); absent means none.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<crate::LoggingLevel>,
    /// The other members (`io.modelcontextprotocol/...` keys, vendor keys), kept for the
    /// round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

// Read without `#[serde(flatten)]`: every 2026-07-28 request's `_meta` (see `extra_fields`).
crate::extra_fields::deserialize_with_extra!(RequestMeta, "request _meta",
    required {}
    optional {
        progress_token: Option<ProgressToken> = "progressToken",
        protocol_version: Option<crate::ProtocolVersion> = "io.modelcontextprotocol/protocolVersion",
        client_capabilities: Option<crate::ClientCapabilities> = "io.modelcontextprotocol/clientCapabilities",
        client_info: Option<crate::Implementation> = "io.modelcontextprotocol/clientInfo",
        log_level: Option<crate::LoggingLevel> = "io.modelcontextprotocol/logLevel",
    }
);

/// A typed MCP request method.
///
/// Every request of the protocol has a marker type implementing this trait, so the method string
/// exists exactly once, as [`Request::METHOD`]. Absent `params` on the wire decode as the empty
/// object, so parameter types whose fields are all optional accept a request without params.
pub trait Request: 'static {
    /// The JSON-RPC method name, e.g. `"tools/call"`.
    const METHOD: &'static str;
    /// The `params` member of the request.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The `result` member of a successful (complete) response.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A typed MCP notification method.
pub trait Notification: 'static {
    /// The JSON-RPC method name, e.g. `"notifications/progress"`.
    const METHOD: &'static str;
    /// The `params` member of the notification.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A result with no payload beyond the common result fields.
///
/// Revisions up to 2025-11-25 send `{}`; 2026-07-28 adds `resultType`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmptyResult {
    /// `"complete"` on 2026-07-28; absent on earlier revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Request params that carry nothing but `_meta` (e.g. `ping`, `roots/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmptyParams {
    /// Metadata attached to the request (e.g. a `progressToken`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The literal `"2.0"` member of every JSON-RPC message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if v == JSONRPC_VERSION {
            Ok(JsonRpcVersion)
        } else {
            Err(D::Error::custom(format_args!(
                "expected jsonrpc \"2.0\", got {v:?}"
            )))
        }
    }
}

/// The method member of a typed message, checked against `M::METHOD` when decoding.
struct MethodName<M>(PhantomData<M>);

fn check_method<'de, D: Deserializer<'de>>(expected: &str, d: D) -> Result<(), D::Error> {
    let got = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    if got == expected {
        Ok(())
    } else {
        Err(D::Error::custom(format_args!(
            "expected method {expected:?}, got {got:?}"
        )))
    }
}

impl<M: Request> Serialize for MethodName<M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(M::METHOD)
    }
}

impl<'de, M: Request> Deserialize<'de> for MethodName<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        check_method(M::METHOD, d).map(|()| MethodName(PhantomData))
    }
}

struct NotificationName<N>(PhantomData<N>);

impl<N: Notification> Serialize for NotificationName<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(N::METHOD)
    }
}

impl<'de, N: Notification> Deserialize<'de> for NotificationName<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        check_method(N::METHOD, d).map(|()| NotificationName(PhantomData))
    }
}

fn params_or_empty<'de, D, P>(d: D) -> Result<P, D::Error>
where
    D: Deserializer<'de>,
    P: DeserializeOwned,
{
    let v = Option::<serde_json::Value>::deserialize(d)?
        .unwrap_or_else(|| serde_json::Value::Object(JsonObject::new()));
    serde_json::from_value(v).map_err(D::Error::custom)
}

fn empty_params() -> serde_json::Value {
    serde_json::Value::Object(JsonObject::new())
}

/// A whole JSON-RPC request for method `M`, e.g. [`crate::CallToolRequest`].
///
/// The engine in `mcp-jsonrpc` decodes envelopes lazily; this type is for code (and tests) that
/// want a complete, typed message.
#[derive(Debug)]
pub struct TypedRequest<M: Request> {
    /// The request id.
    pub id: RequestId,
    /// The request params.
    pub params: M::Params,
}

#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
struct TypedRequestRepr<M: Request> {
    jsonrpc: JsonRpcVersion,
    id: RequestId,
    method: MethodName<M>,
    #[serde(default = "empty_params")]
    params: serde_json::Value,
}

impl<M: Request> Serialize for TypedRequest<M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let params = serde_json::to_value(&self.params).map_err(S::Error::custom)?;
        let repr = TypedRequestRepr::<M> {
            jsonrpc: JsonRpcVersion,
            id: self.id.clone(),
            method: MethodName(PhantomData),
            params,
        };
        repr.serialize(s)
    }
}

impl<'de, M: Request> Deserialize<'de> for TypedRequest<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let repr = TypedRequestRepr::<M>::deserialize(d)?;
        let params = params_or_empty(repr.params).map_err(D::Error::custom)?;
        Ok(TypedRequest {
            id: repr.id,
            params,
        })
    }
}

/// A whole JSON-RPC notification for method `N`, e.g. [`crate::ProgressNotification`].
#[derive(Debug)]
pub struct TypedNotification<N: Notification> {
    /// The notification params.
    pub params: N::Params,
}

#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
struct TypedNotificationRepr<N: Notification> {
    jsonrpc: JsonRpcVersion,
    method: NotificationName<N>,
    #[serde(default = "empty_params")]
    params: serde_json::Value,
}

impl<N: Notification> Serialize for TypedNotification<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let params = serde_json::to_value(&self.params).map_err(S::Error::custom)?;
        let params_empty = params.as_object().is_some_and(|o| o.is_empty());
        #[derive(Serialize)]
        struct Out<'a> {
            jsonrpc: JsonRpcVersion,
            method: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            params: Option<serde_json::Value>,
        }
        Out {
            jsonrpc: JsonRpcVersion,
            method: N::METHOD,
            params: (!params_empty).then_some(params),
        }
        .serialize(s)
    }
}

impl<'de, N: Notification> Deserialize<'de> for TypedNotification<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let repr = TypedNotificationRepr::<N>::deserialize(d)?;
        let params = params_or_empty(repr.params).map_err(D::Error::custom)?;
        Ok(TypedNotification { params })
    }
}

/// A whole successful JSON-RPC response carrying `R`, e.g. [`crate::CallToolResultResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// A whole JSON-RPC error response.
///
/// `id` is absent (or null) only when the request's id could not be read, e.g. on a parse error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers, if it could be read.
    #[serde(default)]
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

/// How a client should read a result object (`resultType`, 2026-07-28).
///
/// Revisions before 2026-07-28 do not send the field; a missing `resultType` means
/// [`ResultType::Complete`]. Values this crate does not know are kept in [`ResultType::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultType {
    /// `"complete"`: the result is final.
    Complete,
    /// `"input_required"`: the result is an `InputRequiredResult`.
    InputRequired,
    /// `"task"`: the result is a task handle (the tasks extension's `CreateTaskResult`).
    Task,
    /// Any other value, kept verbatim.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(match &*s {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            _ => ResultType::Other(s.into_owned()),
        })
    }
}

/// Who may reuse a cached result (`cacheScope`, 2026-07-28), like HTTP `Cache-Control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Only within the same authorization context.
    Private,
    /// Any client or intermediary.
    Public,
}

/// The theme an icon is designed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// An icon a client can show (2025-11-25 and later; absent on earlier revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `http(s):` URL or a `data:` URI.
    pub src: String,
    /// A MIME type override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes like `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon is designed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}
