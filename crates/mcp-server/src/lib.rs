//! Write Model Context Protocol servers.
//!
//! A [`Server`] holds what the server offers ([`Tool`]s, [`Resource`]s,
//! [`ResourceTemplate`]s, [`Prompt`]s) and serves one session per connection with
//! [`Server::serve`], over any [`Transport`](mcp_jsonrpc::Transport). It answers the
//! lifecycle (`initialize` with version negotiation, `ping`), lists with pagination, tool
//! calls with argument validation, resource reads and subscriptions, prompts, argument
//! completion and logging. Handlers are plain async functions or closures taking their input
//! and whatever else they need from the request ([`Context`], application [`State`], ...).
//! A long-running tool can run as a task in both eras ([`tasks`], and the guide page
//! [`guide::tasks`]).
//!
//! # Example
//!
//! A server with one typed tool and application state, and `mcp-client` calling it over the
//! in-memory transport:
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicI64, Ordering};
//!
//! use mcp_client::Client;
//! use mcp_server::{Server, State, Tool};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, JsonSchema)]
//! struct AddArgs {
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! /// The running total, shared by every session.
//! #[derive(Clone, Default)]
//! struct Total(Arc<AtomicI64>);
//!
//! async fn add(args: AddArgs, State(total): State<Total>) -> i64 {
//!     let sum = args.a + args.b;
//!     total.0.fetch_add(sum, Ordering::Relaxed) + sum
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> anyhow::Result<()> {
//! let server = Server::builder()
//!     .name("calculator")
//!     .version("1.0.0")
//!     .state(Total::default())
//!     .tool(Tool::typed("add", add).description("Adds two numbers to the running total"))
//!     .build();
//!
//! let (client_end, server_end) = mcp_jsonrpc::memory::pair(16);
//! // The library never spawns: `serve` is a future the caller runs.
//! tokio::spawn(async move { server.serve(server_end).await });
//! let (client, connection) = Client::builder().connect(client_end).await?;
//! tokio::spawn(connection);
//!
//! let result = client.call_tool(("add", AddArgs { a: 2, b: 3 })).await?;
//! assert_eq!(result.content[0].as_text(), Some("5"));
//! # Ok(())
//! # }
//! ```
//!
//! The [`guide`] walks through every feature.
//!
//! # Design
//!
//! - **Handlers** are async functions or closures ([`HandlerFn`]) taking the request's input
//!   (a tool's arguments, a template's [`UriParams`], a prompt's [`PromptArguments`], a
//!   [`CompletionRequest`]) followed by [extractors](FromContext): [`Context`], [`State`],
//!   [`Extension`], [`Server`], or the application's own. What they return converts through
//!   [`IntoToolResult`], [`IntoReadResult`], [`IntoPromptResult`] or [`IntoCompletion`];
//!   errors through [`IntoHandlerError`], which keeps an [`Error`]'s meaning (and so its
//!   JSON-RPC code) through `anyhow`, [`HandlerError`] and error source chains. A failing
//!   tool gives `isError: true`; a failing resource, prompt or completion handler gives a
//!   JSON-RPC error.
//! - **Middleware**: request handling is a tower [`Service`](tower_service::Service), so any
//!   tower [`Layer`](tower_layer::Layer) wraps the whole server ([`ServerBuilder::layer`],
//!   over [`McpRequest`]) or one tool ([`Tool::layer`], over [`ToolCall`]): timeouts,
//!   metrics, authorization. Filters ([`ServerBuilder::tool_filter`] and its siblings) hide
//!   items per principal or per [`Session`]; [`ServerBuilder::fallback`] serves custom
//!   methods.
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
//! - **Protocol eras**: [`Server::serve`] serves both, with nothing to configure. A client that
//!   sends `initialize` gets a session at a revision from 2024-11-05 to 2025-11-25; a request
//!   that names 2026-07-28 in its `_meta` is served on its own ([`MODERN_VERSIONS`]), with
//!   `server/discover`, the revision's envelope and errors, [`CacheHints`],
//!   `subscriptions/listen` over the server's [`EventBus`], and input-required rounds with a
//!   sealed `requestState` in place of requests to the client, from the same handler code
//!   (see [`Context`] and the [guide](guide#protocol-eras)).
//! - **Sessions without a handshake**: a stateless HTTP POST tells the server its protocol
//!   version, and is served without `initialize`; [`Server::serve_with`] and
//!   [`ServeOptions::assume_initialized`] do the same for any transport.
//!
//! # Cargo features
//!
//! - `schemars` (default): [`Tool::typed`] and [`Json`], deriving input and output schemas
//!   with `schemars` 1.x.
//! - `jsonschema`: [`Tool::raw`] validates arguments against the tool's JSON Schema (with
//!   the `jsonschema` crate, about 60 more packages in the build). Without it a raw tool's
//!   handler gets the arguments unchecked.
//! - `anyhow`: [`IntoHandlerError`] for `anyhow::Error`, so handlers can return
//!   `anyhow::Result`.
//! - `macros`: the attribute macros `#[tool]`, `#[tools]`, `#[prompt]` and `#[resource]`
//!   (the `mcp-macros` crate), which make tools, prompts and resources of async functions,
//!   their schemas read from the signature (see the guide page `guide::macros`).
//! - `tracing-bridge`: `McpLogLayer`, a `tracing_subscriber::Layer` forwarding `tracing`
//!   events to connected clients as log messages.
//! - `otel`: OpenTelemetry (the module `otel`, from the `mcp-otel` crate): the server's
//!   spans exported as OpenTelemetry spans continuing the client's trace (W3C trace context
//!   in `params._meta`), the MCP duration histograms, and `otel::init`, which exports both
//!   with OTLP over HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`.
//! - `skills`: the Skills extension (`io.modelcontextprotocol/skills`): Agent Skills from a
//!   directory, from memory or generated, served with `skills/list`, `skills/get` and
//!   `resources/directory/read` (`ServerBuilder::skills`, the module `skills`; YAML
//!   frontmatter read with `serde-saphyr`, MIME types from `mime_guess`).
//! - `apps`: the MCP Apps extension (`io.modelcontextprotocol/ui`): interactive HTML views
//!   for tools (`ServerBuilder::ui_resource`, `Tool::ui`, the module `apps`), offered only
//!   to clients that declared the extension. No more dependencies.
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

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(feature = "apps")]
pub mod apps;
mod arguments;
mod builder;
mod cache;
mod completion;
mod context;
mod envelope;
mod error;
pub mod events;
mod extension;
mod extract;
mod handler;
mod input;
mod listen;
mod modern;
mod notifier;
#[cfg(feature = "otel")]
pub mod otel;
mod persist;
mod prompt;
mod registry;
mod request_state;
mod resource;
mod router;
mod schema;
mod serve;
mod server;
pub mod service;
mod session_state;
pub mod session_store;
#[cfg(feature = "skills")]
pub mod skills;
pub mod tasks;
mod telemetry;
mod tool;
mod tool_result;
#[cfg(feature = "tracing-bridge")]
mod tracing_bridge;
mod uri_template;

