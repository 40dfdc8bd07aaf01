//! The JSON-RPC 2.0 envelope: [`Message`] and its parts.
//!
//! Params and results stay raw JSON ([`RawValue`]) until someone asks for them, so routing a
//! message costs one pass over the envelope and no tree building.

use std::borrow::Cow;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::error::ErrorObject;
use crate::extensions::Extensions;

mod id;
mod sniff;
mod write;

pub use id::{Id, ProgressToken};

/// A request: a call that expects a response.
///
/// Build one with [`Request::new`]; a transport may then attach [`extensions`](Self::extensions).
#[derive(Debug, Clone)]
pub struct Request {
    /// The request id.
    pub id: Id,
    /// The method name.
    pub method: Cow<'static, str>,
    /// The params, as raw JSON (an object or an array), if any.
    pub params: Option<Box<RawValue>>,
    /// Data that travels with the request but not on the wire (never serialized; empty when
    /// decoded).
    ///
    /// - Inbound: what the transport attached. The connection moves it into
    ///   [`RequestContext::extensions`](crate::RequestContext::extensions) before calling the
    ///   handler, so [`Handler::handle_request`](crate::Handler::handle_request) sees it
    ///   there and finds this field empty.
    /// - Outbound: what the sender attached with
    ///   [`RequestOptions::extension`](crate::RequestOptions::extension), for the transport
    ///   (hints such as headers to send). A transport that has no use for it drops it.
    pub extensions: Extensions,
}

impl Request {
    /// A request with no extensions.
    pub fn new(
        id: impl Into<Id>,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
    ) -> Self {
        Request {
            id: id.into(),
            method: method.into(),
            params,
            extensions: Extensions::new(),
        }
    }

    /// Decodes the params as `T`; absent params decode as JSON `null`.
    ///
    /// The error is a ready-to-send -32602 invalid params error.
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, ErrorObject> {
        decode_params(self.params.as_deref())
    }
}

/// A notification: a call that gets no response.
///
/// Build one with [`Notification::new`]; a transport may then attach
/// [`extensions`](Self::extensions).
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name.
    pub method: Cow<'static, str>,
    /// The params, as raw JSON (an object or an array), if any.
    pub params: Option<Box<RawValue>>,
    /// Data a transport attached to an inbound notification (never serialized; empty when
    /// decoded); [`Handler::handle_notification`](crate::Handler::handle_notification) reads
    /// it here.
    pub extensions: Extensions,
}

impl Notification {
    /// A notification with no extensions.
    pub fn new(method: impl Into<Cow<'static, str>>, params: Option<Box<RawValue>>) -> Self {
        Notification {
            method: method.into(),
            params,
            extensions: Extensions::new(),
        }
    }

    /// Decodes the params as `T`; absent params decode as JSON `null`.
    ///
    /// The error is a -32602 invalid params error.
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, ErrorObject> {
        decode_params(self.params.as_deref())
    }
}

fn decode_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    let text = params.map_or("null", RawValue::get);
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))
}

/// A response: the result of a request, or an error.
#[derive(Debug, Clone)]
pub struct Response {
    /// The id of the request this answers; `None` (JSON `null`) only on an error response to a
    /// request whose id could not be read.
    pub id: Option<Id>,
    /// The result (raw JSON) or the error.
    pub result: Result<Box<RawValue>, ErrorObject>,
}

impl Response {
    /// A successful response.
    pub fn ok(id: Id, result: Box<RawValue>) -> Self {
        Response {
            id: Some(id),
            result: Ok(result),
        }
    }

    /// An error response.
    pub fn error(id: Option<Id>, error: ErrorObject) -> Self {
        Response {
            id,
            result: Err(error),
        }
    }
}

/// An inbound frame that is not a valid JSON-RPC message.
///
/// Transports produce it (through [`Message::decode`], [`Message::decode_limited`] or
/// [`Message::oversized`]) so that the connection can deal with it and carry on: a frame
/// meant as a request or a notification is answered with [`error`](Self::error); a frame
/// meant as a response ([`is_response`](Self::is_response)) is never answered (JSON-RPC
/// does not answer responses) but fails the pending request it names. It cannot be
/// serialized.
#[derive(Debug, Clone)]
pub struct InvalidMessage {
    /// The id, if one could be read from the frame.
    pub id: Option<Id>,
    /// The error to answer with (-32700 for invalid JSON, -32600 for a bad envelope).
    pub error: ErrorObject,
    response: bool,
    /// `(size, limit)` when the frame was refused for its size.
    too_large: Option<(usize, usize)>,
}

