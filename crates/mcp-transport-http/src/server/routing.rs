//! Outbound routing state of a session: its streams, the requests in flight, and the rule
//! that picks the stream of each outbound message.

use std::collections::HashMap;

/// A map keyed by what a peer chose (request ids, progress tokens): foldhash's keyed hash,
/// seeded per map, in place of SipHash (as the engine's own maps, `mcp_jsonrpc::Connection`).
pub(super) type PeerKeyed<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use mcp_jsonrpc::{Id, InlineRequests, Message, ProgressToken, Protocol};
use mcp_types::{
    CancelledNotificationParams, InitializeResult, ParamsMeta, ProgressNotificationParams,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::event_store::StreamId;
use super::sse::Frame;
use crate::ids::{wire_id, wire_token};

/// How a POST's answer starts, once the first message for its stream is routed.
#[derive(Debug)]
pub(crate) enum Opening {
    /// The whole answer, sent as `application/json`.
    Json(super::json_body::Json),
    /// An SSE stream: its queue.
    Sse(mpsc::Receiver<Frame>),
}

#[derive(Debug)]
pub(super) struct Slot {
    /// Where the POST waits for its [`Opening`], while nothing was sent on the stream (it is
    /// undecided: see [`Slot::is_undecided`]). The stream's queue is made only if it turns to
    /// SSE, so that an answer sent as plain JSON (the usual case) costs no channel (a tokio
    /// channel is two blocks past the 1 KiB glibc's per-thread cache keeps, one of them
    /// cache-aligned; dhat and callgrind on the HTTP bench).
    pub(super) opening: Option<oneshot::Sender<Opening>>,
    /// The SSE stream's queue, `None` while no connection carries it.
    pub(super) tx: Option<mpsc::Sender<Frame>>,
    /// Requests of this stream still waiting for their response (0 for the standalone one).
    pub(super) pending: usize,
    /// Whether switching to SSE starts with a priming event.
    pub(super) prime: bool,
}

impl Slot {
    /// An SSE stream's slot (`tx` `None` while no connection carries it).
    pub(super) fn sse(tx: Option<mpsc::Sender<Frame>>, pending: usize) -> Slot {
        Slot {
            opening: None,
            tx,
            pending,
            prime: false,
        }
    }

    /// Nothing was sent on the stream yet: its POST waits for the [`Opening`] (plain JSON
    /// or SSE). Once it is decided (SSE, or the JSON answer taken, which ends the slot),
    /// `opening` is `None` for good.
    pub(super) fn is_undecided(&self) -> bool {
        self.opening.is_some()
    }

    pub(super) fn live_tx(&self) -> Option<&mpsc::Sender<Frame>> {
        self.tx.as_ref().filter(|tx| !tx.is_closed())
    }

    /// Turns an undecided stream to SSE: makes its queue and hands it to the waiting POST.
    /// The queue's sender is kept only if the POST is still there to read it.
    pub(super) fn open_sse(&mut self, capacity: usize) {
        if let Some(opening) = self.opening.take() {
            let (tx, rx) = mpsc::channel(capacity);
            if opening.send(Opening::Sse(rx)).is_ok() {
                self.tx = Some(tx);
            }
        }
    }
}

#[derive(Debug)]
pub(super) struct InFlight {
    pub(super) stream: u64,
    pub(super) progress_token: Option<ProgressToken>,
}

/// The sending end of a session's inbound queue (the transport's `recv` reads the other).
///
/// Messages go boxed: a tokio channel allocates its first block of 32 slots when it is
/// created, and 32 unboxed messages are 3.8 KiB that every session would keep for as long
/// as it lives, idle or not; boxed, the block is 32 pointers.
#[derive(Debug, Clone)]
pub(crate) struct Inbound(pub(super) mpsc::Sender<Queued>);

/// What a session's inbound queue carries.
pub(crate) type Queued = Box<Message>;

impl Inbound {
    /// Queues `msg` for the session's connection, waiting for room; fails once the session
    /// stopped reading.
    pub(crate) async fn send(&self, msg: Message) -> Result<(), Message> {
        self.0.send(Box::new(msg)).await.map_err(|e| *e.0)
    }
}

#[derive(Debug, Default)]
pub(super) struct RouteState {
    pub(super) inbound: Option<Inbound>,
    /// The session's connection runs requests inline (stateful sessions; see
    /// `post_to_session`); dropped when the session ends.
    pub(super) inline: Option<InlineRequests>,
    pub(super) streams: PeerKeyed<u64, Slot>,
    pub(super) next_stream: u64,
    /// The first stream of this holder of the session: streams below it (but the
    /// standalone one) were an earlier holder's (see `SessionRecord::generation`).
    pub(super) first_stream: u64,
    pub(super) requests: PeerKeyed<Id, InFlight>,
    pub(super) progress: PeerKeyed<ProgressToken, Id>,
    /// Server-to-client requests and the stream they went out on (to route their
    /// cancellation the same way).
    pub(super) outbound_requests: PeerKeyed<Id, u64>,
    pub(super) initialize_id: Option<Id>,
    pub(super) negotiated_version: Option<String>,
}

fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(params?.get()).ok()
}

pub(super) fn request_progress_token(params: Option<&RawValue>) -> Option<ProgressToken> {
    // Most requests carry no token: a scan for the key is much cheaper than a parse. (A key
    // written with escapes is not found by it; `_meta` keys are plain ASCII on the wire.)
    if !params?.get().contains("progressToken") {
        return None;
    }
    let token = parse::<ParamsMeta>(params)?.meta?.progress_token?;
    Some(wire_token(token))
}

