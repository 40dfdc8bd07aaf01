//! [`Connection`]: the engine that drives one transport. This file holds the loop and the
//! write side; `inbound.rs` what happens to each message read, `running.rs` a running
//! handler, `inline.rs` requests run in the transport's task, `end.rs` how it ends.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::error::{BoxError, Error, Result};
use crate::handler::Handler;
use crate::message::{Id, Message, Notification, Request, Response};
use crate::peer::{Peer, Queued, Shared};
use crate::transport::Transport;

mod end;
mod inbound;
pub(crate) mod inline;
mod running;

pub use inline::{InlineAnswer, InlineCall, InlineRequests};

/// How many rounds [`Driver::poll_step`] makes before yielding to the executor.
const BUDGET: usize = 64;
/// The most messages handed to one [`Transport::send_many`].
const SEND_BATCH: usize = 64;
/// How many messages may wait to be written while more input is ready to be read.
const WRITE_EARLY: usize = 8;

/// A JSON-RPC connection over a [`Transport`]: a future the caller runs.
///
/// The library never spawns: [`run`](Self::run) drives everything (reading, writing, the
/// in-flight handlers, timers of nothing but the callers' own futures) and completes when the
/// connection closes.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use mcp_jsonrpc::{memory, Config, Connection};
///
/// let (a, b) = memory::pair(16);
/// let (peer, conn) = Connection::new(a, (), Config::default());
/// let task = tokio::spawn(conn.run());
/// # drop(b);
/// peer.close();
/// task.await.unwrap().unwrap();
/// # }
/// ```
pub struct Connection<T, H> {
    transport: T,
    driver: Driver<H>,
}

impl<T: fmt::Debug, H> fmt::Debug for Connection<T, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl<T: Transport, H: Handler> Connection<T, H> {
    /// Creates the [`Peer`] handle to call the other side and the connection over
    /// `transport` whose inbound calls go to `handler`: the handle first and the future that
    /// drives it second, as everywhere in the workspace (`Client::builder().connect()`,
    /// `Redis::connect`). Nothing happens until [`run`](Self::run) is polled.
    pub fn new(mut transport: T, handler: H, config: Config) -> (Peer, Self) {
        let shared = Arc::new(Shared::new(&config));
        let (tx, rx) = mpsc::channel(config.outbound_queue.max(1));
        let peer = Peer::new(shared.clone(), tx);
        let handler = Arc::new(handler);
        let max_concurrent = config.max_concurrent_requests.max(1);
        let inline = Arc::new(inline::Inline::new(
            handler.clone(),
            peer.clone(),
            max_concurrent,
        ));
        let inline = transport.accept_inline(inline.handle()).then_some(inline);
        let driver = Driver {
            handler,
            inline,
            shared,
            peer: peer.clone(),
            outbound_rx: rx,
            outbound_waiting: false,
            in_poll: false,
            limits: Limits {
                max_concurrent,
                backlog: config.request_backlog.max(1),
                notifications: config.notification_queue.max(1),
                outbound: config.outbound_queue.max(1),
                max_size: config.max_message_size,
                flush_timeout: config.flush_timeout,
            },
            write_queue: VecDeque::new(),
            sending: None,
            handlers: FuturesUnordered::new(),
            fresh: None,
            running: HashMap::default(),
            backlog: VecDeque::new(),
            backlog_ids: HashSet::default(),
            queued_responses: 0,
            queued_replies: 0,
            notifications: VecDeque::new(),
            current_notification: None,
            batches: HashMap::new(),
            next_batch: 0,
        };
        (peer, Connection { transport, driver })
    }

