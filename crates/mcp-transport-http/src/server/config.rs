//! The service's configuration, as the [`Builder`](super::Builder) sets it, with its
//! defaults.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::directory::SessionDirectory;
use super::event_store::{EventStore, InMemoryEventStore};
use super::spawn::{DynSpawner, TokioSpawner};

/// How the service keeps state between POSTs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SessionMode {
    /// An `initialize` POST opens a session with an `Mcp-Session-Id`; every later request
    /// must carry it (400 without, 404 once the session is gone). The default.
    #[default]
    Stateful,
    /// No session ids: each POST is served by a fresh session transport (and a fresh run of
    /// the session factory) that ends with its response. GET and DELETE answer 405;
    /// notifications and responses are acknowledged (202) and dropped, since no session
    /// exists to receive them.
    Stateless,
    /// Both on one endpoint: an `initialize` POST opens a stateful session, and POSTs that
    /// carry no session id are served statelessly (for protocol revisions without the
    /// initialize handshake).
    Hybrid,
}

/// The protocol revisions accepted in the `MCP-Protocol-Version` header by default.
pub const DEFAULT_PROTOCOL_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The hosts accepted in `Host` and `Origin` by default (any port).
pub const LOCALHOST: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// What names a request's principal.
type NamePrincipal = dyn Fn(&http::Extensions) -> Option<String> + Send + Sync;

/// Names the authenticated principal of an HTTP request, from its extensions.
#[derive(Clone)]
pub(crate) struct PrincipalFn(pub(crate) Arc<NamePrincipal>);

impl fmt::Debug for PrincipalFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PrincipalFn")
    }
}

#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) path: String,
    pub(crate) mode: SessionMode,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_client: usize,
    pub(crate) evict_idle_after: Option<Duration>,
    pub(crate) principal: Option<PrincipalFn>,
    pub(crate) header_read_timeout: Option<Duration>,
    pub(crate) body_read_timeout: Option<Duration>,
    pub(crate) max_connections: usize,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) max_body_size: usize,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) allowed_origins: Option<Vec<String>>,
    pub(crate) protocol_versions: Vec<String>,
    pub(crate) event_store: Option<Arc<dyn EventStore>>,
    pub(crate) sse_retry: Duration,
    pub(crate) inbound_queue: usize,
    pub(crate) stream_queue: usize,
    pub(crate) legacy: Option<(String, String)>,
    pub(crate) spawner: DynSpawner,
    pub(crate) directory: Option<Directory>,
    /// How long forwarding waits to connect to a session's holder before taking it over.
    pub(crate) forward_connect_timeout: Duration,
    /// How often a holder refreshes its sessions' directory records.
    pub(crate) directory_touch_interval: Duration,
}

/// The [`SessionDirectory`] shared with the other instances, and this instance's URL in it.
#[derive(Debug, Clone)]
pub(crate) struct Directory {
    pub(crate) sessions: Arc<dyn SessionDirectory>,
    pub(crate) instance_url: Arc<str>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            path: "/mcp".to_owned(),
            mode: SessionMode::Stateful,
            max_sessions: 10_000,
            max_sessions_per_client: 1_000,
            evict_idle_after: Some(Duration::from_secs(60)),
            principal: None,
            header_read_timeout: Some(Duration::from_secs(30)),
            body_read_timeout: Some(Duration::from_secs(30)),
            max_connections: 512,
            idle_timeout: Some(Duration::from_secs(30 * 60)),
            max_body_size: 4 * 1024 * 1024,
            allowed_hosts: Some(LOCALHOST.iter().map(|h| (*h).to_owned()).collect()),
            allowed_origins: Some(LOCALHOST.iter().map(|h| (*h).to_owned()).collect()),
            protocol_versions: DEFAULT_PROTOCOL_VERSIONS
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            event_store: Some(Arc::new(InMemoryEventStore::default())),
            sse_retry: Duration::from_secs(1),
            inbound_queue: 64,
            stream_queue: 64,
            legacy: None,
            spawner: DynSpawner(Box::new(TokioSpawner)),
            directory: None,
            forward_connect_timeout: Duration::from_secs(2),
            directory_touch_interval: Duration::from_secs(10 * 60),
        }
    }
}
