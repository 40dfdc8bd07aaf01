//! OpenTelemetry for MCP clients (the `otel` feature): the `mcp-otel` crate, re-exported.
//!
//! The client makes a `tracing` span for every request and notification it sends (named
//! and attributed by the OpenTelemetry semantic conventions for MCP; see
//! `mcp_jsonrpc::trace`). With this module they become OpenTelemetry spans, children of
//! whatever span the application's call runs in, and each one's context goes to the server
//! as W3C trace context in `params._meta`, so the server's span (ours, the Python SDK's,
//! ...) continues the trace. Session and call durations become the conventions' histograms
//! (`mcp.client.session.duration`, `mcp.client.operation.duration`).
//!
//! ```no_run
//! use mcp_client::Client;
//!
//! async fn run(transport: impl mcp_jsonrpc::Transport) -> Result<(), Box<dyn std::error::Error>> {
//!     // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 OTEL_SERVICE_NAME=my-host ...
//!     let _otel = mcp_client::otel::init()?;
//!     let (client, connection) = Client::builder().connect(transport).await?;
//!     tokio::spawn(connection);
//!     client.call_tool("ping").await?;
//!     Ok(())
//! }
//! ```
//!
//! [`init`] says exactly what it starts. To compose with a subscriber of your own, use
//! [`layer`] and [`install_propagator`].

pub use mcp_otel::*;
