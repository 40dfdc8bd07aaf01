//! Resumability: the [`EventStore`] trait and the bounded [`InMemoryEventStore`].

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use futures::future::BoxFuture;

/// What a shared store's operation fails with (a connection error, say): the transport logs
/// it and answers as if the store did not have what was asked (for a replay, 404; for an
/// event it could not store, the event is still sent, but cannot be replayed).
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// The future of a store operation ([`EventStore`], [`SessionDirectory`](super::SessionDirectory)).
pub type StoreFuture<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// One SSE stream of a session.
///
/// Each POST that answers with SSE opens a new stream; the standalone GET stream is
/// [`StreamId::STANDALONE`]. Numbers are never reused within a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub u64);

impl StreamId {
    /// The standalone stream opened by GET.
    pub const STANDALONE: StreamId = StreamId(0);
}

/// An event as stored: its id and its data (one JSON-RPC message; empty for a priming
/// event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The SSE event id.
    pub id: String,
    /// The event data: a serialized JSON-RPC message, or empty for a priming event.
    pub data: Bytes,
}

/// What [`EventStore::replay_after`] found: the stream the event belongs to and the events of
/// that stream stored after it, oldest first, and whether some are missing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replay {
    /// The stream of the last event the client saw.
    pub stream: StreamId,
    /// The events of that stream after it, oldest first.
    pub events: Vec<StoredEvent>,
    /// Whether events of that stream after it were dropped (a bounded store evicted them):
    /// the stream cannot be resumed without loss, and the GET is answered 410 Gone so that
    /// the client learns it and re-issues its requests instead of waiting for answers that
    /// will never come.
    pub truncated: bool,
}

impl Replay {
    /// A replay of `events` of `stream`; `truncated` if some events of the stream after the
    /// client's last one are no longer stored.
    pub fn new(stream: StreamId, events: Vec<StoredEvent>, truncated: bool) -> Self {
        Replay {
            stream,
            events,
            truncated,
        }
    }
}

/// Stores the SSE events of stateful sessions so that a client can resume a stream with
/// `Last-Event-ID`.
///
/// The transport calls [`append`](Self::append) for every event it writes to an SSE stream
/// of a stateful session, in order, and writes the event to the client only once `append`
/// has completed: an event a client saw is always one a resumption can find, on this
/// instance or (with a store shared by several instances, such as `mcp-redis`'s) on another.
/// A session's appends are never concurrent with each other or with a replay of the same
/// session. Event ids must be unique within the session and must let
/// [`replay_after`](Self::replay_after) find the stream they belong to (the spec: "event IDs
/// should encode sufficient information to identify the originating stream").
///
/// `mcp_transport_http::server::contract::verify_event_store` checks these promises; run it
/// against your own store.
pub trait EventStore: Send + Sync + fmt::Debug + 'static {
    /// Stores one event of `stream` and returns its id.
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: StreamId,
        data: Bytes,
    ) -> StoreFuture<'a, String>;

    /// The stream `last_event_id` belongs to and the events of that stream stored after it,
    /// [`truncated`](Replay::truncated) if any of those were dropped; `None` if the id is not
    /// one of this session's.
    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> StoreFuture<'a, Option<Replay>>;

    /// Forgets a session (it ended).
    fn remove_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()>;
}

/// A bounded in-memory [`EventStore`]: per session, the newest `max_events` events totalling
/// at most `max_bytes` bytes (the oldest are dropped first). A resumption from before a
/// dropped event of the same stream is [`truncated`](Replay::truncated) (answered 410 Gone);
/// resumptions of other streams are unaffected.
///
/// Event ids are `"<stream>-<sequence>"`, with a per-session sequence number.
pub struct InMemoryEventStore {
    max_events: usize,
    max_bytes: usize,
    sessions: Mutex<HashMap<String, Log>>,
}

#[derive(Default)]
struct Log {
    next_seq: u64,
    bytes: usize,
    events: VecDeque<(u64, StreamId, Bytes)>,
    /// Per stream, the sequence number of its newest dropped event (at most `max_events`
    /// streams; older entries are folded into `dropped_floor`).
    dropped: HashMap<StreamId, u64>,
    /// Any stream may have lost events up to this sequence number (from entries of
    /// `dropped` forgotten to keep it bounded).
    dropped_floor: Option<u64>,
}

impl Log {
    /// Records that `seq` of `stream` was dropped, keeping at most `max` entries.
    fn record_drop(&mut self, stream: StreamId, seq: u64, max: usize) {
        self.dropped.insert(stream, seq);
        if self.dropped.len() > max
            && let Some((&oldest, &upto)) = self.dropped.iter().min_by_key(|(_, s)| **s)
        {
            self.dropped.remove(&oldest);
            self.dropped_floor = Some(self.dropped_floor.map_or(upto, |f| f.max(upto)));
        }
    }

    /// Whether events of `stream` after `seq` were dropped.
    fn lost_after(&self, stream: StreamId, seq: u64) -> bool {
        self.dropped.get(&stream).is_some_and(|&d| d > seq)
            || self.dropped_floor.is_some_and(|f| f > seq)
    }
}

