//! The four duration histograms of the MCP semantic conventions, measured on the SDK's spans.

use std::fmt;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The conventions' advised bucket boundaries, in seconds, for all four histograms.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// `mcp.server.operation.duration`.
pub const SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// `mcp.client.operation.duration`.
pub const CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// `mcp.server.session.duration`.
pub const SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
/// `mcp.client.session.duration`.
pub const CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";

/// The span field naming the method: every operation span has it.
const METHOD: &str = "mcp.method.name";
/// The span field `tracing-opentelemetry` reads the span kind from.
const KIND: &str = "otel.kind";
/// The span field that marks a session span (its value is the span kind's side).
pub const SESSION_MARKER: &str = "mcp.session";

/// The span fields an operation's duration is recorded with: the conventions' metric
/// attributes. Request ids, session ids and resource URIs (opt-in) are left out: each would
/// make a series per value.
const OPERATION_ATTRIBUTES: &[&str] = &[
    METHOD,
    "error.type",
    "gen_ai.operation.name",
    "gen_ai.prompt.name",
    "gen_ai.tool.name",
    "jsonrpc.protocol.version",
    "mcp.protocol.version",
    "network.protocol.name",
    "network.protocol.version",
    "network.transport",
    "rpc.response.status_code",
    "server.address",
    "server.port",
];

/// The span fields a session's duration is recorded with.
const SESSION_ATTRIBUTES: &[&str] = &[
    "error.type",
    "jsonrpc.protocol.version",
    "mcp.protocol.version",
    "network.protocol.name",
    "network.protocol.version",
    "network.transport",
    "server.address",
    "server.port",
];

/// A [`tracing_subscriber::Layer`] recording the MCP semantic conventions' duration
/// histograms, in seconds, from the spans `mcp-server` and `mcp-client` open:
///
/// - `mcp.server.operation.duration` and `mcp.client.operation.duration`: a span with an
///   `mcp.method.name` field and `otel.kind` `server` or `client`, from its creation to its
///   close;
/// - `mcp.server.session.duration` and `mcp.client.session.duration`: a span with an
///   `mcp.session` field (`server` or `client`), likewise.
///
/// Each is recorded with the span's fields that the conventions list as the metric's
/// attributes (`mcp.method.name`, `error.type`, `gen_ai.tool.name`, `mcp.protocol.version`,
/// `network.transport`, ...), as they are when the span closes; never request ids, session
/// ids or resource URIs. The bucket boundaries are the conventions' ([`DURATION_BUCKETS`]).
/// Other spans cost a look at their fields when they open.
///
/// [`init`](crate::init) installs it; add it yourself to a subscriber you build:
///
/// ```
/// use opentelemetry::metrics::MeterProvider as _;
/// use tracing_subscriber::layer::SubscriberExt as _;
///
/// let meter_provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder().build();
/// let meter = meter_provider.meter("my-server");
/// let subscriber = tracing_subscriber::registry().with(mcp_otel::McpMetricsLayer::new(&meter));
/// # drop(subscriber);
/// ```
#[derive(Clone)]
pub struct McpMetricsLayer {
    server_operation: Histogram<f64>,
    client_operation: Histogram<f64>,
    server_session: Histogram<f64>,
    client_session: Histogram<f64>,
}

impl fmt::Debug for McpMetricsLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpMetricsLayer").finish_non_exhaustive()
    }
}

fn histogram(meter: &Meter, name: &'static str, description: &'static str) -> Histogram<f64> {
    meter
        .f64_histogram(name)
        .with_unit("s")
        .with_description(description)
        .with_boundaries(DURATION_BUCKETS.to_vec())
        .build()
}

impl McpMetricsLayer {
    /// The layer, with its four histograms made on `meter`.
    pub fn new(meter: &Meter) -> Self {
        Self {
            server_operation: histogram(
                meter,
                SERVER_OPERATION_DURATION,
                "MCP request or notification duration as observed on the receiver from the \
                 time it was received until the result or ack is sent.",
            ),
            client_operation: histogram(
                meter,
                CLIENT_OPERATION_DURATION,
                "The duration of the MCP request or notification as observed on the sender \
                 from the time it was sent until the response or ack is received.",
            ),
            server_session: histogram(
                meter,
                SERVER_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP server.",
            ),
            client_session: histogram(
                meter,
                CLIENT_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP client.",
            ),
        }
    }

