//! What a session knows: the client's declarations ([`ClientState`]), what `initialize` fixed
//! ([`InitState`]), and the state its handler, its notifier and the server share
//! ([`SessionShared`]), with [`Session`], the handle handlers get.

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use mcp_jsonrpc::Extensions;
use mcp_types::{
    ClientCapabilities, Implementation, LoggingLevel, LoggingMessageNotificationParams,
    ProtocolVersion, ServerCapabilities,
};
use tokio::sync::{Notify, mpsc};

use crate::session_store::SessionSnapshot;

/// What the client declared about itself: for a stateful session, from `initialize`; for a
/// stateless (2026-07-28) request, from the request's `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct ClientState {
    pub(crate) version: ProtocolVersion,
    pub(crate) info: Option<Implementation>,
    pub(crate) capabilities: ClientCapabilities,
}

/// What `initialize` fixed for the session.
#[derive(Debug)]
pub(crate) struct InitState {
    pub(crate) client: Arc<ClientState>,
    pub(crate) capabilities: ServerCapabilities,
}

const LOG_OFF: u8 = u8::MAX;

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn level_index(level: LoggingLevel) -> u8 {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(LOG_OFF)
}

/// What a session's queue of bridged log messages carries. Boxed: a tokio channel allocates
/// its first block of 32 slots when it is created, and 32 unboxed messages are 3.8 KiB that
/// every session would keep, whether it ever logs or not.
pub(crate) type QueuedLog = Box<LoggingMessageNotificationParams>;

/// Which list a `list_changed` notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// The state of one session shared by its handler, its notifier and the server.
#[derive(Debug)]
pub(crate) struct SessionShared {
    pub(crate) id: u64,
    pub(crate) init: OnceLock<Arc<InitState>>,
    initialized: AtomicBool,
    /// The session was served as initialized without a handshake
    /// ([`ServeOptions::assume_initialized`](crate::ServeOptions::assume_initialized)).
    assumed: AtomicBool,
    log_level: AtomicU8,
    subscriptions: Mutex<HashSet<String>>,
    /// Fired when [`Session`] queues a list change for this session alone.
    pub(crate) updates: Notify,
    /// Lists whose `list_changed` this session alone should be sent ([`Session`]).
    pending_lists: Mutex<Vec<ListKind>>,
    /// Fired once `notifications/initialized` arrives, so the notifier sends what changed
    /// while the session was not yet open.
    pub(crate) ready: Notify,
    logs: mpsc::Sender<QueuedLog>,
    /// What handlers stored for the session ([`Session::insert`]).
    store: Mutex<Extensions>,
    /// Raised by every change a [`SessionSnapshot`] records (for a session store).
    revision: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SessionShared {
    pub(crate) fn new(
        id: u64,
        default_level: Option<LoggingLevel>,
        logs: mpsc::Sender<QueuedLog>,
    ) -> Self {
        SessionShared {
            id,
            init: OnceLock::new(),
            initialized: AtomicBool::new(false),
            assumed: AtomicBool::new(false),
            log_level: AtomicU8::new(default_level.map_or(LOG_OFF, level_index)),
            subscriptions: Mutex::default(),
            updates: Notify::new(),
            pending_lists: Mutex::default(),
            ready: Notify::new(),
            logs,
            store: Mutex::default(),
            revision: AtomicU64::new(0),
        }
    }

    /// How many changes a [`SessionSnapshot`] records were made so far.
    pub(crate) fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Records a change a [`SessionSnapshot`] holds.
    pub(crate) fn changed(&self) {
        self.revision.fetch_add(1, Ordering::AcqRel);
    }

    /// What the session agreed with its client, once initialized.
    pub(crate) fn snapshot(&self) -> Option<SessionSnapshot> {
        let init = self.init.get()?;
        let mut snapshot = SessionSnapshot::new(
            init.client.version.clone(),
            init.client.capabilities.clone(),
        );
        snapshot.client_info.clone_from(&init.client.info);
        snapshot.initialized = self.is_ready();
        snapshot.log_level = self.log_level();
        snapshot.subscriptions = self.subscriptions();
        snapshot.subscriptions.sort();
        Some(snapshot)
    }

    /// Takes up a session another server instance served, from its snapshot; `init` is
    /// what that instance's `initialize` fixed. `false` if this session is initialized
    /// already.
    pub(crate) fn restore(&self, init: InitState, snapshot: SessionSnapshot) -> bool {
        if self.init.set(Arc::new(init)).is_err() {
            return false;
        }
        self.initialized
            .store(snapshot.initialized, Ordering::Release);
        self.log_level.store(
            snapshot.log_level.map_or(LOG_OFF, level_index),
            Ordering::Relaxed,
        );
        lock(&self.subscriptions).extend(snapshot.subscriptions);
        true
    }

    /// Serves the session as initialized with `init`, without a handshake.
    pub(crate) fn assume(&self, init: InitState) {
        if self.init.set(Arc::new(init)).is_ok() {
            self.assumed.store(true, Ordering::Release);
            self.initialized.store(true, Ordering::Release);
        }
    }

    /// Whether the session was served without a handshake of its own.
    pub(crate) fn is_assumed(&self) -> bool {
        self.assumed.load(Ordering::Acquire)
    }

    /// `notifications/initialized` arrived: the session is open for server-initiated
    /// messages.
    pub(crate) fn open(&self) {
        if self.init.get().is_some() {
            self.initialized.store(true, Ordering::Release);
            self.changed();
            self.ready.notify_one();
        }
    }

    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        LEVELS
            .get(usize::from(self.log_level.load(Ordering::Relaxed)))
            .copied()
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        self.log_level.store(level_index(level), Ordering::Relaxed);
        self.changed();
    }

