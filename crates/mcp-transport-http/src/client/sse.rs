//! The SSE streams `recv` drives: the response stream of a POST (resumed with GET +
//! `Last-Event-ID` when it ends before the response), the standalone GET stream
//! (reconnected), and the legacy HTTP+SSE stream.
//!
//! Each is a `Stream` of [`Inbound`] items stored in the transport, so a `recv` future that
//! is dropped loses nothing: the stream's state (including a reconnection delay in progress)
//! lives in the transport until the next `recv` polls it again.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use futures::stream::BoxStream;
use mcp_jsonrpc::{Id, Message, Response};
use reqwest::StatusCode;

use super::body::{DEFAULT_MAX_MESSAGE_SIZE, Lines};
use super::error::Error;
use super::shared::{
    Body, Events, GetStream, Inbound, Mode, Shared, Task, body_kind, is_sse, sse_error,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The response stream of a POST, then its resumption with GET.
    Post,
    /// The standalone GET stream.
    Get,
}

pub(crate) struct SseTask {
    shared: Arc<Shared>,
    generation: u64,
    kind: Kind,
    /// The requests whose responses are expected on this stream.
    awaiting: Vec<Id>,
    events: Option<Events>,
    last_event_id: Option<String>,
    /// The server's last `retry` interval.
    retry: Option<Duration>,
    /// Whether an event arrived on the current connection.
    seen: bool,
    /// Whether a POST's stream that ends early is resumed with GET (never on 2026-07-28).
    resumable: bool,
    /// Failed attempts in a row.
    failures: u32,
    /// The delay before the next connection attempt.
    delay: Option<Duration>,
    queued: VecDeque<Inbound>,
    done: bool,
    /// The outcome of a first GET already made (see [`SseTask::get_after`]).
    first: Option<Result<reqwest::Response, Error>>,
}

impl SseTask {
    fn new(shared: Arc<Shared>, generation: u64, kind: Kind) -> Self {
        SseTask {
            shared,
            generation,
            kind,
            awaiting: Vec::new(),
            events: None,
            last_event_id: None,
            retry: None,
            seen: false,
            resumable: true,
            failures: 0,
            delay: None,
            queued: VecDeque::new(),
            done: false,
            first: None,
        }
    }

    /// The response stream of a POST carrying the requests `awaiting`: resumed with GET when
    /// it ends early if `resumable`; a 2026-07-28 request's stream is not (the revision has no
    /// resumption), and is tagged with the request so that cancelling it drops the stream.
    pub(crate) fn post(
        shared: Arc<Shared>,
        generation: u64,
        awaiting: Vec<Id>,
        events: Events,
        resumable: bool,
    ) -> Task {
        let mut task = SseTask::new(shared, generation, Kind::Post);
        task.resumable = resumable;
        task.awaiting = awaiting;
        task.events = Some(events);
        task.into_task()
    }

    /// The standalone GET stream of the session `generation`.
    pub(crate) fn get(shared: Arc<Shared>, generation: u64) -> Task {
        SseTask::new(shared, generation, Kind::Get).into_task()
    }

    /// The standalone GET stream of the session `generation`, whose first GET was already
    /// sent and answered `first` (so that the stream is open before the next message goes
    /// out: servers send server-initiated requests there, and drop them if it is not open).
    pub(crate) fn get_after(
        shared: Arc<Shared>,
        generation: u64,
        first: Result<reqwest::Response, Error>,
    ) -> Task {
        let mut task = SseTask::new(shared, generation, Kind::Get);
        task.first = Some(first);
        task.into_task()
    }

    fn into_task(self) -> Task {
        let generation = self.generation;
        let request = match (&self.awaiting[..], self.resumable) {
            ([id], false) => Some(id.clone()),
            _ => None,
        };
        let stream = futures::stream::unfold(self, |mut task| async move {
            let item = task.next().await?;
            Some((item, task))
        });
        Task {
            generation,
            request,
            stream: stream.boxed(),
        }
    }

    async fn next(&mut self) -> Option<Inbound> {
        loop {
            if let Some(item) = self.queued.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            if let Some(events) = self.events.as_mut() {
                match events.next().await {
                    Some(Ok(event)) => {
                        if let Some(msg) = self.on_event(event) {
                            return Some(Inbound::Message(msg));
                        }
                        continue;
                    }
                    Some(Err(e)) => match sse_error(e) {
                        // Resuming would bring the same event again.
                        e @ Error::TooLarge { .. } => {
                            self.events = None;
                            self.give_up_with(e);
                            continue;
                        }
                        e => tracing::debug!(error = %e, "sse stream broke"),
                    },
                    None => tracing::debug!("sse stream ended"),
                }
                self.events = None;
                self.disconnected();
                continue;
            }
            if let Some(delay) = self.delay.take() {
                tokio::time::sleep(delay).await;
            }
            self.connect().await;
        }
    }