#[doc = include_str!("docs/guide.md")]
pub mod guide {
    #[doc = include_str!("docs/tasks.md")]
    pub mod tasks {}
    #[cfg(feature = "macros")]
    #[doc = include_str!("docs/macros.md")]
    pub mod macros {}
}

/// Tools, prompts and resources written as plain async functions (feature `macros`; see
/// [`guide::macros`]).
#[cfg(feature = "macros")]
pub use mcp_macros::{debug_handler, prompt, resource, tool, tools};

/// What the code `mcp-macros` generates names, so that applications need not depend on it
/// themselves. Not a public API.
#[doc(hidden)]
#[cfg(feature = "macros")]
pub mod __private {
    pub use schemars;
    pub use serde;

    use crate::{Error, ResourceTemplate, Result};

    /// A prompt argument or a URI template variable, from its value (if the request had one).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a prompt argument or a URI template variable",
        label = "take a `String`, or an `Option<String>` when it may be absent"
    )]
    pub trait FromArgument: Sized {
        /// The value, or -32602 when a required one is missing.
        fn from_argument(value: Option<String>, name: &str) -> Result<Self>;
    }

    impl FromArgument for String {
        fn from_argument(value: Option<String>, name: &str) -> Result<Self> {
            value.ok_or_else(|| Error::invalid_params(format!("missing argument `{name}`")))
        }
    }

    impl FromArgument for Option<String> {
        fn from_argument(value: Option<String>, _name: &str) -> Result<Self> {
            Ok(value)
        }
    }

    /// `#[debug_handler]`: `T` is an extractor.
    pub fn extractor<T: crate::FromContext>() {}

    /// `#[debug_handler]`: the handler's future is `Send`.
    pub fn send_future<F: std::future::Future + Send>(future: F) {
        drop(future);
    }

    /// `#[debug_handler(tool)]`: `T` is a tool's result.
    pub fn tool_result<T: crate::IntoToolResult>() {}

    /// `#[debug_handler(prompt)]`: `T` is a prompt's result.
    pub fn prompt_result<T: crate::IntoPromptResult>() {}

    /// `#[debug_handler(resource)]`: `T` is a resource's contents.
    pub fn read_result<T: crate::IntoReadResult>() {}

    /// `#[debug_handler(completion)]`: `T` is a completion.
    pub fn completion<T: crate::IntoCompletion>() {}

    /// The template `#[resource]` made. The macro checked the template when compiling, with
    /// the parser's rules, so this fails only on a bug of the macro's check: at start-up, on
    /// the application's own literal, never on anything a client sends.
    pub fn template(made: Result<ResourceTemplate>) -> ResourceTemplate {
        match made {
            Ok(template) => template,
            Err(e) => panic!("#[resource]: {e} (please report this bug of mcp-macros)"),
        }
    }
}

