//! [`InlineRequests`]: a connection's requests run in the task of whoever received them,
//! beside the connection rather than inside it.
//!
//! A request read by the connection crosses its inbound queue, joins the running set, and
//! its answer crosses the write queue back to [`Transport::send`](crate::Transport::send).
//! A transport that already holds the request in the task that waits for its answer (an
//! HTTP POST) can instead run the handler there and send the answer itself: one request,
//! one task, no queue. Everything else a connection does for its requests holds for inline
//! ones too: they take slots of [`Config::max_concurrent_requests`], the peer's
//! cancellation reaches them, their panics are answered -32603, their answer goes out after
//! whatever their handler sent through the [`Peer`] before returning, and a call whose
//! caller goes away before it finishes is handed to the connection to finish there (its
//! answer then goes out through the transport as any other).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::running::{self, Call, HandlerTask};
use crate::handler::{Handler, RequestContext};
use crate::message::{Id, Message, Request, Response};
use crate::peer::Peer;

/// Runs a connection's requests in the caller's task: offered to the transport by
/// [`Connection::new`](crate::Connection::new) through
/// [`Transport::accept_inline`](crate::Transport::accept_inline).
///
/// ```
/// use mcp_jsonrpc::{
///     Config, Connection, Handler, InlineAnswer, InlineRequests, Message, Request,
///     RequestContext, ErrorObject, Transport, to_raw_value, memory,
/// };
/// use serde_json::value::RawValue;
/// use std::sync::{Arc, Mutex};
///
/// struct Echo;
///
/// impl Handler for Echo {
///     async fn handle_request(
///         &self,
///         request: Request,
///         _ctx: RequestContext,
///     ) -> Result<Box<RawValue>, ErrorObject> {
///         to_raw_value(&request.params::<serde_json::Value>()?)
///     }
/// }
///
/// /// A transport that keeps the handle (the in-memory one does the rest).
/// struct Keeping(memory::MemoryTransport, Arc<Mutex<Option<InlineRequests>>>);
///
/// impl Transport for Keeping {
///     type Error = memory::MemoryClosed;
///     fn send(&mut self, msg: Message)
///         -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
///         self.0.send(msg)
///     }
///     async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
///         self.0.recv().await
///     }
///     fn accept_inline(&mut self, inline: InlineRequests) -> bool {
///         *self.1.lock().unwrap() = Some(inline);
///         true
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (near, _far) = memory::pair(4);
/// let slot = Arc::new(Mutex::new(None));
/// let (_peer, connection) =
///     Connection::new(Keeping(near, slot.clone()), Echo, Config::default());
/// let inline = slot.lock().unwrap().clone().unwrap();
///
/// let params = RawValue::from_string(r#"{"x":1}"#.into()).unwrap();
/// let call = inline.start(Request::new(7, "echo", Some(params))).ok().unwrap();
/// let InlineAnswer::Send(response) = call.await else { unreachable!() };
/// assert_eq!(response.result.unwrap().get(), r#"{"x":1}"#);
/// # drop(connection);
/// # }
/// ```
#[derive(Clone)]
pub struct InlineRequests {
    inline: Arc<Inline>,
}

impl fmt::Debug for InlineRequests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineRequests")
            .field("running", &self.inline.running.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// How an inline call ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum InlineAnswer {
    /// The answer, for the transport to send as it would a [`Transport::send`] of it:
    /// everything the handler sent through its [`Peer`] before it has been sent already
    /// (those sends finished).
    ///
    /// [`Transport::send`]: crate::Transport::send
    Send(Response),
    /// The answer went into the connection's queue, behind messages of the handler's (or of
    /// other handles') whose sends had not finished: it reaches the transport
    /// through [`Transport::send`](crate::Transport::send) once they have. Keep the
    /// connection running (poll its future) until it has.
    Queued,
    /// No answer: the peer cancelled the request, or the connection closed.
    Cancelled,
}

