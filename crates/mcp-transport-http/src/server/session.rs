//! Sessions: the routing state, [`HttpSessionTransport`], [`SessionHandle`], [`SessionInfo`].

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use mcp_jsonrpc::{CancellationToken, Id, Message, ProgressToken, Protocol, Transport};
use mcp_types::{
    CancelledNotificationParams, Initialize, InitializeResult, ParamsMeta,
    ProgressNotificationParams, Request as _,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::config::Config;
use super::error::Error;
use super::event_store::{EventStore, StreamId};
use super::sse::{self, Frame};
use crate::ids::{wire_id, wire_token};

/// What kind of session a transport serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionKind {
    /// A Streamable HTTP session with an `Mcp-Session-Id`, opened by `initialize`.
    Stateful,
    /// One POST of a stateless service: the transport yields that POST's message and ends
    /// once it is answered.
    Stateless,
    /// A legacy HTTP+SSE (2024-11-05) session: every outbound message goes to its one SSE
    /// stream.
    Legacy,
}

/// What the session factory learns about a new session.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionInfo {
    /// Stateful, stateless or legacy.
    pub kind: SessionKind,
    /// The session id (`None` for stateless sessions).
    pub session_id: Option<Arc<str>>,
    /// The `MCP-Protocol-Version` header of the request that opened the session, if any.
    pub protocol_version: Option<String>,
    /// The headers of the request that opened the session.
    pub headers: http::HeaderMap,
    /// The extensions of the request that opened the session (for example an authenticated
    /// principal put there by an auth layer).
    pub extensions: http::Extensions,
    /// A handle to the session (also available from
    /// [`HttpSessionTransport::handle`]).
    pub handle: SessionHandle,
}

/// The sessions of a service, by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    sessions: Mutex<HashMap<Arc<str>, Arc<Session>>>,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.lock().get(id).cloned()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Inserts unless the registry is full.
    pub(crate) fn insert(&self, session: Arc<Session>, max: usize) -> bool {
        let mut map = self.lock();
        if map.len() >= max {
            return false;
        }
        if let Some(id) = &session.id {
            map.insert(id.clone(), session);
        }
        true
    }

    fn remove(&self, id: &str) {
        self.lock().remove(id);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Nothing sent yet: the POST handler is waiting for the first frame.
    Undecided,
    Sse,
}

#[derive(Debug)]
struct Slot {
    tx: Option<mpsc::Sender<Frame>>,
    mode: Mode,
    /// Requests of this stream still waiting for their response (0 for the standalone one).
    pending: usize,
    /// Whether switching to SSE starts with a priming event.
    prime: bool,
}

impl Slot {
    fn live_tx(&self) -> Option<&mpsc::Sender<Frame>> {
        self.tx.as_ref().filter(|tx| !tx.is_closed())
    }
}

#[derive(Debug)]
struct InFlight {
    stream: u64,
    progress_token: Option<ProgressToken>,
}

#[derive(Debug, Default)]
struct RouteState {
    ended: bool,
    inbound: Option<mpsc::Sender<Message>>,
    streams: HashMap<u64, Slot>,
    next_stream: u64,
    requests: HashMap<Id, InFlight>,
    progress: HashMap<ProgressToken, Id>,
    /// Server-to-client requests and the stream they went out on (to route their
    /// cancellation the same way).
    outbound_requests: HashMap<Id, u64>,
    initialize_id: Option<Id>,
    negotiated_version: Option<String>,
}

/// One session (of any kind), shared by its transport, its handles and the HTTP handlers.
pub(crate) struct Session {
    pub(crate) id: Option<Arc<str>>,
    pub(crate) kind: SessionKind,
    pub(crate) config: Arc<Config>,
    state: Mutex<RouteState>,
    ended: CancellationToken,
    registry: Weak<Registry>,
    active: AtomicUsize,
    last_active: Mutex<Instant>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("kind", &self.kind)
            .field("ended", &self.ended.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// The result of opening a request's stream: its queue and the inbound sender to push the
/// request with.
pub(crate) struct Opened {
    pub(crate) rx: mpsc::Receiver<Frame>,
    pub(crate) inbound: mpsc::Sender<Message>,
}

/// Why a stream could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    Ended,
    DuplicateId(Id),
    /// A standalone stream is already connected.
    Conflict,
    /// `Last-Event-ID` is not one of this session's.
    UnknownEvent,
}

fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(params?.get()).ok()
}

fn request_progress_token(params: Option<&RawValue>) -> Option<ProgressToken> {
    let token = parse::<ParamsMeta>(params)?.meta?.progress_token?;
    Some(wire_token(token))
}