impl InvalidMessage {
    /// An invalid request or notification, answered with `error` (and `id`, if known).
    pub fn new(id: Option<Id>, error: ErrorObject) -> Self {
        InvalidMessage {
            id,
            error,
            response: false,
            too_large: None,
        }
    }

    /// Whether the frame was meant as a response (it has a `result` or an `error` member and
    /// no `method`): the connection fails the request with this [`id`](Self::id) instead of
    /// answering the peer.
    pub fn is_response(&self) -> bool {
        self.response
    }

    /// `(size, limit)` in bytes, when the frame was refused for its size.
    pub(crate) fn too_large(&self) -> Option<(usize, usize)> {
        self.too_large
    }
}

/// One JSON-RPC 2.0 message, as moved by a [`Transport`](crate::Transport).
#[derive(Debug, Clone)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response (result or error).
    Response(Response),
    /// A batch: a JSON array of messages (only accepted when batching is enabled).
    Batch(Vec<Message>),
    /// A frame that could not be decoded; inbound only.
    Invalid(InvalidMessage),
}

impl From<Request> for Message {
    fn from(v: Request) -> Self {
        Message::Request(v)
    }
}

impl From<Notification> for Message {
    fn from(v: Notification) -> Self {
        Message::Notification(v)
    }
}

impl From<Response> for Message {
    fn from(v: Response) -> Self {
        Message::Response(v)
    }
}

impl Message {
    /// The message with the [`extensions`](Request::extensions) of its requests and
    /// notifications emptied: what the other side of a wire gets.
    pub fn without_extensions(self) -> Message {
        match self {
            Message::Request(mut r) => {
                r.extensions = Extensions::new();
                Message::Request(r)
            }
            Message::Notification(mut n) => {
                n.extensions = Extensions::new();
                Message::Notification(n)
            }
            Message::Batch(items) => {
                Message::Batch(items.into_iter().map(Message::without_extensions).collect())
            }
            other => other,
        }
    }

    /// Decodes one frame (a JSON object or a batch array). Never fails: a bad frame decodes to
    /// [`Message::Invalid`], with -32700 for invalid JSON and -32600 for a bad envelope.
    pub fn decode(bytes: &[u8]) -> Message {
        let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
        if first == Some(b'[') {
            return match serde_json::from_slice::<Vec<&RawValue>>(bytes) {
                Ok(items) if items.is_empty() => {
                    invalid(None, ErrorObject::invalid_request("empty batch"))
                }
                Ok(items) => Message::Batch(
                    items
                        .into_iter()
                        .map(|raw| {
                            if raw.get().starts_with('[') {
                                invalid(None, ErrorObject::invalid_request("nested batch"))
                            } else {
                                decode_object(raw.get().as_bytes())
                            }
                        })
                        .collect(),
                ),
                Err(e) => classify(bytes, e),
            };
        }
        decode_object(bytes)
    }

    /// Like [`decode`](Self::decode), but a frame longer than `limit` bytes decodes to a -32600
    /// [`Message::Invalid`] (carrying the id if one can be read, and telling a response from
    /// a request) without being materialized.
    pub fn decode_limited(bytes: &[u8], limit: usize) -> Message {
        if bytes.len() > limit {
            return Message::oversized(bytes, bytes.len(), limit);
        }
        Message::decode(bytes)
    }

    /// The message standing for a frame of `size` bytes that a transport skipped because it
    /// exceeds `limit`, of which it kept the first bytes, `head` (a kilobyte is plenty): a
    /// -32600 [`Message::Invalid`] carrying the frame's id when `head` shows it whole.
    ///
    /// When `head` shows a `result` or `error` member (and no `method`), the frame was a
    /// response: the connection then fails the request it answers at once with
    /// [`Error::MessageTooLarge`](crate::Error::MessageTooLarge) rather than answering the
    /// peer. Members are read in order, so the id must come before the result (as every
    /// common serializer writes it); otherwise the request waits for its timeout.
    pub fn oversized(head: &[u8], size: usize, limit: usize) -> Message {
        let prefix = sniff::prefix(head);
        Message::Invalid(InvalidMessage {
            id: prefix.id,
            error: too_large(size, limit),
            response: prefix.response,
            too_large: Some((size, limit)),
        })
    }

