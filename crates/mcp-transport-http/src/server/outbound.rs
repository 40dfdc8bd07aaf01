//! Where a session's outbound messages go: [`Session::route`] picks each message's stream
//! (by the rule in `routing`) and its destination (the POST waiting for a plain JSON answer,
//! or the stream's queue), and [`Session::frames`] stores and frames an SSE event.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use mcp_jsonrpc::Message;
use tokio::sync::{mpsc, oneshot};

use super::error::Error;
use super::event_store::{StreamId, append_or_log};
use super::json_body::{Json, PARTS_FROM};
use super::routing::{Frames, Opening, RouteState};
use super::session::{Session, SessionKind};
use super::sse::{self, Frame};

impl Session {
    /// Sends an outbound message of the session, as its transport's
    /// [`send`](mcp_jsonrpc::Transport::send) does (the connection's messages, and the answers
    /// of requests run inline): routed now, in the order of the calls, and queued for its
    /// stream, or handed to its POST as the plain JSON answer.
    pub(crate) fn send(
        self: &Arc<Self>,
        msg: Message,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        use futures::future::{BoxFuture, Either, ready};
        use tokio::sync::mpsc::error::TrySendError;

        let session = self.clone();
        if session.is_ended() {
            return Either::Left(ready(Err(Error::SessionClosed)));
        }
        // A large message is encoded once it is routed, so that its raw result can move into
        // the answer whole (see `Json`); encoding fails only for a `Message::Invalid`, which
        // is never sent.
        let data = if msg.size_hint() >= PARTS_FROM {
            None
        } else {
            match msg.to_json_vec() {
                Ok(json) => Some(Bytes::from(json)),
                Err(e) => return Either::Left(ready(Err(Error::Encode(e)))),
            }
        };
        // Without an event store, or for a plain JSON answer (never stored), nothing here
        // waits but a full stream queue, so the message goes now: the connection boxes the
        // future of every send, and this whole one as an `async` block was over 1 KiB (past
        // glibc's per-thread cache of small blocks; dhat and callgrind on the HTTP bench).
        let unstored = match session.store() {
            None => Some(session.route(&msg)),
            Some(_) => session.route_plain(&msg),
        };
        if let Some(routed) = unstored {
            let Some(routed) = routed else {
                return Either::Left(ready(Ok(())));
            };
            let json = match data {
                Some(data) => Json::Whole(data),
                None => match Json::encode(msg) {
                    Ok(json) => json,
                    Err(e) => return Either::Left(ready(Err(e))),
                },
            };
            let Some((tx, frame)) = routed.unstored(json) else {
                return Either::Left(ready(Ok(())));
            };
            return match tx.try_send(frame) {
                // Closed: the client went away.
                Ok(()) | Err(TrySendError::Closed(_)) => Either::Left(ready(Ok(()))),
                Err(TrySendError::Full(frame)) => {
                    let wait: BoxFuture<'static, Result<(), Error>> = Box::pin(async move {
                        let _ = tx.send(frame).await;
                        Ok(())
                    });
                    Either::Right(wait)
                }
            };
        }
        let data = match data.map_or_else(|| msg.to_json_vec().map(Bytes::from), Ok) {
            Ok(data) => data,
            Err(e) => return Either::Left(ready(Err(Error::Encode(e)))),
        };
        let counted = StoredSend::new(session.clone());
        let stored: BoxFuture<'static, Result<(), Error>> = Box::pin(async move {
            let _counted = counted;
            let _order = session.order().await;
            let Some(routed) = session.route(&msg) else {
                return Ok(());
            };
            if routed.json {
                // A plain JSON answer (a batch's, here) is never stored.
                let _ = routed.unstored(Json::Whole(data));
                return Ok(());
            }
            // Stored even when its connection is gone: the client replays it.
            let Frames(priming, frame) = session.frames(&routed, data).await;
            if let Some(Destination::Queue(tx)) = routed.to {
                if let Some(priming) = priming
                    && tx.send(priming).await.is_err()
                {
                    return Ok(());
                }
                // An error means the client went away; the event store (if any) has it.
                let _ = tx.send(frame).await;
            }
            Ok(())
        });
        Either::Right(stored)
    }

    /// Decides where an outbound message goes and records it: the stream's queue (`None` if
    /// its connection is gone: the message is kept for replay only), whether it goes as plain
    /// JSON, and whether a priming event must precede it.
    pub(super) fn route(&self, msg: &Message) -> Option<Routed> {
        self.route_locked(&mut self.lock(), msg)
    }

    /// Routes `msg` if it goes as plain JSON (the whole answer to its POST: nothing went to
    /// that stream before it, and nothing can after), else leaves everything as it was
    /// (`None`). Such a message is never stored, so it needs no place in the order of the
    /// event store's appends ([`Session::order`]), unless sends before it are still waiting
    /// there (the connection creates the futures of several sends before awaiting them, and
    /// a log message sent before the answer must be routed first).
    pub(super) fn route_plain(&self, msg: &Message) -> Option<Option<Routed>> {
        if self.stored_sends.load(Ordering::Acquire) != 0 {
            return None;
        }
        let mut st = self.lock();
        if self.kind == SessionKind::Legacy || !st.answers_plain(msg) {
            return None;
        }
        Some(self.route_locked(&mut st, msg))
    }

    fn route_locked(&self, st: &mut RouteState, msg: &Message) -> Option<Routed> {
        let (stream, completes) = st.target(msg, self.kind == SessionKind::Legacy);
        let stream = stream?;
        let Some(slot) = st.streams.get_mut(&stream) else {
            tracing::debug!(stream, "no stream for an outbound message; dropped");
            return None;
        };
        let json = slot.is_undecided() && completes;
        let mut prime = false;
        let to = if json {
            slot.opening
                .take()
                .filter(|opening| !opening.is_closed())
                .map(Destination::Answer)
        } else {
            if slot.is_undecided() {
                slot.open_sse(self.config.stream_queue);
                prime = slot.prime && self.store().is_some();
            }
            slot.live_tx().cloned().map(Destination::Queue)
        };
        if to.is_none() {
            tracing::debug!(stream, "stream not connected; message kept for replay only");
        }
        if completes {
            st.streams.remove(&stream);
            self.after_completion(st);
        }
        Some(Routed {
            to,
            stream: StreamId(stream),
            json,
            prime,
        })
    }

    /// The frames of a message routed to an SSE stream: stored first (when the session has
    /// an event store), so that an event the client sees can always be replayed.
    pub(super) async fn frames(&self, routed: &Routed, data: Bytes) -> Frames {
        let Some((store, sid)) = self.store() else {
            return Frames(None, unstored_event(&data));
        };
        let mut priming = None;
        if routed.prime {
            let id = append_or_log(store, sid, routed.stream, Bytes::new()).await;
            priming = Some(Frame(sse::event(
                id.as_deref(),
                Some(self.config.sse_retry),
                None,
                b"",
            )));
        }
        let id = append_or_log(store, sid, routed.stream, data.clone()).await;
        Frames(
            priming,
            Frame(sse::event(id.as_deref(), None, Some("message"), &data)),
        )
    }
}

