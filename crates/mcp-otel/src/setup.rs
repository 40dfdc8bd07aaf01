//! The one-call setup: OTLP over HTTP from the standard environment variables.

use std::fmt;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::layer::{Identity, Layer, SubscriberExt as _};
use tracing_subscriber::registry::{LookupSpan, Registry};
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::McpMetricsLayer;

/// The instrumentation scope of the spans and metrics: this crate.
const SCOPE: &str = "mcp-rs";

/// What [`init`] can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An OTLP exporter could not be built: a malformed `OTEL_EXPORTER_OTLP_*` variable (an
    /// endpoint that is not a URI, a protocol this build lacks such as `grpc`), or its HTTP
    /// client could not start.
    #[error("cannot build the OTLP {signal} exporter")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// What the exporter builder said.
        #[source]
        source: opentelemetry_otlp::ExporterBuildError,
    },
    /// A global `tracing` subscriber is already set: compose [`layer`] into it instead.
    #[error("a global tracing subscriber is already set")]
    Subscriber(#[source] tracing_subscriber::util::TryInitError),
    /// A trace propagator is already installed
    /// ([`mcp_jsonrpc::trace::set_propagator`]; [`install_propagator`](crate::install_propagator)
    /// installs this crate's).
    #[error("a trace propagator is already installed")]
    PropagatorAlreadySet,
}

/// What [`init`] set up: the tracer and meter providers, with their exporters' threads.
/// Dropping it flushes what is buffered (spans, then a last collection of the metrics) and
/// shuts both providers down, waiting for the exports (each bounded by the exporter's
/// timeout, `OTEL_EXPORTER_OTLP_TIMEOUT`, 10 s by default): drop it at the end of `main`,
/// after the server has stopped.
#[must_use = "dropping the guard shuts the exporters down"]
pub struct OtelGuard {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

impl OtelGuard {
    /// The tracer provider (installed as the global one too).
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The meter provider (installed as the global one too), for the application's own
    /// instruments.
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter_provider
    }

    /// Exports what is buffered now: the finished spans, and the metrics collected so far.
    /// Blocks until both exports finish (or time out); errors are the exporters'.
    pub fn flush(&self) -> Result<(), opentelemetry_sdk::error::OTelSdkError> {
        let spans = self.tracer_provider.force_flush();
        let metrics = self.meter_provider.force_flush();
        spans.and(metrics)
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        // Errors here have nowhere to go: the telemetry pipeline is what failed.
        let _ = self.tracer_provider.shutdown();
        let _ = self.meter_provider.shutdown();
    }
}

/// Sets up OpenTelemetry for an MCP server or client in one call, from the standard
/// environment variables, and installs it as the global `tracing` subscriber:
///
/// - spans and metrics go to `OTEL_EXPORTER_OTLP_ENDPOINT` (default
///   `http://localhost:4318`; `/v1/traces` and `/v1/metrics` are appended, and the
///   per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT` are taken as
///   they are) over HTTP with protobuf bodies; `OTEL_EXPORTER_OTLP_HEADERS`,
///   `OTEL_EXPORTER_OTLP_TIMEOUT` and their per-signal forms apply;
/// - the resource's `service.name` is `OTEL_SERVICE_NAME` (else `service.name` in
///   `OTEL_RESOURCE_ATTRIBUTES`, else `unknown_service:<executable>`), with the other
///   `OTEL_RESOURCE_ATTRIBUTES`;
/// - the global text map propagator becomes W3C trace context plus W3C baggage, and
///   [`OtelPropagator`](crate::OtelPropagator) becomes the SDK's trace propagator, which carries it in `_meta`;
/// - the global tracer and meter providers are set;
/// - the global `tracing` subscriber becomes a registry with [`layer`] (spans at `INFO` and
///   above become OpenTelemetry spans; the MCP duration histograms are recorded).
///
/// What it starts, since the SDK's crates never spawn on their own: four threads, for as
/// long as the returned [`OtelGuard`] lives. The batch span processor's
/// (`OpenTelemetry.Traces.BatchProcessor`: exports every `OTEL_BSP_SCHEDULE_DELAY`, 5 s by
/// default, or when 512 spans wait), the periodic metric reader's
/// (`OpenTelemetry.Metrics.PeriodicReader`: every `OTEL_METRIC_EXPORT_INTERVAL`, 60 s by
/// default), and one per exporter for reqwest's blocking HTTP client, which runs its own
/// single-threaded tokio runtime. Nothing runs on the application's runtime, and nothing is
/// printed.
///
/// Use [`init_with`] to add layers of your own (logs to stderr, say), or [`layer`] to build
/// the subscriber yourself.
///
/// ```no_run
/// # fn main() -> Result<(), mcp_otel::Error> {
/// let _otel = mcp_otel::init()?;
/// // ... serve; spans and metrics are exported until `_otel` drops at the end of `main`.
/// # Ok(()) }
/// ```
pub fn init() -> Result<OtelGuard, Error> {
    init_with(Identity::new())
}

/// [`init`], with `extra` in the global subscriber too: for instance
/// `tracing_subscriber::fmt::layer().with_writer(std::io::stderr)` for logs on stderr.
pub fn init_with<L>(extra: L) -> Result<OtelGuard, Error>
where
    L: Layer<Registry> + Send + Sync + 'static,
{
    if mcp_jsonrpc::trace::propagator().is_some() {
        return Err(Error::PropagatorAlreadySet);
    }
    let guard = providers()?;
    opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]));
    opentelemetry::global::set_tracer_provider(guard.tracer_provider.clone());
    opentelemetry::global::set_meter_provider(guard.meter_provider.clone());
    tracing_subscriber::registry()
        .with(extra)
        .with(layer(&guard.tracer_provider, &guard.meter_provider))
        .try_init()
        .map_err(Error::Subscriber)?;
    // Checked above; a propagator installed since, by another thread, stays.
    crate::install_propagator();
    Ok(guard)
}

/// The exporters and providers of [`init`], not installed anywhere.
fn providers() -> Result<OtelGuard, Error> {
    let resource = Resource::builder().build();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|source| Error::Exporter {
            signal: "traces",
            source,
        })?;
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|source| Error::Exporter {
            signal: "metrics",
            source,
        })?;
    let tracer_provider = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_batch_exporter(spans)
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_resource(resource)
        .with_periodic_exporter(metrics)
        .build();
    Ok(OtelGuard {
        tracer_provider,
        meter_provider,
    })
}

/// The layers [`init`] installs, for a subscriber of your own: `tracing-opentelemetry`'s
/// (spans at `INFO` and above, without the source location, thread and busy/idle time
/// attributes, so that an MCP span carries the conventions' attributes only) and
/// [`McpMetricsLayer`]. The MCP spans of `mcp-server` and `mcp-client` are at `INFO`.
/// Set the global text map propagator and install [`OtelPropagator`](crate::OtelPropagator) too
/// ([`install_propagator`](crate::install_propagator)), or nothing crosses `_meta`.
pub fn layer<S>(
    tracer_provider: &SdkTracerProvider,
    meter_provider: &SdkMeterProvider,
) -> impl Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
{
    let tracer = tracer_provider.tracer(SCOPE);
    let meter = meter_provider.meter(SCOPE);
    let spans = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_filter(LevelFilter::INFO);
    spans.and_then(McpMetricsLayer::new(&meter))
}