    /// Serializes the message to a JSON string (once; raw params are copied verbatim): the
    /// bytes of [`to_json_vec`](Self::to_json_vec) as a `String`.
    ///
    /// Fails only for [`Message::Invalid`], which is not meant to be sent.
    pub fn to_json(&self) -> serde_json::Result<String> {
        // Always UTF-8: written from `str`s and `serde_json`'s output.
        String::from_utf8(self.to_json_vec()?).map_err(serde::ser::Error::custom)
    }

    /// The bytes of [`to_json`](Self::to_json), for a caller that sends bytes (no UTF-8
    /// check): [`write_json`](Self::write_json) into a buffer sized by
    /// [`size_hint`](Self::size_hint).
    ///
    /// Fails only for [`Message::Invalid`], which is not meant to be sent.
    ///
    /// ```
    /// use mcp_jsonrpc::{Message, Notification};
    ///
    /// let msg = Message::Notification(Notification::new("ping", None));
    /// assert_eq!(msg.to_json_vec().unwrap(), br#"{"jsonrpc":"2.0","method":"ping"}"#);
    /// ```
    pub fn to_json_vec(&self) -> serde_json::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.size_hint());
        self.write_json(&mut out)?;
        Ok(out)
    }

    /// The approximate serialized size in bytes: the lengths of the method, raw params and raw
    /// result plus a fixed envelope overhead. Cheap (no serialization); used for size limits.
    pub fn size_hint(&self) -> usize {
        const OVERHEAD: usize = 48;
        match self {
            Message::Request(r) => OVERHEAD + r.method.len() + raw_len(r.params.as_deref()),
            Message::Notification(n) => OVERHEAD + n.method.len() + raw_len(n.params.as_deref()),
            Message::Response(r) => {
                OVERHEAD
                    + match &r.result {
                        Ok(v) => v.get().len(),
                        Err(e) => e.message.len(),
                    }
            }
            Message::Batch(items) => items.iter().map(Message::size_hint).sum::<usize>() + 2,
            Message::Invalid(_) => OVERHEAD,
        }
    }
}

pub(crate) fn too_large(size: usize, limit: usize) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "message of {size} bytes exceeds the limit of {limit} bytes"
    ))
}

/// Reads just the id of a JSON object, skipping everything else without allocating.
fn read_id(bytes: &[u8]) -> Option<Id> {
    #[derive(Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    serde_json::from_slice::<IdOnly<'_>>(bytes)
        .ok()
        .and_then(|v| v.id)
        .and_then(|raw| Id::from_json(raw.get()))
}

fn raw_len(raw: Option<&RawValue>) -> usize {
    raw.map_or(0, |r| r.get().len())
}

fn invalid(id: Option<Id>, error: ErrorObject) -> Message {
    Message::Invalid(InvalidMessage::new(id, error))
}

/// An invalid frame that was meant as a response (it has `result` or `error`, no `method`).
fn invalid_response(id: Option<Id>, error: ErrorObject) -> Message {
    Message::Invalid(InvalidMessage {
        response: true,
        ..InvalidMessage::new(id, error)
    })
}

/// Turns a serde error on `bytes` into -32700 (not JSON) or -32600 (JSON, wrong shape).
fn classify(bytes: &[u8], e: serde_json::Error) -> Message {
    use serde_json::error::Category;
    let syntax_ok = match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => false,
        // A shape error stops the parse early: check the rest of the text is JSON at all.
        Category::Data => serde_json::from_slice::<IgnoredAny>(bytes).is_ok(),
    };
    if syntax_ok {
        invalid(
            read_id(bytes),
            ErrorObject::invalid_request(format!("invalid request: {e}")),
        )
    } else {
        invalid(None, ErrorObject::parse_error(format!("parse error: {e}")))
    }
}

