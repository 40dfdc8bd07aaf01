//! A Model Context Protocol client: connects a host application to any MCP server, in either
//! protocol era.
//!
//! - [`Client::builder`] configures the client (its info, handlers, timeouts, the era) and
//!   [`ClientBuilder::connect`] runs the opening exchange over any [`Transport`]: by default
//!   ([`EraChoice::Auto`]) `server/discover`, speaking 2026-07-28 if the server answers it,
//!   else `initialize` and a session of the handshake revisions. Like hyper's `handshake`, it
//!   returns the [`Client`] handle together with the [`Connection`] future that drives the
//!   connection; the library never spawns, so the caller runs that future (spawned, or
//!   inside a `select!`). The opening exchange polls the connection itself, so
//!   `connect(..).await` works before anything is spawned; a call made while nobody polls
//!   the connection fails within [`CONNECTION_GRACE`] with [`Error::ConnectionNotRunning`].
//! - Typed calls for every server request: tools (with `structuredContent` checked against
//!   the tool's `outputSchema`), resources, prompts, completion, logging, ping, and
//!   [`Client::request`] for any [`mcp_types::Request`]. A tool or a prompt takes its name
//!   and arguments as a tuple, the arguments any `Serialize` value
//!   (`client.call_tool(("add", Args { a: 1, b: 2 }))`, [`IntoCallToolParams`],
//!   [`IntoGetPromptParams`]); [`Client::call_tool_structured`] reads a tool's
//!   `structuredContent` as a Rust type. List calls come as one page
//!   (`list_tools(cursor)`) or as a [`Stream`](futures::Stream) over every page
//!   (`list_tools_stream()`). [`Client::listen`] subscribes to list changes and resource
//!   updates as a stream.
//! - What the server asks of the client reaches the [`SamplingHandler`] and
//!   [`ElicitationHandler`] the application installed, and roots come from
//!   [`Client::set_roots`]: as server requests in the handshake era, as the input requests of
//!   an `input_required` result on 2026-07-28 (answered, and the request sent again, until the
//!   result is complete). The declared capabilities follow from what is installed; a request
//!   whose capability the client did not declare is answered -32601. The server's
//!   notifications reach a [`ClientHandler`] in order.
//!
//! # Example
//!
//! A client and a server made with `mcp-server`, over the in-memory transport pair:
//!
//! ```
//! use mcp_client::Client;
//! use mcp_server::{Server, Tool};
//! use mcp_types::{Era, Implementation, ProtocolVersion};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder()
//!     .name("tiny")
//!     .version("1.0")
//!     .tool(Tool::new("greet", || async { "hello" }))
//!     .build();
//! let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
//! tokio::spawn(async move { server.serve(server_end).await });
//!
//! let (client, connection) = Client::builder()
//!     .client_info(Implementation::new("my-host", "0.1.0"))
//!     .connect(client_end)
//!     .await?;
//! let connection = tokio::spawn(connection);
//!
//! assert_eq!(client.server_info().name, "tiny");
//! // Both sides speak the stateless revision, so that is what the client chose.
//! assert_eq!(client.era(), Era::Stateless);
//! assert_eq!(*client.protocol_version(), ProtocolVersion::V2026_07_28);
//! let result = client.call_tool("greet").await?;
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
//! One [`Error`]: the server's JSON-RPC error ([`Error::Rpc`] with code, message and data;
//! the refusals of 2026-07-28 typed as [`Error::HeaderMismatch`] (-32020),
//! [`Error::MissingClientCapability`] (-32021) and [`Error::VersionNotSupported`] (-32022)),
//! [`Error::Timeout`], [`Error::Closed`] (with the transport's error as its source when the
//! transport failed), [`Error::ConnectionNotRunning`] (nobody polls the [`Connection`]),
//! [`Error::Decode`], [`Error::InvalidArguments`] (a tool's or a prompt's arguments that
//! cannot be sent), [`Error::UnsupportedProtocolVersion`],
//! [`Error::OutputSchemaMismatch`], for [`Client::call_tool_structured`]
//! [`Error::ToolFailed`], [`Error::NoStructuredContent`] and
//! [`Error::InvalidStructuredContent`], [`Error::CapabilityNotDeclared`],
//! [`Error::NotInRevision`] (a method the negotiated revision removed), for input rounds
//! [`Error::InputRequest`] and [`Error::TooManyInputRounds`], with the `skills` feature
//! `Error::Skill` (a skill entry or file refused: which check failed, and what to do), and
//! with the `apps` feature `Error::App` (a view or a view's tool call refused).
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
//! The client speaks 2024-11-05 to 2026-07-28 ([`SUPPORTED_VERSIONS`]), in two eras:
//!
//! - **Handshake era** ([`HANDSHAKE_VERSIONS`]): `initialize` proposes 2025-11-25 (or
//!   [`ClientBuilder::protocol_version`]); the client disconnects with
//!   [`Error::UnsupportedProtocolVersion`] if the server chooses a version it does not speak.
//! - **2026-07-28** ([`MODERN_VERSIONS`]): `server/discover` first (retried once at a version
//!   a -32022 refusal names); then every request carries the client's `_meta` (version,
//!   capabilities, info, and the level of [`Client::set_logging_level`]); an `input_required`
//!   result is answered through the handlers, with `requestState` echoed only when the server
//!   gave one, at most [`ClientBuilder::max_input_rounds`] times in a row; the methods the
//!   revision removed fail with [`Error::NotInRevision`] (but [`Client::ping`], which sends
//!   `server/discover`, and [`Client::set_logging_level`], which sets the `_meta` level).
//!   Tools whose `x-mcp-header` annotations are invalid are dropped from `tools/list`; the
//!   others' header arguments are handed to the transport as `Mcp-Param-*` hints. An
//!   optional response cache ([`ClientBuilder::response_cache`]) keeps list and read results
//!   for their `ttlMs`.
//!
//! [`ClientBuilder::era`] chooses: [`EraChoice::Auto`] (the default) follows the revision's
//! dual-era rules, [`EraChoice::Modern`] and [`EraChoice::Legacy`] speak one era only.
//! [`ClientBuilder::era_memory`] spares reconnects the probe. [`Client::era`] and
//! [`Client::protocol_version`] tell what was negotiated.
//!
//! # Cargo features
//!
//! - `jsonschema`: validate `structuredContent` against each tool's `outputSchema` (without
//!   it, only its presence is checked).
//! - `apps`: the MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865), host side:
//!   `ClientBuilder::apps` declares it; the `apps` module's `AppTools` tells the tools the
//!   model may see from those only a view may call, `Client::read_ui_resource` fetches a
//!   tool's view (checked to be `text/html;profile=mcp-app`) with its `_meta.ui`, and
//!   `Client::call_tool_for_app` forwards a view's tool call only if the tool's visibility
//!   includes `"app"`. Adds `base64`.
//! - `skills`: the Skills extension (`io.modelcontextprotocol/skills`, SEP-2640):
//!   `Client::list_skills`, `Client::get_skill`, `Client::hold_skill` and the `skills`
//!   module, whose `HeldSkill` reads a skill's files on demand (never ahead of need), each
//!   verified against its entry (size, SHA-256 digest, `SKILL.md` frontmatter field by
//!   field). Adds a YAML parser, `hmac-sha256` and `base64`.
//! - `otel`: OpenTelemetry (the module `otel`, from the `mcp-otel` crate): the client's
//!   calls exported as OpenTelemetry spans whose context goes to the server in
//!   `params._meta` (W3C trace context), the MCP duration histograms, and `otel::init`,
//!   which exports both with OTLP over HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`.
//!
//! The crate depends on `mcp-types`, `mcp-jsonrpc`, `tokio` (`sync` and `time` only),
//! `futures`, `serde`, `serde_json`, `thiserror` and `tracing`. The timers need a tokio
//! runtime with time enabled.
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
//! - [`Subscription`]: dropping it ends the subscription (see its docs).

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(feature = "apps")]
pub mod apps;
mod arguments;
mod builder;
mod cache;
mod call_options;
mod calls;
mod client;
mod connect;
mod connection;
mod era;
mod error;
mod form_defaults;
mod handler;
mod input;
mod known_tools;
mod listen;
mod modern;
#[cfg(feature = "otel")]
pub mod otel;
mod output_schema;
mod received_tasks;
mod router;
mod running;
mod shared;
#[cfg(feature = "skills")]
pub mod skills;
mod structured;
mod subscription;
mod tasks;
mod telemetry;
mod transport;
mod versions;

pub use arguments::{IntoCallToolParams, IntoGetPromptParams};
pub use builder::ClientBuilder;
pub use call_options::CallOptions;
pub use client::Client;
pub use connection::Connection;
pub use era::{EraChoice, EraMemory};
pub use error::{BoxError, Error, Result, SharedError, Side};
pub use handler::{ClientHandler, ElicitationHandler, RequestContext, SamplingHandler};
pub use mcp_jsonrpc::{Progress, Transport};
/// The protocol types, re-exported so a client needs no direct `mcp-types` dependency.
pub use mcp_types as types;
/// The wire error: the same type as `mcp_types::ErrorObject` (and `mcp_jsonrpc::ErrorObject`).
pub use mcp_types::{ErrorCode, ErrorObject};
pub use running::CONNECTION_GRACE;
pub use structured::decode_structured;
pub use subscription::Subscription;
pub use tasks::{TaskInfo, ToolCallOutcome};
pub use versions::{HANDSHAKE_VERSIONS, MODERN_VERSIONS, SUPPORTED_VERSIONS};