    /// Runs the connection until it closes: [`Peer::close`] was called (`Ok`), the peer ended
    /// the stream (`Ok`), or the transport failed ([`Error::Transport`]).
    ///
    /// When the peer ends its stream but still reads
    /// ([`Transport::peer_reads_after_end`]: stdio), the requests it already sent are still
    /// answered (see [`Config::flush_timeout`]). On the way out, pending outgoing requests fail with
    /// [`Error::Closed`] and in-flight handlers are cancelled; on a graceful close, the
    /// messages already queued (responses, notifications) are flushed, for at most
    /// [`Config::flush_timeout`] (a peer that stopped reading does not keep the connection
    /// alive), and the transport closed.
    ///
    /// # Cancel safety
    ///
    /// Dropping this future tears the connection down: pending requests fail with
    /// [`Error::Closed`] and handlers are dropped. It cannot be resumed.
    // Not an `async fn`: that would keep `self` and the two parts moved out of it, the
    // connection twice over, in the future every idle session holds.
    pub fn run(self) -> impl Future<Output = Result<()>> {
        let Connection {
            mut transport,
            mut driver,
        } = self;
        async move {
            let end = driver.drive(&mut transport).await;
            // Boxed, like `drain`: states a connection enters once, at its end, so that they
            // do not make the future every idle session keeps larger (timers, the flush).
            Box::pin(driver.shutdown(&mut transport, end)).await
        }
    }
}

struct Limits {
    max_concurrent: usize,
    /// Requests waiting for a slot; also the error replies waiting to be written (with
    /// `outbound`): past either, reading pauses.
    backlog: usize,
    notifications: usize,
    outbound: usize,
    max_size: usize,
    flush_timeout: Duration,
}

#[derive(PartialEq, Eq)]
enum Kind {
    /// From a [`Peer`] handle.
    Peer,
    /// A handler's response, which holds its concurrency slot until sent.
    Response,
    /// An error reply the engine made to something it read; counted, since reading pauses
    /// while too many wait.
    Reply,
    /// Anything else the engine generated itself (cancellations, batch responses).
    Engine,
}

struct Outgoing {
    msg: Message,
    kind: Kind,
}

impl Outgoing {
    /// Its message, taken off the counts of queued responses and replies as it goes.
    fn uncount(self, responses: &mut usize, replies: &mut usize) -> Message {
        match self.kind {
            Kind::Response => *responses = responses.saturating_sub(1),
            Kind::Reply => *replies = replies.saturating_sub(1),
            Kind::Peer | Kind::Engine => {}
        }
        self.msg
    }
}

struct Running {
    token: CancellationToken,
    batch: Option<u64>,
}

#[derive(Default)]
struct Batch {
    waiting: usize,
    responses: Vec<Message>,
}

enum Step<E> {
    /// Nothing more to read for now, and messages wait in the write queue: start a write.
    Send,
    Recv(Result<Option<Message>, E>),
    SendFailed(BoxError),
    Close,
}

enum End {
    Local,
    PeerClosed,
    Failed(Error),
}

struct Driver<H> {
    handler: Arc<H>,
    /// The requests the transport runs inline, if it took them ([`InlineRequests`]).
    inline: Option<Arc<inline::Inline>>,
    shared: Arc<Shared>,
    peer: Peer,
    outbound_rx: mpsc::Receiver<Queued>,
    /// Whether the last look at `outbound_rx` was a poll that found it empty, made in the
    /// executor's current poll of the drive loop: that poll left this task's waker with the
    /// queue, where it stays until a message arrives (or, out of the runtime's budget, woke
    /// the task at once, which polls it again later), so until the executor's poll ends a
    /// turn checks the queue's length instead of polling it again (a poll registers the waker
    /// anew and takes from the runtime's budget: about 160 instructions a turn, callgrind on
    /// the stdio bench). Cleared by whatever takes a message, and by `poll_ended` (the only
    /// way out of the executor's poll: the drive loop's other steps go on to another turn).
    outbound_waiting: bool,
    /// Whether a turn has run in the executor's current poll of the drive loop, and so left
    /// this task's waker with `shared` (for the handles' wake-ups: a close, a cancellation),
    /// where it stays until one of those takes it, waking the task. Cleared with
    /// `outbound_waiting`.
    in_poll: bool,
    limits: Limits,
    write_queue: VecDeque<Outgoing>,
    sending: Option<BoxFuture<'static, Result<(), BoxError>>>,
    handlers: FuturesUnordered<running::HandlerTask>,
    /// A handler just started: polled once on its own before it joins `handlers`. Most
    /// finish on that poll, and then never cost the set its node (an allocation and the
    /// set's bookkeeping per request; callgrind on the HTTP bench).
    fresh: Option<running::HandlerTask>,
    /// Keyed by ids the peer chose: a keyed hash (foldhash's, seeded per map), faster than
    /// SipHash on every request.
    running: HashMap<Id, Running, foldhash::fast::RandomState>,
    backlog: VecDeque<(Request, Option<u64>)>,
    /// The ids in `backlog`, for the duplicate check.
    backlog_ids: HashSet<Id, foldhash::fast::RandomState>,
    /// Handler responses in the write queue (they still hold their slots).
    queued_responses: usize,
    /// [`Kind::Reply`] messages in the write queue.
    queued_replies: usize,
    notifications: VecDeque<Notification>,
    current_notification: Option<BoxFuture<'static, ()>>,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
}

