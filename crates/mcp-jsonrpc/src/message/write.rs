//! [`Message::write_json`]: a message's JSON written around its raw parts.
//!
//! An envelope's member names and its `"2.0"` are fixed text, and its params and result are
//! JSON already (raw values). serde's map serializer looks for characters to escape in each
//! name and string it writes, about 0.7k instructions for a response (callgrind, the stdio
//! bench's sequential `tools/call`), which no serializer lets a caller skip for text it knows.
//! So the fixed text is copied as it is, and only what may need escaping (the method, a
//! string id, an error object) goes through `serde_json`. The output is the same bytes as
//! `serde_json`'s for the message's `Serialize` (a property test holds them equal).

use serde_json::value::RawValue;

use super::{Id, Message};

impl Message {
    /// Appends the message's JSON to `out`: the bytes `serde_json::to_writer` writes for it
    /// (compact), in fewer steps. Transports write their messages with it, and
    /// [`to_json_vec`](Self::to_json_vec) and [`to_json`](Self::to_json) are made with it.
    ///
    /// Fails only for a [`Message::Invalid`] (alone or in a batch), which is not meant to be
    /// sent; `out` may then hold part of the message.
    ///
    /// ```
    /// use mcp_jsonrpc::{Id, Message, Response};
    /// use serde_json::value::RawValue;
    ///
    /// let result = RawValue::from_string(r#"{"ok":true}"#.to_owned()).unwrap();
    /// let msg = Message::Response(Response::ok(Id::Number(7), result));
    /// let mut out = Vec::new();
    /// msg.write_json(&mut out).unwrap();
    /// assert_eq!(out, br#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#);
    /// assert_eq!(out, serde_json::to_vec(&msg).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Message::Request(r) => {
                out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                write_id(out, &r.id)?;
                out.extend_from_slice(br#","method":"#);
                serde_json::to_writer(&mut *out, &*r.method)?;
                write_params(out, r.params.as_deref());
            }
            Message::Notification(n) => {
                out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
                serde_json::to_writer(&mut *out, &*n.method)?;
                write_params(out, n.params.as_deref());
            }
            Message::Response(r) => {
                out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                match &r.id {
                    Some(id) => write_id(out, id)?,
                    None => out.extend_from_slice(b"null"),
                }
                match &r.result {
                    Ok(result) => {
                        out.extend_from_slice(br#","result":"#);
                        out.extend_from_slice(result.get().as_bytes());
                    }
                    Err(error) => {
                        out.extend_from_slice(br#","error":"#);
                        serde_json::to_writer(&mut *out, error)?;
                    }
                }
            }
            Message::Batch(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write_json(out)?;
                }
                out.push(b']');
                return Ok(());
            }
            Message::Invalid(_) => {
                return Err(serde::ser::Error::custom(
                    "an invalid message cannot be serialized",
                ));
            }
        }
        out.push(b'}');
        Ok(())
    }
}

impl Message {
    /// The message's JSON in parts, for a transport that writes a large message without
    /// copying its raw params or result into a buffer first: appends to `head` the JSON
    /// before the raw part and returns that part, after which the message ends with `}`.
    /// For a message without one (an error response, a request without params, a batch),
    /// appends the whole message to `head`, as [`write_json`](Self::write_json) does, and
    /// returns `None`.
    ///
    /// `head`, the raw part and `}` are the bytes `write_json` writes.
    ///
    /// ```
    /// use mcp_jsonrpc::{Id, Message, Response};
    /// use serde_json::value::RawValue;
    ///
    /// let result = RawValue::from_string(r#"{"text":"a large result"}"#.to_owned()).unwrap();
    /// let msg = Message::Response(Response::ok(Id::Number(7), result));
    /// let mut head = Vec::new();
    /// let raw = msg.write_json_head(&mut head).unwrap();
    /// assert_eq!(head, br#"{"jsonrpc":"2.0","id":7,"result":"#);
    /// assert_eq!(raw, Some(r#"{"text":"a large result"}"#));
    ///
    /// let mut whole = head.clone();
    /// whole.extend_from_slice(raw.unwrap().as_bytes());
    /// whole.push(b'}');
    /// assert_eq!(whole, msg.to_json_vec().unwrap());
    /// ```
    ///
    /// # Errors
    ///
    /// As [`write_json`](Self::write_json): only for a [`Message::Invalid`].
    pub fn write_json_head(&self, head: &mut Vec<u8>) -> serde_json::Result<Option<&str>> {
        match self {
            Message::Request(r) if r.params.is_some() => {
                head.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                write_id(head, &r.id)?;
                head.extend_from_slice(br#","method":"#);
                serde_json::to_writer(&mut *head, &*r.method)?;
                head.extend_from_slice(br#","params":"#);
                Ok(r.params.as_deref().map(RawValue::get))
            }
            Message::Notification(n) if n.params.is_some() => {
                head.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
                serde_json::to_writer(&mut *head, &*n.method)?;
                head.extend_from_slice(br#","params":"#);
                Ok(n.params.as_deref().map(RawValue::get))
            }
            Message::Response(r) if r.result.is_ok() => {
                head.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                match &r.id {
                    Some(id) => write_id(head, id)?,
                    None => head.extend_from_slice(b"null"),
                }
                head.extend_from_slice(br#","result":"#);
                Ok(r.result.as_deref().ok().map(RawValue::get))
            }
            _ => {
                self.write_json(head)?;
                Ok(None)
            }
        }
    }
}

impl Message {
    /// [`write_json_head`](Self::write_json_head) for a message one owns: the JSON before its
    /// raw params or result, and that raw part itself, moved out of the message (not copied),
    /// for a transport that sends a large message in parts. The message ends with `}` after
    /// the raw part. Without one, the head is the whole message.
    ///
    /// ```
    /// use mcp_jsonrpc::{Id, Message, Response};
    /// use serde_json::value::RawValue;
    ///
    /// let result = RawValue::from_string(r#"{"text":"a large result"}"#.to_owned()).unwrap();
    /// let msg = Message::Response(Response::ok(Id::Number(7), result));
    /// let whole = msg.to_json_vec().unwrap();
    /// let (mut head, raw) = msg.into_json_parts().unwrap();
    /// head.extend_from_slice(raw.unwrap().get().as_bytes());
    /// head.push(b'}');
    /// assert_eq!(head, whole);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`write_json`](Self::write_json): only for a [`Message::Invalid`].
    pub fn into_json_parts(self) -> serde_json::Result<(Vec<u8>, Option<Box<RawValue>>)> {
        let mut head = Vec::with_capacity(64);
        if self.write_json_head(&mut head)?.is_none() {
            return Ok((head, None));
        }
        let raw = match self {
            Message::Request(r) => r.params,
            Message::Notification(n) => n.params,
            Message::Response(r) => r.result.ok(),
            Message::Batch(_) | Message::Invalid(_) => None,
        };
        Ok((head, raw))
    }
}

/// An id: an integer as digits, a string escaped (by `serde_json`, as `Id`'s `Serialize`).
fn write_id(out: &mut Vec<u8>, id: &Id) -> serde_json::Result<()> {
    serde_json::to_writer(out, id)
}

/// `,"params":` and the raw params, when there are any.
fn write_params(out: &mut Vec<u8>, params: Option<&RawValue>) {
    if let Some(params) = params {
        out.extend_from_slice(br#","params":"#);
        out.extend_from_slice(params.get().as_bytes());
    }
}
