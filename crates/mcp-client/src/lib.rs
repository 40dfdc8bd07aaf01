//! A Model Context Protocol client: connects a host application to any MCP server.
//!
//! - [`Client::builder`] configures the client (its info, handlers, timeouts) and
//!   [`ClientBuilder::connect`] performs the `initialize` handshake over any
//!   [`Transport`]. Like hyper's `handshake`, it returns the [`Client`] handle together with
//!   the [`Connection`] future that drives the connection; the library never spawns, so the
//!   caller runs that future (spawned, or inside a `select!`). The handshake itself polls the
//!   connection, so `connect(..).await` works before anything is spawned.
//! - Typed calls for every server request: tools (with `structuredContent` checked against
//!   the tool's `outputSchema`), resources, prompts, completion, logging, ping, and
//!   [`Client::request`] for any [`mcp_types::Request`]. List calls come as one page
//!   (`list_tools(cursor)`) or as a [`Stream`](futures::Stream) over every page
//!   (`list_tools_stream()`).
//! - The server's notifications reach a [`ClientHandler`] in order; its requests reach the
//!   [`SamplingHandler`] and [`ElicitationHandler`] the application installed, and
//!   `roots/list` is answered from [`Client::set_roots`]. The declared capabilities follow
//!   from what is installed; a request whose capability the client did not declare is
//!   answered -32601.
//!
//! # Example
//!
//! A client against a tiny in-memory server made from `mcp-jsonrpc`:
//!
//! ```
//! use mcp_client::Client;
//! use mcp_jsonrpc::{memory, to_raw_value, Config, Connection, ErrorObject, Handler, Request,
//!     RequestContext};
//! use mcp_types::{CallToolRequestParams, CallToolResult, Implementation, InitializeResult,
//!     ProtocolVersion, ServerCapabilities};
//! use serde_json::value::RawValue;
//!
//! struct TinyServer;
//!
//! impl Handler for TinyServer {
//!     async fn handle_request(
//!         &self,
//!         request: Request,
//!         _ctx: RequestContext,
//!     ) -> Result<Box<RawValue>, ErrorObject> {
//!         match &*request.method {
//!             "initialize" => to_raw_value(&InitializeResult::new(
//!                 ProtocolVersion::V2025_06_18,
//!                 ServerCapabilities::default(),
//!                 Implementation::new("tiny", "1.0"),
//!             )),
//!             "tools/call" => to_raw_value(&CallToolResult::text("hello")),
//!             other => Err(ErrorObject::method_not_found(other)),
//!         }
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (client_end, server_end) = memory::pair(16);
//! let (server, _) = Connection::new(server_end, TinyServer, Config::default());
//! tokio::spawn(server.run());
//!
//! let (client, connection) = Client::builder()
//!     .client_info(Implementation::new("my-host", "0.1.0"))
//!     .connect(client_end)
//!     .await?;
//! let connection = tokio::spawn(connection);
//!
//! assert_eq!(client.server_info().name, "tiny");
//! assert_eq!(*client.protocol_version(), ProtocolVersion::V2025_06_18);
//! let result = client.call_tool(CallToolRequestParams::new("greet")).await?;
//! assert_eq!(result.content[0].as_text(), Some("hello"));
//!
//! client.close();
//! connection.await??;
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! One [`Error`]: the server's JSON-RPC error ([`Error::Rpc`] with code, message and data),
//! [`Error::Timeout`], [`Error::Closed`] (with the transport's error as its source when the
//! transport failed), [`Error::Decode`], [`Error::UnsupportedProtocolVersion`],
//! [`Error::OutputSchemaMismatch`], [`Error::CapabilityNotDeclared`].
//!
//! # Timeouts
//!
//! Every call has a timeout ([`ClientBuilder::request_timeout`], default 60 s; per call
//! [`CallOptions::timeout`]). For calls that asked for progress, each progress notification
//! restarts it; a hard maximum ([`ClientBuilder::max_total_timeout`],
//! [`CallOptions::max_total_timeout`]) bounds the whole call regardless. A timed-out call is
//! cancelled on the server. [`ClientBuilder::ping_interval`] adds a keep-alive ping, run
//! inside the [`Connection`] future.
//!
//! # Protocol revisions
//!
//! The client speaks 2024-11-05 to 2025-11-25 ([`SUPPORTED_VERSIONS`]): it proposes
//! 2025-11-25 (or [`ClientBuilder::protocol_version`]) and disconnects with
//! [`Error::UnsupportedProtocolVersion`] if the server chooses anything else. The stateless
//! revision 2026-07-28 is not spoken yet; the negotiated era is kept ([`Client::era`]) and
//! every call goes through [`Client::request_with`], where it will plug in.
//!
//! # Cargo features
//!
//! None. The crate depends on `mcp-types`, `mcp-jsonrpc`, `tokio` (`sync` and `time` only),
//! `futures`, `serde`, `serde_json`, `thiserror`, `tracing` and `jsonschema` (without its
//! default features: no remote `$ref` resolution). The timers need a tokio runtime with time
//! enabled.
//!
//! # Cancel safety
//!
//! - Every call ([`Client::request`], [`Client::call_tool`], ...): dropping its future
//!   cancels the request; the server gets `notifications/cancelled` if it was sent.
//! - [`Client::notify`] and [`Client::set_roots`]: dropping the future may or may not send
//!   the notification (the roots are replaced at once).
//! - The list streams: dropping one mid-page cancels that page's request.
//! - [`ClientBuilder::connect`]: dropping it drops the connection.
//! - [`Connection`]: dropping it tears the connection down; pending calls fail with
//!   [`Error::Closed`].
//! - [`Client::closed`] is cancel-safe.

mod builder;
mod cache;
mod call_options;
mod calls;
mod client;
mod connect;
mod era;
mod error;
mod form_defaults;
mod handler;
mod input;
mod listen;
mod modern;
mod output_schema;
mod router;
mod shared;
mod subscription;
mod tool_headers;
mod transport;
mod versions;

pub use builder::{ClientBuilder, Connection};
pub use call_options::CallOptions;
pub use client::Client;
pub use era::{EraChoice, EraMemory};
pub use error::{BoxError, Error, Result, SharedError, Side};
pub use handler::{ClientHandler, ElicitationHandler, RequestContext, SamplingHandler};
pub use mcp_jsonrpc::{Progress, Transport};
/// The protocol types, re-exported so a client needs no direct `mcp-types` dependency.
pub use mcp_types as types;
/// The wire error: the same type as `mcp_types::ErrorObject` (and `mcp_jsonrpc::ErrorObject`).
pub use mcp_types::{ErrorCode, ErrorObject};
pub use subscription::Subscription;
pub use versions::{HANDSHAKE_VERSIONS, MODERN_VERSIONS, SUPPORTED_VERSIONS};