    /// Whether the session is open for server-initiated messages (`notifications/initialized`
    /// arrived).
    pub(crate) fn is_ready(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// Whether a log message at `level` should go to this session.
    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn wants_log(&self, level: LoggingLevel) -> bool {
        self.is_ready() && self.log_level().is_some_and(|min| level >= min)
    }

    /// Queues a bridged log message; drops it if the queue is full.
    #[cfg_attr(not(feature = "tracing-bridge"), allow(dead_code))]
    pub(crate) fn push_log(&self, msg: LoggingMessageNotificationParams) {
        let _ = self.logs.try_send(Box::new(msg));
    }

    pub(crate) fn subscribe(&self, uri: String) {
        lock(&self.subscriptions).insert(uri);
        self.changed();
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
        self.changed();
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Every resource the session subscribed to.
    pub(crate) fn subscriptions(&self) -> Vec<String> {
        lock(&self.subscriptions).iter().cloned().collect()
    }

    /// Queues a `list_changed` notification for this session alone (coalesced per list).
    pub(crate) fn list_changed(&self, kind: ListKind) {
        let mut pending = lock(&self.pending_lists);
        if !pending.contains(&kind) {
            pending.push(kind);
        }
        drop(pending);
        self.updates.notify_one();
    }

    /// The list changes queued for this session alone since the last call.
    pub(crate) fn take_list_changes(&self) -> Vec<ListKind> {
        std::mem::take(&mut *lock(&self.pending_lists))
    }
}

/// The legacy-era session a request belongs to (protocol revisions up to 2025-11-25, which
/// have an `initialize` handshake): a place to keep per-session data, and a way to tell this
/// session alone that a list changed, e.g. after a tool that unlocks others. Requests of the
/// stateless revision 2026-07-28 have no session ([`Context::session`](crate::Context::session)
/// is `None`).
///
/// ```
/// use mcp_server::{Context, Server, Tool};
///
/// #[derive(Clone)]
/// struct Unlocked;
///
/// let server = Server::builder()
///     // The filter runs for every list and call; a session sees `admin` once it unlocked it.
///     .tool_filter(|tool, cx| {
///         tool.name() != "admin"
///             || cx.session().is_some_and(|s| s.get::<Unlocked>().is_some())
///     })
///     .tool(Tool::new("unlock", |cx: Context| async move {
///         if let Some(session) = cx.session() {
///             session.insert(Unlocked);
///             session.notify_tools_changed();
///         }
///         "unlocked"
///     }))
///     .tool(Tool::new("admin", || async { "secret" }))
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct Session {
    shared: Arc<SessionShared>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.shared.id)
            .finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(shared: Arc<SessionShared>) -> Self {
        Session { shared }
    }

    /// A number that identifies the session within its server (not the HTTP
    /// `Mcp-Session-Id`, which is the transport's).
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// Stores `value` for the rest of the session, replacing (and returning) the value of the
    /// same type stored before.
    pub fn insert<T: Clone + Send + Sync + 'static>(&self, value: T) -> Option<T> {
        lock(&self.shared.store).insert(value)
    }

    /// A clone of the value of type `T` stored for the session, if any.
    pub fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        lock(&self.shared.store).get::<T>().cloned()
    }

    /// Removes and returns the value of type `T` stored for the session.
    pub fn remove<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        lock(&self.shared.store).remove::<T>()
    }

    /// Sends this session `notifications/tools/list_changed` (if it declared `listChanged`),
    /// e.g. after something the tool filter reads changed.
    pub fn notify_tools_changed(&self) {
        self.shared.list_changed(ListKind::Tools);
    }

    /// Sends this session `notifications/resources/list_changed`.
    pub fn notify_resources_changed(&self) {
        self.shared.list_changed(ListKind::Resources);
    }

    /// Sends this session `notifications/prompts/list_changed`.
    pub fn notify_prompts_changed(&self) {
        self.shared.list_changed(ListKind::Prompts);
    }
}

impl Session {
    pub(crate) fn shared(&self) -> &Arc<SessionShared> {
        &self.shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block of 32 slots a tokio channel allocates up front is what a session that never
    /// logs keeps of its log queue: pointers, not 32 messages.
    #[test]
    fn the_log_queue_keeps_a_block_of_pointers() {
        assert!(32 * std::mem::size_of::<QueuedLog>() <= 256);
    }
}
