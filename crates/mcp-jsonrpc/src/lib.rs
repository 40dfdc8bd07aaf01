//! The JSON-RPC 2.0 engine of the Model Context Protocol SDK.
//!
//! This crate moves and correlates JSON-RPC messages; it knows nothing of MCP's methods
//! except the two generic notifications whose semantics it implements (cancellation and
//! progress, named in [`Protocol`]). Typed requests live in `mcp-types`; `mcp-server` and
//! `mcp-client` sit on top of this crate.
//!
//! - [`Message`]: the envelope (request, notification, response, batch), decoded lazily:
//!   params and results stay raw JSON ([`RawValue`](serde_json::value::RawValue)) until a
//!   handler asks for them.
//! - [`Transport`]: the one narrow trait a transport implements; [`memory::pair`] is an
//!   in-memory one for tests.
//! - [`Connection`]: the engine over a transport, a future the caller runs, with
//!   [`Peer`] as its cloneable handle (requests, notifications, close) and [`Handler`] as the
//!   trait that serves inbound calls.
//!
//! # Example
//!
//! ```
//! use mcp_jsonrpc::{
//!     memory, to_raw_value, Config, Connection, ErrorObject, Handler, Request, RequestContext,
//! };
//! use serde_json::value::RawValue;
//!
//! /// Answers `add` with the sum of its two params.
//! struct Adder;
//!
//! impl Handler for Adder {
//!     async fn handle_request(
//!         &self,
//!         request: Request,
//!         _ctx: RequestContext,
//!     ) -> Result<Box<RawValue>, ErrorObject> {
//!         match &*request.method {
//!             "add" => {
//!                 let (a, b): (i64, i64) = request.params()?;
//!                 to_raw_value(&(a + b))
//!             }
//!             other => Err(ErrorObject::method_not_found(other)),
//!         }
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (client_end, server_end) = memory::pair(16);
//!
//! // The library never spawns: each connection is a future the caller runs.
//! let (_server_peer, server) = Connection::new(server_end, Adder, Config::default());
//! tokio::spawn(server.run());
//! // `()` is a handler that answers every request "method not found".
//! let (peer, client) = Connection::new(client_end, (), Config::default());
//! let client = tokio::spawn(client.run());
//!
//! let sum = peer.request("add", Some(to_raw_value(&[2, 3])?)).await?;
//! assert_eq!(sum.get(), "5");
//!
//! let err = peer.request("subtract", None).await.unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "peer returned an error: method not found: subtract (-32601)"
//! );
//!
//! peer.close();
//! client.await??;
//! # Ok(())
//! # }
//! ```
//!
//! # Design
//!
//! - **Parse failures** travel as data: a transport decodes each frame with
//!   [`Message::decode`] (or [`Message::decode_limited`]), which never fails but yields
//!   [`Message::Invalid`] for a bad frame; the connection answers it with -32700 (invalid
//!   JSON) or -32600 (bad envelope, with the id when it could be read) and carries on. `Err`
//!   from [`Transport::recv`] means the transport itself broke and ends the connection.
//! - **Batches** (JSON arrays, allowed by protocol revision 2025-03-26) are accepted only
//!   while batching is on: [`Config::batching`] at start, [`Peer::set_batching`] once the
//!   revision has been negotiated. The responses to a batch go back as one array; a batch
//!   while batching is off gets one -32600 error with a null id.
//! - **Concurrency**: inbound requests run concurrently inside the [`Connection::run`]
//!   future, up to [`Config::max_concurrent_requests`]; a handler holds its slot until its
//!   response is handed to the transport. Further requests wait in a bounded backlog.
//!   Notifications are handled one at a time, in order.
//! - **Backpressure, never loss**: when the backlog ([`Config::request_backlog`]) or the
//!   notification queue ([`Config::notification_queue`]) is full, or
//!   [`Config::outbound_queue`] error replies wait for the peer to read them, the
//!   connection stops reading until there is room; the peer's writes then wait. Nothing is
//!   refused or dropped for load, and a reply is never dropped. See [`Config`] for the one
//!   exception, which keeps a connection from deadlocking on itself.
//! - **No deadlock**: while a request of this side awaits its response, full queues do not
//!   stop reading, so a handler can call the other side through [`RequestContext::peer`]
//!   (sampling or elicitation in the middle of a tool call) whatever the limits; requests
//!   past the backlog are then refused with -32603. [`Transport::send`] returns a future
//!   that does not borrow the transport, so a write blocked on a full pipe does not stop
//!   reads. Every queue is bounded: handles wait for room in the outbound queue. On the way
//!   out, writing what is queued takes at most [`Config::flush_timeout`], so a peer that
//!   stopped reading cannot keep a closing connection alive.
//! - **Cancellation**: dropping a [`Peer::request`] future sends the cancellation
//!   notification (if the request went out) and a late response is dropped; an inbound
//!   cancellation drops the handler future, fires [`RequestContext::cancellation`], and no
//!   response is sent.
//! - **Timeouts**: per request ([`RequestOptions::timeout`], default
//!   [`Config::default_timeout`]), restarted by the request's progress notifications, with a
//!   hard maximum ([`RequestOptions::max_total_timeout`]). A timed-out request is cancelled
//!   on the peer.
//! - **Progress**: a caller passes a sink with [`RequestOptions::progress`] and receives the
//!   progress notifications whose token its request carried in `params._meta.progressToken`
//!   (inserted if absent). Progress for unknown tokens goes to
//!   [`Handler::handle_notification`].
//! - **Size limit**: inbound messages larger than [`Config::max_message_size`] (as measured
//!   by [`Message::size_hint`]) are refused: a request with -32600 and its id, a batch with
//!   -32600 and a null id; an oversized notification is dropped, an oversized response fails
//!   its request at once with [`Error::MessageTooLarge`]. Byte-level transports should also
//!   bound their frames before parsing them, with [`Message::decode_limited`], or
//!   [`Message::oversized`] for a frame they skipped (it reads the id from the frame's first
//!   bytes, so a response too large to keep still fails its request at once).
//! - **Invalid responses**: a frame meant as a response that cannot be read fails the
//!   request it names with [`Error::InvalidResponse`], and is never answered.
//! - **Extensions**: a transport may attach per-message data (HTTP headers, a handle on the
//!   HTTP stream, an authenticated principal) to an inbound [`Request`] or [`Notification`]
//!   as [`Extensions`], a type map; the handler reads a request's through
//!   [`RequestContext::extensions`]. Nothing of it goes on the wire.
//! - **Panics** in a handler are caught and answered -32603; the connection carries on.
//! - Logging goes through `tracing`; nothing is printed.
//! - **Tracing**: the W3C trace context that messages carry in `params._meta`, and the
//!   seam an OpenTelemetry integration plugs into ([`trace::TracePropagator`]); see
//!   [`trace`] for the spans `mcp-server` and `mcp-client` make.
//!
//! # Cargo features
//!
//! None. The crate depends on `serde`, `serde_json`, `tokio` (`sync` and `time` only: no
//! runtime, no IO), `tokio-util` (for [`CancellationToken`]), `futures`, `thiserror` and
//! `tracing`. The timers need a tokio runtime with time enabled.
//!
//! # Cancel safety
//!
//! - [`Connection::run`]: dropping it tears the connection down (pending requests fail with
//!   [`Error::Closed`], in-flight handlers are dropped); it cannot be resumed.
//! - [`Peer::request`] and [`Peer::request_with`]: dropping the future *is* cancellation: the
//!   request is forgotten, and the peer is told if the request was already sent.
//! - [`Peer::notify`]: not cancel-safe; dropping it may or may not send the notification.
//! - [`Peer::closed`] is cancel-safe.
//! - [`Transport::recv`] implementations must be cancel-safe; [`Transport::send`] futures
//!   are always awaited to completion by the connection.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod boxed;
mod config;
mod connection;
mod error;
mod extensions;
mod handler;
pub mod memory;
mod message;
mod peer;
pub mod trace;
mod transport;

pub use boxed::{BoxTransport, BoxTransportError};
pub use config::{Config, Protocol};
pub use connection::{Connection, InlineAnswer, InlineCall, InlineRequests};
pub use error::{BoxError, Error, ErrorCode, ErrorObject, Result};
pub use extensions::Extensions;
pub use handler::{
    Handler, NotificationContext, RequestContext, RequestContextParts, to_raw_value,
};
pub use message::{Id, InvalidMessage, Message, Notification, ProgressToken, Request, Response};
pub use peer::{Peer, Progress, RequestOptions};
pub use tokio_util::sync::CancellationToken;
pub use transport::{ConnectionInfo, SessionIdCell, Transport};
