//! OpenTelemetry interop (issue 40), both protocol eras, over stdio and Streamable HTTP:
//!
//! - The Python SDK client with OpenTelemetry on (`tests/peers/python_otel_client.py`: its
//!   SDK's in-memory exporter; it sends W3C trace context in `_meta`) calls the `otel-server`
//!   example, which exports OTLP over HTTP to a receiver this test runs on 127.0.0.1
//!   (`support::otlp`, decoding the protobuf with `opentelemetry-proto`). Our server's spans
//!   must continue the Python client's (same trace id, the client span as parent) with the
//!   conventions' names and attributes, and its metrics must be the conventions' histograms
//!   with their attributes.
//! - Our client, with `mcp-client`'s `otel` layer over in-memory exporters in this process,
//!   calls the Python SDK server with OpenTelemetry on (`tests/peers/python_otel_server.py`,
//!   which writes its spans as JSON lines): the Python server's span must continue our
//!   client span's trace.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcp_client::{Client, EraChoice};
use mcp_transport_stdio::ChildProcessTransport;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tokio::process::Command;
use tracing::Instrument as _;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::http_support::{HttpServer, close};
use crate::support::bins::otel_server;
use crate::support::client::{WAIT, within};
use crate::support::otlp::{OtlpReceiver, Point, Span};
use crate::support::peers::peers;
use crate::support::{output_within, peers_dir};

/// The two eras: the Python client's `--mode`, our client's choice, and the revision each
/// settles on.
const ERAS: [(&str, EraChoice, &str); 2] = [
    ("legacy", EraChoice::Legacy, "2025-11-25"),
    ("2026-07-28", EraChoice::Modern, "2026-07-28"),
];

/// `OTEL_SERVICE_NAME` of the server under test.
const SERVICE: &str = "otel-interop";

/// The conventions' bucket boundaries.
const BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The OpenTelemetry environment of a server exporting to `receiver`: short export
/// intervals, so that the test need not stop it to see its telemetry.
fn otel_env(receiver: &OtlpReceiver) -> [(&'static str, String); 5] {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.clone()),
        ("OTEL_SERVICE_NAME", SERVICE.to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
        ("OTEL_METRIC_EXPORT_INTERVAL", "200".to_owned()),
        ("RUST_LOG", "warn".to_owned()),
    ]
}

/// The Python client's span named `name`.
fn python_span<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["spans"]
        .as_array()
        .and_then(|spans| spans.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("the Python client has no span {name:?}: {report:#}"))
}

/// `(key, value)` pairs as a map, for comparing attributes.
fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// `wanted` is a subset of `got`.
fn has_all(got: &BTreeMap<String, String>, wanted: &BTreeMap<String, String>) -> bool {
    wanted.iter().all(|(k, v)| got.get(k) == Some(v))
}

/// Runs `python_otel_client.py` with `args` (its environment: `env`) and returns its report,
/// which must list no errors.
async fn python_client(
    args: &[&str],
    target: &[&std::ffi::OsStr],
    env: &[(&str, String)],
) -> Value {
    let mut cmd = Command::new(&peers().python);
    cmd.arg(peers_dir().join("python_otel_client.py"))
        .args(args)
        .args(target)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let output = output_within("python_otel_client.py", Duration::from_secs(60), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "python_otel_client.py printed no JSON report ({e}); status {}\nstderr:\n{stderr}",
            output.status
        )
    });
    assert_eq!(report["errors"], json!([]), "stderr:\n{stderr}");
    assert!(output.status.success(), "status {}", output.status);
    report
}

