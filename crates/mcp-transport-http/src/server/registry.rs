//! The sessions of a service, by id: the session limit, the per-client quota, and the
//! eviction of idle sessions to make room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::config::Config;
use super::session::{Session, Unregister};

/// Why a session could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The table is full and no session in it is idle enough to evict.
    Full,
    /// The client already has its quota of sessions, none idle enough to evict.
    Quota,
}

/// The limits [`Registry::insert`] applies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) max_sessions: usize,
    pub(crate) max_per_client: usize,
    /// A session idle at least this long may be ended to make room (`None`: never).
    pub(crate) evict_idle_after: Option<Duration>,
}

impl Limits {
    pub(crate) fn of(config: &Config) -> Self {
        Limits {
            max_sessions: config.max_sessions,
            max_per_client: config.max_sessions_per_client.max(1),
            evict_idle_after: config.evict_idle_after,
        }
    }
}

#[derive(Debug, Default)]
struct Table {
    /// Looked up by the client's `Mcp-Session-Id`: a keyed hash (foldhash's, seeded per
    /// map), cheaper than SipHash on every request.
    sessions: HashMap<Arc<str>, Arc<Session>, foldhash::fast::RandomState>,
    /// How many sessions of `sessions` each client has.
    per_client: HashMap<Arc<str>, usize, foldhash::fast::RandomState>,
}

impl Table {
    /// Removes a session, keeping the per-client counts.
    fn take(&mut self, id: &str) -> Option<Arc<Session>> {
        let session = self.sessions.remove(id)?;
        if let Some(client) = &session.owner.client
            && let Some(n) = self.per_client.get_mut(client)
        {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(client);
            }
        }
        Some(session)
    }

    /// The session idle the longest, at least `min_idle`, among those of `client` (or all).
    /// A linear scan: it runs only when the table or a quota is full.
    fn oldest_idle(&self, client: Option<&str>, min_idle: Duration) -> Option<Arc<str>> {
        let now = Instant::now();
        self.sessions
            .iter()
            .filter(|(_, s)| client.is_none_or(|c| s.owner.client.as_deref() == Some(c)))
            .filter_map(|(id, s)| Some((id, s.idle_since()?)))
            .filter(|(_, since)| now.saturating_duration_since(*since) >= min_idle)
            .min_by_key(|(_, since)| *since)
            .map(|(id, _)| id.clone())
    }

    /// Makes room by evicting the longest-idle session of `client` (or of all), if one has
    /// been idle long enough.
    fn evict(
        &mut self,
        client: Option<&str>,
        limits: &Limits,
        victims: &mut Vec<Arc<Session>>,
    ) -> bool {
        let Some(min_idle) = limits.evict_idle_after else {
            return false;
        };
        match self.oldest_idle(client, min_idle) {
            Some(id) => {
                victims.extend(self.take(&id));
                true
            }
            None => false,
        }
    }
}

/// The sessions of a service, by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    table: Mutex<Table>,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.lock().sessions.get(id).cloned()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().sessions.len()
    }

    /// Registers a session (it must have an id) within `limits`: over its client's quota,
    /// that client's longest-idle session is evicted if it has been idle long enough, else
    /// the session is refused; likewise over the session limit, with the longest-idle session
    /// of any client. Evicted sessions are ended (their later requests get 404).
    pub(crate) fn insert(&self, session: Arc<Session>, limits: &Limits) -> Result<(), Refused> {
        let Some(id) = session.id.clone() else {
            return Ok(());
        };
        let mut victims = Vec::new();
        let result = {
            let mut table = self.lock();
            let client = session.owner.client.clone();
            let over_quota = client.as_ref().is_some_and(|c| {
                table.per_client.get(c).copied().unwrap_or(0) >= limits.max_per_client
            });
            if over_quota && !table.evict(client.as_deref(), limits, &mut victims) {
                Err(Refused::Quota)
            } else if table.sessions.len() >= limits.max_sessions
                && !table.evict(None, limits, &mut victims)
            {
                Err(Refused::Full)
            } else {
                if let Some(client) = client {
                    *table.per_client.entry(client).or_default() += 1;
                }
                table.sessions.insert(id, session);
                Ok(())
            }
        };
        // Outside the lock: ending a session unregisters it.
        for victim in victims {
            tracing::info!(session = ?victim.id, "idle session evicted to make room");
            victim.end();
        }
        result
    }
}

impl Unregister for Registry {
    fn unregister(&self, id: &str) {
        self.lock().take(id);
    }
}