impl<H> Drop for Driver<H> {
    fn drop(&mut self) {
        self.shared.fail_all("connection dropped");
        self.shared.set_finished();
    }
}

impl<H: Handler> Driver<H> {
    async fn drive<T: Transport>(&mut self, transport: &mut T) -> End {
        loop {
            let step = {
                // Recreated after every message: `recv` is cancel-safe, and `send` needs the
                // transport back to start the next write.
                let mut recv = pin!(transport.recv());
                poll_fn(|cx| self.poll_step(cx, recv.as_mut())).await
            };
            match step {
                Step::Send => self.sending = Some(self.start_send(transport)),
                Step::Recv(Ok(Some(msg))) => self.dispatch(msg),
                Step::Recv(Ok(None)) if transport.peer_reads_after_end() => {
                    return Box::pin(self.drain(transport)).await;
                }
                Step::Recv(Ok(None)) => return End::PeerClosed,
                Step::Recv(Err(e)) => return End::Failed(Error::Transport(Box::new(e))),
                Step::SendFailed(e) => return End::Failed(Error::Transport(e)),
                Step::Close => return End::Local,
            }
        }
    }

    /// Nothing running, waiting or left to write.
    fn is_idle(&self) -> bool {
        self.running.is_empty()
            && self.backlog.is_empty()
            && self.notifications.is_empty()
            && self.current_notification.is_none()
            && self.write_queue.is_empty()
            && self.sending.is_none()
    }

    /// Starts writing what waits in the write queue: one message with `send`, or up to
    /// [`SEND_BATCH`] with `send_many` (pipelined replies then cost one write, not one each).
    fn start_send<T: Transport>(
        &mut self,
        transport: &mut T,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let count = self.write_queue.len().min(SEND_BATCH);
        // One message (the usual case) goes without a `Vec`.
        let (responses, replies) = (&mut self.queued_responses, &mut self.queued_replies);
        if count == 1
            && let Some(out) = self.write_queue.pop_front()
        {
            let from_peer = usize::from(out.kind == Kind::Peer);
            let fut = transport.send(out.uncount(responses, replies));
            return self.sending_counted(fut, from_peer);
        }
        let mut msgs = Vec::with_capacity(count);
        let mut from_peers = 0;
        for out in self.write_queue.drain(..count) {
            from_peers += usize::from(out.kind == Kind::Peer);
            msgs.push(out.uncount(responses, replies));
        }
        let fut = transport.send_many(msgs);
        self.sending_counted(fut, from_peers)
    }

