use std::collections::BTreeMap;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use tracing_subscriber::layer::SubscriberExt as _;

use super::*;

/// One recorded series: the metric's name and unit, its attributes, its count and bounds.
#[derive(Debug, PartialEq)]
struct Series {
    name: String,
    unit: String,
    attributes: BTreeMap<String, String>,
    count: u64,
    bounds: Vec<f64>,
}

/// Runs `f` under a subscriber with the layer, then collects what it recorded.
fn recorded(f: impl FnOnce()) -> Vec<Series> {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    let layer = McpMetricsLayer::new(&provider.meter("test"));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    provider.force_flush().unwrap();
    let exported = exporter.get_finished_metrics().unwrap();
    let mut series = Vec::new();
    for rm in &exported {
        series.extend(histograms(rm));
    }
    series.sort_by(|a, b| a.name.cmp(&b.name));
    series
}

fn histograms(rm: &ResourceMetrics) -> Vec<Series> {
    let mut out = Vec::new();
    for scope in rm.scope_metrics() {
        for metric in scope.metrics() {
            let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() else {
                panic!("{} is not an f64 histogram", metric.name());
            };
            for point in h.data_points() {
                out.push(Series {
                    name: metric.name().to_owned(),
                    unit: metric.unit().to_owned(),
                    attributes: point
                        .attributes()
                        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                        .collect(),
                    count: point.count(),
                    bounds: point.bounds().collect(),
                });
            }
        }
    }
    out
}

fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_server_operation_is_measured_with_the_metric_attributes_only() {
    let series = recorded(|| {
        let span = tracing::info_span!(
            "mcp",
            otel.name = "tools/call echo",
            otel.kind = "server",
            "mcp.method.name" = "tools/call",
            "gen_ai.tool.name" = "echo",
            "gen_ai.operation.name" = "execute_tool",
            "mcp.protocol.version" = "2025-11-25",
            "network.transport" = "pipe",
            "jsonrpc.request.id" = "7",
            "mcp.session.id" = "abc",
            "mcp.resource.uri" = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
        );
        span.record("error.type", "tool_error");
    });
    assert_eq!(
        series,
        vec![Series {
            name: SERVER_OPERATION_DURATION.into(),
            unit: "s".into(),
            attributes: attrs(&[
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "echo"),
                ("gen_ai.operation.name", "execute_tool"),
                ("mcp.protocol.version", "2025-11-25"),
                ("network.transport", "pipe"),
                ("error.type", "tool_error"),
            ]),
            count: 1,
            bounds: DURATION_BUCKETS.to_vec(),
        }]
    );
}

#[test]
fn client_operations_and_both_sessions_have_their_histograms() {
    let series = recorded(|| {
        let session = tracing::info_span!(
            "mcp session",
            "mcp.session" = "server",
            "network.transport" = "tcp",
            "mcp.protocol.version" = tracing::field::Empty,
            "mcp.session.id" = "abc",
        );
        session.record("mcp.protocol.version", "2026-07-28");
        drop(session);
        let _client_session = tracing::info_span!("mcp session", "mcp.session" = "client");
        for _ in 0..2 {
            let _call = tracing::info_span!(
                "mcp",
                otel.kind = "client",
                "mcp.method.name" = "tools/list",
                "server.address" = "127.0.0.1",
                "server.port" = 8080_i64,
                "rpc.response.status_code" = "-32601",
                "error.type" = "-32601",
            );
        }
    });
    let summary: Vec<_> = series
        .iter()
        .map(|s| (s.name.as_str(), s.count, s.attributes.clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                CLIENT_OPERATION_DURATION,
                2,
                attrs(&[
                    ("mcp.method.name", "tools/list"),
                    ("server.address", "127.0.0.1"),
                    ("server.port", "8080"),
                    ("rpc.response.status_code", "-32601"),
                    ("error.type", "-32601"),
                ])
            ),
            (CLIENT_SESSION_DURATION, 1, attrs(&[])),
            (
                SERVER_SESSION_DURATION,
                1,
                attrs(&[
                    ("network.transport", "tcp"),
                    ("mcp.protocol.version", "2026-07-28"),
                ])
            ),
        ]
    );
}

#[test]
fn other_spans_are_not_measured() {
    let series = recorded(|| {
        let _plain = tracing::info_span!("work", "network.transport" = "tcp");
        // A method but no kind: not an operation span of the conventions.
        let _kindless = tracing::info_span!("x", "mcp.method.name" = "tools/list");
        let _internal = tracing::info_span!(
            "x",
            otel.kind = "internal",
            "mcp.method.name" = "tools/list"
        );
    });
    assert_eq!(series, vec![]);
}