fn cancelled_request(params: Option<&RawValue>) -> Option<Id> {
    parse::<CancelledNotificationParams>(params)?
        .request_id
        .map(wire_id)
}

impl Session {
    pub(crate) fn new(
        id: Option<Arc<str>>,
        kind: SessionKind,
        config: Arc<Config>,
        registry: Weak<Registry>,
    ) -> (Arc<Session>, HttpSessionTransport) {
        let (tx, rx) = mpsc::channel(config.inbound_queue);
        let session = Arc::new(Session {
            id,
            kind,
            config,
            state: Mutex::new(RouteState {
                inbound: Some(tx),
                next_stream: 1,
                ..RouteState::default()
            }),
            ended: CancellationToken::new(),
            registry,
            active: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
        });
        let transport = HttpSessionTransport {
            session: session.clone(),
            rx,
        };
        (session, transport)
    }

    fn lock(&self) -> MutexGuard<'_, RouteState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The event store, for stateful sessions that have one.
    fn store(&self) -> Option<(&dyn EventStore, &str)> {
        match (&self.config.event_store, &self.id, self.kind) {
            (Some(store), Some(id), SessionKind::Stateful) => Some((&**store, &**id)),
            _ => None,
        }
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.is_cancelled()
    }

    /// The protocol revision to assume for a request: its header, else the negotiated one,
    /// else 2025-03-26 (as the spec says).
    pub(crate) fn effective_version<'a>(
        &self,
        header: Option<&'a str>,
    ) -> std::borrow::Cow<'a, str> {
        match header {
            Some(v) => v.into(),
            None => self
                .lock()
                .negotiated_version
                .clone()
                .unwrap_or_else(|| "2025-03-26".to_owned())
                .into(),
        }
    }

    /// Whether streams of this session at `version` start with a priming event.
    fn primes(&self, version: &str) -> bool {
        self.store().is_some() && version >= "2025-11-25"
    }

    /// Takes a clone of the inbound sender (for notifications and responses).
    pub(crate) fn inbound(&self) -> Result<mpsc::Sender<Message>, OpenError> {
        let st = self.lock();
        match (&st.inbound, st.ended) {
            (Some(tx), false) => Ok(tx.clone()),
            _ => Err(OpenError::Ended),
        }
    }

    /// Registers the requests of a POST (one, or those of a batch) on a new stream.
    pub(crate) fn open_request_stream(
        &self,
        requests: &[(&Id, Option<&RawValue>, &str)],
        version: &str,
    ) -> Result<Opened, OpenError> {
        let prime = self.primes(version);
        let mut st = self.lock();
        let inbound = match (&st.inbound, st.ended) {
            (Some(tx), false) => tx.clone(),
            _ => return Err(OpenError::Ended),
        };
        for (i, (id, ..)) in requests.iter().enumerate() {
            if st.requests.contains_key(*id) || requests[..i].iter().any(|(o, ..)| o == id) {
                return Err(OpenError::DuplicateId((*id).clone()));
            }
        }
        let stream = st.next_stream;
        st.next_stream += 1;
        let (tx, rx) = mpsc::channel(self.config.stream_queue);
        st.streams.insert(
            stream,
            Slot {
                tx: Some(tx),
                mode: Mode::Undecided,
                pending: requests.len(),
                prime,
            },
        );
        for (id, params, method) in requests {
            let progress_token = request_progress_token(*params);
            if let Some(token) = &progress_token {
                st.progress.insert(token.clone(), (*id).clone());
            }
            if *method == Initialize::METHOD {
                st.initialize_id = Some((*id).clone());
            }
            st.requests.insert(
                (*id).clone(),
                InFlight {
                    stream,
                    progress_token,
                },
            );
        }
        Ok(Opened { rx, inbound })
    }

    /// Opens (or resumes) an SSE stream for GET.
    pub(crate) fn open_get_stream(
        &self,
        last_event_id: Option<&str>,
        version: &str,
    ) -> Result<(VecDeque<Bytes>, Option<mpsc::Receiver<Frame>>), OpenError> {
        let retry = self.config.sse_retry;
        let mut st = self.lock();
        if st.ended {
            return Err(OpenError::Ended);
        }
        let mut prefix = VecDeque::new();
        let Some(last) = last_event_id else {
            if st
                .streams
                .get(&StreamId::STANDALONE.0)
                .is_some_and(|s| s.live_tx().is_some())
            {
                return Err(OpenError::Conflict);
            }
            let (tx, rx) = mpsc::channel(self.config.stream_queue);
            if self.primes(version)
                && let Some((store, sid)) = self.store()
            {
                let id = store.append(sid, StreamId::STANDALONE, Bytes::new());
                prefix.push_back(sse::event(Some(&id), Some(retry), None, b""));
            }
            st.streams.insert(
                StreamId::STANDALONE.0,
                Slot {
                    tx: Some(tx),
                    mode: Mode::Sse,
                    pending: 0,
                    prime: false,
                },
            );
            return Ok((prefix, Some(rx)));
        };
        // Resumption: replay under the lock so that nothing routed meanwhile is lost.
        let (store, sid) = self.store().ok_or(OpenError::UnknownEvent)?;
        let replay = store
            .replay_after(sid, last)
            .ok_or(OpenError::UnknownEvent)?;
        let stream = replay.stream.0;
        if stream >= st.next_stream {
            return Err(OpenError::UnknownEvent);
        }
        prefix.push_back(sse::retry_only(retry));
        for ev in replay.events.iter().filter(|e| !e.data.is_empty()) {
            prefix.push_back(sse::event(Some(&ev.id), None, Some("message"), &ev.data));
        }
        let slot = match st.streams.get_mut(&stream) {
            Some(slot) => slot,
            None if stream == StreamId::STANDALONE.0 => st.streams.entry(stream).or_insert(Slot {
                tx: None,
                mode: Mode::Sse,
                pending: 0,
                prime: false,
            }),
            // A finished stream: replay, then end.
            None => return Ok((prefix, None)),
        };
        if stream == StreamId::STANDALONE.0 && slot.live_tx().is_some() {
            return Err(OpenError::Conflict);
        }
        let (tx, rx) = mpsc::channel(self.config.stream_queue);
        // A resumed stream takes over from a connection that may not have noticed its end.
        slot.tx = Some(tx);
        slot.mode = Mode::Sse;
        Ok((prefix, Some(rx)))
    }

    /// Bookkeeping for an inbound message on its way to the connection.
    pub(crate) fn observe_inbound(&self, msg: &Message) {
        match msg {
            Message::Notification(n) if n.method == Protocol::MCP_CANCELLED => {
                let Some(id) = cancelled_request(n.params.as_deref()) else {
                    return;
                };
                let mut st = self.lock();
                // The cancelled request gets no response: end its stream if it was the last.
                if st.requests.contains_key(&id) {
                    let (stream, _) = st.finish_request(&id);
                    if let Some(stream) = stream {
                        st.finish_stream_if_done(stream);
                    }
                    self.after_completion(&mut st);
                }
            }
            Message::Response(r) => {
                if let Some(id) = &r.id {
                    self.lock().outbound_requests.remove(id);
                }
            }
            Message::Batch(items) => items.iter().for_each(|m| self.observe_inbound(m)),
            _ => {}
        }
    }

    /// A stateless session stops reading once it has answered.
    fn after_completion(&self, st: &mut RouteState) {
        if self.kind == SessionKind::Stateless && st.requests.is_empty() {
            st.inbound = None;
        }
    }

    /// Decides where an outbound message goes, records it, and returns the frames to deliver.
    fn route(&self, msg: &Message, data: Bytes) -> Option<(mpsc::Sender<Frame>, Frames)> {
        let mut st = self.lock();
        let (stream, completes) = st.target(msg, self.kind);
        let stream = stream?;
        let store = self.store();
        let retry = self.config.sse_retry;
        let Some(slot) = st.streams.get_mut(&stream) else {
            tracing::debug!(stream, "no stream for an outbound message; dropped");
            return None;
        };
        let frames = if slot.mode == Mode::Undecided && completes {
            Frames(None, Frame::Json(data))
        } else {
            let mut priming = None;
            if slot.mode == Mode::Undecided {
                slot.mode = Mode::Sse;
                if slot.prime
                    && let Some((store, sid)) = store
                {
                    let id = store.append(sid, StreamId(stream), Bytes::new());
                    priming = Some(Frame::Event(sse::event(Some(&id), Some(retry), None, b"")));
                }
            }
            let id = store.map(|(store, sid)| store.append(sid, StreamId(stream), data.clone()));
            Frames(
                priming,
                Frame::Event(sse::event(id.as_deref(), None, Some("message"), &data)),
            )
        };
        let tx = slot.live_tx().cloned();
        if tx.is_none() {
            tracing::debug!(stream, "stream not connected; message kept for replay only");
        }
        if completes {
            st.streams.remove(&stream);
            self.after_completion(&mut st);
        }
        tx.map(|tx| (tx, frames))
    }

    /// Ends the session: no more reads, every stream closed, removed from the registry.
    pub(crate) fn end(&self) {
        {
            let mut st = self.lock();
            if st.ended {
                return;
            }
            st.ended = true;
            st.inbound = None;
            st.streams.clear();
            st.requests.clear();
            st.progress.clear();
            st.outbound_requests.clear();
        }
        self.ended.cancel();
        if let Some(id) = &self.id {
            if let Some(registry) = self.registry.upgrade() {
                registry.remove(id);
            }
            if let Some(store) = &self.config.event_store {
                store.remove_session(id);
            }
        }
    }

    /// Marks HTTP activity on the session for as long as the guard lives.
    pub(crate) fn activity(self: &Arc<Self>) -> ActivityGuard {
        self.active.fetch_add(1, Ordering::AcqRel);
        ActivityGuard(self.clone())
    }

    fn last_active(&self) -> Instant {
        *self
            .last_active
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Completes when the session has been idle for the configured time.
    pub(crate) async fn idle(&self, timeout: Duration) {
        loop {
            let last = self.last_active();
            tokio::time::sleep_until(last + timeout).await;
            if self.active.load(Ordering::Acquire) > 0 {
                tokio::time::sleep(timeout).await;
                continue;
            }
            if self.last_active() == last {
                return;
            }
        }
    }
}