/// A send on its way through [`Session::order`], counted from its creation to its end.
pub(crate) struct StoredSend(Arc<Session>);

impl StoredSend {
    pub(crate) fn new(session: Arc<Session>) -> Self {
        session.stored_sends.fetch_add(1, Ordering::AcqRel);
        StoredSend(session)
    }
}

impl Drop for StoredSend {
    fn drop(&mut self) {
        self.0.stored_sends.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Where [`Session::route`] sends an outbound message.
pub(crate) struct Routed {
    /// `None` when no connection carries its stream.
    pub(super) to: Option<Destination>,
    stream: StreamId,
    /// The message is the whole answer to a POST: plain JSON, never stored.
    pub(super) json: bool,
    /// A priming event goes first (the stream just became SSE).
    prime: bool,
}

/// Where a routed message goes.
pub(super) enum Destination {
    /// The POST waiting for its plain JSON answer.
    Answer(oneshot::Sender<Opening>),
    /// An SSE stream's queue.
    Queue(mpsc::Sender<Frame>),
}

impl Routed {
    /// Hands a plain JSON answer to its POST (then `None`), or makes the message an SSE
    /// event without an id (a session without an event store) for its stream's queue
    /// (`None` when no connection carries the stream).
    pub(super) fn unstored(self, data: Json) -> Option<(mpsc::Sender<Frame>, Frame)> {
        match self.to? {
            Destination::Answer(answer) => {
                // Fails only if the client went away meanwhile.
                let _ = answer.send(Opening::Json(data));
                None
            }
            Destination::Queue(tx) => Some((tx, unstored_event(&data.whole()))),
        }
    }
}

/// An SSE event that is not stored: no event id.
fn unstored_event(data: &[u8]) -> Frame {
    Frame(sse::event(None, None, Some("message"), data))
}