    fn on_event(&mut self, event: eventsource_stream::Event) -> Option<Message> {
        self.seen = true;
        self.failures = 0;
        if !event.id.is_empty() {
            self.last_event_id = Some(event.id);
        }
        if let Some(retry) = event.retry {
            self.retry = Some(retry);
        }
        if event.data.trim().is_empty() {
            // A priming event (an id and empty data), or a keep-alive.
            return None;
        }
        if event.event != "message" {
            tracing::debug!(event = %event.event, "ignoring an sse event of unknown type");
            return None;
        }
        let msg = Message::decode(event.data.as_bytes());
        self.answered(&msg);
        Some(msg)
    }

    /// Forgets the awaited requests that `msg` answers.
    fn answered(&mut self, msg: &Message) {
        match msg {
            Message::Response(Response { id: Some(id), .. }) => self.awaiting.retain(|a| a != id),
            Message::Batch(items) => items.iter().for_each(|m| self.answered(m)),
            _ => {}
        }
    }

    /// The connection ended: finish, or plan the reconnection.
    fn disconnected(&mut self) {
        if self.kind == Kind::Post {
            if self.awaiting.is_empty() {
                self.done = true;
                return;
            }
            if !self.resumable {
                self.give_up("protocol 2026-07-28 has no resumption");
                return;
            }
            if self.last_event_id.is_none() {
                self.give_up("the server sent no event id to resume from");
                return;
            }
        }
        if !self.seen {
            self.failures += 1;
        }
        let reconnect = &self.shared.reconnect;
        let base = self.retry.unwrap_or(reconnect.initial_delay);
        self.delay = Some(if self.failures == 0 {
            base
        } else {
            base.max(reconnect.backoff(self.failures))
        });
    }

    /// A connection attempt failed.
    fn failed(&mut self, error: &dyn std::fmt::Display) {
        self.failures += 1;
        tracing::debug!(error = %error, failures = self.failures, "sse reconnection failed");
        let reconnect = &self.shared.reconnect;
        let backoff = reconnect.backoff(self.failures);
        self.delay = Some(self.retry.map_or(backoff, |r| r.max(backoff)));
    }

    fn give_up(&mut self, reason: &str) {
        self.give_up_with(Error::StreamEnded {
            reason: reason.to_owned(),
        });
    }

    /// Ends the stream; the requests still awaited on it fail with `error`.
    fn give_up_with(&mut self, error: Error) {
        self.done = true;
        match self.kind {
            Kind::Post => {
                tracing::warn!(%error, "giving up on an sse response stream");
                let error = error.to_error_object();
                for id in self.awaiting.drain(..) {
                    self.queued
                        .push_back(Inbound::Message(Message::Response(Response::error(
                            Some(id),
                            error.clone(),
                        ))));
                }
            }
            Kind::Get => tracing::debug!(%error, "the get stream is closed"),
        }
    }

    async fn connect(&mut self) {
        if self.failures > self.shared.reconnect.max_attempts {
            self.give_up("too many failed reconnection attempts");
            return;
        }
        let Some(session) = self.shared.session_of(self.generation) else {
            // The session was replaced or the transport closed.
            self.done = true;
            return;
        };
        self.seen = false;
        let resp = match self.first.take() {
            Some(first) => first,
            None => {
                self.shared
                    .get(&session, self.last_event_id.as_deref())
                    .await
            }
        };
        let resp = match resp {
            Ok(resp) => resp,
            // Refused credentials are not retried with backoff: the auth provider has had
            // its say.
            Err(e @ (Error::Unauthorized { .. } | Error::Auth(_))) => {
                tracing::warn!(error = %e, "sse stream not authorized");
                return self.give_up_with(e);
            }
            Err(e) => return self.failed(&e),
        };
        let status = resp.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            if self.kind == Kind::Get {
                self.shared.state().get = GetStream::NotOffered;
            }
            self.give_up("the server offers no get stream (http 405)");
            return;
        }
        if status == StatusCode::NOT_FOUND && session.id.is_some() {
            tracing::info!("the server ended the session (http 404)");
            self.done = true;
            if let Err(e) = self.shared.reinitialize(self.generation).await {
                self.queued.push_back(Inbound::Failed(e));
            }
            return;
        }
        if status == StatusCode::GONE && self.last_event_id.is_some() {
            // The server no longer has the events after ours: waiting and asking again
            // would not bring them back.
            if self.kind == Kind::Post {
                // The server's JSON-RPC error says why (events dropped from its store, or the
                // instance serving the stream stopped before answering).
                let (_, rpc) = self.shared.status_error(resp).await;
                let reason = match rpc {
                    Some(rpc) => format!("{} (http 410)", rpc.message),
                    None => {
                        "the server no longer has the events to resume from (http 410)".to_owned()
                    }
                };
                self.give_up(&reason);
                return;
            }
            // The standalone stream starts afresh; what it carried meanwhile is gone.
            tracing::warn!("the server dropped the get stream's missed events (http 410)");
            self.last_event_id = None;
            self.delay = Some(Duration::ZERO);
            return;
        }
        if !status.is_success() {
            return self.failed(&format_args!("http status {status}"));
        }
        if !is_sse(resp.headers()) {
            self.give_up("the get response is not an sse stream");
            return;
        }
        self.events = Some(self.shared.events(resp));
    }
}