/// Keeps a session active (not idle) while it lives.
pub(crate) struct ActivityGuard(Arc<Session>);

impl Drop for ActivityGuard {
    fn drop(&mut self) {
        *self
            .0
            .last_active
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
        self.0.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Ends a session when dropped (the legacy SSE stream's body holds one).
pub(crate) struct EndOnDrop(pub(crate) Arc<Session>);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Up to two frames: an optional priming event, then the message.
struct Frames(Option<Frame>, Frame);

impl RouteState {
    /// Removes a finished request; returns its stream and whether that was its last one.
    fn finish_request(&mut self, id: &Id) -> (Option<u64>, bool) {
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

    fn finish_stream_if_done(&mut self, stream: u64) {
        if self.streams.get(&stream).is_some_and(|s| s.pending == 0) {
            self.streams.remove(&stream);
        }
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
    fn target(&mut self, msg: &Message, kind: SessionKind) -> (Option<u64>, bool) {
        if kind == SessionKind::Legacy {
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

/// The [`Transport`] of one HTTP session, handed to the session factory.
///
/// [`recv`](Transport::recv) yields the messages POSTed to the session (cancel-safe) and
/// `Ok(None)` once the session has ended. [`send`](Transport::send) routes each message to
/// one stream (see the [module docs](super#routing-outbound-messages)) and waits for room in
/// that stream's bounded queue; it fails with [`Error::SessionClosed`] once the session has
/// ended. [`close`](Transport::close) ends the session.
pub struct HttpSessionTransport {
    session: Arc<Session>,
    rx: mpsc::Receiver<Message>,
}

impl fmt::Debug for HttpSessionTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSessionTransport")
            .field("session_id", &self.session.id)
            .field("kind", &self.session.kind)
            .finish_non_exhaustive()
    }
}

impl HttpSessionTransport {
    /// A handle to this transport's session.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle {
            session: self.session.clone(),
        }
    }
}

impl Transport for HttpSessionTransport {
    type Error = Error;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        let session = self.session.clone();
        let routed = if session.is_ended() {
            Err(Error::SessionClosed)
        } else {
            msg.to_json()
                .map_err(Error::Encode)
                .map(|json| session.route(&msg, Bytes::from(json)))
        };
        async move {
            if let Some((tx, Frames(priming, frame))) = routed? {
                if let Some(priming) = priming
                    && tx.send(priming).await.is_err()
                {
                    return Ok(());
                }
                // An error means the client went away; the event store (if any) has it.
                let _ = tx.send(frame).await;
            }
            Ok(())
        }
    }

    async fn recv(&mut self) -> Result<Option<Message>, Error> {
        if self.session.is_ended() {
            return Ok(None);
        }
        let ended = self.session.ended.clone();
        let ended = pin!(ended.cancelled());
        let next = pin!(self.rx.recv());
        Ok(match futures::future::select(next, ended).await {
            futures::future::Either::Left((msg, _)) => msg,
            futures::future::Either::Right(_) => None,
        })
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Error>> + Send {
        self.session.end();
        async { Ok(()) }
    }
}

/// A cloneable handle to a session: to close a request's stream (so that the client resumes
/// it with `Last-Event-ID`), or to end the session.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    pub(crate) session: Arc<Session>,
}

impl SessionHandle {
    /// The session id (`None` for a stateless session).
    pub fn session_id(&self) -> Option<&str> {
        self.session.id.as_deref()
    }

    /// The kind of session.
    pub fn kind(&self) -> SessionKind {
        self.session.kind
    }

    /// The protocol revision of the session's `initialize` response, once it has been sent.
    pub fn negotiated_version(&self) -> Option<String> {
        self.session.lock().negotiated_version.clone()
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        self.session.is_ended()
    }

    /// Completes when the session ends.
    pub async fn ended(&self) {
        self.session.ended.cancelled().await;
    }

    /// Ends the session, as a DELETE would: the transport's `recv` yields `None`, every
    /// stream ends, and later requests with its id get 404.
    pub fn end(&self) {
        self.session.end();
    }

    /// Closes the HTTP connection of the stream carrying request `id` without ending the
    /// stream (SSE polling, SEP-1699): if nothing was sent yet, the POST is answered with an
    /// SSE stream holding only a priming event (with `retry`); later messages of the request,
    /// its response included, are kept in the event store and delivered when the client
    /// reconnects with GET and `Last-Event-ID`.
    ///
    /// Returns `false` if no such request is in flight, if its answer already went out as
    /// plain JSON, or if the session has no event store (then nothing is closed, since the
    /// messages could not be recovered).
    pub fn close_request_stream(&self, id: &Id) -> bool {
        let session = &self.session;
        let Some((store, sid)) = session.store() else {
            return false;
        };
        let mut st = session.lock();
        let Some(stream) = st.requests.get(id).map(|r| r.stream) else {
            return false;
        };
        let Some(slot) = st.streams.get_mut(&stream) else {
            return false;
        };
        if slot.mode == Mode::Undecided {
            slot.mode = Mode::Sse;
            let event_id = store.append(sid, StreamId(stream), Bytes::new());
            let priming = sse::event(Some(&event_id), Some(session.config.sse_retry), None, b"");
            if let Some(tx) = slot.live_tx() {
                // The queue is empty (nothing was sent), so this cannot fail for lack of room.
                let _ = tx.try_send(Frame::Event(priming));
            }
        }
        slot.tx = None;
        true
    }

    /// Closes the standalone GET stream's connection (the client may resume it with
    /// `Last-Event-ID`); `false` if none is open.
    pub fn close_standalone_stream(&self) -> bool {
        let mut st = self.session.lock();
        match st.streams.get_mut(&StreamId::STANDALONE.0) {
            Some(slot) if slot.tx.is_some() => {
                slot.tx = None;
                true
            }
            _ => false,
        }
    }
}

/// The HTTP stream carrying one inbound request, found in every request's
/// [`extensions`](mcp_jsonrpc::RequestContext::extensions) (with the [`SessionHandle`], the
/// request's `http::HeaderMap` and its `http::Extensions`): a handler closes its own stream
/// with it mid-call (SSE polling), and the client resumes with GET and `Last-Event-ID`.
///
/// ```
/// use mcp_jsonrpc::{ErrorObject, Handler, Request, RequestContext, to_raw_value};
/// use mcp_transport_http::server::RequestStream;
/// use serde_json::value::RawValue;
///
/// struct Polling;
///
/// impl Handler for Polling {
///     async fn handle_request(
///         &self,
///         _request: Request,
///         ctx: RequestContext,
///     ) -> Result<Box<RawValue>, ErrorObject> {
///         if let Some(stream) = ctx.extensions().get::<RequestStream>() {
///             // The client reconnects; the response below reaches it then.
///             stream.close();
///         }
///         to_raw_value(&"done")
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct RequestStream {
    handle: SessionHandle,
    id: Id,
}

impl RequestStream {
    pub(crate) fn new(handle: SessionHandle, id: Id) -> Self {
        RequestStream { handle, id }
    }

    /// The id of the request.
    pub fn request_id(&self) -> &Id {
        &self.id
    }

    /// The session the request belongs to.
    pub fn session(&self) -> &SessionHandle {
        &self.handle
    }

    /// Closes the request's HTTP connection without ending its stream; see
    /// [`SessionHandle::close_request_stream`], which this calls (and whose result it
    /// returns: `false` without an event store, in stateless and legacy sessions, or once
    /// the response went out as plain JSON).
    pub fn close(&self) -> bool {
        self.handle.close_request_stream(&self.id)
    }
}
