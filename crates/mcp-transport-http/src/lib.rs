//! Streamable HTTP transport for the Model Context Protocol, and the legacy HTTP+SSE transport.
//!
//! Both halves move whole JSON-RPC messages as an [`mcp_jsonrpc::Transport`], so
//! `mcp-server` and `mcp-client` run over HTTP without knowing it.
//!
//! The server side, `server::StreamableHttpService` (feature `server`), is an axum
//! `Router` (a tower `Service`) serving the MCP endpoint (default `/mcp`) for protocol
//! revisions 2025-03-26 to 2025-11-25, optionally with the 2024-11-05 HTTP+SSE endpoints. It
//! manages sessions (`Mcp-Session-Id`, limits, idle expiry, or a stateless mode), answers
//! requests with plain JSON or an SSE stream as needed, keeps events for `Last-Event-ID`
//! resumption, and validates `Host`/`Origin` against localhost by default. Each session is a
//! future built by your factory from an `server::HttpSessionTransport`; it is started
//! through a `server::Spawner` (by default `tokio::spawn`), the one place the service
//! spawns.
//!
//! ```no_run
//! use mcp_jsonrpc::{Config, Connection};
//! use mcp_transport_http::server::StreamableHttpService;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let service = StreamableHttpService::new(|transport, _info| async move {
//!     // `()` answers every request "method not found"; use your server's handler.
//!     let (_peer, connection) = Connection::new(transport, (), Config::default());
//!     let _ = connection.run().await;
//! });
//! service.bind_localhost(3000).await?.run().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The client side, `client::StreamableHttpClientTransport` (feature `client`), is an
//! `mcp_jsonrpc::Transport` over `reqwest` with rustls: it follows the session and protocol
//! version headers, resumes SSE streams with `Last-Event-ID`, starts a new session when the
//! server forgets the old one, and falls back to the legacy HTTP+SSE transport; it spawns no
//! tasks.
//!
//! # Cargo features
//!
//! - `server` (default): the server side, on axum, hyper and getrandom.
//! - `client` (default): the client side, on reqwest with rustls.
//!
//! Both are on by default. A server that makes no HTTP requests of its own builds without
//! reqwest and rustls with
//! `mcp-transport-http = { version = "0.1", default-features = false, features = ["server"] }`
//! (and a client without axum and hyper with `features = ["client"]`); CI lints both builds.
//! Either way the crate depends on `mcp-jsonrpc` and `mcp-types`, so that it names MCP's
//! messages through their types rather than restating them.
//!
//! # Cancel safety
//!
//! Every transport's `recv` is cancel-safe, and its `send` futures must be awaited to
//! completion, as `mcp_jsonrpc::Connection` does. See each module for the rest.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(feature = "client")]
pub mod client;
#[cfg(any(feature = "client", feature = "server"))]
mod header_value;
#[cfg(any(feature = "client", feature = "server"))]
mod headers;
#[cfg(any(feature = "client", feature = "server"))]
mod ids;
mod principal;
#[cfg(feature = "server")]
pub mod server;

pub use principal::PrincipalId;