/// The request handler, with its type erased (the transport that holds
/// [`InlineRequests`] does not know it).
trait Serve: Send + Sync + 'static {
    fn serve(&self, request: Request, ctx: RequestContext) -> Call;
}

struct ServeWith<H>(Arc<H>);

impl<H: Handler> Serve for ServeWith<H> {
    fn serve(&self, request: Request, ctx: RequestContext) -> Call {
        let handler = self.0.clone();
        Box::pin(async move { handler.handle_request(request, ctx).await })
    }
}

/// What the connection and its inline calls share.
pub(crate) struct Inline {
    serve: Box<dyn Serve>,
    peer: Peer,
    /// Inline calls running (each holds a slot), by id: for the peer's cancellations and
    /// the duplicate check.
    calls: Mutex<HashMap<Id, CancellationToken, foldhash::fast::RandomState>>,
    running: AtomicUsize,
    /// The connection's own slots in use and its backlog, as it last published them.
    engine_busy: AtomicUsize,
    /// The connection has requests waiting for a slot: one freed here must wake it.
    engine_waiting: AtomicBool,
    max_concurrent: usize,
    closed: AtomicBool,
    /// Calls whose caller went away before they finished, for the connection to finish.
    orphans: Mutex<Vec<HandlerTask>>,
    orphaned: AtomicBool,
}

impl Inline {
    pub(crate) fn new<H: Handler>(handler: Arc<H>, peer: Peer, max_concurrent: usize) -> Self {
        Inline {
            serve: Box::new(ServeWith(handler)),
            peer,
            calls: Mutex::default(),
            running: AtomicUsize::new(0),
            engine_busy: AtomicUsize::new(0),
            engine_waiting: AtomicBool::new(false),
            max_concurrent,
            closed: AtomicBool::new(false),
            orphans: Mutex::default(),
            orphaned: AtomicBool::new(false),
        }
    }

    pub(crate) fn handle(self: &Arc<Self>) -> InlineRequests {
        InlineRequests {
            inline: self.clone(),
        }
    }

    fn calls(&self) -> MutexGuard<'_, HashMap<Id, CancellationToken, foldhash::fast::RandomState>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Inline calls running (the connection counts them in its slots).
    pub(crate) fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// The connection's own load, for admitting inline calls.
    pub(crate) fn publish(&self, busy: usize, waiting: bool) {
        self.engine_busy.store(busy, Ordering::Release);
        self.engine_waiting.store(waiting, Ordering::Release);
    }

    /// Whether an inline call with this id is running.
    pub(crate) fn contains(&self, id: &Id) -> bool {
        self.calls().contains_key(id)
    }

    /// The peer cancelled `id`: fires its token if it is an inline call's.
    pub(crate) fn cancel(&self, id: &Id) -> bool {
        match self.calls().get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Calls whose caller went away, for the connection's running set (with their tokens,
    /// for the peer's cancellations); their slots move to the connection's count.
    pub(crate) fn take_orphans(&self) -> Vec<HandlerTask> {
        if !self.orphaned.swap(false, Ordering::AcqRel) {
            return Vec::new();
        }
        let orphans =
            std::mem::take(&mut *self.orphans.lock().unwrap_or_else(PoisonError::into_inner));
        let mut calls = self.calls();
        for task in &orphans {
            if let Some(id) = task.id() {
                calls.remove(id);
            }
        }
        orphans
    }

    /// The connection is closing: no more calls start, and running ones are cancelled.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        for token in self.calls().values() {
            token.cancel();
        }
        self.orphans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Frees a call's slot, waking the connection if requests of its wait for one.
    fn release(&self) {
        self.running.fetch_sub(1, Ordering::AcqRel);
        if self.engine_waiting.load(Ordering::Acquire) {
            self.peer.shared().waker.wake();
        }
    }
}

