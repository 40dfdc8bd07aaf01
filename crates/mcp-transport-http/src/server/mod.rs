//! The server side of Streamable HTTP (protocol revisions 2025-03-26 to 2025-11-25, and
//! 2026-07-28 on the same endpoint), with the legacy HTTP+SSE transport of 2024-11-05 as an
//! option.
//!
//! [`StreamableHttpService`] is an axum [`Router`](axum::Router) (a tower `Service`) serving the MCP
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
//!         let (_peer, connection) = Connection::new(transport, Echo, Config::default());
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
//! - Checks, in order: `Host` and every `Origin` header against allow-lists that default to
//!   `localhost`, `127.0.0.1` and `[::1]` on any port (403; DNS rebinding protection);
//!   `Accept` (406: POST must list both `application/json` and `text/event-stream`, GET
//!   `text/event-stream`); `Content-Type: application/json` (415);
//!   `MCP-Protocol-Version` (400 if unsupported; absent means the negotiated revision, or
//!   2025-03-26 before one is known); body size (413) and body read time (408); the session
//!   (400 without `Mcp-Session-Id`, except for `initialize`; 404 once it has ended or
//!   expired, or when it belongs to another principal; 503 over the session limit, 429 over
//!   the client's quota). Error bodies are JSON-RPC error responses with a null id
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
//! [`SessionHandle::end`], when the factory's future returns, or when it is evicted: when the
//! table ([`Builder::max_sessions`]) or the client's quota
//! ([`Builder::max_sessions_per_client`]; a client is its principal, else its IP address) is
//! full, the session idle the longest is ended to make room if it has been idle for
//! [`Builder::evict_idle_after`]; otherwise the new session is refused (503, or 429 over the
//! quota). With [`Builder::principal`], a session belongs to the principal that opened it:
//! any other principal naming it gets 404, as for an unknown session.
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
//! still live, continues it. If some of those events are no longer stored (the store is
//! bounded), the GET is answered 410 Gone rather than with a stream that silently lacks them,
//! so that the client knows to re-issue its requests. [`SessionHandle::close_request_stream`] (or the request's
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
//! optional runner, spawns one tokio task per connection.
//!
//! # Limits
//!
//! Every queue is bounded: each session's inbound queue ([`Builder::inbound_queue`]; a
//! POST waits for room) and each stream's outbound queue ([`Builder::stream_queue`]; the
//! session's sends wait for room, so a slow reader slows only its own session), as well as
//! the body size, the session count and the event store. Nothing a client opens is held
//! without a bound either: [`Builder::max_sessions_per_client`], [`Builder::body_read_timeout`]
//! and, with [`HttpServer`], [`Builder::max_connections`] and
//! [`Builder::header_read_timeout`] (slow or idle connections are closed).
//!
//! # Cancel safety
//!
//! [`HttpSessionTransport`]'s `recv` is cancel-safe; its `send` futures do not borrow it and
//! must be awaited to completion (as `mcp_jsonrpc::Connection` does). Dropping a response
//! body (the client went away) does not cancel the request: its later messages are kept in
//! the event store for replay.

mod builder;
mod checks;
mod config;
pub mod contract;
mod directory;
mod driven;
mod error;
mod event_store;
mod handle;
mod handlers;
mod holders;
mod json_body;
mod legacy;
mod modern;
mod outbound;
mod registry;
mod remote;
mod respond;
mod routing;
mod runner;
mod service;
mod session;
mod shared;
mod spawn;
mod sse;
mod timer;

pub use builder::Builder;
pub use config::{DEFAULT_PROTOCOL_VERSIONS, LOCALHOST, SessionMode};
pub use directory::{InMemorySessionDirectory, SessionDirectory, SessionRecord};
pub use error::{Error, Result};
pub use event_store::{
    EventStore, InMemoryEventStore, Replay, StoreError, StoreFuture, StoredEvent, StreamId,
};
pub use handle::{HttpSessionTransport, RequestStream, SessionHandle, SessionInfo};
pub use runner::HttpServer;
pub use service::StreamableHttpService;
pub use session::SessionKind;
pub use spawn::{Spawner, TokioSpawner};
