//! OpenTelemetry for the Model Context Protocol SDK, after the OpenTelemetry semantic
//! conventions for MCP: what `mcp-server` and `mcp-client` use behind their `otel` feature
//! (`mcp_server::otel`, `mcp_client::otel` re-export it).
//!
//! - **Trace context in `_meta`.** [`OtelPropagator`] is `mcp-jsonrpc`'s
//!   [`TracePropagator`](mcp_jsonrpc::trace::TracePropagator) on `tracing-opentelemetry`:
//!   the W3C trace context (`traceparent`, `tracestate`) and baggage a peer sends in
//!   `params._meta` become the parent of the span that handles the message, and a span that
//!   sends a message puts its own context there, through the configured OpenTelemetry
//!   propagator. A server span continues the trace of the client span that sent the request,
//!   across any transport and SDK.
//! - **Metrics.** [`McpMetricsLayer`] records the conventions' four duration histograms
//!   (`mcp.server.operation.duration`, `mcp.client.operation.duration`,
//!   `mcp.server.session.duration`, `mcp.client.session.duration`, in seconds) from the
//!   SDK's spans, with the conventions' attributes.
//! - **Export in one call.** [`init`] reads the standard `OTEL_*` variables
//!   (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, ...), exports spans and metrics
//!   with OTLP over HTTP (protobuf), sets the propagator and installs the `tracing`
//!   subscriber; the [`OtelGuard`] it returns flushes and shuts down on drop. It is the one
//!   place that starts threads, and says which.
//!
//! # Example
//!
//! ```no_run
//! use tracing_subscriber::Layer as _;
//!
//! # fn main() -> Result<(), mcp_otel::Error> {
//! // Logs on stderr, spans and metrics to $OTEL_EXPORTER_OTLP_ENDPOINT.
//! let logs = tracing_subscriber::fmt::layer()
//!     .with_writer(std::io::stderr)
//!     .with_filter(tracing_subscriber::EnvFilter::from_default_env());
//! let _otel = mcp_otel::init_with(logs)?;
//! // ... build and serve the server; `_otel` exports what is left when `main` returns.
//! # Ok(()) }
//! ```
//!
//! Composed by hand, into a subscriber of your own (here with in-memory exporters):
//!
//! ```
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::propagation::TraceContextPropagator;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//! use tracing_subscriber::layer::SubscriberExt as _;
//!
//! let tracer_provider = SdkTracerProvider::builder().build();
//! let meter_provider = SdkMeterProvider::builder().build();
//! opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
//! mcp_otel::install_propagator();
//! let subscriber = tracing_subscriber::registry()
//!     .with(mcp_otel::layer(&tracer_provider, &meter_provider));
//! tracing::subscriber::with_default(subscriber, || {
//!     // ... MCP spans made here are OpenTelemetry spans, their durations recorded.
//! });
//! ```
//!
//! # Cargo features
//!
//! None. It depends on `opentelemetry`, `opentelemetry_sdk` and `opentelemetry-otlp` 0.33
//! (traces and metrics; OTLP over HTTP with protobuf through reqwest's blocking client) and
//! `tracing-opentelemetry` 0.34, the release built on them; all four are re-exported so an
//! application names the same versions. No workspace crate enables it by default.
//!
//! # Cancel safety
//!
//! Nothing here is async. [`OtelGuard::flush`] and dropping an [`OtelGuard`] block the
//! calling thread until the exports finish or time out: call them outside async code, or
//! where blocking a runtime thread for that long is acceptable (the end of `main`).

mod metrics;
mod propagation;
mod setup;

pub use metrics::{
    CLIENT_OPERATION_DURATION, CLIENT_SESSION_DURATION, DURATION_BUCKETS, McpMetricsLayer,
    SERVER_OPERATION_DURATION, SERVER_SESSION_DURATION, SESSION_MARKER,
};
pub use propagation::{OtelPropagator, install_propagator};
pub use setup::{Error, OtelGuard, init, init_with, layer};

pub use opentelemetry;
pub use opentelemetry_otlp;
pub use opentelemetry_sdk;
pub use tracing_opentelemetry;

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