pub use builder::{DEFAULT_PAGE_BYTES, ServerBuilder};
pub use cache::{CacheHints, Cacheable};
pub use completion::{CompletionRequest, IntoCompletion, MAX_COMPLETION_VALUES};
pub use context::Context;
pub use error::{BoxError, Error, HandlerError, IntoHandlerError, Result};
pub use events::{EventBus, InMemoryEventBus, ServerEvent};
pub use extract::{Extension, FromContext, RequiredStates, State, StateNotGiven};
pub use handler::{BoxFuture, HandlerFn, HandlerShape, NoInput, WithInput};
pub use prompt::{IntoPromptResult, Prompt, PromptArguments};
pub use resource::{IntoReadResult, Resource, ResourceTemplate, UriParams};
pub use serve::ServeOptions;
pub use server::{MODERN_VERSIONS, STATEFUL_VERSIONS, Server};
pub use service::{IntoMcpResponse, McpRequest, McpResponse, McpService, ToolCall, ToolService};
pub use session_state::Session;
pub use session_store::{InMemorySessionStore, SessionSnapshot, SessionStore};
pub use tool::Tool;
#[cfg(feature = "schemars")]
pub use tool::ToolArguments;
#[cfg(feature = "schemars")]
pub use tool_result::Json;
pub use tool_result::{IntoToolResult, Structured};
#[cfg(feature = "tracing-bridge")]
pub use tracing_bridge::McpLogLayer;
#[doc(hidden)]
pub use uri_template::fuzz_uri_template;

/// The per-request data a transport attaches (see [`Context::extensions`]).
pub use mcp_jsonrpc::Extensions;
/// A JSON-RPC request id (see [`Context::request_id`]).
pub use mcp_jsonrpc::Id;
/// The protocol types, re-exported for convenience.
pub use mcp_types as types;