/// The legacy HTTP+SSE stream, after its `endpoint` event: `message` events until the end.
pub(crate) fn legacy(events: Events) -> BoxStream<'static, Inbound> {
    futures::stream::unfold(Some(events), |events| async move {
        let mut events = events?;
        loop {
            match events.next().await {
                Some(Ok(event)) => {
                    if event.event != "message" || event.data.trim().is_empty() {
                        continue;
                    }
                    let msg = Message::decode(event.data.as_bytes());
                    return Some((Inbound::Message(msg), Some(events)));
                }
                Some(Err(e)) => return Some((Inbound::Failed(sse_error(e)), None)),
                None => return Some((Inbound::End, None)),
            }
        }
    })
    .boxed()
}

/// Not API (the fuzz target's entry point): the messages the client reads from an SSE
/// response whose body arrives in `chunks`, through the same parsing as a live stream
/// ([`Lines`] with the default limit, the SSE parser, then each `message` event's data
/// decoded).
#[doc(hidden)]
pub async fn fuzz_sse(chunks: Vec<Vec<u8>>) -> Vec<Message> {
    let body = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    let resp = http::Response::new(reqwest::Body::wrap_stream(body));
    let events = Lines::new(resp.into(), DEFAULT_MAX_MESSAGE_SIZE)
        .eventsource()
        .boxed();
    legacy(events)
        .filter_map(|item| async move {
            match item {
                Inbound::Message(msg) => Some(msg),
                _ => None,
            }
        })
        .collect()
        .await
}

/// The SSE side of the exchanges: reading a POST's answer, opening the GET stream.
impl Shared {
    /// Queues the JSON body of a response, or hands its SSE stream to `recv`: resumable for a
    /// session's request, not for a 2026-07-28 one (`modern`), whose revision has no
    /// resumption and which a cancellation ends by dropping the stream.
    pub(crate) async fn read_response(
        self: &Arc<Self>,
        resp: reqwest::Response,
        ids: &[Id],
        generation: u64,
        modern: bool,
    ) {
        match body_kind(resp.headers()) {
            Body::Json => match self.read_body(resp).await {
                Ok(bytes) => match Message::decode(&bytes) {
                    Message::Invalid(invalid) => {
                        let error = Error::InvalidResponse(invalid.error.message);
                        let _ = self.fail_or_err(ids, error).await;
                    }
                    msg => self.push(Inbound::Message(msg)).await,
                },
                Err(e) => {
                    let _ = self.fail_or_err(ids, e).await;
                }
            },
            Body::Sse => {
                let stream = self.events(resp);
                let task = SseTask::post(self.clone(), generation, ids.to_vec(), stream, !modern);
                self.push(Inbound::Spawn(task)).await;
            }
            Body::Other(ct) => {
                let _ = self.fail_or_err(ids, Error::ContentType(ct)).await;
            }
        }
    }

    /// Opens the standalone GET stream, once per session. The first GET is made here, so
    /// the stream is open (or refused) before the caller's next message goes out; `recv`
    /// drives it from then on.
    pub(crate) async fn open_get_stream(self: &Arc<Self>) {
        let (generation, session) = {
            let mut st = self.state();
            if !matches!(st.mode, Mode::Streamable) || st.get != GetStream::NotOpened {
                return;
            }
            st.get = GetStream::Open;
            (st.generation, st.session())
        };
        // Bounded: a server that never answers the GET must not hold the `initialized` send.
        // A timed-out first attempt is retried by the stream task, which `recv` drives.
        let first = match tokio::time::timeout(self.timeout, self.get(&session, None)).await {
            Ok(first) => first,
            Err(_) => {
                tracing::warn!(timeout = ?self.timeout, "the get stream got no answer in time");
                Err(Error::Timeout("the response to the get stream"))
            }
        };
        self.push(Inbound::Spawn(SseTask::get_after(
            self.clone(),
            generation,
            first,
        )))
        .await;
    }
}
