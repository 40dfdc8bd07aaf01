//! The server side of Streamable HTTP (protocol revisions 2025-03-26 to 2025-11-25, and
//! 2026-07-28 on the same endpoint), with the legacy HTTP+SSE transport of 2024-11-05 as an
//! option.
//!
//! [`StreamableHttpService`] is an axum [`Router`] (a tower `Service`) serving the MCP
//! endpoint (default `/mcp`). For each session it calls a *session factory* with an
//! [`HttpSessionTransport`] (an [`mcp_jsonrpc::Transport`]) and a [`SessionInfo`], and runs
//! the returned future through a [`Spawner`]. [`HttpServer`] is a ready-made runner.
//!
//! # Example
//!
//! ```no_run
//! use mcp_jsonrpc::{Config, Connection, ErrorObject, Handler, Request, RequestContext};
//! use mcp_transport_http::server::StreamableHttpService;
//! use serde_json::value::RawValue;
//!
//! #[derive(Clone)]
//! struct Echo;
//!
//! impl Handler for Echo {
//!     async fn handle_request(
//!         &self,
//!         request: Request,
//!         _ctx: RequestContext,
//!     ) -> Result<Box<RawValue>, ErrorObject> {
//!         mcp_jsonrpc::to_raw_value(&request.params::<serde_json::Value>()?)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let service = StreamableHttpService::builder()
//!     .path("/mcp")
//!     .build(|transport, _info| async move {
//!         let (connection, _peer) = Connection::new(transport, Echo, Config::default());
//!         if let Err(e) = connection.run().await {
//!             tracing::warn!(error = %e, "session failed");
//!         }
//!     });
//! // Binds 127.0.0.1:3000, with TCP_NODELAY on every accepted socket.
//! let server = service.bind_localhost(3000).await?;
//! println!("listening on http://{}/mcp", server.local_addr()?);
//! server.run().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Or mount it in your own app: `app.merge(service.router())`.
//!
//! # The endpoint
//!
//! - **POST** carries one JSON-RPC message (a JSON array is a batch, accepted only when the
//!   request's protocol revision is 2025-03-26; otherwise 400 with -32600). Notifications
//!   and responses are answered 202. A request is answered with plain JSON when its
//!   response is the first thing the server sends for it; if anything else related to it
//!   comes first (progress, a log message, a server-to-client request), the answer is an
//!   SSE stream carrying those messages and ending with the response.
//! - **GET** opens the session's standalone SSE stream for server-initiated messages (one
//!   per session: a second one gets 409), or, with `Last-Event-ID`, resumes a stream.
//! - **DELETE** ends the session.
//! - Checks, in order: `Host` and `Origin` against allow-lists that default to
//!   `localhost`, `127.0.0.1` and `[::1]` on any port (403; DNS rebinding protection);
//!   `Accept` (406: POST must list both `application/json` and `text/event-stream`, GET
//!   `text/event-stream`); `Content-Type: application/json` (415);
//!   `MCP-Protocol-Version` (400 if unsupported; absent means the negotiated revision, or
//!   2025-03-26 before one is known); body size (413); the session (400 without
//!   `Mcp-Session-Id`, except for `initialize`; 404 once it has ended or expired; 503 over
//!   the session limit). Error bodies are JSON-RPC error responses with a null id
//!   (`-32000`, `-32001` for an unknown session, the parse error for a bad body).
//!
//! # Protocol revision 2026-07-28
//!
//! In every [`SessionMode`], a POST without `Mcp-Session-Id` whose body's `_meta` names a
//! protocol version (or whose `MCP-Protocol-Version` names one that has no `initialize`) is a
//! 2026-07-28 request: its `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`,
//! `prompts/get`, `resources/read`) `Mcp-Name` headers must match the body (else 400 with
//! -32020), and its `_meta` must name the version and the client's capabilities (else 400 with
//! -32602). It is then served like a stateless POST, with its `Mcp-Param-*` headers decoded into
//! an `mcp_types::McpParamHeaders` extension for the server to check against the tool's
//! `x-mcp-header` parameters. An error answer sent as plain JSON gets 400 (-32020, -32021,
//! -32022) or 404 (-32601); the client closing the answer (or its connection) cancels the
//! request. Which versions are supported is the server's to say (-32022). Legacy traffic is
//! served as before.
//!
//! # Sessions
//!
//! An `initialize` POST without a session id opens a stateful session: its id (32 hex
//! digits, 128 bits from the operating system's CSPRNG) is sent in the `Mcp-Session-Id`
//! header of the initialize response. The session ends on DELETE, when it has been idle
//! (no request being served and no stream open) for [`Builder::idle_timeout`], on
//! [`SessionHandle::end`], or when the factory's future returns.
//!
//! In [`SessionMode::Stateless`], there are no session ids: each POST holding a request is
//! served by a fresh [`HttpSessionTransport`] (and a fresh call of the factory) whose
//! `recv` yields that message and then ends once the request has been answered (its request
//! carries the POST's protocol version as an `mcp_types::ProtocolVersion` extension, so a
//! server serves it without an `initialize`); POSTs with
//! only notifications or responses are acknowledged and dropped; GET and DELETE get 405.
//! [`SessionMode::Hybrid`] does both on one endpoint: `initialize` opens a stateful
//! session, and session-less POSTs are served statelessly.
//!
//! # What handlers see
//!
//! Every inbound request and notification carries, in its
//! [`Extensions`](mcp_jsonrpc::Extensions) (a handler reads a request's with
//! `RequestContext::extensions`, `mcp-server` handlers with `Context::extensions`, and a
//! notification's in `Notification::extensions`):
//!
//! - the session's [`SessionHandle`];
//! - for a request, its [`RequestStream`], to close the request's SSE stream mid-call
//!   ([`RequestStream::close`]; the client resumes with GET and `Last-Event-ID`);
//! - the POST's headers, as an `http::HeaderMap`;
//! - the POST's `http::Extensions`, as one value (its entries cannot be enumerated, so they
//!   are not copied one by one): what a tower layer in front of the service put there, such
//!   as an authenticated principal, is at
//!   `extensions.get::<http::Extensions>().and_then(|e| e.get::<Principal>())`.
//!
//! Each message gets its own copy of the headers and extensions of the POST that carried it.
//! [`SessionInfo`] keeps those of the POST that opened the session.
//!
//! # Routing outbound messages
//!
//! The transport only sees [`Message`](mcp_jsonrpc::Message)s, so it tracks the requests in
//! flight (each POST's stream, and the progress token found in each request's
//! `params._meta.progressToken`) and sends each outbound message on exactly one stream:
//!
//! 1. A response goes to the stream of the POST that carried its request (a batch's
//!    responses go together); the stream ends once all its requests are answered.
//! 2. `notifications/progress` goes to the stream of the in-flight request whose progress
//!    token it carries.
//! 3. `notifications/cancelled` for a server-to-client request goes where that request went.
//! 4. Any other notification or request goes to the stream of the only request in flight,
//!    if exactly one is; otherwise to the standalone GET stream (dropped if none is open).
//!
//! A legacy session has a single stream, which carries everything.
//!
//! # Resumability
//!
//! With an [`EventStore`] (by default a bounded [`InMemoryEventStore`]), every SSE event of
//! a stateful session gets an id unique within the session and is stored. Each SSE stream
//! starts with a priming event (an id, `retry`, empty data) when the request's protocol
//! revision is 2025-11-25 or later (older clients may not expect empty data). A GET with
//! `Last-Event-ID` replays the events of that event's stream after it and, if the stream is
//! still live, continues it. [`SessionHandle::close_request_stream`] (or the request's
//! [`RequestStream::close`]) closes a request's connection mid-call so that the client
//! resumes that way (SSE polling).
//!
//! # Legacy HTTP+SSE
//!
//! With [`Builder::legacy_sse`], GET on the SSE path opens a 2024-11-05 session whose first
//! event is `endpoint`, naming the POST path with a `sessionId` query parameter; POSTs there
//! are answered 202 and every message of the session goes out on the SSE stream. The
//! session ends when that stream is closed.
//!
//! # Spawning
//!
//! The service never spawns on its own: it hands each session's future (the factory's
//! future joined with the session's idle watchdog) to its [`Spawner`], [`TokioSpawner`]
//! by default. That is the only place the service starts tasks. [`HttpServer`], the
//! optional runner, uses `axum::serve`, which spawns one tokio task per connection.
//!
//! # Limits
//!
//! Every queue is bounded: each session's inbound queue ([`Builder::inbound_queue`]; a
//! POST waits for room) and each stream's outbound queue ([`Builder::stream_queue`]; the
//! session's sends wait for room, so a slow reader slows only its own session), as well as
//! the body size, the session count and the event store.
//!
//! # Cancel safety
//!
//! [`HttpSessionTransport`]'s `recv` is cancel-safe; its `send` futures do not borrow it and
//! must be awaited to completion (as `mcp_jsonrpc::Connection` does). Dropping a response
//! body (the client went away) does not cancel the request: its later messages are kept in
//! the event store for replay.

