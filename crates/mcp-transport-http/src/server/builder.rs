//! [`Builder`]: configures a [`StreamableHttpService`].

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

use super::config::{Config, Directory, PrincipalFn, SessionMode};
#[cfg(doc)]
use super::config::{DEFAULT_PROTOCOL_VERSIONS, LOCALHOST};
use super::directory::SessionDirectory;
use super::event_store::EventStore;
#[cfg(doc)]
use super::event_store::InMemoryEventStore;
use super::handle::{HttpSessionTransport, SessionInfo};
use super::service::StreamableHttpService;
use super::shared::Factory;
#[cfg(doc)]
use super::spawn::TokioSpawner;
use super::spawn::{DynSpawner, Spawner};

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
#[derive(Debug, Default)]
pub struct Builder {
    config: Config,
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

    /// The most sessions (stateful and legacy) alive at once. When the table is full, the
    /// session idle the longest is ended to make room if it has been idle for
    /// [`evict_idle_after`](Self::evict_idle_after); otherwise the new session is refused
    /// with 503. Default 10 000.
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.config.max_sessions = max;
        self
    }

    /// The most sessions (stateful and legacy) one client may hold at once, so that a flood
    /// of `initialize` from one client cannot take the whole table. A client is the
    /// authenticated principal when there is one (see [`principal`](Self::principal)), else
    /// the peer's
    /// IP address (an IPv6 address by its /64 prefix) from axum's
    /// `ConnectInfo<SocketAddr>`, which [`HttpServer`](super::HttpServer) attaches (when you
    /// serve [`router`](StreamableHttpService::router) yourself, serve it with
    /// `into_make_service_with_connect_info::<SocketAddr>()`, or have a layer behind your
    /// proxy insert the forwarded address as `ConnectInfo`); a request with neither is not
    /// counted against any quota. Over the quota, the client's own session idle the longest
    /// is ended if it has been idle for [`evict_idle_after`](Self::evict_idle_after), else
    /// the new session is refused with 429. Default 1 000 (at least 1).
    #[must_use]
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.config.max_sessions_per_client = max.max(1);
        self
    }

    /// How long a session must have been idle (no request being served, no SSE stream open)
    /// before it may be ended to make room for a new one when the table or the client's
    /// quota is full (the longest-idle first); `None` never ends a session that way. A
    /// client whose session was evicted gets 404 and, as the spec requires, starts a new
    /// session. Default 60 s.
    #[must_use]
    pub fn evict_idle_after(mut self, idle: Option<Duration>) -> Self {
        self.config.evict_idle_after = idle;
        self
    }

    /// Names the authenticated principal of a request from its `http::Extensions` (where an
    /// auth layer in front of the service put it). A session is bound to the principal of
    /// the request that opened it: a request naming the session with another principal, or
    /// with none, is answered 404 as for an unknown session (POST, GET, resumption and DELETE
    /// alike), and the principal is the client of
    /// [`max_sessions_per_client`](Self::max_sessions_per_client). A session opened by a
    /// request with no principal takes only requests with none.
    ///
    /// Default: the request's [`PrincipalId`](crate::PrincipalId), which `mcp-auth`'s
    /// `BearerAuthLayer` inserts (with its `transport-http` feature), so that sessions behind
    /// it are bound without this call. With your own layer, insert a `PrincipalId`, or name
    /// whatever it inserts here:
    ///
    /// ```
    /// use mcp_transport_http::server::StreamableHttpService;
    ///
    /// /// What the application's auth layer inserts into each request's extensions.
    /// #[derive(Clone)]
    /// struct User(String);
    ///
    /// let service = StreamableHttpService::builder()
    ///     .principal(|extensions| extensions.get::<User>().map(|user| user.0.clone()))
    ///     .build(|_transport, _info| async {});
    /// # drop(service);
    /// ```
    #[must_use]
    pub fn principal(
        mut self,
        principal: impl Fn(&http::Extensions) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.config.principal = Some(PrincipalFn(Arc::new(principal)));
        self
    }

    /// How long [`HttpServer`](super::HttpServer) waits for a request's headers, counted from
    /// when the connection is ready for a request (so an idle keep-alive connection is
    /// closed after it too); a slower client (slowloris) is disconnected. `None` waits
    /// forever. Default 30 s.
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.header_read_timeout = timeout;
        self
    }

    /// How long reading a POST body may take in all; a body still incomplete then is
    /// answered 408 and dropped. `None` waits forever. Default 30 s.
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.body_read_timeout = timeout;
        self
    }

    /// The most connections [`HttpServer`](super::HttpServer) keeps open at once (open SSE
    /// streams and idle keep-alive connections included); at the limit it stops accepting
    /// until one closes (new clients wait in the listen backlog), so that the process never
    /// runs out of file descriptors. Keep it below the process's open-file limit. Default
    /// 512 (at least 1).
    #[must_use]
    pub fn max_connections(mut self, max: usize) -> Self {
        self.config.max_connections = max.max(1);
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

    /// Serves one deployment with other instances sharing `directory` (and, for resumable
    /// streams, an [`EventStore`] shared with them): `instance_url` is this instance's MCP
    /// endpoint as the other instances reach it, such as `http://10.0.0.7:8080/mcp`.
    ///
    /// Each stateful session is recorded in the directory with the instance that opened it
    /// (its *holder*). A request naming a session this instance does not hold is forwarded to
    /// the holder (its answer, SSE streams included, is relayed back), so a load balancer may
    /// route a session's requests to any instance. When the holder cannot be reached
    /// (connecting fails within [`forward_connect_timeout`](Self::forward_connect_timeout)),
    /// this instance takes the session over: it claims it in the directory, starts it with the
    /// session factory ([`SessionInfo::taken_over`](super::SessionInfo::taken_over) is `true`;
    /// an `mcp-server` factory restores what the session agreed from its
    /// `SessionStore`), and serves the request. A stream the holder was sending is replayed
    /// from the event store with `Last-Event-ID` (what the holder stored before it stopped,
    /// and nothing twice); resuming it once nothing is left gets 410 Gone, so that the
    /// client fails the requests it carried instead of waiting for answers that will never
    /// come (a request is lost with the instance running it; a task is not, see
    /// `mcp-server`'s `TaskStore`).
    ///
    /// Legacy HTTP+SSE sessions ([`legacy_sse`](Self::legacy_sse)) stay on the instance
    /// that opened them.
    ///
    /// Without a directory (the default), an unknown session id gets 404.
    #[must_use]
    pub fn directory(
        mut self,
        directory: Arc<dyn SessionDirectory>,
        instance_url: impl Into<String>,
    ) -> Self {
        self.config.directory = Some(Directory {
            sessions: directory,
            instance_url: instance_url.into().into(),
        });
        self
    }

    /// How often the instance holding a session refreshes its record in the directory
    /// ([`SessionDirectory::touch`](super::SessionDirectory::touch)) while the session lives.
    /// Default 10 minutes; keep it well below the directory's time to live (`mcp-redis`:
    /// one hour), or records of live sessions expire.
    #[must_use]
    pub fn directory_touch_interval(mut self, interval: Duration) -> Self {
        self.config.directory_touch_interval = interval.max(Duration::from_secs(1));
        self
    }

    /// How long forwarding a request to the instance holding its session waits to connect
    /// before taking the session over (see [`directory`](Self::directory)). Default 2 s.
    #[must_use]
    pub fn forward_connect_timeout(mut self, timeout: Duration) -> Self {
        self.config.forward_connect_timeout = timeout;
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

// The constructors live here, next to the `Builder` they use, so that `service.rs` and
// `builder.rs` do not import each other.
impl StreamableHttpService {
    /// A [`Builder`] with the defaults.
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// A service with the default configuration; see [`Builder::build`] for `factory`.
    pub fn new<F, Fut>(factory: F) -> Self
    where
        F: Fn(HttpSessionTransport, SessionInfo) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        Builder::new().build(factory)
    }
}