pub(super) fn cancelled_request(params: Option<&RawValue>) -> Option<Id> {
    parse::<CancelledNotificationParams>(params)?
        .request_id
        .map(wire_id)
}

/// Up to two frames: an optional priming event, then the message.
pub(super) struct Frames(pub(super) Option<Frame>, pub(super) Frame);

impl RouteState {
    /// Removes a finished request; returns its stream and whether that was its last one.
    pub(super) fn finish_request(&mut self, id: &Id) -> (Option<u64>, bool) {
        let Some(inflight) = self.requests.remove(id) else {
            return (None, false);
        };
        if let Some(token) = &inflight.progress_token {
            self.progress.remove(token);
        }
        let done = match self.streams.get_mut(&inflight.stream) {
            Some(slot) => {
                slot.pending = slot.pending.saturating_sub(1);
                slot.pending == 0
            }
            None => false,
        };
        (Some(inflight.stream), done)
    }

    pub(super) fn finish_stream_if_done(&mut self, stream: u64) {
        if self.streams.get(&stream).is_some_and(|s| s.pending == 0) {
            self.streams.remove(&stream);
        }
    }

    /// Whether `msg` is the response to the last request of a stream that nothing was sent
    /// on yet: [`RouteState::target`] would then complete that stream with it as plain JSON.
    pub(super) fn answers_plain(&self, msg: &Message) -> bool {
        let Message::Response(r) = msg else {
            return false;
        };
        r.id.as_ref()
            .and_then(|id| self.requests.get(id))
            .and_then(|inflight| self.streams.get(&inflight.stream))
            .is_some_and(|slot| slot.is_undecided() && slot.pending == 1)
    }

    /// The single in-flight request's stream, else the standalone stream.
    fn fallback(&self) -> u64 {
        if self.requests.len() == 1
            && let Some(inflight) = self.requests.values().next()
        {
            return inflight.stream;
        }
        StreamId::STANDALONE.0
    }

    /// Where `msg` goes, and whether it completes that stream. See the module docs for the
    /// rule.
    /// A `single_stream` session (legacy) sends everything on its one stream.
    pub(super) fn target(&mut self, msg: &Message, single_stream: bool) -> (Option<u64>, bool) {
        if single_stream {
            return (Some(StreamId::STANDALONE.0), false);
        }
        match msg {
            Message::Response(r) => {
                let Some(id) = &r.id else {
                    return (None, false);
                };
                if self.initialize_id.as_ref() == Some(id) {
                    self.initialize_id = None;
                    if let Ok(result) = &r.result
                        && let Ok(init) = serde_json::from_str::<InitializeResult>(result.get())
                    {
                        self.negotiated_version = Some(init.protocol_version.as_str().to_owned());
                    }
                }
                let (stream, done) = self.finish_request(id);
                if stream.is_none() {
                    tracing::debug!(%id, "response to an unknown or cancelled request; dropped");
                }
                (stream, done)
            }
            Message::Batch(items) => {
                let mut target = None;
                let mut done = false;
                for item in items {
                    if let Message::Response(r) = item
                        && let Some(id) = &r.id
                    {
                        let (stream, d) = self.finish_request(id);
                        if target.is_none() {
                            target = stream;
                        }
                        done |= d && stream == target;
                    }
                }
                (target, done)
            }
            Message::Notification(n) => {
                let routed = if n.method == Protocol::MCP_PROGRESS {
                    parse::<ProgressNotificationParams>(n.params.as_deref())
                        .map(|p| wire_token(p.progress_token))
                        .and_then(|t| self.progress.get(&t))
                        .and_then(|id| self.requests.get(id))
                        .map(|inflight| inflight.stream)
                } else if n.method == Protocol::MCP_CANCELLED {
                    cancelled_request(n.params.as_deref())
                        .and_then(|id| self.outbound_requests.remove(&id))
                        .filter(|s| self.streams.contains_key(s))
                } else {
                    None
                };
                (Some(routed.unwrap_or_else(|| self.fallback())), false)
            }
            Message::Request(r) => {
                let stream = self.fallback();
                self.outbound_requests.insert(r.id.clone(), stream);
                (Some(stream), false)
            }
            Message::Invalid(_) => (None, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block of 32 slots a tokio channel allocates up front is what an idle session
    /// keeps of its inbound queue: pointers, not 32 messages.
    #[test]
    fn the_inbound_queue_keeps_a_block_of_pointers() {
        assert!(32 * std::mem::size_of::<Queued>() <= 256);
    }

    #[test]
    fn a_progress_token_is_read_only_where_there_is_one() {
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.to_owned()).unwrap();
        let with = raw(r#"{"name":"echo","_meta":{"progressToken":"p1"}}"#);
        assert!(request_progress_token(Some(&with)).is_some());
        let number = raw(r#"{"_meta":{"progressToken":7}}"#);
        assert!(request_progress_token(Some(&number)).is_some());
        let without = raw(r#"{"name":"echo","arguments":{"text":"progressToken"}}"#);
        assert!(request_progress_token(Some(&without)).is_none());
        assert!(request_progress_token(Some(&raw(r#"{"name":"echo"}"#))).is_none());
        assert!(request_progress_token(None).is_none());
    }
}