mod checks;
mod config;
mod error;
mod event_store;
mod handlers;
mod legacy;
mod modern;
mod respond;
mod session;
mod spawn;
mod sse;

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get, post};
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, ToSocketAddrs};

pub use config::{Builder, DEFAULT_PROTOCOL_VERSIONS, LOCALHOST, SessionMode};
pub use error::{Error, Result};
pub use event_store::{EventStore, InMemoryEventStore, Replay, StoredEvent, StreamId};
pub use session::{HttpSessionTransport, RequestStream, SessionHandle, SessionInfo, SessionKind};
pub use spawn::{Spawner, TokioSpawner};

use config::{Config, Factory};
use session::{Registry, Session};

/// State shared by the handlers.
pub(crate) struct Shared {
    pub(crate) config: Arc<Config>,
    pub(crate) registry: Arc<Registry>,
    factory: Factory,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("config", &self.config)
            .field("registry", &self.registry)
            .finish_non_exhaustive()
    }
}

/// A fresh session id: 128 bits from the OS CSPRNG, as 32 lowercase hex digits.
fn new_session_id() -> Option<Arc<str>> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        id.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    Some(id.into())
}

impl Shared {
    /// Creates a session, registers it (unless stateless), and spawns its future. `None` if
    /// the session limit is reached (or the CSPRNG failed).
    pub(crate) fn open_session(
        &self,
        kind: SessionKind,
        protocol_version: Option<String>,
        headers: http::HeaderMap,
        extensions: http::Extensions,
    ) -> Option<Arc<Session>> {
        let id = match kind {
            SessionKind::Stateless => None,
            _ => Some(new_session_id()?),
        };
        let (session, transport) = Session::new(
            id.clone(),
            kind,
            self.config.clone(),
            Arc::downgrade(&self.registry),
        );
        if kind != SessionKind::Stateless
            && !self
                .registry
                .insert(session.clone(), self.config.max_sessions)
        {
            return None;
        }
        let info = SessionInfo {
            kind,
            session_id: id,
            protocol_version,
            headers,
            extensions,
            handle: SessionHandle {
                session: session.clone(),
            },
        };
        let fut = (self.factory)(transport, info);
        let idle = match kind {
            SessionKind::Stateful => self.config.idle_timeout,
            _ => None,
        };
        let task_session = session.clone();
        self.config.spawner.0.spawn(Box::pin(async move {
            let fut = pin!(fut);
            match idle {
                Some(timeout) => {
                    let watchdog = pin!(task_session.idle(timeout));
                    if let futures::future::Either::Right(((), fut)) =
                        futures::future::select(fut, watchdog).await
                    {
                        tracing::debug!(session = ?task_session.id, "session expired");
                        task_session.end();
                        fut.await;
                    }
                }
                None => fut.await,
            }
            task_session.end();
        }));
        Some(session)
    }
}