impl InlineRequests {
    /// Starts the handler on `request` in this task: the returned [`InlineCall`] runs it
    /// when polled. `Err` gives the request back when it cannot run inline (every slot is
    /// taken or requests wait for one, its id is in flight inline, the connection closed):
    /// hand it to the connection the usual way then ([`Transport::recv`]).
    ///
    /// The transport must not start a request whose id it has already handed to the
    /// connection through [`Transport::recv`] and that is still unanswered.
    ///
    /// [`Transport::recv`]: crate::Transport::recv
    #[allow(clippy::result_large_err)] // The request given back, as it came.
    pub fn start(&self, request: Request) -> Result<InlineCall<'_>, Request> {
        let inline = &*self.inline;
        if inline.closed.load(Ordering::Acquire) {
            return Err(request);
        }
        let before = inline.running.fetch_add(1, Ordering::AcqRel);
        if before + inline.engine_busy.load(Ordering::Acquire) >= inline.max_concurrent {
            inline.running.fetch_sub(1, Ordering::AcqRel);
            return Err(request);
        }
        let mut calls = inline.calls();
        if calls.contains_key(&request.id) {
            drop(calls);
            inline.running.fetch_sub(1, Ordering::AcqRel);
            return Err(request);
        }
        let (task, token) = running::start(request, &inline.peer, |request, ctx| {
            inline.serve.serve(request, ctx)
        });
        if let Some(id) = task.id() {
            calls.insert(id.clone(), token);
        }
        drop(calls);
        Ok(InlineCall {
            inline,
            state: State::Running(task),
        })
    }
}

/// An inline request running: a future of its [`InlineAnswer`], polled by the task that
/// started it (see [`InlineRequests::start`]). Dropped before it finishes, the request goes
/// on inside the connection.
#[must_use = "the request runs only when the call is polled"]
pub struct InlineCall<'a> {
    inline: &'a Inline,
    state: State,
}

enum State {
    Running(HandlerTask),
    /// Putting the answer into the connection's queue.
    Queueing(BoxFuture<'static, bool>),
    Done,
}

impl fmt::Debug for InlineCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineCall").finish_non_exhaustive()
    }
}

impl Future for InlineCall<'_> {
    type Output = InlineAnswer;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<InlineAnswer> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Running(task) => {
                    let Poll::Ready(done) = Pin::new(&mut *task).poll(cx) else {
                        return Poll::Pending;
                    };
                    let cancelled = task.token().is_cancelled();
                    this.inline.calls().remove(&done.id);
                    this.state = State::Done;
                    this.inline.release();
                    let Some(response) = done.into_response(cancelled) else {
                        return Poll::Ready(InlineAnswer::Cancelled);
                    };
                    let peer = &this.inline.peer;
                    if peer.shared().all_sent() {
                        return Poll::Ready(InlineAnswer::Send(response));
                    }
                    // Behind what the handler sent before it (still in the queue).
                    let peer = peer.clone();
                    let msg = Box::new(Message::Response(response));
                    this.state =
                        State::Queueing(Box::pin(async move { peer.enqueue(msg).await.is_ok() }));
                }
                State::Queueing(queueing) => {
                    let Poll::Ready(queued) = queueing.as_mut().poll(cx) else {
                        return Poll::Pending;
                    };
                    this.state = State::Done;
                    return Poll::Ready(if queued {
                        InlineAnswer::Queued
                    } else {
                        InlineAnswer::Cancelled
                    });
                }
                State::Done => return Poll::Pending,
            }
        }
    }
}

impl Drop for InlineCall<'_> {
    fn drop(&mut self) {
        let State::Running(task) = std::mem::replace(&mut self.state, State::Done) else {
            return;
        };
        let inline = self.inline;
        // Its caller went away: the connection finishes it, as it would a request it read
        // itself (the slot moves with it).
        if !inline.closed.load(Ordering::Acquire) {
            inline
                .orphans
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(task);
            inline.orphaned.store(true, Ordering::Release);
            inline.running.fetch_sub(1, Ordering::AcqRel);
            inline.peer.shared().waker.wake();
            return;
        }
        if let Some(id) = task.id() {
            inline.calls().remove(id);
        }
        drop(task);
        inline.release();
    }
}
