//! OpenTelemetry for MCP servers (the `otel` feature): the `mcp-otel` crate, re-exported.
//!
//! The server makes a `tracing` span for every message it receives (named and attributed
//! by the OpenTelemetry semantic conventions for MCP; see `mcp_jsonrpc::trace`). With this
//! module they become OpenTelemetry spans whose parent is the client's span, read from the
//! W3C trace context in the request's `params._meta` (any client that propagates it: ours,
//! the Python SDK's, ...), and the session and operation durations become the conventions'
//! histograms (`mcp.server.session.duration`, `mcp.server.operation.duration`).
//!
//! One call sets it all up from the standard `OTEL_*` environment variables and exports
//! with OTLP over HTTP ([`init`] says exactly what it starts); keep the guard until the end
//! of `main`:
//!
//! ```no_run
//! use mcp_server::Server;
//!
//! async fn run(transport: impl mcp_jsonrpc::Transport) -> anyhow::Result<()> {
//!     // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 OTEL_SERVICE_NAME=notes ...
//!     let _otel = mcp_server::otel::init()?;
//!     let server = Server::builder().name("notes").version("1.0.0").build();
//!     server.serve(transport).await?;
//!     Ok(()) // `_otel` drops here: what is still buffered is exported
//! }
//! ```
//!
//! To compose with a subscriber of your own, use [`layer`] and [`install_propagator`].

pub use mcp_otel::*;
