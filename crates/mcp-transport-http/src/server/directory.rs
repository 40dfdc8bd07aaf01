//! Where each stateful session lives when several server instances serve one deployment: the
//! [`SessionDirectory`] trait and the [`InMemorySessionDirectory`] (for tests, and for several
//! services in one process).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::event_store::StoreFuture;

/// One stateful session as the directory knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session id.
    pub id: String,
    /// The instance serving the session: its MCP endpoint's URL as the other instances reach
    /// it (`Builder::instance_url`), for example `http://10.0.0.7:8080/mcp`.
    pub home: String,
    /// The principal the session belongs to (`Builder::principal`), if any.
    pub principal: Option<String>,
    /// Raised each time another instance takes the session over. Each holder numbers its SSE
    /// streams from `generation << 32`, so that event ids stay unique across holders.
    pub generation: u64,
}

impl SessionRecord {
    /// A new session, first held by `home` (generation 0).
    pub fn new(id: impl Into<String>, home: impl Into<String>, principal: Option<String>) -> Self {
        SessionRecord {
            id: id.into(),
            home: home.into(),
            principal,
            generation: 0,
        }
    }
}

/// Records which instance holds each stateful session, so that an instance receiving a
/// request for a session it does not hold forwards it to the holder, or takes the session
/// over when the holder is gone (see [`Builder::directory`](super::Builder::directory)).
///
/// Implementations must keep the promises
/// `mcp_transport_http::server::contract::verify_directory` checks: `create` is visible to
/// `get` as soon as it returns; `claim` is atomic (of two instances claiming the same session
/// from the same home, exactly one succeeds) and raises the generation; `remove` forgets the
/// session; records of sessions nobody touched for the store's time to live disappear on
/// their own (a store shared by instances that may die must not keep their sessions forever).
pub trait SessionDirectory: Send + Sync + fmt::Debug + 'static {
    /// Records a new session; fails if the id is taken.
    fn create<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, ()>;

    /// The session's record, `None` if unknown (never created, removed or expired).
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>>;

    /// Makes `new_home` the session's holder, if `expected_home` still is, and returns the
    /// record as changed (generation raised by one); `None` if the session is unknown or
    /// another instance claimed it first.
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expected_home: &'a str,
        new_home: &'a str,
    ) -> StoreFuture<'a, Option<SessionRecord>>;

    /// Marks the session as used now (its time to live starts again).
    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// Forgets the session (it ended).
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
}

/// A [`SessionDirectory`] in this process's memory, shared by the services that hold a clone
/// of its `Arc`: several [`StreamableHttpService`](super::StreamableHttpService)s in one
/// process (tests), never several processes. Records are kept until removed, at most
/// `max_sessions` of them (then `create` fails).
pub struct InMemorySessionDirectory {
    max_sessions: usize,
    records: Mutex<HashMap<String, SessionRecord>>,
}

impl InMemorySessionDirectory {
    /// A directory holding at most `max_sessions` records.
    pub fn new(max_sessions: usize) -> Self {
        InMemorySessionDirectory {
            max_sessions,
            records: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, SessionRecord>> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for InMemorySessionDirectory {
    /// At most 65,536 sessions.
    fn default() -> Self {
        InMemorySessionDirectory::new(65_536)
    }
}

impl fmt::Debug for InMemorySessionDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemorySessionDirectory")
            .field("sessions", &self.lock().len())
            .finish()
    }
}

fn ready<'a, T: Send + 'a>(value: Result<T, super::event_store::StoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl SessionDirectory for InMemorySessionDirectory {
    fn create<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, ()> {
        let mut records = self.lock();
        if records.contains_key(&record.id) {
            return ready(Err("a session with this id exists already".into()));
        }
        if records.len() >= self.max_sessions {
            return ready(Err("the session directory is full".into()));
        }
        records.insert(record.id.clone(), record.clone());
        ready(Ok(()))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        ready(Ok(self.lock().get(id).cloned()))
    }

    fn claim<'a>(
        &'a self,
        id: &'a str,
        expected_home: &'a str,
        new_home: &'a str,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        let mut records = self.lock();
        let claimed = records
            .get_mut(id)
            .filter(|r| r.home == expected_home)
            .map(|r| {
                r.home = new_home.to_owned();
                r.generation += 1;
                r.clone()
            });
        ready(Ok(claimed))
    }

    fn touch<'a>(&'a self, _id: &'a str) -> StoreFuture<'a, ()> {
        ready(Ok(()))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.lock().remove(id);
        ready(Ok(()))
    }
}
