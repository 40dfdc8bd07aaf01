//! [`Json`]: a message's JSON as a plain JSON answer or an SSE event carries it, whole or,
//! for a large message, in parts.

use bytes::Bytes;
use mcp_jsonrpc::Message;

use super::error::Error;

/// From this size on ([`Message::size_hint`]), a message is encoded in parts.
pub(super) const PARTS_FROM: usize = 64 * 1024;

/// A message's JSON: whole, or a large message's in parts, the JSON before its raw result
/// and the result itself, moved out of the message rather than copied into one buffer with
/// the rest (`}` ends it). A plain JSON answer is written from the parts as they are.
#[derive(Debug)]
pub(crate) enum Json {
    Whole(Bytes),
    Parts { head: Bytes, raw: Bytes },
}

impl Json {
    pub(super) fn encode(msg: Message) -> Result<Json, Error> {
        if msg.size_hint() < PARTS_FROM {
            return Ok(Json::Whole(
                msg.to_json_vec().map_err(Error::Encode)?.into(),
            ));
        }
        let (head, raw) = msg.into_json_parts().map_err(Error::Encode)?;
        Ok(match raw {
            None => Json::Whole(head.into()),
            Some(raw) => Json::Parts {
                head: head.into(),
                raw: Bytes::from(Box::<str>::from(raw).into_boxed_bytes()),
            },
        })
    }

    /// The JSON in one buffer (an SSE event's data).
    pub(super) fn whole(self) -> Bytes {
        match self {
            Json::Whole(data) => data,
            Json::Parts { head, raw } => {
                let mut whole = Vec::with_capacity(head.len() + raw.len() + 1);
                whole.extend_from_slice(&head);
                whole.extend_from_slice(&raw);
                whole.push(b'}');
                whole.into()
            }
        }
    }

    /// The JSON up to its raw result (all of it when whole): what says whether the message
    /// is an error response.
    pub(crate) fn head(&self) -> &[u8] {
        match self {
            Json::Whole(data) => data,
            Json::Parts { head, .. } => head,
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Json::Whole(data) => data.len(),
            Json::Parts { head, raw } => head.len() + raw.len() + 1,
        }
    }

    /// The body of a response carrying it: the parts as frames of their own.
    pub(crate) fn into_body(self) -> axum::body::Body {
        match self {
            Json::Whole(data) => axum::body::Body::from(data),
            Json::Parts { head, raw } => {
                let frames = [head, raw, Bytes::from_static(b"}")];
                axum::body::Body::from_stream(futures::stream::iter(
                    frames.map(Ok::<_, std::convert::Infallible>),
                ))
            }
        }
    }
}
