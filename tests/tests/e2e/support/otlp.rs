//! An OTLP/HTTP receiver on 127.0.0.1: what a server under test exports with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` pointed at it, decoded from protobuf with the
//! `opentelemetry-proto` messages and kept for the test to look at.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use prost::Message as _;
use tokio::task::JoinHandle;

/// One exported span, its ids in lowercase hex.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    pub(crate) name: String,
    /// `SpanKind` of the protocol: 2 is SERVER, 3 is CLIENT.
    pub(crate) kind: i32,
    pub(crate) trace_id: String,
    /// Empty for a root span.
    pub(crate) parent_span_id: String,
    pub(crate) attributes: BTreeMap<String, String>,
    /// The status code (0 unset, 1 ok, 2 error) and message.
    pub(crate) status: (i32, String),
    /// The `service.name` of the resource that exported it.
    pub(crate) service: String,
    /// The instrumentation scope's name.
    pub(crate) scope: String,
}

/// One histogram data point as exported (cumulative: each export repeats the series).
#[derive(Debug, Clone)]
pub(crate) struct Point {
    pub(crate) metric: String,
    pub(crate) unit: String,
    pub(crate) attributes: BTreeMap<String, String>,
    pub(crate) count: u64,
    pub(crate) bounds: Vec<f64>,
    pub(crate) service: String,
}

#[derive(Debug, Default)]
struct Received {
    spans: Vec<Span>,
    points: Vec<Point>,
    /// Request bodies that did not decode, or metrics that are not histograms.
    problems: Vec<String>,
}

/// The receiver, stopped when dropped.
pub(crate) struct OtlpReceiver {
    /// `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub(crate) endpoint: String,
    received: Arc<Mutex<Received>>,
    task: JoinHandle<()>,
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn attributes(kvs: &[KeyValue]) -> BTreeMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn service(resource: Option<&opentelemetry_proto::tonic::resource::v1::Resource>) -> String {
    resource
        .map(|r| attributes(&r.attributes))
        .and_then(|mut a| a.remove("service.name"))
        .unwrap_or_default()
}

fn protobuf(body: Vec<u8>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/x-protobuf")], body)
}

async fn traces(
    State(received): State<Arc<Mutex<Received>>>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    let mut received = received.lock().expect("receiver lock");
    let content_type = headers.get(header::CONTENT_TYPE).cloned();
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => {
            received
                .problems
                .push(format!("/v1/traces ({content_type:?}): {e}"));
            return StatusCode::BAD_REQUEST.into_response();
        }
    };
    for rs in &request.resource_spans {
        let service = service(rs.resource.as_ref());
        for ss in &rs.scope_spans {
            let scope = ss
                .scope
                .as_ref()
                .map(|s| s.name.clone())
                .unwrap_or_default();
            for s in &ss.spans {
                received.spans.push(Span {
                    name: s.name.clone(),
                    kind: s.kind,
                    trace_id: hex(&s.trace_id),
                    parent_span_id: hex(&s.parent_span_id),
                    attributes: attributes(&s.attributes),
                    status: s
                        .status
                        .as_ref()
                        .map(|st| (st.code, st.message.clone()))
                        .unwrap_or_default(),
                    service: service.clone(),
                    scope: scope.clone(),
                });
            }
        }
    }
    protobuf(ExportTraceServiceResponse::default().encode_to_vec()).into_response()
}

async fn metrics(
    State(received): State<Arc<Mutex<Received>>>,
    body: Bytes,
) -> axum::response::Response {
    let mut received = received.lock().expect("receiver lock");
    let request = match ExportMetricsServiceRequest::decode(body) {
        Ok(request) => request,
        Err(e) => {
            received.problems.push(format!("/v1/metrics: {e}"));
            return StatusCode::BAD_REQUEST.into_response();
        }
    };
    for rm in &request.resource_metrics {
        let service = service(rm.resource.as_ref());
        for sm in &rm.scope_metrics {
            for m in &sm.metrics {
                let Some(metric::Data::Histogram(h)) = &m.data else {
                    received
                        .problems
                        .push(format!("{} is not a histogram: {:?}", m.name, m.data));
                    continue;
                };
                for p in &h.data_points {
                    received.points.push(Point {
                        metric: m.name.clone(),
                        unit: m.unit.clone(),
                        attributes: attributes(&p.attributes),
                        count: p.count,
                        bounds: p.explicit_bounds.clone(),
                        service: service.clone(),
                    });
                }
            }
        }
    }
    protobuf(ExportMetricsServiceResponse::default().encode_to_vec()).into_response()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl OtlpReceiver {
    /// Listens on 127.0.0.1, port 0, at `/v1/traces` and `/v1/metrics`.
    pub(crate) async fn start() -> OtlpReceiver {
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .with_state(received.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the OTLP receiver");
        let endpoint = format!(
            "http://{}",
            listener.local_addr().expect("the receiver's address")
        );
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the OTLP receiver failed");
        });
        OtlpReceiver {
            endpoint,
            received,
            task,
        }
    }

    /// The spans received so far.
    pub(crate) fn spans(&self) -> Vec<Span> {
        self.received.lock().expect("receiver lock").spans.clone()
    }

    /// The histogram points received so far.
    pub(crate) fn points(&self) -> Vec<Point> {
        self.received.lock().expect("receiver lock").points.clone()
    }

    /// What could not be read, if anything.
    pub(crate) fn problems(&self) -> Vec<String> {
        self.received
            .lock()
            .expect("receiver lock")
            .problems
            .clone()
    }

    /// Waits (up to `limit`) until `done` holds for what was received; panics with what was
    /// received otherwise.
    pub(crate) async fn wait_for(
        &self,
        what: &str,
        limit: Duration,
        done: impl Fn(&[Span], &[Point]) -> bool,
    ) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            {
                let r = self.received.lock().expect("receiver lock");
                if done(&r.spans, &r.points) {
                    return;
                }
                if tokio::time::Instant::now() >= deadline {
                    panic!(
                        "the OTLP receiver did not get {what} within {limit:?}; it got spans \
                         {:#?}\npoints {:#?}\nproblems {:?}",
                        r.spans, r.points, r.problems
                    );
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
