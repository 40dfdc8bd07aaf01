//! [`Builder`]: the service's configuration.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::StreamableHttpService;
use super::event_store::{EventStore, InMemoryEventStore};
use super::session::{HttpSessionTransport, SessionInfo};
use super::spawn::{DynSpawner, Spawner, TokioSpawner};

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

pub(crate) type Factory =
    Arc<dyn Fn(HttpSessionTransport, SessionInfo) -> BoxFuture<'static, ()> + Send + Sync>;

#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) path: String,
    pub(crate) mode: SessionMode,
    pub(crate) max_sessions: usize,
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
}

/// Configures a [`StreamableHttpService`]; from [`StreamableHttpService::builder`].
///
/// ```
/// use std::time::Duration;
/// use mcp_transport_http::server::{SessionMode, StreamableHttpService};
///
/// let service = StreamableHttpService::builder()
///     .path("/mcp")
///     .session_mode(SessionMode::Stateful)
///     .max_sessions(1000)
///     .idle_timeout(Some(Duration::from_secs(600)))
///     .max_body_size(4 << 20)
///     .legacy_sse("/sse", "/messages")
///     .build(|_transport, _info| async { /* run a connection over the transport */ });
/// # drop(service);
/// ```
#[derive(Debug)]
pub struct Builder {
    config: Config,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            config: Config {
                path: "/mcp".to_owned(),
                mode: SessionMode::Stateful,
                max_sessions: 10_000,
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
            },
        }
    }
}

impl Builder {
    /// The defaults (see each setter).
    pub fn new() -> Self {
        Self::default()
    }

    /// The MCP endpoint's path. Default `/mcp`.
    #[must_use]
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.config.path = path.into();
        self
    }

    /// Stateful, stateless or both. Default [`SessionMode::Stateful`].
    #[must_use]
    pub fn session_mode(mut self, mode: SessionMode) -> Self {
        self.config.mode = mode;
        self
    }

    /// The most sessions (stateful and legacy) alive at once; a new one beyond it is refused
    /// with 503. Default 10 000.
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.config.max_sessions = max;
        self
    }

    /// How long a session may go without HTTP activity (no request being served, no SSE
    /// stream open) before it expires; `None` for never. Default 30 minutes.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.idle_timeout = timeout;
        self
    }

    /// The largest POST body accepted, in bytes; larger ones get 413. Default 4 MiB.
    #[must_use]
    pub fn max_body_size(mut self, max: usize) -> Self {
        self.config.max_body_size = max;
        self
    }

    /// The hosts accepted in the `Host` header (DNS rebinding protection): names or
    /// addresses, matching any port (`"localhost"`, `"[::1]"`), or `host:port` to pin a port.
    /// Other hosts get 403. Default [`LOCALHOST`].
    #[must_use]
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Accepts any `Host` header (for servers behind a proxy that checks it, or bound to a
    /// public interface with authentication in front).
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.config.allowed_hosts = None;
        self
    }

    /// The origins accepted in the `Origin` header, when one is sent: full origins
    /// (`"https://app.example"`), `host:port`, or host names matching any scheme and port.
    /// Other origins get 403. Requests without `Origin` (non-browser clients) pass. Default
    /// [`LOCALHOST`].
    #[must_use]
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Accepts any `Origin` header.
    #[must_use]
    pub fn allow_any_origin(mut self) -> Self {
        self.config.allowed_origins = None;
        self
    }

    /// The protocol revisions accepted in the `MCP-Protocol-Version` header; others get 400.
    /// Default [`DEFAULT_PROTOCOL_VERSIONS`].
    #[must_use]
    pub fn protocol_versions<I, S>(mut self, versions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.config.protocol_versions = versions.into_iter().map(Into::into).collect();
        self
    }

    /// Where SSE events of stateful sessions are kept for `Last-Event-ID` replay; `None`
    /// turns resumability off (no event ids, no priming events). Default an
    /// [`InMemoryEventStore`] with its default bounds.
    #[must_use]
    pub fn event_store(mut self, store: Option<Arc<dyn EventStore>>) -> Self {
        self.config.event_store = store;
        self
    }

    /// The `retry` (reconnection delay) announced in priming events. Default 1 s.
    #[must_use]
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.config.sse_retry = retry;
        self
    }

    /// The capacity of each session's inbound queue (POSTs wait for room). Default 64.
    #[must_use]
    pub fn inbound_queue(mut self, capacity: usize) -> Self {
        self.config.inbound_queue = capacity.max(1);
        self
    }

    /// The capacity of each stream's outbound queue (the session's sends wait for room, so
    /// a slow reader slows its session down). Default 64.
    #[must_use]
    pub fn stream_queue(mut self, capacity: usize) -> Self {
        self.config.stream_queue = capacity.max(2);
        self
    }

    /// Also serves the legacy HTTP+SSE transport (protocol revision 2024-11-05): GET
    /// `sse_path` opens a session whose first event is `endpoint`, naming
    /// `<post_path>?sessionId=<id>`, where the client POSTs its messages. `post_path` is
    /// sent verbatim: when the router is nested under a prefix, include it. Off by default.
    #[must_use]
    pub fn legacy_sse(mut self, sse_path: impl Into<String>, post_path: impl Into<String>) -> Self {
        self.config.legacy = Some((sse_path.into(), post_path.into()));
        self
    }

    /// Where session futures run; default [`TokioSpawner`]. See [`Spawner`].
    #[must_use]
    pub fn spawner(mut self, spawner: impl Spawner) -> Self {
        self.config.spawner = DynSpawner(Box::new(spawner));
        self
    }

    /// Builds the service. `factory` is called once per session with its transport and a
    /// description of it, and returns the future that serves the session (typically a
    /// connection's `run`); the session ends when that future does.
    pub fn build<F, Fut>(self, factory: F) -> StreamableHttpService
    where
        F: Fn(HttpSessionTransport, SessionInfo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let factory: Factory = Arc::new(move |t, i| factory(t, i).boxed());
        StreamableHttpService::from_parts(self.config, factory)
    }
}