/// The Streamable HTTP server: an axum [`Router`] factory plus session bookkeeping. Cheap to
/// clone. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct StreamableHttpService {
    shared: Arc<Shared>,
}

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

    pub(crate) fn from_parts(config: Config, factory: Factory) -> Self {
        StreamableHttpService {
            shared: Arc::new(Shared {
                config: Arc::new(config),
                registry: Arc::default(),
                factory,
            }),
        }
    }

    /// The routes: the MCP endpoint, and the legacy endpoints if enabled. Merge it into an
    /// app, nest it, or serve it as a tower `Service`.
    pub fn router(&self) -> Router {
        let cfg = &self.shared.config;
        let mut router = Router::new().route(&cfg.path, any(handlers::endpoint));
        if let Some((sse_path, post_path)) = &cfg.legacy {
            router = router
                .route(sse_path, get(legacy::legacy_sse))
                .route(post_path, post(legacy::legacy_post));
        }
        router.with_state(self.shared.clone())
    }

    /// The handle of a live session, by id.
    pub fn session(&self, id: &str) -> Option<SessionHandle> {
        self.shared
            .registry
            .get(id)
            .map(|session| SessionHandle { session })
    }

    /// How many sessions (stateful and legacy) are alive.
    pub fn session_count(&self) -> usize {
        self.shared.registry.len()
    }

    /// Binds `addr` and returns a runner for this service.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        Ok(HttpServer {
            listener: TcpListener::bind(addr).await?,
            router: self.router(),
        })
    }

    /// Binds `127.0.0.1:port` (0 for any free port) and returns a runner for this service.
    pub async fn bind_localhost(self, port: u16) -> io::Result<HttpServer> {
        self.bind((std::net::Ipv4Addr::LOCALHOST, port)).await
    }
}

/// A bound listener serving a [`StreamableHttpService`], with `TCP_NODELAY` set on every
/// accepted socket. From [`StreamableHttpService::bind`].
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    router: Router,
}

impl HttpServer {
    /// The bound address (to read back port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until the listener fails.
    pub async fn run(self) -> Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then stops accepting and waits for open
    /// connections to finish (open SSE streams keep it waiting; end their sessions first).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "failed to set TCP_NODELAY");
            }
        });
        axum::serve(listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn session_ids_are_128_bit_hex() {
        let a = super::new_session_id().unwrap();
        let b = super::new_session_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