/// What the receiver must have from our server for one run of the Python client: the
/// server spans of `tools/list`, `tools/call echo` and the unknown tool, each the child of
/// the Python client's span that sent it, and the operation histograms.
async fn check_server_telemetry(receiver: &OtlpReceiver, report: &Value, version: &str) {
    let sent_echo = python_span(report, "MCP send tools/call echo");
    let sent_list = python_span(report, "MCP send tools/list");
    let sent_unknown = python_span(report, "MCP send tools/call no_such_tool");
    let trace_id = sent_echo["traceId"]
        .as_str()
        .expect("a trace id")
        .to_owned();
    let child_of = |span: &Span, sent: &Value| {
        span.trace_id == sent["traceId"].as_str().unwrap_or_default()
            && span.parent_span_id == sent["spanId"].as_str().unwrap_or_default()
    };
    let echo_metric = attrs(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", version),
    ]);
    receiver
        .wait_for(
            &format!("our server's spans of trace {trace_id} and its metrics"),
            Duration::from_secs(30),
            |spans, points| {
                [sent_echo, sent_list, sent_unknown]
                    .iter()
                    .all(|sent| spans.iter().any(|s| child_of(s, sent)))
                    && points.iter().any(|p| {
                        p.metric == "mcp.server.operation.duration"
                            && has_all(&p.attributes, &echo_metric)
                    })
            },
        )
        .await;
    let spans = receiver.spans();
    let ours = |sent: &Value| -> Span {
        let found: Vec<&Span> = spans.iter().filter(|s| child_of(s, sent)).collect();
        assert_eq!(found.len(), 1, "one server span under {sent}: {found:#?}");
        found[0].clone()
    };

    // tools/call echo: the conventions' name, kind, attributes; a success.
    let echo = ours(sent_echo);
    assert_eq!(echo.name, "tools/call echo", "{echo:#?}");
    assert_eq!(echo.kind, 2, "SERVER: {echo:#?}");
    assert_eq!(
        (echo.service.as_str(), echo.scope.as_str()),
        (SERVICE, "mcp-rs")
    );
    let request_id = sent_echo["attributes"]["jsonrpc.request.id"]
        .as_str()
        .expect("the Python span's request id");
    assert!(
        has_all(
            &echo.attributes,
            &attrs(&[
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "echo"),
                ("gen_ai.operation.name", "execute_tool"),
                ("mcp.protocol.version", version),
                ("jsonrpc.request.id", request_id),
            ])
        ),
        "{echo:#?}"
    );
    assert!(!echo.attributes.contains_key("error.type"), "{echo:#?}");
    assert_ne!(echo.status.0, 2, "not an error: {echo:#?}");

    // tools/list.
    let list = ours(sent_list);
    assert_eq!(
        (list.name.as_str(), list.kind),
        ("tools/list", 2),
        "{list:#?}"
    );
    assert_eq!(
        list.attributes.get("mcp.method.name").map(String::as_str),
        Some("tools/list")
    );
    assert!(
        !list.attributes.contains_key("gen_ai.operation.name"),
        "{list:#?}"
    );

    // An unknown tool is the caller's mistake: the code is recorded, not an error.
    assert_eq!(report["unknown"]["code"], -32602, "{report:#}");
    let unknown = ours(sent_unknown);
    assert_eq!(unknown.name, "tools/call no_such_tool", "{unknown:#?}");
    assert_eq!(
        unknown
            .attributes
            .get("rpc.response.status_code")
            .map(String::as_str),
        Some("-32602"),
        "{unknown:#?}"
    );
    assert!(
        !unknown.attributes.contains_key("error.type"),
        "{unknown:#?}"
    );
    assert_ne!(unknown.status.0, 2, "not an error: {unknown:#?}");

    // The operation histogram: seconds, the conventions' buckets, the metric attributes
    // (no request or session ids: one series per method and tool, not per request).
    let points = receiver.points();
    let echo_points: Vec<&Point> = points
        .iter()
        .filter(|p| {
            p.metric == "mcp.server.operation.duration" && has_all(&p.attributes, &echo_metric)
        })
        .collect();
    let echo_point = echo_points.last().expect("waited for above");
    assert_eq!(echo_point.unit, "s");
    assert_eq!(echo_point.bounds, BUCKETS);
    assert_eq!(echo_point.service, SERVICE);
    assert!(echo_point.count >= 1, "{echo_point:#?}");
    for key in [
        "jsonrpc.request.id",
        "mcp.session.id",
        "mcp.resource.uri",
        "error.type",
    ] {
        assert!(!echo_point.attributes.contains_key(key), "{echo_point:#?}");
    }
    assert!(
        points
            .iter()
            .any(|p| p.metric == "mcp.server.operation.duration"
                && p.attributes.get("gen_ai.tool.name").map(String::as_str)
                    == Some("no_such_tool")
                && p.attributes
                    .get("rpc.response.status_code")
                    .map(String::as_str)
                    == Some("-32602")),
        "{points:#?}"
    );
    assert_eq!(receiver.problems(), Vec::<String>::new());
}

