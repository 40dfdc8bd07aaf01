//! Multi-round-trip results (2026-07-28): [`InputRequiredResult`], the [`InputRequest`]s a server
//! embeds in it, the client's [`InputResponse`]s, and [`MaybeInputRequired`] for decoding a
//! result that may be either.
//!
//! In 2026-07-28 a server no longer sends requests to the client. When it needs a sampling,
//! roots or elicitation answer to finish a request, it returns an [`InputRequiredResult`] holding
//! those requests under keys it picks. The client fulfils them and retries the original request
//! with the answers under the same keys in `inputResponses` (and the opaque `requestState`
//! echoed back). Earlier revisions send the same three requests as JSON-RPC requests instead.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::{
    CreateMessage, CreateMessageRequestParams, CreateMessageResult, Elicit, ElicitRequestParams,
    ElicitResult, EmptyParams, JsonObject, JsonRpcVersion, ListRoots, ListRootsResult, Meta,
    Request, RequestId, ResultType,
};

/// Server-to-client requests the client must fulfil, keyed by server-chosen ids (2026-07-28).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers to [`InputRequests`], under the same keys (2026-07-28).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A request the server needs the client to fulfil: `{"method": ..., "params": ...}`
/// (2026-07-28 `InputRequest`: a `CreateMessageRequest`, `ListRootsRequest` or `ElicitRequest`
/// without `jsonrpc` and `id`).
///
/// Methods this crate does not know decode as [`InputRequest::Other`], so one unknown entry does
/// not make a whole [`InputRequiredResult`] unreadable.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list`. Params that are empty are omitted when encoding.
    ListRoots(EmptyParams),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// Any other method, kept verbatim.
    Other {
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::CreateMessage(_) => CreateMessage::METHOD,
            InputRequest::ListRoots(_) => ListRoots::METHOD,
            InputRequest::Elicit(_) => Elicit::METHOD,
            InputRequest::Other { method, .. } => method,
        }
    }
}

#[derive(Serialize)]
struct InputRequestOut<'a> {
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

#[derive(Deserialize)]
struct InputRequestIn {
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

fn params_value<P: Serialize, E: serde::ser::Error>(params: &P) -> Result<Option<Value>, E> {
    let v = serde_json::to_value(params).map_err(E::custom)?;
    Ok((!v.as_object().is_some_and(JsonObject::is_empty)).then_some(v))
}

fn decode_params<P: DeserializeOwned, E: serde::de::Error>(
    method: &str,
    params: Option<Value>,
) -> Result<P, E> {
    let v = params.unwrap_or_else(|| Value::Object(JsonObject::new()));
    serde_json::from_value(v)
        .map_err(|e| E::custom(format_args!("invalid params for {method}: {e}")))
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let params = match self {
            InputRequest::CreateMessage(p) => {
                Some(serde_json::to_value(p).map_err(S::Error::custom)?)
            }
            InputRequest::ListRoots(p) => params_value(p)?,
            InputRequest::Elicit(p) => Some(serde_json::to_value(p).map_err(S::Error::custom)?),
            InputRequest::Other { params, .. } => params.clone(),
        };
        InputRequestOut {
            method: self.method(),
            params,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let InputRequestIn { method, params } = InputRequestIn::deserialize(d)?;
        Ok(match method.as_str() {
            CreateMessage::METHOD => InputRequest::CreateMessage(decode_params(&method, params)?),
            ListRoots::METHOD => InputRequest::ListRoots(decode_params(&method, params)?),
            Elicit::METHOD => InputRequest::Elicit(decode_params(&method, params)?),
            _ => InputRequest::Other { method, params },
        })
    }
}

/// The client's answer to one [`InputRequest`] (2026-07-28): the result of the request it
/// answers.
///
/// The wire form carries no tag. Decoding picks [`InputResponse::Elicit`] for an object with
/// `action`, [`InputResponse::ListRoots`] for one with `roots`, and
/// [`InputResponse::CreateMessage`] otherwise. A client that knows which request a key answered
/// can also decode the value directly as that result type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(Box<CreateMessageResult>),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl Serialize for InputResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InputResponse::CreateMessage(r) => r.serialize(s),
            InputResponse::ListRoots(r) => r.serialize(s),
            InputResponse::Elicit(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let Some(obj) = v.as_object() else {
            return Err(D::Error::custom("an input response must be an object"));
        };
        let (is_elicit, is_roots) = (obj.contains_key("action"), obj.contains_key("roots"));
        let r = if is_elicit {
            serde_json::from_value(v).map(InputResponse::Elicit)
        } else if is_roots {
            serde_json::from_value(v).map(InputResponse::ListRoots)
        } else {
            serde_json::from_value(v).map(|r| InputResponse::CreateMessage(Box::new(r)))
        };
        r.map_err(D::Error::custom)
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        InputResponse::CreateMessage(Box::new(r))
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        InputResponse::ListRoots(r)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        InputResponse::Elicit(r)
    }
}

/// A result saying the server needs more input before it can complete the request
/// (`resultType: "input_required"`, 2026-07-28 only).
///
/// At least one of `input_requests` and `request_state` must be present. The client answers by
/// retrying the original request with `inputResponses` and the `requestState` echoed back (see
/// [`InputResponseRequestParams`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Always [`ResultType::InputRequired`]; unlike other results the field is required here.
    #[serde(default = "input_required")]
    pub result_type: ResultType,
    /// The requests the client must fulfil, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque server state the client must send back unchanged on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

