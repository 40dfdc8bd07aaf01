//! The stdio transport of the Model Context Protocol SDK.
//!
//! MCP's stdio transport carries JSON-RPC messages as lines of JSON: the client runs the
//! server as a child process and writes to its stdin; the server answers on its stdout and
//! logs to its stderr. This crate implements both ends as [`mcp_jsonrpc::Transport`]s:
//!
//! - [`StdioTransport`], the server side: [`StdioTransport::stdio`] over the process's own
//!   stdin/stdout, or [`StdioTransport::new`] over any byte stream (a socket, a pipe, an
//!   in-memory duplex).
//! - [`ChildProcessTransport`], the client side: spawns the server (program, arguments,
//!   environment, working directory), routes its stderr into `tracing` or to the
//!   application ([`StderrSink`]), turns its death into a clear error, and shuts it down
//!   politely, then firmly ([`ShutdownOutcome`]).
//!
//! # Example
//!
//! A server, speaking on the process's stdio (nothing else may be written to stdout; log
//! with `tracing` to stderr):
//!
//! ```no_run
//! use mcp_jsonrpc::{Config, Connection};
//! use mcp_transport_stdio::StdioTransport;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let transport = StdioTransport::stdio()?;
//!     // `()` answers every request "method not found"; put your handler there.
//!     let (_peer, connection) = Connection::new(transport, (), Config::default());
//!     connection.run().await?; // returns when stdin closes
//!     Ok(())
//! }
//! ```
//!
//! A client, running that server:
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use mcp_jsonrpc::{Config, Connection};
//! use mcp_transport_stdio::{ChildProcessTransport, StderrSink};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let transport = ChildProcessTransport::builder("my-mcp-server")
//!     .arg("--verbose")
//!     .env("RUST_LOG", "debug")
//!     .stderr(StderrSink::Tracing)
//!     .close_timeout(Duration::from_secs(1))
//!     .spawn()?;
//! let process = transport.handle();
//! let (peer, connection) = Connection::new(transport, (), Config::default());
//! let running = tokio::spawn(connection.run());
//! let _answer = peer.request("ping", None).await;
//! peer.close(); // closes stdin, waits, then SIGTERM, then SIGKILL
//! running.await??;
//! println!("server ended: {:?} ({:?})", process.exit_status(), process.shutdown_outcome());
//! # Ok(()) }
//! ```
//!
//! And both ends over an in-memory byte stream, which runs anywhere:
//!
//! ```
//! use mcp_jsonrpc::{Config, Connection};
//! use mcp_transport_stdio::StdioTransport;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (client_io, server_io) = tokio::io::duplex(64 * 1024);
//! let (server_read, server_write) = tokio::io::split(server_io);
//! let (client_read, client_write) = tokio::io::split(client_io);
//!
//! let server = StdioTransport::new(server_read, server_write).with_max_line_size(1 << 20);
//! let (_, server) = Connection::new(server, (), Config::default());
//! tokio::spawn(server.run());
//!
//! let client = StdioTransport::new(client_read, client_write);
//! let (peer, client) = Connection::new(client, (), Config::default());
//! tokio::spawn(client.run());
//!
//! let err = peer.request("tools/list", None).await.unwrap_err();
//! assert!(err.to_string().contains("method not found"));
//! # Ok(())
//! # }
//! ```
//!
//! # Design
//!
//! - **Framing**: one message per line, `\n` or `\r\n`; empty lines are ignored; each send
//!   is a single write of the message and its `\n`, then a flush. A line that is not
//!   JSON-RPC reaches the connection as [`Message::Invalid`](mcp_jsonrpc::Message::Invalid),
//!   which answers it (-32700, or -32600) and carries on.
//! - **Bounded memory**: a line longer than the maximum ([`DEFAULT_MAX_LINE_SIZE`] unless set)
//!   is skipped up to its newline without being buffered, and handed to the connection as
//!   [`Message::oversized`](mcp_jsonrpc::Message::oversized) from its first kilobyte: a
//!   request is answered with -32600 (with its id if it shows there, else `null`); a
//!   response fails the request it answers at once with `MessageTooLarge` (when its id
//!   comes before its result, as every common serializer writes it).
//! - **No hidden tasks**: nothing is spawned. The child's stderr is read inside
//!   [`recv`](mcp_jsonrpc::Transport::recv) (and [`close`](mcp_jsonrpc::Transport::close)),
//!   which the connection always polls, alongside stdout and the child's exit.
//! - **Process stdio without threads**: when stdin/stdout are pipes or sockets,
//!   [`StdioTransport::stdio`] registers duplicates of them with tokio's reactor (falling
//!   back to tokio's thread-pool stdio for files and terminals).
//! - Nothing is printed; logs go through `tracing`.
//!
//! # Cargo features
//!
//! None. The crate depends on `mcp-jsonrpc`, `tokio` (`process`, `net`, `io-util`,
//! `io-std`, `sync`, `time`, `macros`), `nix` (`signal`, to send `SIGTERM`), `serde_json`,
//! `thiserror` and `tracing`. It needs a tokio runtime with IO and time enabled (and, for
//! child processes, signals: use `enable_all`). Unix only.
//!
//! # Cancel safety
//!
//! - [`recv`](mcp_jsonrpc::Transport::recv) is cancel-safe on both transports: a partial
//!   line stays buffered for the next call, and so does everything else the transport has
//!   seen (the child's exit status, a line being skipped).
//! - [`send`](mcp_jsonrpc::Transport::send) returns a future that does not borrow the
//!   transport; it is not cancel-safe (dropped midway, a message may be half written).
//! - [`close`](mcp_jsonrpc::Transport::close) is not cancel-safe; on
//!   [`ChildProcessTransport`], dropping it midway leaves the process to be killed when the
//!   transport is dropped.
//! - [`ProcessHandle::exited`] is cancel-safe.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod child;
mod error;
mod lines;
mod pipe_size;
mod stdio;

pub use child::{
    ChildProcessBuilder, ChildProcessTransport, DEFAULT_SHUTDOWN_TIMEOUT, ProcessHandle,
    ShutdownOutcome, StderrSink,
};
pub use error::{Error, Result};
pub use stdio::{DEFAULT_MAX_LINE_SIZE, StdioTransport};