    fn histogram(&self, what: Measured) -> &Histogram<f64> {
        match what {
            Measured::ServerOperation => &self.server_operation,
            Measured::ClientOperation => &self.client_operation,
            Measured::ServerSession => &self.server_session,
            Measured::ClientSession => &self.client_session,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measured {
    ServerOperation,
    ClientOperation,
    ServerSession,
    ClientSession,
}

impl Measured {
    fn attributes(self) -> &'static [&'static str] {
        match self {
            Self::ServerOperation | Self::ClientOperation => OPERATION_ATTRIBUTES,
            Self::ServerSession | Self::ClientSession => SESSION_ATTRIBUTES,
        }
    }
}

/// Whether a span's fields make it one that is measured, by their names alone (the
/// values come with the span).
fn may_be_measured(metadata: &Metadata<'_>) -> bool {
    let fields = metadata.fields();
    fields.field(METHOD).is_some() || fields.field(SESSION_MARKER).is_some()
}

/// What the layer keeps in a measured span's extensions.
struct Timing {
    what: Measured,
    start: Instant,
    attributes: Vec<KeyValue>,
}

/// Reads a span's fields: the kind and the attributes to keep.
#[derive(Default)]
struct Fields {
    method: bool,
    kind: Option<String>,
    session: Option<String>,
    values: Vec<(&'static str, opentelemetry::Value)>,
}

impl Fields {
    fn keep(&mut self, field: &Field, value: opentelemetry::Value) {
        let name = field.name();
        match name {
            KIND => self.kind = Some(value.as_str().into_owned()),
            SESSION_MARKER => self.session = Some(value.as_str().into_owned()),
            _ => {
                if name == METHOD {
                    self.method = true;
                }
                if OPERATION_ATTRIBUTES.contains(&name) || SESSION_ATTRIBUTES.contains(&name) {
                    self.values.retain(|(n, _)| *n != name);
                    self.values.push((name, value));
                }
            }
        }
    }

    fn measured(&self) -> Option<Measured> {
        let side = |s: &str| s.eq_ignore_ascii_case("server");
        if let Some(session) = &self.session {
            return Some(if side(session) {
                Measured::ServerSession
            } else {
                Measured::ClientSession
            });
        }
        if !self.method {
            return None;
        }
        match self.kind.as_deref() {
            Some(k) if k.eq_ignore_ascii_case("server") => Some(Measured::ServerOperation),
            Some(k) if k.eq_ignore_ascii_case("client") => Some(Measured::ClientOperation),
            _ => None,
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.keep(field, value.to_owned().into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.keep(field, value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.keep(field, i64::try_from(value).unwrap_or(i64::MAX).into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.keep(field, value.into());
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.keep(field, value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.keep(field, format!("{value:?}").into());
    }
}

/// Replaces or adds the kept fields of `fields` in `attributes`.
fn merge(attributes: &mut Vec<KeyValue>, allowed: &[&str], fields: Fields) {
    for (name, value) in fields.values {
        if !allowed.contains(&name) {
            continue;
        }
        match attributes.iter_mut().find(|kv| kv.key.as_str() == name) {
            Some(kv) => kv.value = value,
            None => attributes.push(KeyValue::new(name, value)),
        }
    }
}

impl<S> Layer<S> for McpMetricsLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !may_be_measured(attrs.metadata()) {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let Some(what) = fields.measured() else {
            return;
        };
        let mut attributes = Vec::with_capacity(8);
        merge(&mut attributes, what.attributes(), fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Timing {
                what,
                start: Instant::now(),
                attributes,
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        let mut extensions = span.extensions_mut();
        if let Some(timing) = extensions.get_mut::<Timing>() {
            let mut fields = Fields::default();
            values.record(&mut fields);
            merge(&mut timing.attributes, timing.what.attributes(), fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        if let Some(timing) = span.extensions_mut().remove::<Timing>() {
            let seconds = timing.start.elapsed().as_secs_f64();
            self.histogram(timing.what)
                .record(seconds, &timing.attributes);
        }
    }
}

#[cfg(test)]
mod tests;