fn input_required() -> ResultType {
    ResultType::InputRequired
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: None,
            request_state: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

impl InputRequiredResult {
    /// A result asking for the given input requests.
    pub fn new(input_requests: InputRequests) -> Self {
        InputRequiredResult {
            input_requests: Some(input_requests),
            ..Default::default()
        }
    }

    /// Sets the opaque `requestState`.
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

/// The fields a client adds to a retried request to answer an [`InputRequiredResult`]
/// (2026-07-28). Request param types that can be retried (such as `CallToolRequestParams`)
/// carry the same two fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputResponseRequestParams {
    /// Answers to the server's input requests, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The `requestState` of the [`InputRequiredResult`], echoed back unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (required on 2026-07-28: protocol version and client capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of a request that, on 2026-07-28, may come back as an [`InputRequiredResult`].
///
/// Decoding looks at `resultType`: `"input_required"` gives [`MaybeInputRequired::InputRequired`];
/// anything else, or no `resultType` at all (every revision before 2026-07-28), gives
/// [`MaybeInputRequired::Complete`]. Encoding writes the inner value unchanged.
///
/// ```
/// use mcp_types::{EmptyResult, MaybeInputRequired};
///
/// let r: MaybeInputRequired<EmptyResult> =
///     serde_json::from_str(r#"{"resultType":"input_required","requestState":"abc"}"#).unwrap();
/// assert!(matches!(r, MaybeInputRequired::InputRequired(_)));
/// let r: MaybeInputRequired<EmptyResult> = serde_json::from_str("{}").unwrap();
/// assert!(matches!(r, MaybeInputRequired::Complete(_)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum MaybeInputRequired<R> {
    /// The final result.
    Complete(R),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
}

impl<R> MaybeInputRequired<R> {
    /// The final result, if this is one.
    pub fn complete(self) -> Option<R> {
        match self {
            MaybeInputRequired::Complete(r) => Some(r),
            MaybeInputRequired::InputRequired(_) => None,
        }
    }
}

impl<R: Serialize> Serialize for MaybeInputRequired<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaybeInputRequired::Complete(r) => r.serialize(s),
            MaybeInputRequired::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for MaybeInputRequired<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let input_required =
            v.get("resultType").and_then(Value::as_str) == Some(ResultType::InputRequired.as_str());
        if input_required {
            serde_json::from_value(v).map(MaybeInputRequired::InputRequired)
        } else {
            serde_json::from_value(v).map(MaybeInputRequired::Complete)
        }
        .map_err(D::Error::custom)
    }
}

/// A whole server-to-client request for `M` (`sampling/createMessage`, `roots/list` or
/// `elicitation/create`), in either era's shape.
///
/// In 2026-07-28 these requests are objects `{"method", "params"}` inside an
/// [`InputRequiredResult`] and have no `jsonrpc` or `id`; earlier revisions send them as JSON-RPC
/// requests with both. This type reads either and writes back what it read. Params that encode
/// to `{}` are omitted.
#[non_exhaustive]
pub struct TypedInputRequest<M: Request> {
    /// `"2.0"` when the request is a JSON-RPC message (revisions before 2026-07-28).
    pub jsonrpc: Option<JsonRpcVersion>,
    /// The JSON-RPC id, when the request is a JSON-RPC message.
    pub id: Option<RequestId>,
    /// The request params.
    pub params: M::Params,
}

impl<M: Request> std::fmt::Debug for TypedInputRequest<M>
where
    M::Params: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedInputRequest")
            .field("method", &M::METHOD)
            .field("jsonrpc", &self.jsonrpc)
            .field("id", &self.id)
            .field("params", &self.params)
            .finish()
    }
}

impl<M: Request> TypedInputRequest<M> {
    /// A 2026-07-28 input request (no `jsonrpc`, no `id`).
    pub fn new(params: M::Params) -> Self {
        TypedInputRequest {
            jsonrpc: None,
            id: None,
            params,
        }
    }

    /// A JSON-RPC request with the given id (revisions before 2026-07-28).
    pub fn with_id(id: impl Into<RequestId>, params: M::Params) -> Self {
        TypedInputRequest {
            jsonrpc: Some(JsonRpcVersion),
            id: Some(id.into()),
            params,
        }
    }
}

#[derive(Serialize)]
struct TypedInputRequestOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    jsonrpc: Option<JsonRpcVersion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
}

#[derive(Deserialize)]
struct TypedInputRequestIn {
    #[serde(default)]
    jsonrpc: Option<JsonRpcVersion>,
    #[serde(default)]
    id: Option<RequestId>,
    method: String,
    #[serde(default)]
    params: Option<Value>,
}

impl<M: Request> Serialize for TypedInputRequest<M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TypedInputRequestOut {
            jsonrpc: self.jsonrpc,
            id: self.id.as_ref(),
            method: M::METHOD,
            params: params_value(&self.params)?,
        }
        .serialize(s)
    }
}

impl<'de, M: Request> Deserialize<'de> for TypedInputRequest<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let repr = TypedInputRequestIn::deserialize(d)?;
        if repr.method != M::METHOD {
            return Err(D::Error::custom(format_args!(
                "expected method {:?}, got {:?}",
                M::METHOD,
                repr.method
            )));
        }
        let params = decode_params(M::METHOD, repr.params)?;
        Ok(TypedInputRequest {
            jsonrpc: repr.jsonrpc,
            id: repr.id,
            params,
        })
    }
}

#[cfg(test)]
#[path = "test_util.rs"]
pub(crate) mod test_util;

#[cfg(test)]
#[path = "result_tests.rs"]
mod tests;
