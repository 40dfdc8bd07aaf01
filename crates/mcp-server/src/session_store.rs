//! What a legacy (stateful) session knows, kept outside the process so that another server
//! instance can take the session over: [`SessionSnapshot`], the [`SessionStore`] trait, and
//! the [`InMemorySessionStore`].

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcp_types::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use serde::{Deserialize, Serialize};

use crate::error::BoxError;

/// The future of a [`SessionStore`] operation.
pub type SessionStoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BoxError>> + Send + 'a>>;

/// Everything a stateful session has agreed with its client: what `initialize` fixed, and
/// what the client changed since (its log level, its resource subscriptions).
///
/// It is what an instance needs to serve a session that another instance opened: restored
/// with [`ServeOptions::session_store`](crate::ServeOptions::session_store), the session goes
/// on as if it had been served here from the start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionSnapshot {
    /// The negotiated protocol revision.
    pub protocol_version: ProtocolVersion,
    /// The client's `clientInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The client's capabilities.
    pub client_capabilities: ClientCapabilities,
    /// Whether the client sent `notifications/initialized`.
    pub initialized: bool,
    /// The level set with `logging/setLevel`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// The resources the client subscribed to, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
}

impl SessionSnapshot {
    /// A snapshot of a session just initialized at `protocol_version` by a client with
    /// `client_capabilities`.
    pub fn new(protocol_version: ProtocolVersion, client_capabilities: ClientCapabilities) -> Self {
        SessionSnapshot {
            protocol_version,
            client_info: None,
            client_capabilities,
            initialized: false,
            log_level: None,
            subscriptions: Vec::new(),
        }
    }
}

/// Keeps the [`SessionSnapshot`] of each stateful session, by session id.
///
/// The server saves a session's snapshot when `initialize` succeeds (before the client can
/// see the result, so that its next request finds it on any instance) and after every change
/// (`notifications/initialized`, `logging/setLevel`, `resources/subscribe` and
/// `unsubscribe`), and loads it when it serves a session it did not open.
///
/// Implementations must keep the promises `mcp_server::session_store::verify` checks: a
/// `save` is visible to `load` as soon as it returns, a later `save` replaces an earlier one,
/// `remove` forgets the session, and snapshots nobody saved for the store's time to live
/// disappear on their own (instances may die without removing their sessions).
pub trait SessionStore: Send + Sync + 'static {
    /// Stores `snapshot` as the session's, replacing any earlier one.
    fn save<'a>(
        &'a self,
        session: &'a str,
        snapshot: &'a SessionSnapshot,
    ) -> SessionStoreFuture<'a, ()>;

    /// The session's snapshot, `None` if none is stored.
    fn load<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, Option<SessionSnapshot>>;

    /// Forgets the session.
    fn remove<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, ()>;
}

impl fmt::Debug for dyn SessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionStore")
    }
}

/// A [`SessionStore`] in this process's memory (tests, and several servers in one process),
/// holding at most `max_sessions` snapshots (then `save` of a new session fails).
pub struct InMemorySessionStore {
    max_sessions: usize,
    snapshots: Mutex<HashMap<String, SessionSnapshot>>,
}