/// Reads a `jsonrpc` member as whether it is `"2.0"`, borrowed or not, without copying it
/// (`#[serde(borrow)]` does not reach a `Cow` inside an `Option`: it allocated per message).
fn is_v2<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct V2;
    impl serde::de::Visitor<'_> for V2 {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<bool, E> {
            Ok(v == "2.0")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
    }
    d.deserialize_any(V2).map(Some)
}

#[derive(Deserialize)]
struct Envelope<'a> {
    /// `Some(true)` for `"2.0"`, `Some(false)` for another string or `null`; any other value
    /// fails the envelope (-32600).
    #[serde(default, deserialize_with = "is_v2")]
    jsonrpc: Option<bool>,
    /// `Some` whenever the member is present, even when it is `null`.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

fn decode_object(bytes: &[u8]) -> Message {
    // Valid UTF-8 (the usual case) is checked once here, in one pass, and parsed as a `str`;
    // `from_slice` would check every string and raw value on its own.
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    };
    let env: Envelope<'_> = match parsed {
        Ok(env) => env,
        Err(e) => return classify(bytes, e),
    };
    // `Some(None)`: the id is present and null; `Some(Some(_))`: a usable id.
    let id: Option<Option<Id>> = match env.id {
        None => None,
        Some(raw) if raw.get() == "null" => Some(None),
        Some(raw) => match Id::from_json(raw.get()) {
            Some(id) => Some(Some(id)),
            None => {
                return invalid(
                    None,
                    ErrorObject::invalid_request("id must be a string or an integer"),
                );
            }
        },
    };
    let readable_id = id.clone().flatten();
    if env.jsonrpc != Some(true) {
        let error = ErrorObject::invalid_request("jsonrpc must be \"2.0\"");
        return if env.method.is_none() && (env.result.is_some() || env.error.is_some()) {
            invalid_response(readable_id, error)
        } else {
            invalid(readable_id, error)
        };
    }
    if let Some(method) = env.method {
        let params = match env.params {
            Some(p) if p.get() == "null" => None,
            Some(p) if !matches!(p.get().as_bytes().first(), Some(b'{' | b'[')) => {
                return invalid(
                    readable_id,
                    ErrorObject::invalid_request("params must be an object or an array"),
                );
            }
            p => p,
        };
        let method = Cow::Owned(method);
        return match id {
            None => Message::Notification(Notification::new(method, params)),
            Some(Some(id)) => Message::Request(Request::new(id, method, params)),
            Some(None) => invalid(
                None,
                ErrorObject::invalid_request("request id must not be null"),
            ),
        };
    }
    let Some(id) = id else {
        return invalid(None, ErrorObject::invalid_request("missing method"));
    };
    match (env.result, env.error) {
        (Some(result), None) => match id {
            Some(id) => Message::Response(Response::ok(id, result.to_owned())),
            None => invalid_response(None, ErrorObject::invalid_request("result with a null id")),
        },
        (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => Message::Response(Response::error(id, error)),
            Err(_) => invalid_response(id, ErrorObject::invalid_request("malformed error object")),
        },
        (None, None) => invalid(
            id,
            ErrorObject::invalid_request("a response needs exactly one of result and error"),
        ),
        (Some(_), Some(_)) => invalid_response(
            id,
            ErrorObject::invalid_request("a response needs exactly one of result and error"),
        ),
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(r) => {
                let mut m = s.serialize_map(Some(if r.params.is_some() { 4 } else { 3 }))?;
                m.serialize_entry("jsonrpc", "2.0")?;
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    m.serialize_entry("params", p)?;
                }
                m.end()
            }
            Message::Notification(n) => {
                let mut m = s.serialize_map(Some(if n.params.is_some() { 3 } else { 2 }))?;
                m.serialize_entry("jsonrpc", "2.0")?;
                m.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    m.serialize_entry("params", p)?;
                }
                m.end()
            }
            Message::Response(r) => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("jsonrpc", "2.0")?;
                m.serialize_entry("id", &r.id)?;
                match &r.result {
                    Ok(v) => m.serialize_entry("result", v)?,
                    Err(e) => m.serialize_entry("error", e)?,
                }
                m.end()
            }
            Message::Batch(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Message::Invalid(_) => Err(serde::ser::Error::custom(
                "an invalid message cannot be serialized",
            )),
        }
    }
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
