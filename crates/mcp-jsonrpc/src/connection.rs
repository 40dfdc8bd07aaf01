//! [`Connection`]: the engine that drives one transport.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::config::Config;
use crate::error::{BoxError, Error, ErrorObject, Result};
use crate::handler::{Handler, NotificationContext, RequestContext};
use crate::message::{Id, Message, Notification, Request, Response, too_large};
use crate::peer::{Peer, Progress, Shared, read_progress_token};
use crate::transport::Transport;

/// How many rounds [`Driver::poll_step`] makes before yielding to the executor.
const BUDGET: usize = 64;

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
/// let (conn, peer) = Connection::new(a, (), Config::default());
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
    /// Creates a connection over `transport` whose inbound calls go to `handler`, and the
    /// [`Peer`] handle to call the other side. Nothing happens until [`run`](Self::run) is
    /// polled.
    pub fn new(transport: T, handler: H, config: Config) -> (Self, Peer) {
        let shared = Arc::new(Shared::new(&config));
        let (tx, rx) = mpsc::channel(config.outbound_queue.max(1));
        let peer = Peer::new(shared.clone(), tx);
        let driver = Driver {
            handler: Arc::new(handler),
            shared,
            peer: peer.clone(),
            outbound_rx: rx,
            limits: Limits {
                max_concurrent: config.max_concurrent_requests.max(1),
                backlog: config.request_backlog,
                notifications: config.notification_queue,
                outbound: config.outbound_queue.max(1),
                replies: config
                    .outbound_queue
                    .max(1)
                    .saturating_add(config.max_concurrent_requests)
                    .saturating_mul(2),
                max_size: config.max_message_size,
            },
            write_queue: VecDeque::new(),
            sending: None,
            handlers: FuturesUnordered::new(),
            running: HashMap::new(),
            backlog: VecDeque::new(),
            queued_responses: 0,
            notifications: VecDeque::new(),
            current_notification: None,
            batches: HashMap::new(),
            next_batch: 0,
        };
        (Connection { transport, driver }, peer)
    }

    /// Runs the connection until it closes: [`Peer::close`] was called (`Ok`), the peer ended
    /// the stream (`Ok`), or the transport failed ([`Error::Transport`]).
    ///
    /// On the way out, pending outgoing requests fail with [`Error::Closed`] and in-flight
    /// handlers are cancelled; on a graceful close, the messages already queued (responses,
    /// notifications) are flushed and the transport closed.
    ///
    /// # Cancel safety
    ///
    /// Dropping this future tears the connection down: pending requests fail with
    /// [`Error::Closed`] and handlers are dropped. It cannot be resumed.
    pub async fn run(self) -> Result<()> {
        let Connection {
            mut transport,
            mut driver,
        } = self;
        let end = driver.drive(&mut transport).await;
        driver.shutdown(&mut transport, end).await
    }
}

struct Limits {
    max_concurrent: usize,
    backlog: usize,
    notifications: usize,
    outbound: usize,
    /// The write queue length beyond which error replies are dropped.
    replies: usize,
    max_size: usize,
}

#[derive(PartialEq, Eq)]
enum Kind {
    /// From a [`Peer`] handle.
    Peer,
    /// A handler's response, which holds its concurrency slot until sent.
    Response,
    /// Anything the engine generated itself.
    Engine,
}

struct Outgoing {
    msg: Message,
    kind: Kind,
}

struct Running {
    token: CancellationToken,
    batch: Option<u64>,
}

struct HandlerDone {
    id: Id,
    /// `None` if cancelled; `Some(Err(_))` if it panicked.
    output: Option<std::thread::Result<Result<Box<RawValue>, ErrorObject>>>,
}

#[derive(Default)]
struct Batch {
    waiting: usize,
    responses: Vec<Message>,
}