impl InMemorySessionStore {
    /// A store holding at most `max_sessions` snapshots.
    pub fn new(max_sessions: usize) -> Self {
        InMemorySessionStore {
            max_sessions,
            snapshots: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, SessionSnapshot>> {
        self.snapshots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for InMemorySessionStore {
    /// At most 65,536 sessions.
    fn default() -> Self {
        InMemorySessionStore::new(65_536)
    }
}

impl fmt::Debug for InMemorySessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemorySessionStore")
            .field("sessions", &self.lock().len())
            .finish()
    }
}

impl SessionStore for InMemorySessionStore {
    fn save<'a>(
        &'a self,
        session: &'a str,
        snapshot: &'a SessionSnapshot,
    ) -> SessionStoreFuture<'a, ()> {
        let mut snapshots = self.lock();
        let result = if snapshots.len() >= self.max_sessions && !snapshots.contains_key(session) {
            Err("the session store is full".into())
        } else {
            snapshots.insert(session.to_owned(), snapshot.clone());
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn load<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, Option<SessionSnapshot>> {
        Box::pin(std::future::ready(Ok(self.lock().get(session).cloned())))
    }

    fn remove<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, ()> {
        self.lock().remove(session);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Checks the promises of the [`SessionStore`] contract against stores made by `make` (each
/// call must give a new, empty store): a `save` is visible to `load` as soon as it returns, a
/// later `save` replaces an earlier one, `remove` forgets the session, and sessions are kept
/// apart. Time to live is not checked (stores choose their own). The first broken promise is
/// the error.
///
/// ```
/// use mcp_server::session_store::{InMemorySessionStore, verify};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// verify(InMemorySessionStore::default).await.unwrap();
/// # }
/// ```
pub async fn verify<S: SessionStore>(make: impl Fn() -> S) -> Result<(), String> {
    use mcp_types::LoggingLevel;

    let fail = |what: &'static str| move |e: BoxError| format!("{what}: {e}");
    let store = make();
    if let Some(found) = store.load("missing").await.map_err(fail("load"))? {
        return Err(format!("load of an unknown session gave {found:?}"));
    }
    let mut first =
        SessionSnapshot::new(ProtocolVersion::V2025_06_18, ClientCapabilities::default());
    first.client_info = Some(
        serde_json::from_value(serde_json::json!({"name": "client", "version": "1.0"}))
            .map_err(|e| e.to_string())?,
    );
    store.save("a", &first).await.map_err(fail("save"))?;
    let got = store.load("a").await.map_err(fail("load"))?;
    if got.as_ref() != Some(&first) {
        return Err(format!("load after save gave {got:?}"));
    }
    let mut second = first.clone();
    second.initialized = true;
    second.log_level = Some(LoggingLevel::Info);
    second.subscriptions = vec!["file:///a".into(), "file:///b".into()];
    store.save("a", &second).await.map_err(fail("save"))?;
    let got = store.load("a").await.map_err(fail("load"))?;
    if got.as_ref() != Some(&second) {
        return Err(format!("a second save was not the one loaded: {got:?}"));
    }
    let other = SessionSnapshot::new(ProtocolVersion::V2025_11_25, ClientCapabilities::default());
    store.save("b", &other).await.map_err(fail("save"))?;
    store.remove("a").await.map_err(fail("remove"))?;
    if let Some(found) = store.load("a").await.map_err(fail("load"))? {
        return Err(format!("a removed session was loaded: {found:?}"));
    }
    let got = store.load("b").await.map_err(fail("load"))?;
    if got.as_ref() != Some(&other) {
        return Err(format!("removing one session changed another: {got:?}"));
    }
    store
        .remove("missing")
        .await
        .map_err(fail("remove of an unknown session"))?;
    Ok(())
}

#[cfg(test)]
mod contract_tests {
    use super::*;

    #[tokio::test]
    async fn the_in_memory_store_keeps_the_contract() {
        verify(InMemorySessionStore::default).await.unwrap();
    }

    /// A store that ignores a second save: the check must catch it.
    #[derive(Default)]
    struct FirstSaveOnly(InMemorySessionStore);

    impl SessionStore for FirstSaveOnly {
        fn save<'a>(
            &'a self,
            session: &'a str,
            snapshot: &'a SessionSnapshot,
        ) -> SessionStoreFuture<'a, ()> {
            if self.0.lock().contains_key(session) {
                return Box::pin(std::future::ready(Ok(())));
            }
            self.0.save(session, snapshot)
        }

        fn load<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, Option<SessionSnapshot>> {
            self.0.load(session)
        }

        fn remove<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, ()> {
            self.0.remove(session)
        }
    }

    #[tokio::test]
    async fn a_store_that_keeps_the_first_save_fails_the_check() {
        let err = verify(FirstSaveOnly::default).await.unwrap_err();
        assert!(err.contains("second save"), "{err}");
    }
}