impl InMemoryEventStore {
    /// A store keeping, per session, at most `max_events` events and `max_bytes` bytes.
    pub fn new(max_events: usize, max_bytes: usize) -> Self {
        InMemoryEventStore {
            max_events: max_events.max(1),
            max_bytes,
            sessions: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Log>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for InMemoryEventStore {
    /// 1024 events and 8 MiB per session.
    fn default() -> Self {
        InMemoryEventStore::new(1024, 8 * 1024 * 1024)
    }
}

impl fmt::Debug for InMemoryEventStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryEventStore")
            .field("max_events", &self.max_events)
            .field("max_bytes", &self.max_bytes)
            .field("sessions", &self.lock().len())
            .finish()
    }
}

fn parse_id(id: &str) -> Option<(StreamId, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((StreamId(stream.parse().ok()?), seq.parse().ok()?))
}

fn format_id(stream: StreamId, seq: u64) -> String {
    format!("{}-{seq}", stream.0)
}

impl InMemoryEventStore {
    fn append_now(&self, session: &str, stream: StreamId, data: Bytes) -> String {
        let mut sessions = self.lock();
        let log = match sessions.get_mut(session) {
            Some(log) => log,
            None => sessions.entry(session.to_owned()).or_default(),
        };
        let seq = log.next_seq;
        log.next_seq += 1;
        log.bytes += data.len();
        log.events.push_back((seq, stream, data));
        while log.events.len() > self.max_events
            || (log.bytes > self.max_bytes && log.events.len() > 1)
        {
            if let Some((seq, stream, old)) = log.events.pop_front() {
                log.bytes -= old.len();
                log.record_drop(stream, seq, self.max_events);
            }
        }
        format_id(stream, seq)
    }

    fn replay_now(&self, session: &str, last_event_id: &str) -> Option<Replay> {
        let (stream, seq) = parse_id(last_event_id)?;
        let sessions = self.lock();
        let log = sessions.get(session)?;
        if seq >= log.next_seq {
            return None;
        }
        let events = log
            .events
            .iter()
            .filter(|(s, st, _)| *st == stream && *s > seq)
            .map(|(s, st, data)| StoredEvent {
                id: format_id(*st, *s),
                data: data.clone(),
            })
            .collect();
        Some(Replay::new(stream, events, log.lost_after(stream, seq)))
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: StreamId,
        data: Bytes,
    ) -> StoreFuture<'a, String> {
        Box::pin(std::future::ready(Ok(
            self.append_now(session, stream, data)
        )))
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> StoreFuture<'a, Option<Replay>> {
        Box::pin(std::future::ready(Ok(
            self.replay_now(session, last_event_id)
        )))
    }

    fn remove_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        self.lock().remove(session);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Stores an event; on a store error the event still goes out, without an id (it could not be
/// replayed, and a client must not resume from an id the store does not know).
pub(super) async fn append_or_log(
    store: &dyn EventStore,
    session: &str,
    stream: StreamId,
    data: Bytes,
) -> Option<String> {
    match store.append(session, stream, data).await {
        Ok(id) => Some(id),
        Err(e) => {
            tracing::warn!(session, error = %e, "event store: an event could not be stored");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_only_the_same_stream_after_the_id() {
        let store = InMemoryEventStore::new(3, 1 << 20);
        let a = store.append_now("s", StreamId(1), Bytes::new());
        store.append_now("s", StreamId(2), Bytes::from_static(b"x"));
        let c = store.append_now("s", StreamId(1), Bytes::from_static(b"y"));
        let replay = store.replay_now("s", &a).unwrap();
        assert_eq!(replay.stream, StreamId(1));
        assert_eq!(replay.events.len(), 1);
        assert_eq!(replay.events[0].id, c);
        assert!(store.replay_now("other", &a).is_none());
        assert!(store.replay_now("s", "nonsense").is_none());
        assert!(store.replay_now("s", "1-99").is_none());
        assert!(!replay.truncated);
        // Bounded: the oldest event goes (the priming event `a`: nothing after it is lost).
        store.append_now("s", StreamId(1), Bytes::from_static(b"z"));
        let replay = store.replay_now("s", &a).unwrap();
        assert_eq!(replay.events.len(), 2);
        assert!(!replay.truncated);
        store.lock().remove("s");
        assert!(store.replay_now("s", &a).is_none());
    }

    #[test]
    fn a_resumption_past_dropped_events_of_its_stream_is_truncated() {
        let store = InMemoryEventStore::new(2, 1 << 20);
        let p1 = store.append_now("s", StreamId(1), Bytes::new());
        let p2 = store.append_now("s", StreamId(2), Bytes::new());
        // Stream 1's priming event goes: nothing after it was lost.
        store.append_now("s", StreamId(1), Bytes::from_static(b"a"));
        assert!(!store.replay_now("s", &p1).unwrap().truncated);
        // Stream 2's priming event goes: nothing of stream 2 after it was lost either.
        store.append_now("s", StreamId(1), Bytes::from_static(b"b"));
        assert!(!store.replay_now("s", &p2).unwrap().truncated);
        // `a` goes: resuming stream 1 from its priming event would miss it.
        store.append_now("s", StreamId(1), Bytes::from_static(b"c"));
        let replay = store.replay_now("s", &p1).unwrap();
        assert!(replay.truncated);
        assert_eq!(replay.events.len(), 2);
        assert!(!store.replay_now("s", &p2).unwrap().truncated);
    }

    #[test]
    fn the_record_of_dropped_events_is_bounded() {
        // One event kept: every append drops the previous one, each of its own stream.
        let store = InMemoryEventStore::new(1, 1 << 20);
        let first = store.append_now("s", StreamId(1), Bytes::from_static(b"x"));
        for stream in 2..100 {
            store.append_now("s", StreamId(stream), Bytes::from_static(b"x"));
        }
        let sessions = store.lock();
        assert!(sessions["s"].dropped.len() <= 1);
        drop(sessions);
        // Forgotten streams are still reported conservatively.
        let before_first = "1-0";
        assert_eq!(first, before_first);
        assert!(store.replay_now("s", "3-1").unwrap().truncated);
    }
}