/// The server's session histogram, once the sessions it served have ended: a series in
/// seconds with the conventions' buckets; of revision `version` for a legacy session (a
/// 2026-07-28 session negotiates no revision: each request names its own).
async fn check_session_metric(receiver: &OtlpReceiver, version: &str) {
    let negotiated = (version != "2026-07-28").then_some(version);
    receiver
        .wait_for(
            &format!("mcp.server.session.duration ({version})"),
            Duration::from_secs(30),
            |_, points| {
                points.iter().any(|p| {
                    p.metric == "mcp.server.session.duration"
                        && p.unit == "s"
                        && p.bounds == BUCKETS
                        && p.attributes.get("mcp.protocol.version").map(String::as_str)
                            == negotiated
                })
            },
        )
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_client_trace_continues_into_our_server_over_stdio() {
    for (mode, _, version) in ERAS {
        let receiver = OtlpReceiver::start().await;
        let env = otel_env(&receiver);
        let server = otel_server();
        // The Python client passes its environment on to the server it starts.
        let report = python_client(&["--mode", mode, "--"], &[server.as_os_str()], &env).await;
        assert_eq!(report["server"]["protocolVersion"], version, "{report:#}");
        assert_eq!(report["echo"]["content"][0]["text"], "traced", "{report:#}");
        check_server_telemetry(&receiver, &report, version).await;
        // The server exited when the client closed its stdin, ending the session.
        check_session_metric(&receiver, version).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_client_trace_continues_into_our_server_over_http() {
    for (mode, _, version) in ERAS {
        let receiver = OtlpReceiver::start().await;
        let mut command = Command::new(otel_server());
        command
            .args(["--http", "127.0.0.1:0"])
            .envs(otel_env(&receiver));
        let server = HttpServer::announced("otel-server", command).await;
        let url = format!("{}/mcp", server.base);
        let report = python_client(&["--mode", mode, "--http", &url], &[], &[]).await;
        assert_eq!(report["server"]["protocolVersion"], version, "{report:#}");
        assert_eq!(report["echo"]["content"][0]["text"], "traced", "{report:#}");
        check_server_telemetry(&receiver, &report, version).await;
        check_session_metric(&receiver, version).await;
    }
}

/// Our client's OpenTelemetry, in this process: `mcp_client::otel::layer` over in-memory
/// exporters, the W3C propagator, and `OtelPropagator` installed (once per process; other
/// tests' spans are disabled, having no subscriber, so it never runs for them).
struct InProcess {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
}

impl InProcess {
    fn new() -> InProcess {
        mcp_client::otel::opentelemetry::global::set_text_map_propagator(
            mcp_client::otel::opentelemetry_sdk::propagation::TraceContextPropagator::new(),
        );
        mcp_client::otel::install_propagator();
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let tracer_provider = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        InProcess {
            spans,
            metrics,
            tracer_provider,
            meter_provider,
        }
    }

    /// The subscriber, for `tracing::subscriber::set_default` on this test's one thread.
    fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync + 'static {
        tracing_subscriber::registry().with(mcp_client::otel::layer(
            &self.tracer_provider,
            &self.meter_provider,
        ))
    }

    fn finished(&self) -> Vec<SpanData> {
        self.spans.get_finished_spans().expect("in-memory spans")
    }

    /// The data points of histogram `name`: their attributes and counts.
    fn histogram(&self, name: &str) -> Vec<(BTreeMap<String, String>, u64)> {
        self.meter_provider
            .force_flush()
            .expect("flushing the metrics");
        let mut out = Vec::new();
        for rm in self
            .metrics
            .get_finished_metrics()
            .expect("in-memory metrics")
        {
            for sm in rm.scope_metrics() {
                for m in sm.metrics().filter(|m| m.name() == name) {
                    if let AggregatedMetrics::F64(MetricData::Histogram(h)) = m.data() {
                        out.extend(h.data_points().map(|p| {
                            let a = p
                                .attributes()
                                .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                                .collect();
                            (a, p.count())
                        }));
                    }
                }
            }
        }
        out
    }
}

/// The Python server's spans, from its JSON-lines file, once one of them has `name`.
async fn python_server_spans(file: &Path, name: &str) -> Vec<Value> {
    let read = async {
        loop {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let spans: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            if spans.iter().any(|s| s["name"] == name) {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    within(&format!("the Python server's span {name:?}"), read).await
}

/// Calls `echo` inside an application span of its own, so that each leg's spans form a
/// trace of their own; returns that trace's id.
async fn traced_echo(client: &Client, leg: &str) -> String {
    let turn = tracing::info_span!("host turn", leg);
    let trace_id = {
        use mcp_client::otel::opentelemetry::trace::TraceContextExt as _;
        use mcp_client::otel::tracing_opentelemetry::OpenTelemetrySpanExt as _;
        turn.context().span().span_context().trace_id().to_string()
    };
    let result = within(
        "echo",
        client
            .call_tool(("echo", json!({"message": "traced"})))
            .instrument(turn),
    )
    .await
    .unwrap_or_else(|e| panic!("{leg}: echo failed: {e}"));
    assert_eq!(result.content[0].as_text(), Some("Echo: traced"), "{leg}");
    trace_id
}

/// Our `tools/call echo` span of trace `trace_id`, and its check against the Python
/// server's span of the same call.
fn check_client_span(otel: &InProcess, trace_id: &str, python: &[Value], leg: &str, version: &str) {
    let finished = otel.finished();
    let ours: Vec<&SpanData> = finished
        .iter()
        .filter(|s| {
            s.span_context.trace_id().to_string() == trace_id && s.name == "tools/call echo"
        })
        .collect();
    assert_eq!(ours.len(), 1, "{leg}: one client span: {finished:#?}");
    let ours = ours[0];
    assert_eq!(
        ours.span_kind,
        mcp_client::otel::opentelemetry::trace::SpanKind::Client,
        "{leg}"
    );
    let attributes: BTreeMap<String, String> = ours
        .attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect();
    assert!(
        has_all(
            &attributes,
            &attrs(&[
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "echo"),
                ("gen_ai.operation.name", "execute_tool"),
                ("mcp.protocol.version", version),
            ])
        ),
        "{leg}: {attributes:#?}"
    );
    let theirs: Vec<&Value> = python
        .iter()
        .filter(|s| s["name"] == "tools/call echo" && s["traceId"] == trace_id)
        .collect();
    assert_eq!(
        theirs.len(),
        1,
        "{leg}: one Python server span: {python:#?}"
    );
    let theirs = theirs[0];
    assert_eq!(theirs["kind"], "SERVER", "{leg}");
    assert_eq!(
        theirs["parentSpanId"],
        ours.span_context.span_id().to_string(),
        "{leg}: the Python server span's parent is our client span"
    );
    assert_eq!(theirs["parentIsRemote"], true, "{leg}");
    assert_eq!(
        theirs["attributes"]["mcp.protocol.version"], version,
        "{leg}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn our_client_trace_continues_into_the_python_sdk_server() {
    let otel = InProcess::new();
    // Every future of this test runs on this thread: the subscriber sees all our spans.
    let _subscriber = tracing::subscriber::set_default(otel.subscriber());
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (_, era, version) in ERAS {
        // Over stdio.
        let leg = format!("stdio {version}");
        let file = dir.path().join(format!("stdio-{version}.jsonl"));
        let transport = ChildProcessTransport::builder(&peers().python)
            .arg(peers_dir().join("python_otel_server.py"))
            .arg("--spans")
            .arg(&file)
            .spawn()
            .expect("spawning python_otel_server.py");
        let process = transport.handle();
        let connect = Client::builder()
            .era(era)
            .request_timeout(Some(WAIT))
            .connect(transport);
        let (client, connection) = within("connecting", connect).await.expect("connected");
        let connection = tokio::spawn(connection);
        assert_eq!(client.protocol_version().as_str(), version, "{leg}");
        let trace_id = traced_echo(&client, &leg).await;
        let python = python_server_spans(&file, "tools/call echo").await;
        check_client_span(&otel, &trace_id, &python, &leg, version);
        close(client, connection).await;
        within("the Python server to exit", process.exited()).await;

        // Over Streamable HTTP.
        let leg = format!("http {version}");
        let file = dir.path().join(format!("http-{version}.jsonl"));
        let server = HttpServer::peer(
            &peers().python,
            &[
                peers_dir().join("python_otel_server.py").as_os_str(),
                "--spans".as_ref(),
                file.as_os_str(),
            ],
        )
        .await;
        let transport = mcp_transport_http::client::StreamableHttpClientTransport::new(format!(
            "{}/mcp",
            server.base
        ))
        .expect("client transport");
        let connect = Client::builder()
            .era(era)
            .request_timeout(Some(WAIT))
            .connect(transport);
        let (client, connection) = within("connecting", connect).await.expect("connected");
        let connection = tokio::spawn(connection);
        assert_eq!(client.protocol_version().as_str(), version, "{leg}");
        let trace_id = traced_echo(&client, &leg).await;
        let python = python_server_spans(&file, "tools/call echo").await;
        check_client_span(&otel, &trace_id, &python, &leg, version);
        close(client, connection).await;
    }

    // The client's histograms: every call timed, every session too once it ended.
    let calls = otel.histogram("mcp.client.operation.duration");
    let echo = attrs(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
    ]);
    let echoes: u64 = calls
        .iter()
        .filter(|(a, _)| has_all(a, &echo))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(echoes, 4, "{calls:#?}");
    for (a, _) in &calls {
        assert!(!a.contains_key("jsonrpc.request.id"), "{calls:#?}");
    }
    let sessions = otel.histogram("mcp.client.session.duration");
    assert!(
        sessions.iter().map(|(_, n)| n).sum::<u64>() >= 4,
        "{sessions:#?}"
    );
}
