//! Write Model Context Protocol servers.
//!
//! A [`Server`] holds what the server offers ([`Tool`]s, [`Resource`]s,
//! [`ResourceTemplate`]s, [`Prompt`]s) and serves one session per connection with
//! [`Server::serve`], over any [`Transport`](mcp_jsonrpc::Transport). It answers the
//! lifecycle (`initialize` with version negotiation, `ping`), lists with pagination, tool
//! calls with argument validation, resource reads and subscriptions, prompts, argument
//! completion and logging; handlers get a [`Context`] to report progress, log, and ask the
//! client for sampling, elicitation and roots.
//!
//! # Example
//!
//! A server with one typed tool, and a raw JSON-RPC client calling it over the in-memory
//! transport:
//!
//! ```
//! use mcp_jsonrpc::{memory, Config, Connection};
//! use mcp_server::{Context, HandlerError, Server, Tool};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs {
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> anyhow::Result<()> {
//! let server = Server::builder()
//!     .name("calculator")
//!     .version("1.0.0")
//!     .tool(
//!         Tool::typed("add", |args: AddArgs, _cx: Context| async move {
//!             Ok::<_, HandlerError>(args.a + args.b)
//!         })
//!         .description("Adds two numbers"),
//!     )
//!     .build();
//!
//! let (client_end, server_end) = memory::pair(16);
//! // The library never spawns: `serve` is a future the caller runs.
//! tokio::spawn({
//!     let server = server.clone();
//!     async move { server.serve(server_end).await }
//! });
//!
//! let (connection, client) = Connection::new(client_end, (), Config::default());
//! tokio::spawn(connection.run());
//! let init = json!({
//!     "protocolVersion": "2025-11-25",
//!     "capabilities": {},
//!     "clientInfo": {"name": "example", "version": "0.1.0"}
//! });
//! let result = client.request("initialize", Some(serde_json::value::to_raw_value(&init)?)).await?;
//! assert!(result.get().contains(r#""protocolVersion":"2025-11-25""#));
//! client.notify("notifications/initialized", None).await?;
//!
//! let call = json!({"name": "add", "arguments": {"a": 2, "b": 3}});
//! let result = client.request("tools/call", Some(serde_json::value::to_raw_value(&call)?)).await?;
//! assert_eq!(result.get(), r#"{"content":[{"type":"text","text":"5"}]}"#);
//! client.close();
//! # Ok(())
//! # }
//! ```
//!
//! The [`guide`] walks through every feature.
//!
//! # Design
//!
//! - **Handlers** are async closures taking their arguments and a [`Context`]. What they
//!   return converts through [`IntoToolResult`], [`IntoReadResult`], [`IntoPromptResult`]
//!   or [`IntoCompletion`]; errors are any `Display` type ([`HandlerError`] makes `?` work
//!   across error types). A failing tool gives `isError: true`; a failing resource, prompt
//!   or completion handler gives a JSON-RPC error.
//! - **Capabilities** are derived from what is registered when a session initializes;
//!   `listChanged` and resource `subscribe` are always on, `logging` always declared,
//!   `completions` when there are prompts or templates. Nothing is sent that the client did
//!   not declare: requests to the client check its capabilities first.
//! - **Changes** while running (`Server::add_tool`, ...) bump a generation per registry;
//!   each session waits on it (a `tokio::sync::watch`) and sends one `list_changed`
//!   notification per wake-up, so nothing queues up. List results are serialized once per
//!   generation; schemas are derived and validators compiled once, at registration.
//! - **Transport data**: what the transport attached to a request (over HTTP: headers, the
//!   session handle, the request's SSE stream, an auth layer's principal) is in
//!   [`Context::extensions`], next to [`Context::request_id`].
//! - **Sessions without a handshake**: [`Server::serve_with`] and
//!   [`ServeOptions::assume_initialized`] serve a transport whose client never sends
//!   `initialize` to it, such as each POST of a stateless HTTP service.
//! - **Protocol eras**: sessions negotiate 2024-11-05 up to 2025-11-25. Requests to the
//!   client go through an input channel that the stateless revision (2026-07-28) swaps for
//!   `InputRequiredResult` round trips without changing handler code; see [`Context`].
//!
//! # Cargo features
//!
//! - `schemars` (default): [`Tool::typed`] and [`Json`], deriving input and output schemas
//!   with `schemars` 1.x.
//! - `tracing-bridge`: [`McpLogLayer`], a `tracing_subscriber::Layer` forwarding `tracing`
//!   events to connected clients as log messages.
//!
//! # Cancel safety
//!
//! - [`Server::serve`] and [`Server::serve_with`]: dropping the future ends the session (handlers are dropped, their
//!   cancellation tokens fire).
//! - [`Context::sample`], [`Context::elicit`], [`Context::list_roots`]: dropping the future
//!   cancels the request on the client.
//! - [`Context::log`] and [`Context::report_progress`] are not cancel-safe: dropping them may
//!   or may not send the notification.
//! - When the client cancels a request, the handler future is dropped and
//!   [`Context::cancellation`] fires; no response is sent.

mod builder;
mod completion;
mod context;
mod error;
mod handler;
mod input;
mod notifier;
mod prompt;
mod registry;
mod resource;
mod router;
mod serve;
mod server;
pub mod service;
mod session_state;
mod stateless;
mod tool;
#[cfg(feature = "tracing-bridge")]
mod tracing_bridge;
mod uri_template;

#[doc = include_str!("docs/guide.md")]
pub mod guide {}

pub use builder::ServerBuilder;
pub use completion::{CompletionRequest, IntoCompletion, MAX_COMPLETION_VALUES};
pub use context::Context;
pub use error::{BoxError, Error, HandlerError, IntoHandlerError, Result};
pub use handler::{BoxFuture, Extension, FromContext, HandlerFn, NoInput, State};
pub use prompt::{IntoPromptResult, Prompt, PromptArguments};
pub use resource::{IntoReadResult, Resource, ResourceTemplate, UriParams};
pub use serve::ServeOptions;
pub use server::{STATEFUL_VERSIONS, Server};
pub use service::{IntoMcpResponse, McpRequest, McpResponse, McpService, ToolCall, ToolService};
pub use session_state::Session;
#[cfg(feature = "schemars")]
pub use tool::Json;
pub use tool::{IntoToolResult, Structured, Tool};
#[cfg(feature = "tracing-bridge")]
pub use tracing_bridge::McpLogLayer;

/// The per-request data a transport attaches (see [`Context::extensions`]).
pub use mcp_jsonrpc::Extensions;
/// A JSON-RPC request id (see [`Context::request_id`]).
pub use mcp_jsonrpc::Id;
/// The protocol types, re-exported for convenience.
pub use mcp_types as types;