    /// A send of the transport's, boxed; the handles' messages in it (`from_peers`) stay
    /// counted as unsent until it has finished, not just started: a transport may order its
    /// sends only when they run (HTTP with an event store takes the session's order lock in
    /// the future), and an inline answer sent meanwhile must not overtake them.
    fn sending_counted<F, E>(
        &self,
        fut: F,
        from_peers: usize,
    ) -> BoxFuture<'static, Result<(), BoxError>>
    where
        F: Future<Output = std::result::Result<(), E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        if from_peers == 0 {
            return Box::pin(async move { fut.await.map_err(|e| Box::new(e) as BoxError) });
        }
        let shared = self.shared.clone();
        Box::pin(async move {
            let sent = fut.await;
            shared.sent(from_peers);
            sent.map_err(|e| Box::new(e) as BoxError)
        })
    }

    fn poll_step<F, E>(&mut self, cx: &mut Context<'_>, recv: Pin<&mut F>) -> Poll<Step<E>>
    where
        F: Future<Output = Result<Option<Message>, E>>,
    {
        let Some(inline) = self.inline.clone() else {
            return self.poll_turns(cx, recv);
        };
        for task in inline.take_orphans() {
            self.adopt(task);
        }
        let step = self.poll_turns(cx, recv);
        // For admitting inline calls: what of the slots this side holds, and whether
        // requests of its wait for one (then a slot freed inline wakes it).
        inline.publish(
            self.running.len() + self.queued_responses + self.backlog.len(),
            !self.backlog.is_empty(),
        );
        step
    }

    fn poll_turns<F, E>(&mut self, cx: &mut Context<'_>, mut recv: Pin<&mut F>) -> Poll<Step<E>>
    where
        F: Future<Output = Result<Option<Message>, E>>,
    {
        if !self.in_poll {
            self.shared.waker.register(cx.waker());
            self.in_poll = true;
        }
        for _ in 0..BUDGET {
            let mut progressed = false;
            if self.shared.close_requested() {
                return Poll::Ready(Step::Close);
            }
            if let Some(sending) = self.sending.as_mut() {
                match sending.as_mut().poll(cx) {
                    // Not progress that needs another turn: what a finished write allows
                    // (the next write) is looked at further down this turn, and the queues'
                    // counts it frees were released when it started.
                    Poll::Ready(Ok(())) => self.sending = None,
                    Poll::Ready(Err(e)) => {
                        self.sending = None;
                        return Poll::Ready(Step::SendFailed(e));
                    }
                    Poll::Pending => {}
                }
            }
            progressed |= self.pull_outbound(cx);
            // After pulling from the handles, so a request abandoned before it went out is
            // found in the write queue and dropped rather than cancelled.
            if self.shared.has_cancels() {
                progressed |= self.send_cancels();
            }
            if let Some(mut task) = self.fresh.take() {
                match Pin::new(&mut task).poll(cx) {
                    Poll::Ready(done) => self.on_handler_done(done),
                    Poll::Pending => self.handlers.push(task),
                }
                progressed = true;
            }
            // An empty set has nothing to wake this task for (and a poll would register the
            // waker with it all the same).
            while !self.handlers.is_empty()
                && let Poll::Ready(Some(done)) = self.handlers.poll_next_unpin(cx)
            {
                self.on_handler_done(done);
                progressed = true;
            }
            progressed |= self.start_backlog();
            progressed |= self.poll_notifications(cx);
            // Reading comes first while messages are ready: pipelined requests are read (and
            // their replies written together) before the next write starts ...
            // Backpressure: not reading leaves the peer's messages in the transport (and its
            // writes waiting) until there is room; see `reading_paused`.
            // ... but not for long: once `WRITE_EARLY` messages wait, they go out, so that a
            // pipelining peer works on them while this side reads on (measured: 211k calls/s
            // writing only when nothing was left to read, 312k with this).
            if self.sending.is_none() && self.write_queue.len() >= WRITE_EARLY {
                return Poll::Ready(Step::Send);
            }
            if !self.reading_paused()
                && let Poll::Ready(r) = recv.as_mut().poll(cx)
            {
                return Poll::Ready(Step::Recv(r));
            }
            if self.sending.is_none() && !self.write_queue.is_empty() {
                return Poll::Ready(Step::Send);
            }
            if !progressed {
                self.poll_ended();
                return Poll::Pending;
            }
        }
        self.poll_ended();
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// The executor's poll of the drive loop ends (a turn returns `Pending`): the next turn,
    /// in the next poll, polls every queue again.
    fn poll_ended(&mut self) {
        self.outbound_waiting = false;
        self.in_poll = false;
    }

    /// Moves the handles' messages from the outbound queue into the write queue while it has
    /// room; whether any moved. See `outbound_waiting` for when the queue is not polled.
    fn pull_outbound(&mut self, cx: &mut Context<'_>) -> bool {
        if self.outbound_waiting && self.outbound_rx.is_empty() {
            return false;
        }
        let mut pulled = false;
        while self.write_queue.len() < self.limits.outbound {
            match self.outbound_rx.poll_recv(cx) {
                Poll::Ready(Some(msg)) => {
                    self.outbound_waiting = false;
                    self.enqueue_from_peer(msg);
                    pulled = true;
                }
                Poll::Ready(None) => break,
                Poll::Pending => {
                    self.outbound_waiting = true;
                    break;
                }
            }
        }
        pulled
    }

    // The message comes boxed out of the outbound queue; it is unboxed into the write queue.
    #[allow(clippy::boxed_local)]
    fn enqueue_from_peer(&mut self, msg: Queued) {
        if let Message::Request(r) = &*msg
            && !self.shared.is_pending(&r.id)
        {
            // Its caller gave up before it went out.
            self.shared.sent(1);
            return;
        }
        self.write_queue.push_back(Outgoing {
            msg: *msg,
            kind: Kind::Peer,
        });
    }

    /// Whether the loop stops reading for now: a queue that what it reads would go into is
    /// full (the request backlog, the notification queue), or too many error replies wait
    /// for the peer to read them. Nothing read is ever refused or dropped for load.
    ///
    /// While a request of this side is pending, the queues do not pause reading: its
    /// response may be behind the messages that fill them, and a handler waiting for it
    /// would never free its slot (sampling in the middle of a tool call). Requests then past
    /// the backlog are refused, and notifications past the queue dropped (see `inbound`).
    /// Error replies always pause: they can neither be dropped nor grow without bound.
    fn reading_paused(&self) -> bool {
        if self.queued_replies >= self.limits.outbound {
            return true;
        }
        let full = self.backlog.len() >= self.limits.backlog
            || self.notifications.len() >= self.limits.notifications;
        full && !self.shared.awaiting_responses()
    }

    /// Queues an error reply to something read. Never dropped: past
    /// [`Config::outbound_queue`] of them, reading pauses until the peer reads them.
    fn push_reply(&mut self, response: Response) {
        self.queued_replies += 1;
        self.write_queue.push_back(Outgoing {
            msg: Message::Response(response),
            kind: Kind::Reply,
        });
    }

    /// Turns requests abandoned by their callers into cancellation notifications.
    fn send_cancels(&mut self) -> bool {
        let cancels = self.shared.take_cancels();
        let any = !cancels.is_empty();
        for (id, reason) in cancels {
            let queued = self
                .write_queue
                .iter()
                .position(|o| matches!(&o.msg, Message::Request(r) if r.id == id));
            if let Some(i) = queued {
                // Never sent: just drop it.
                self.write_queue.remove(i);
                self.shared.sent(1);
                continue;
            }
            let params = serde_json::json!({ "requestId": id, "reason": reason });
            let Ok(params) = serde_json::value::to_raw_value(&params) else {
                continue;
            };
            self.write_queue.push_back(Outgoing {
                msg: Message::Notification(Notification::new(
                    self.shared.protocol.cancelled_method.clone(),
                    Some(params),
                )),
                kind: Kind::Engine,
            });
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory;

    /// A server keeps this future for every session, idle or not: it holds the connection
    /// once (not also the `self` it was made from), and the states of its end (the drain,
    /// the shutdown's flush and timers) only behind a box.
    #[test]
    fn the_run_future_holds_the_connection_once() {
        let (a, _b) = memory::pair(1);
        let (_peer, conn) = Connection::new(a, (), Config::default());
        let connection = std::mem::size_of_val(&conn);
        let run = std::mem::size_of_val(&conn.run());
        assert!(
            run < 2 * connection,
            "the run future is {run} bytes, the connection {connection}"
        );
    }
}
