//! One session (of any kind): its lifecycle, its streams and requests, its activity.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use bytes::Bytes;
use futures::task::AtomicWaker;
use mcp_jsonrpc::{CancellationToken, Id, InlineRequests, Message, Protocol};
use mcp_types::{Initialize, Request as _};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::config::Config;
use super::driven::Driven;
use super::event_store::{EventStore, StreamId, append_or_log};
use super::routing::{
    InFlight, Inbound, Opening, Queued, RouteState, Slot, cancelled_request, request_progress_token,
};
use super::sse::{self, Frame};

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

/// Forgets an ended session (the service's registry); kept behind a trait so that the
/// registry, which holds sessions, and the session do not import each other.
pub(crate) trait Unregister: Send + Sync {
    fn unregister(&self, id: &str);
}

/// Who a session belongs to: the authenticated principal that opened it (requests of any
/// other principal are answered as for an unknown session), and the client it counts
/// against for the per-client quota.
#[derive(Debug, Clone, Default)]
pub(crate) struct Owner {
    pub(crate) principal: Option<Arc<str>>,
    pub(crate) client: Option<Arc<str>>,
}

/// One session (of any kind), shared by its transport, its handles and the HTTP handlers.
pub(crate) struct Session {
    pub(crate) id: Option<Arc<str>>,
    pub(crate) kind: SessionKind,
    pub(crate) config: Arc<Config>,
    pub(crate) owner: Owner,
    state: Mutex<RouteState>,
    pub(crate) ended: CancellationToken,
    /// Whether the session ended ([`Session::is_ended`]). Set by [`Session::end`] under the
    /// state's lock, so that read under it, it agrees with the state; read without it several
    /// times per request (`ended`, the token its waiters wait on, locks a mutex to answer).
    ended_flag: AtomicBool,
    /// The session's transport waiting in `recv`, woken by [`Session::end`] (cheaper to wait
    /// on, three times per request, than a future of `ended`).
    pub(super) reader: AtomicWaker,
    registry: Option<Weak<dyn Unregister>>,
    /// See [`Session::order`].
    order: tokio::sync::Mutex<()>,
    /// Sends on their way through [`Session::order`] (see [`StoredSend`]).
    pub(super) stored_sends: AtomicUsize,
    /// The session's future, for a POST to poll while it waits (weak: the session's task
    /// owns it, and the future holds the session).
    driven: std::sync::OnceLock<Weak<Driven>>,
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

/// The result of opening a request's stream: where its answer starts, and how the request
/// reaches the session's connection.
pub(crate) struct Opened {
    pub(crate) opening: oneshot::Receiver<Opening>,
    pub(crate) route: Route,
}

/// How a POST's request reaches the session's connection.
pub(crate) enum Route {
    /// Run in the POST's own task (a lone request, where the connection took the handle).
    Inline(InlineRequests),
    /// Through the session's inbound queue.
    Inbound(Inbound),
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
    /// Events of the stream after `Last-Event-ID` were dropped from the event store: the
    /// stream cannot be resumed without loss.
    EventsLost,
    /// The stream was an earlier holder's of the session, which stopped before answering
    /// its requests, and everything it stored was replayed: the requests will not be
    /// answered.
    HolderGone,
}

impl Session {
    /// A session and the receiving end of its inbound queue (for its transport).
    pub(crate) fn new(
        id: Option<Arc<str>>,
        kind: SessionKind,
        config: Arc<Config>,
        owner: Owner,
        registry: Option<Weak<dyn Unregister>>,
    ) -> (Arc<Session>, mpsc::Receiver<Queued>) {
        let (tx, rx) = mpsc::channel(config.inbound_queue);
        let session = Arc::new(Session {
            id,
            kind,
            config,
            owner,
            state: Mutex::new(RouteState {
                inbound: Some(Inbound(tx)),
                next_stream: 1,
                first_stream: 1,
                ..RouteState::default()
            }),
            ended: CancellationToken::new(),
            ended_flag: AtomicBool::new(false),
            reader: AtomicWaker::new(),
            registry,
            order: tokio::sync::Mutex::new(()),
            stored_sends: AtomicUsize::new(0),
            driven: std::sync::OnceLock::new(),
            active: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
        });
        (session, rx)
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, RouteState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The event store, for stateful sessions that have one.
    pub(super) fn store(&self) -> Option<(&dyn EventStore, &str)> {
        match (&self.config.event_store, &self.id, self.kind) {
            (Some(store), Some(id), SessionKind::Stateful) => Some((&**store, &**id)),
            _ => None,
        }
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended_flag.load(Ordering::Acquire)
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
    pub(crate) fn inbound(&self) -> Result<Inbound, OpenError> {
        let st = self.lock();
        match (&st.inbound, self.is_ended()) {
            (Some(tx), false) => Ok(tx.clone()),
            _ => Err(OpenError::Ended),
        }
    }

    /// Registers the requests of a POST (one, or those of a batch) on a new stream. A lone
    /// request (`lone`) is routed inline when the session's connection runs requests so.
    pub(crate) fn open_request_stream(
        &self,
        requests: &[(&Id, Option<&RawValue>, &str)],
        version: &str,
        lone: bool,
    ) -> Result<Opened, OpenError> {
        let prime = self.primes(version);
        let mut st = self.lock();
        let route = match (&st.inline, &st.inbound, self.is_ended()) {
            (_, _, true) | (_, None, _) => return Err(OpenError::Ended),
            (Some(inline), _, false) if lone => Route::Inline(inline.clone()),
            (_, Some(tx), false) => Route::Inbound(tx.clone()),
        };
        for (i, (id, ..)) in requests.iter().enumerate() {
            if st.requests.contains_key(*id) || requests[..i].iter().any(|(o, ..)| o == id) {
                return Err(OpenError::DuplicateId((*id).clone()));
            }
        }
        let stream = st.next_stream;
        st.next_stream += 1;
        let (opening, opening_rx) = oneshot::channel();
        st.streams.insert(
            stream,
            Slot {
                opening: Some(opening),
                tx: None,
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
        Ok(Opened {
            opening: opening_rx,
            route,
        })
    }

    /// Opens (or resumes) an SSE stream for GET.
    pub(crate) async fn open_get_stream(
        &self,
        last_event_id: Option<&str>,
        version: &str,
    ) -> Result<(VecDeque<Bytes>, Option<mpsc::Receiver<Frame>>), OpenError> {
        let retry = self.config.sse_retry;
        // Nothing is routed (and stored) between the replay and the new connection.
        let _order = self.order().await;
        let mut prefix = VecDeque::new();
        let Some(last) = last_event_id else {
            let rx = {
                let mut st = self.lock();
                if self.is_ended() {
                    return Err(OpenError::Ended);
                }
                if st
                    .streams
                    .get(&StreamId::STANDALONE.0)
                    .is_some_and(|s| s.live_tx().is_some())
                {
                    return Err(OpenError::Conflict);
                }
                let (tx, rx) = mpsc::channel(self.config.stream_queue);
                st.streams
                    .insert(StreamId::STANDALONE.0, Slot::sse(Some(tx), 0));
                rx
            };
            if self.primes(version)
                && let Some((store, sid)) = self.store()
            {
                let id = append_or_log(store, sid, StreamId::STANDALONE, Bytes::new()).await;
                prefix.push_back(sse::event(id.as_deref(), Some(retry), None, b""));
            }
            return Ok((prefix, Some(rx)));
        };
        let (store, sid) = self.store().ok_or(OpenError::UnknownEvent)?;
        let replay = match store.replay_after(sid, last).await {
            Ok(Some(replay)) => replay,
            Ok(None) => return Err(OpenError::UnknownEvent),
            Err(e) => {
                tracing::warn!(session = sid, error = %e, "event store: a replay failed");
                return Err(OpenError::UnknownEvent);
            }
        };
        let mut st = self.lock();
        if self.is_ended() {
            return Err(OpenError::Ended);
        }
        let stream = replay.stream.0;
        if stream >= st.next_stream {
            return Err(OpenError::UnknownEvent);
        }
        if replay.truncated {
            tracing::debug!(session = ?self.id, stream, "resumption past dropped events refused");
            return Err(OpenError::EventsLost);
        }
        prefix.push_back(sse::retry_only(retry));
        for ev in replay.events.iter().filter(|e| !e.data.is_empty()) {
            prefix.push_back(sse::event(Some(&ev.id), None, Some("message"), &ev.data));
        }
        let earlier_holders = stream != StreamId::STANDALONE.0 && stream < st.first_stream;
        let slot = match st.streams.get_mut(&stream) {
            Some(slot) => slot,
            // The client resumes an earlier holder's stream, so it has not seen its answer;
            // once nothing of it is left to replay, the answer will never come.
            None if earlier_holders && prefix.len() == 1 => return Err(OpenError::HolderGone),
            None if stream == StreamId::STANDALONE.0 => {
                st.streams.entry(stream).or_insert(Slot::sse(None, 0))
            }
            // A finished stream (or one of an earlier holder of the session): replay, then end.
            None => return Ok((prefix, None)),
        };
        if stream == StreamId::STANDALONE.0 && slot.live_tx().is_some() {
            return Err(OpenError::Conflict);
        }
        let (tx, rx) = mpsc::channel(self.config.stream_queue);
        // A resumed stream takes over from a connection that may not have noticed its end.
        slot.tx = Some(tx);
        slot.opening = None;
        Ok((prefix, Some(rx)))
    }

    /// Serializes a stateful session's routing with its event store's appends and replays
    /// (`None` without a store: routing is then all synchronous).
    pub(crate) async fn order(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match self.store() {
            Some(_) => Some(self.order.lock().await),
            None => None,
        }
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
    pub(super) fn after_completion(&self, st: &mut RouteState) {
        if self.kind == SessionKind::Stateless && st.requests.is_empty() {
            st.inbound = None;
        }
    }

    /// Ends the session: no more reads, every stream closed, removed from the registry.
    pub(crate) fn end(&self) {
        {
            let mut st = self.lock();
            if self.ended_flag.swap(true, Ordering::AcqRel) {
                return;
            }
            st.inbound = None;
            st.inline = None;
            st.streams.clear();
            st.requests.clear();
            st.progress.clear();
            st.outbound_requests.clear();
        }
        self.ended.cancel();
        self.reader.wake();
        if let Some(id) = &self.id
            && let Some(registry) = self.registry.as_ref().and_then(Weak::upgrade)
        {
            registry.unregister(id);
        }
    }

    /// Keeps the session's inline handle (see [`Route::Inline`]): stateful sessions only,
    /// whose POSTs each wait for their own answer (a stateless session's connection starts
    /// on its own task, after its one POST has already queued its request).
    pub(crate) fn accept_inline(&self, inline: InlineRequests) -> bool {
        if self.kind != SessionKind::Stateful {
            return false;
        }
        let mut st = self.lock();
        if self.is_ended() {
            return false;
        }
        st.inline = Some(inline);
        true
    }

    pub(crate) fn set_driven(&self, driven: &Arc<Driven>) {
        let _ = self.driven.set(Arc::downgrade(driven));
    }

    /// Waits for `wait`, polling the session's future meanwhile in this task (see
    /// [`Driven`]).
    pub(crate) async fn drive<F: std::future::Future>(&self, wait: F) -> F::Output {
        match self.driven.get().and_then(Weak::upgrade) {
            Some(driven) => driven.drive(wait).await,
            None => wait.await,
        }
    }

    /// Numbers this holder's streams from `generation << 32` (see
    /// [`SessionRecord::generation`](super::SessionRecord::generation)).
    pub(crate) fn set_generation(&self, generation: u64) {
        if generation > 0 {
            let mut st = self.lock();
            st.next_stream = (generation << 32) + 1;
            st.first_stream = st.next_stream;
        }
    }

    /// Keeps the session's directory record alive while the session lives (never returns).
    pub(crate) async fn keep_listed(&self) {
        let (Some(directory), Some(sid), SessionKind::Stateful) =
            (&self.config.directory, self.id.as_deref(), self.kind)
        else {
            return std::future::pending().await;
        };
        loop {
            tokio::time::sleep(self.config.directory_touch_interval).await;
            if let Err(e) = directory.sessions.touch(sid).await {
                tracing::warn!(session = sid, error = %e, "session directory: touch failed");
            }
        }
    }

    /// Forgets an ended stateful session's stored events and its directory record (its task
    /// calls this once the session's future has returned).
    pub(crate) async fn forget(&self) {
        let Some(sid) = self
            .id
            .as_deref()
            .filter(|_| self.kind == SessionKind::Stateful)
        else {
            return;
        };
        if let Some(directory) = &self.config.directory {
            // Only the holder forgets the session: another instance may have taken it over.
            match directory.sessions.get(sid).await {
                Ok(Some(record)) if *record.home == *directory.instance_url => {}
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(session = sid, error = %e, "session directory: lookup failed");
                    return;
                }
            }
            if let Err(e) = directory.sessions.remove(sid).await {
                tracing::warn!(session = sid, error = %e, "session directory: removing failed");
            }
        }
        if let Some((store, sid)) = self.store()
            && let Err(e) = store.remove_session(sid).await
        {
            tracing::warn!(session = sid, error = %e, "event store: removing a session failed");
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

    /// Since when the session has been idle (no request being served, no stream open), or
    /// `None` while it is active.
    pub(crate) fn idle_since(&self) -> Option<Instant> {
        (self.active.load(Ordering::Acquire) == 0).then(|| self.last_active())
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