enum Step<E> {
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
    shared: Arc<Shared>,
    peer: Peer,
    outbound_rx: mpsc::Receiver<Message>,
    limits: Limits,
    write_queue: VecDeque<Outgoing>,
    sending: Option<BoxFuture<'static, Result<(), BoxError>>>,
    handlers: FuturesUnordered<BoxFuture<'static, HandlerDone>>,
    running: HashMap<Id, Running>,
    backlog: VecDeque<(Request, Option<u64>)>,
    queued_responses: usize,
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
            if self.sending.is_none()
                && let Some(out) = self.write_queue.pop_front()
            {
                if out.kind == Kind::Response {
                    self.queued_responses = self.queued_responses.saturating_sub(1);
                }
                let fut = transport.send(out.msg);
                self.sending = Some(Box::pin(async move {
                    fut.await.map_err(|e| Box::new(e) as BoxError)
                }));
            }
            let step = {
                // Recreated after every message: `recv` is cancel-safe, and `send` needs the
                // transport back to start the next write.
                let mut recv = pin!(transport.recv());
                poll_fn(|cx| self.poll_step(cx, recv.as_mut())).await
            };
            match step {
                Step::Send => {}
                Step::Recv(Ok(Some(msg))) => self.dispatch(msg),
                Step::Recv(Ok(None)) => return End::PeerClosed,
                Step::Recv(Err(e)) => return End::Failed(Error::Transport(Box::new(e))),
                Step::SendFailed(e) => return End::Failed(Error::Transport(e)),
                Step::Close => return End::Local,
            }
        }
    }

    fn poll_step<F, E>(&mut self, cx: &mut Context<'_>, mut recv: Pin<&mut F>) -> Poll<Step<E>>
    where
        F: Future<Output = Result<Option<Message>, E>>,
    {
        self.shared.waker.register(cx.waker());
        for _ in 0..BUDGET {
            let mut progressed = false;
            if self.shared.close_requested() {
                return Poll::Ready(Step::Close);
            }
            if let Some(sending) = self.sending.as_mut() {
                match sending.as_mut().poll(cx) {
                    Poll::Ready(Ok(())) => {
                        self.sending = None;
                        progressed = true;
                    }
                    Poll::Ready(Err(e)) => {
                        self.sending = None;
                        return Poll::Ready(Step::SendFailed(e));
                    }
                    Poll::Pending => {}
                }
            }
            while self.write_queue.len() < self.limits.outbound {
                match self.outbound_rx.poll_recv(cx) {
                    Poll::Ready(Some(msg)) => {
                        self.enqueue_from_peer(msg);
                        progressed = true;
                    }
                    _ => break,
                }
            }
            // After pulling from the handles, so a request abandoned before it went out is
            // found in the write queue and dropped rather than cancelled.
            progressed |= self.send_cancels();
            while let Poll::Ready(Some(done)) = self.handlers.poll_next_unpin(cx) {
                self.on_handler_done(done);
                progressed = true;
            }
            progressed |= self.start_backlog();
            progressed |= self.poll_notifications(cx);
            if self.sending.is_none() && !self.write_queue.is_empty() {
                return Poll::Ready(Step::Send);
            }
            if let Poll::Ready(r) = recv.as_mut().poll(cx) {
                return Poll::Ready(Step::Recv(r));
            }
            if !progressed {
                return Poll::Pending;
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    fn enqueue_from_peer(&mut self, msg: Message) {
        if let Message::Request(r) = &msg
            && !self.shared.is_pending(&r.id)
        {
            // Its caller gave up before it went out.
            return;
        }
        self.write_queue.push_back(Outgoing {
            msg,
            kind: Kind::Peer,
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

    fn slots_in_use(&self) -> usize {
        self.running.len() + self.queued_responses
    }

    fn start_backlog(&mut self) -> bool {
        let mut any = false;
        while self.slots_in_use() < self.limits.max_concurrent {
            let Some((request, batch)) = self.backlog.pop_front() else {
                break;
            };
            self.start_request(request, batch);
            any = true;
        }
        any
    }

    fn start_request(&mut self, mut request: Request, batch: Option<u64>) {
        let token = CancellationToken::new();
        let id = request.id.clone();
        let ctx = RequestContext {
            id: id.clone(),
            cancellation: token.clone(),
            progress_token: read_progress_token(request.params.as_deref()),
            peer: self.peer.clone(),
            extensions: Arc::new(std::mem::take(&mut request.extensions)),
        };
        let span = tracing::debug_span!("request", id = %id, method = %request.method);
        let handler = self.handler.clone();
        let call = AssertUnwindSafe(async move { handler.handle_request(request, ctx).await })
            .catch_unwind();
        let done_id = id.clone();
        let fut = token
            .clone()
            .run_until_cancelled_owned(call)
            .map(move |output| HandlerDone {
                id: done_id,
                output,
            })
            .instrument(span);
        self.running.insert(id, Running { token, batch });
        self.handlers.push(Box::pin(fut));
    }

    fn on_handler_done(&mut self, done: HandlerDone) {
        let Some(running) = self.running.remove(&done.id) else {
            return;
        };
        let id = done.id;
        // What the handler sent through its peer before returning (progress, logs) goes out
        // before its response.
        while let Ok(msg) = self.outbound_rx.try_recv() {
            self.enqueue_from_peer(msg);
        }
        let response = match done.output {
            None => None,
            Some(_) if running.token.is_cancelled() => None,
            Some(Ok(Ok(result))) => Some(Response::ok(id, result)),
            Some(Ok(Err(error))) => Some(Response::error(Some(id), error)),
            Some(Err(panic)) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("a non-string payload");
                tracing::error!(%id, panic = what, "request handler panicked");
                Some(Response::error(
                    Some(id),
                    ErrorObject::internal_error("request handler panicked"),
                ))
            }
        };
        match running.batch {
            Some(batch) => self.batch_item_done(batch, response),
            None => {
                if let Some(response) = response {
                    self.queued_responses += 1;
                    self.write_queue.push_back(Outgoing {
                        msg: Message::Response(response),
                        kind: Kind::Response,
                    });
                }
            }
        }
    }

    fn poll_notifications(&mut self, cx: &mut Context<'_>) -> bool {
        let mut any = false;
        loop {
            if let Some(current) = self.current_notification.as_mut() {
                match current.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        self.current_notification = None;
                        any = true;
                    }
                    Poll::Pending => return any,
                }
            }
            let Some(notification) = self.notifications.pop_front() else {
                return any;
            };
            let handler = self.handler.clone();
            let ctx = NotificationContext {
                peer: self.peer.clone(),
            };
            let method = notification.method.clone();
            let call = async move { handler.handle_notification(notification, ctx).await };
            self.current_notification = Some(Box::pin(AssertUnwindSafe(call).catch_unwind().map(
                move |r| {
                    if r.is_err() {
                        tracing::error!(%method, "notification handler panicked");
                    }
                },
            )));
            any = true;
        }
    }

    /// Queues an error reply the engine generated; dropped if the peer is not reading.
    fn push_reply(&mut self, response: Response) {
        if self.write_queue.len() >= self.limits.replies {
            tracing::warn!(error = %response.result.as_ref().err().map_or(String::new(), ToString::to_string),
                "write queue full, dropping an error reply");
            return;
        }
        self.write_queue.push_back(Outgoing {
            msg: Message::Response(response),
            kind: Kind::Engine,
        });
    }

    fn dispatch(&mut self, msg: Message) {
        match msg {
            Message::Batch(items) => self.dispatch_batch(items),
            msg => {
                if let Some(reply) = self.dispatch_one(msg, None) {
                    self.push_reply(reply);
                }
            }
        }
    }

    fn dispatch_batch(&mut self, items: Vec<Message>) {
        if !self.shared.batching() {
            self.push_reply(Response::error(
                None,
                ErrorObject::invalid_request("batches are not supported"),
            ));
            return;
        }
        let size = items.iter().map(Message::size_hint).sum::<usize>();
        if size > self.limits.max_size {
            self.push_reply(Response::error(None, too_large(size, self.limits.max_size)));
            return;
        }
        let key = self.next_batch;
        self.next_batch += 1;
        self.batches.insert(key, Batch::default());
        for item in items {
            if let Some(reply) = self.dispatch_one(item, Some(key))
                && let Some(batch) = self.batches.get_mut(&key)
            {
                batch.responses.push(Message::Response(reply));
            }
        }
        self.finish_batch_if_done(key);
    }

    fn batch_item_done(&mut self, key: u64, response: Option<Response>) {
        if let Some(batch) = self.batches.get_mut(&key) {
            batch.waiting = batch.waiting.saturating_sub(1);
            if let Some(response) = response {
                batch.responses.push(Message::Response(response));
            }
        }
        self.finish_batch_if_done(key);
    }

    fn finish_batch_if_done(&mut self, key: u64) {
        if self.batches.get(&key).is_some_and(|b| b.waiting == 0)
            && let Some(batch) = self.batches.remove(&key)
            && !batch.responses.is_empty()
        {
            self.write_queue.push_back(Outgoing {
                msg: Message::Batch(batch.responses),
                kind: Kind::Engine,
            });
        }
    }

    /// Handles one message; returns the error reply to send, if any.
    fn dispatch_one(&mut self, msg: Message, batch: Option<u64>) -> Option<Response> {
        let size = msg.size_hint();
        let limit = self.limits.max_size;
        match msg {
            Message::Request(request) => {
                if size > limit {
                    return Some(Response::error(Some(request.id), too_large(size, limit)));
                }
                if self.running.contains_key(&request.id)
                    || self.backlog.iter().any(|(r, _)| r.id == request.id)
                {
                    return Some(Response::error(
                        Some(request.id),
                        ErrorObject::invalid_request("duplicate request id"),
                    ));
                }
                if self.slots_in_use() >= self.limits.max_concurrent
                    && self.backlog.len() >= self.limits.backlog
                {
                    tracing::warn!(id = %request.id, "too many requests, refusing one");
                    return Some(Response::error(
                        Some(request.id),
                        ErrorObject::internal_error("too many concurrent requests"),
                    ));
                }
                if let Some(b) = batch.and_then(|key| self.batches.get_mut(&key)) {
                    b.waiting += 1;
                }
                if self.slots_in_use() < self.limits.max_concurrent {
                    self.start_request(request, batch);
                } else {
                    self.backlog.push_back((request, batch));
                }
                None
            }
            Message::Notification(notification) => {
                if size > limit {
                    tracing::warn!(method = %notification.method, size, limit,
                        "dropping an oversized notification");
                } else {
                    self.on_notification(notification);
                }
                None
            }
            Message::Response(response) => {
                self.on_response(response, (size > limit).then_some(size));
                None
            }
            Message::Invalid(invalid) => {
                tracing::debug!(error = %invalid.error, "invalid message");
                Some(Response::error(invalid.id, invalid.error))
            }
            Message::Batch(_) => Some(Response::error(
                None,
                ErrorObject::invalid_request("nested batch"),
            )),
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        let protocol = &self.shared.protocol;
        if notification.method == protocol.cancelled_method {
            self.on_cancel(&notification);
            return;
        }
        if notification.method == protocol.progress_method
            && let Ok(progress) = notification.params::<Progress>()
            && self.shared.route_progress(progress)
        {
            return;
        }
        if self.notifications.len() >= self.limits.notifications {
            tracing::warn!(method = %notification.method, "notification queue full, dropping a notification");
            return;
        }
        self.notifications.push_back(notification);
    }

    fn on_cancel(&mut self, notification: &Notification) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Cancelled {
            request_id: Id,
            #[serde(default)]
            reason: Option<String>,
        }
        let cancelled = match notification.params::<Cancelled>() {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(error = %e, "ignoring a malformed cancellation");
                return;
            }
        };
        let id = cancelled.request_id;
        tracing::debug!(%id, reason = cancelled.reason.as_deref(), "peer cancelled a request");
        if let Some(running) = self.running.get(&id) {
            running.token.cancel();
        } else if let Some(i) = self.backlog.iter().position(|(r, _)| r.id == id)
            && let Some((_, Some(batch))) = self.backlog.remove(i)
        {
            self.batch_item_done(batch, None);
        }
    }

    fn on_response(&mut self, response: Response, too_big: Option<usize>) {
        let Some(id) = response.id else {
            if let Err(error) = &response.result {
                tracing::warn!(%error, "peer reported an error without a request id");
            }
            return;
        };
        let reply = match too_big {
            Some(size) => Err(Error::MessageTooLarge {
                size,
                limit: self.limits.max_size,
            }),
            None => response.result.map_err(Error::Rpc),
        };
        if !self.shared.complete(&id, reply) {
            tracing::debug!(%id, "dropping a response to an unknown or cancelled request");
        }
    }

    async fn shutdown<T: Transport>(&mut self, transport: &mut T, end: End) -> Result<()> {
        let (reason, result) = match end {
            End::Local => ("closed by the local side".to_owned(), Ok(())),
            End::PeerClosed => ("peer closed the connection".to_owned(), Ok(())),
            End::Failed(e) => (format!("transport failed: {}", error_chain(&e)), Err(e)),
        };
        tracing::debug!(%reason, "connection closing");
        self.shared.fail_all(&reason);
        for running in self.running.values() {
            running.token.cancel();
        }
        self.handlers = FuturesUnordered::new();
        self.running.clear();
        self.backlog.clear();
        self.notifications.clear();
        self.current_notification = None;
        self.batches.clear();
        // Notifications already accepted from handles still go out; requests have failed.
        while let Ok(msg) = self.outbound_rx.try_recv() {
            if let Message::Notification(_) = msg {
                self.write_queue.push_back(Outgoing {
                    msg,
                    kind: Kind::Peer,
                });
            }
        }
        self.outbound_rx.close();
        if result.is_ok() {
            let mut ok = match self.sending.take() {
                Some(sending) => sending.await.is_ok(),
                None => true,
            };
            while ok && let Some(out) = self.write_queue.pop_front() {
                if let Message::Request(_) = out.msg {
                    continue;
                }
                ok = transport.send(out.msg).await.is_ok();
            }
        }
        self.write_queue.clear();
        if let Err(e) = transport.close().await {
            tracing::debug!(error = %e, "closing the transport failed");
        }
        self.shared.set_finished();
        result
    }
}

/// `error` and its sources, joined with ": ", so a closed request says why the transport failed
/// (e.g. "transport error: server process exited with status 3").
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
