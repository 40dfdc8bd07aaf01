use mcp_jsonrpc::trace::TraceParent;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;

use super::*;

const TRACEPARENT_TEXT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// The propagator `init` sets; every test sets the same one (it is process-wide).
fn propagator() {
    opentelemetry::global::set_text_map_propagator(
        opentelemetry::propagation::TextMapCompositePropagator::new(vec![
            Box::new(opentelemetry_sdk::propagation::TraceContextPropagator::new()),
            Box::new(opentelemetry_sdk::propagation::BaggagePropagator::new()),
        ]),
    );
}

fn received() -> TraceContext {
    TraceContext::new(TraceParent::parse(TRACEPARENT_TEXT).unwrap())
        .with_tracestate("rojo=00f067aa0ba902b7")
        .with_baggage("userId=alice")
}

/// Runs `f` under a subscriber with the OpenTelemetry layer over an in-memory exporter, and
/// returns what it exported.
fn recording(f: impl FnOnce()) -> Vec<SpanData> {
    propagator();
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), f);
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {spans:#?}"))
}

#[test]
fn a_received_context_is_the_parent_and_the_ambient_span_a_link() {
    let spans = recording(|| {
        let outer = tracing::info_span!("http request");
        let _entered = outer.enter();
        let span = tracing::info_span!("tools/call", otel.kind = "server");
        OtelPropagator.set_parent(&span, &received());
        span.in_scope(|| {
            // What a reply or a nested request would send on: the same trace, this span.
            let sent = OtelPropagator.context(&span).expect("a context");
            assert_eq!(
                sent.traceparent().trace_id(),
                received().traceparent().trace_id()
            );
            assert_eq!(sent.tracestate(), Some("rojo=00f067aa0ba902b7"));
            assert_eq!(sent.baggage(), Some("userId=alice"));
        });
    });
    let server = named(&spans, "tools/call");
    let outer = named(&spans, "http request");
    assert_eq!(
        server.span_context.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(server.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert!(server.parent_span_is_remote);
    assert_eq!(
        server.span_context.trace_state().header(),
        "rojo=00f067aa0ba902b7"
    );
    let links: Vec<_> = server
        .links
        .iter()
        .map(|l| l.span_context.clone())
        .collect();
    assert_eq!(links, vec![outer.span_context.clone()]);
}

#[test]
fn a_started_span_keeps_its_parent() {
    let spans = recording(|| {
        let outer = tracing::info_span!("outer");
        let _entered = outer.enter();
        let span = tracing::info_span!("tools/list");
        span.in_scope(|| {});
        OtelPropagator.set_parent(&span, &received());
    });
    let inner = named(&spans, "tools/list");
    assert_eq!(
        inner.parent_span_id,
        named(&spans, "outer").span_context.span_id()
    );
    assert!(inner.links.is_empty());
}

#[test]
fn a_sending_span_gives_its_own_context() {
    let mut sent = None;
    let spans = recording(|| {
        let span = tracing::info_span!("tools/call echo", otel.kind = "client");
        sent = OtelPropagator.context(&span);
    });
    let client = &named(&spans, "tools/call echo").span_context;
    let sent = sent.expect("a context");
    assert_eq!(
        sent.get(TRACEPARENT),
        Some(format!("00-{}-{}-01", client.trace_id(), client.span_id()).as_str())
    );
    assert_eq!(sent.tracestate(), None);
    assert_eq!(sent.baggage(), None);
}

#[test]
fn without_an_opentelemetry_layer_nothing_happens() {
    propagator();
    let span = tracing::info_span!("tools/call");
    OtelPropagator.set_parent(&span, &received());
    assert_eq!(OtelPropagator.context(&span), None);
}
