use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use expect_test::expect;
use proptest::prelude::*;
use serde_json::json;
use serde_json::value::RawValue;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id as SpanId, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};

use super::w3c::{valid_baggage, valid_tracestate};
use super::*;
use crate::error::ErrorObject;
use crate::message::Id;
use crate::transport::{ConnectionInfo, SessionIdCell};

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn raw(value: serde_json::Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).unwrap()
}

#[test]
fn a_traceparent_reads_and_writes_back() {
    let parent = TraceParent::parse(PARENT).unwrap();
    assert_eq!(parent.trace_id()[0], 0x4b);
    assert_eq!(parent.flags(), 1);
    assert_eq!(parent.to_string(), PARENT);
    let unsampled = TraceParent::parse(&PARENT.replace("-01", "-00")).unwrap();
    assert!(!unsampled.sampled());
}

#[test]
fn what_is_not_a_traceparent() {
    for bad in [
        "",
        "00",
        // Uppercase hex.
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        // All-zero trace id, parent id.
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        // Version ff, version 00 with more after it, a later version without a dash after.
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
        // Short fields, wrong separators, non-hex, surrounding space.
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-011",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
        // Multi-byte characters where hex digits go.
        "00-4bf92f3577b34da6a3ce929d0e0e47é-00f067aa0ba902b7-01",
    ] {
        assert_eq!(TraceParent::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn a_later_version_is_read_by_its_first_fields_and_written_as_00() {
    let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what-comes-next";
    let parent = TraceParent::parse(later).unwrap();
    assert_eq!(parent.to_string(), PARENT.replace("-01", "-09"));
    assert!(TraceParent::parse(&later[..55]).is_some());
}

#[test]
fn tracestate_follows_its_grammar() {
    for good in [
        "rojo=00f067aa0ba902b7",
        "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
        "rojo=1 , ,congo=2",
        "tenant1@vendor=x",
        "a*b/c_d-e=value with spaces",
    ] {
        assert!(valid_tracestate(good), "{good:?}");
    }
    let too_many = (0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>();
    let just_enough = &too_many[..32];
    assert!(valid_tracestate(&just_enough.join(",")));
    for bad in [
        "Rojo=1",
        "rojo",
        "rojo=",
        "rojo=a,rojo=b",
        "rojo=a\tb",
        "rojo=a=b",
        "1abc=x",
        "tenant@=x",
        "tenant@Vendor=x",
        &too_many.join(","),
    ] {
        assert!(!valid_tracestate(bad), "{bad:?}");
    }
}

#[test]
fn invalid_state_and_baggage_are_dropped_an_invalid_parent_drops_all() {
    let fields = |p: &'static str, s: &'static str, b: &'static str| {
        move |key: &str| match key {
            TRACEPARENT => Some(p),
            TRACESTATE => Some(s),
            _ => Some(b),
        }
    };
    let read = TraceContext::from_fields(fields(PARENT, "x=1", "user=alice")).unwrap();
    assert_eq!(read.tracestate(), Some("x=1"));
    assert_eq!(read.baggage(), Some("user=alice"));
    let read = TraceContext::from_fields(fields(PARENT, "X=1", "no equals sign")).unwrap();
    assert_eq!((read.tracestate(), read.baggage()), (None, None));
    assert_eq!(read.get(TRACEPARENT), Some(PARENT));
    assert!(TraceContext::from_fields(fields("00-bad", "x=1", "a=b")).is_none());
    assert!(valid_baggage(
        "userId=alice,serverNode=DF%2028,isProduction=false"
    ));
    assert!(!valid_baggage(&format!("k={}", "v".repeat(8192))));
    assert!(!valid_baggage("k=\u{7f}"));
}

#[test]
fn a_peek_reads_name_uri_and_the_context() {
    let peek = Peek::of(Some(&raw(json!({
        "name": "get-weather",
        "arguments": {"name": "not this one"},
        "_meta": {"traceparent": PARENT, "tracestate": "rojo=1", "progressToken": 3}
    }))));
    assert_eq!(peek.name.as_deref(), Some("get-weather"));
    assert_eq!(peek.uri, None);
    let context = peek.context.unwrap();
    assert_eq!(context.traceparent().to_string(), PARENT);
    assert_eq!(context.tracestate(), Some("rojo=1"));

    let peek = Peek::of(Some(&raw(
        json!({"uri": "file:///a", "_meta": {"traceparent": 7}}),
    )));
    assert_eq!(peek.uri.as_deref(), Some("file:///a"));
    assert!(peek.context.is_none());
    // Whatever does not read is left out; nothing fails.
    for odd in [json!([1, 2]), json!({"name": 1, "_meta": []}), json!(null)] {
        let peek = Peek::of(Some(&raw(odd)));
        assert!(peek.name.is_none() && peek.context.is_none());
    }
    assert!(Peek::of(None).context.is_none());
}

#[test]
fn inject_writes_the_context_into_meta_and_keeps_what_is_there() {
    let context = TraceContext::new(TraceParent::parse(PARENT).unwrap()).with_tracestate("a=b");
    let params = inject(
        Some(raw(
            json!({"name": "x", "_meta": {"progressToken": 1, "tracestate": "mine=1"}}),
        )),
        &context,
    );
    expect![[r#"{"_meta":{"progressToken":1,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"mine=1"},"name":"x"}"#]]
        .assert_eq(params.unwrap().get());
    let params = inject(None, &context).unwrap();
    let value: serde_json::Value = serde_json::from_str(params.get()).unwrap();
    assert_eq!(value["_meta"]["tracestate"], "a=b");
    let params = inject(Some(raw(json!(null))), &context).unwrap();
    assert!(params.get().starts_with(r#"{"_meta":{"traceparent":"#));
    // Params that cannot carry it are sent as they are.
    assert_eq!(
        inject(Some(raw(json!([1]))), &context).unwrap().get(),
        "[1]"
    );
    let kept = inject(Some(raw(json!({"_meta": 5}))), &context).unwrap();
    assert_eq!(kept.get(), r#"{"_meta":5}"#);
}

proptest! {
    #[test]
    fn a_traceparent_round_trips(
        trace_id in any::<[u8; 16]>(),
        parent_id in any::<[u8; 8]>(),
        flags in any::<u8>(),
    ) {
        if let Some(parent) = TraceParent::new(trace_id, parent_id, flags) {
            prop_assert_eq!(TraceParent::parse(&parent.to_string()), Some(parent));
        } else {
            prop_assert!(trace_id == [0; 16] || parent_id == [0; 8]);
        }
    }

    #[test]
    fn parsing_never_panics(text in ".{0,80}") {
        let _ = TraceParent::parse(&text);
        let _ = valid_tracestate(&text);
        let _ = valid_baggage(&text);
    }
}

// ---- the spans' fields ------------------------------------------------------------------

/// A span's name and the fields it ended with.
type Captured = (&'static str, BTreeMap<String, String>);

/// The spans made, in order.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &SpanId, _: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        fields.insert("#id".to_owned(), id.into_u64().to_string());
        attrs.record(&mut Fields(&mut fields));
        self.0
            .lock()
            .unwrap()
            .push((attrs.metadata().name(), fields));
    }
    fn on_record(&self, id: &SpanId, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        let id = id.into_u64().to_string();
        if let Some((_, fields)) = spans.iter_mut().find(|(_, f)| f["#id"] == id) {
            values.record(&mut Fields(fields));
        }
    }
}

impl Capture {
    fn take(&self) -> Vec<Captured> {
        let mut spans = std::mem::take(&mut *self.0.lock().unwrap());
        for (_, fields) in &mut spans {
            fields.remove("#id");
        }
        spans
    }
}

fn captured(f: impl FnOnce()) -> Vec<Captured> {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, f);
    capture.take()
}

#[test]
fn without_a_subscriber_the_span_is_disabled_and_does_nothing() {
    let mut span = OperationSpan::new(Side::Receiver, "tools/call");
    assert!(!span.is_enabled());
    span.describe("tools/call", Target::Tool("x"), Some(&Id::Number(1)), None);
    span.record_reply(Err(&ErrorObject::internal_error("boom")));
    assert!(span.context().is_none());
    assert!(SessionSpan::client().span().is_disabled());
    // Nothing is asked of the transport, and nothing recorded.
    assert!(!OperationSpan::wanted_for_connection());
    let connection = ConnectionInfo::new().with_session_id(SessionIdCell::fixed("4f7c"));
    assert!(!span.record_connection(&connection));
    assert!(!SessionSpan::server().record_connection(&connection));
}

/// What the transport says of the connection: `network.*` and the session id on every
/// span; the peer's address where the span declares it (the client's on a receiver span,
/// the server's on a sender span and on the client's session span).
#[test]
fn the_connection_is_recorded_as_each_span_declares_it() {
    let cell = SessionIdCell::new();
    let connection = ConnectionInfo::new()
        .with_network_transport("tcp")
        .with_network_protocol("http", Some("1.1"))
        .with_server("mcp.example.com", Some(443))
        .with_client_socket("[::ffff:127.0.0.1]:51234".parse().unwrap())
        .with_session_id(cell.clone());
    let spans = captured(|| {
        assert!(OperationSpan::wanted_for_connection());
        let receiver = OperationSpan::new(Side::Receiver, "tools/list");
        // No session yet: an HTTP client learns it from the answer to `initialize`.
        assert!(!receiver.record_connection(&connection));
        cell.set(Some("4f7c"));
        assert!(receiver.record_session_id(&connection));
        let sender = OperationSpan::new(Side::Sender, "tools/list");
        assert!(sender.record_connection(&connection));
        for session in [SessionSpan::server(), SessionSpan::client()] {
            assert!(session.record_connection(&connection));
        }
        // A transport that knows nothing leaves the fields empty.
        let bare = OperationSpan::new(Side::Sender, "ping");
        assert!(!bare.record_connection(&ConnectionInfo::default()));
    });
    expect![[r#"
        [
            (
                "mcp.server",
                {
                    "client.address": "127.0.0.1",
                    "client.port": "51234",
                    "mcp.method.name": "tools/list",
                    "mcp.session.id": "4f7c",
                    "network.protocol.name": "http",
                    "network.protocol.version": "1.1",
                    "network.transport": "tcp",
                    "otel.kind": "server",
                    "otel.name": "tools/list",
                },
            ),
            (
                "mcp.client",
                {
                    "mcp.method.name": "tools/list",
                    "mcp.session.id": "4f7c",
                    "network.protocol.name": "http",
                    "network.protocol.version": "1.1",
                    "network.transport": "tcp",
                    "otel.kind": "client",
                    "otel.name": "tools/list",
                    "server.address": "mcp.example.com",
                    "server.port": "443",
                },
            ),
            (
                "mcp.session",
                {
                    "mcp.session": "server",
                    "mcp.session.id": "4f7c",
                    "network.protocol.name": "http",
                    "network.protocol.version": "1.1",
                    "network.transport": "tcp",
                },
            ),
            (
                "mcp.session",
                {
                    "mcp.session": "client",
                    "mcp.session.id": "4f7c",
                    "network.protocol.name": "http",
                    "network.protocol.version": "1.1",
                    "network.transport": "tcp",
                    "server.address": "mcp.example.com",
                    "server.port": "443",
                },
            ),
            (
                "mcp.client",
                {
                    "mcp.method.name": "ping",
                    "otel.kind": "client",
                    "otel.name": "ping",
                },
            ),
        ]
    "#]]
    .assert_debug_eq(&spans);
}

/// `request_on`: the session id that the answer brought (as an HTTP transport learns it
/// from the answer to `initialize`) is recorded on the request's span.
#[tokio::test]
async fn a_session_id_the_answer_brings_is_recorded() {
    /// Answers every request after setting the session id, as the transport would.
    struct Opening(SessionIdCell);

    impl crate::Handler for Opening {
        async fn handle_request(
            &self,
            _request: crate::Request,
            _ctx: crate::RequestContext,
        ) -> Result<Box<RawValue>, ErrorObject> {
            self.0.set(Some("4f7c"));
            Ok(raw(json!({})))
        }
    }

    let capture = Capture::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let cell = SessionIdCell::new();
    let connection = ConnectionInfo::new()
        .with_network_transport("pipe")
        .with_session_id(cell.clone());
    let (near, far) = crate::memory::pair(4);
    let (_, serving) = crate::Connection::new(far, Opening(cell), crate::Config::default());
    let serving = tokio::spawn(serving.run());
    let (peer, running) = crate::Connection::new(near, (), crate::Config::default());
    let running = tokio::spawn(running.run());
    let options = crate::RequestOptions::new();
    request_on(&peer, "initialize", None, options, None, Some(&connection))
        .await
        .unwrap();
    notify_on(
        &peer,
        "notifications/initialized",
        None,
        None,
        Some(&connection),
    )
    .await
    .unwrap();
    peer.close();
    running.await.unwrap().unwrap();
    serving.await.unwrap().unwrap();
    let spans: Vec<_> = capture
        .take()
        .into_iter()
        .filter(|(name, _)| name.starts_with("mcp."))
        .collect();
    expect![[r#"
        [
            (
                "mcp.client",
                {
                    "jsonrpc.request.id": "1",
                    "mcp.method.name": "initialize",
                    "mcp.session.id": "4f7c",
                    "network.transport": "pipe",
                    "otel.kind": "client",
                    "otel.name": "initialize",
                },
            ),
            (
                "mcp.client",
                {
                    "mcp.method.name": "notifications/initialized",
                    "mcp.session.id": "4f7c",
                    "network.transport": "pipe",
                    "otel.kind": "client",
                    "otel.name": "notifications/initialized",
                },
            ),
        ]
    "#]]
    .assert_debug_eq(&spans);
}

#[test]
fn a_tool_call_is_named_after_its_tool_and_its_is_error_read() {
    let spans = captured(|| {
        let mut span = OperationSpan::new(Side::Sender, "tools/call");
        span.describe(
            "tools/call",
            Target::Tool("get-weather"),
            Some(&Id::from("request-7")),
            Some("2025-11-25"),
        );
        span.record_reply(Ok(&raw(json!({"content": [], "isError": true}))));
    });
    expect![[r#"
        [
            (
                "mcp.client",
                {
                    "error.type": "tool_error",
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get-weather",
                    "jsonrpc.request.id": "request-7",
                    "mcp.method.name": "tools/call",
                    "mcp.protocol.version": "2025-11-25",
                    "otel.kind": "client",
                    "otel.name": "tools/call get-weather",
                    "otel.status_code": "error",
                },
            ),
        ]
    "#]]
    .assert_debug_eq(&spans);
}

#[test]
fn errors_by_side_the_callers_mistakes_are_not_the_servers_failures() {
    let spans = captured(|| {
        for (side, code) in [
            (Side::Receiver, ErrorObject::invalid_params("no such tool")),
            (Side::Receiver, ErrorObject::internal_error("boom")),
            (Side::Sender, ErrorObject::invalid_params("no such tool")),
        ] {
            let mut span = OperationSpan::new(side, "resources/read");
            span.describe(
                "resources/read",
                Target::Resource("file:///a"),
                Some(&Id::Number(3)),
                None,
            );
            span.record_reply(Err(&code));
        }
    });
    expect![[r#"
        [
            (
                "mcp.server",
                {
                    "jsonrpc.request.id": "3",
                    "mcp.method.name": "resources/read",
                    "mcp.resource.uri": "file:///a",
                    "otel.kind": "server",
                    "otel.name": "resources/read",
                    "rpc.response.status_code": "-32602",
                },
            ),
            (
                "mcp.server",
                {
                    "error.type": "-32603",
                    "jsonrpc.request.id": "3",
                    "mcp.method.name": "resources/read",
                    "mcp.resource.uri": "file:///a",
                    "otel.kind": "server",
                    "otel.name": "resources/read",
                    "otel.status_code": "error",
                    "otel.status_description": "boom",
                    "rpc.response.status_code": "-32603",
                },
            ),
            (
                "mcp.client",
                {
                    "error.type": "-32602",
                    "jsonrpc.request.id": "3",
                    "mcp.method.name": "resources/read",
                    "mcp.resource.uri": "file:///a",
                    "otel.kind": "client",
                    "otel.name": "resources/read",
                    "otel.status_code": "error",
                    "otel.status_description": "no such tool",
                    "rpc.response.status_code": "-32602",
                },
            ),
        ]
    "#]]
    .assert_debug_eq(&spans);
}

#[test]
fn a_session_span_carries_its_side_version_and_failure() {
    let spans = captured(|| {
        let session = SessionSpan::server();
        session.record_protocol_version("2025-06-18");
        session.record_failure("transport", &"the pipe broke");
    });
    expect![[r#"
        [
            (
                "mcp.session",
                {
                    "error.type": "transport",
                    "mcp.protocol.version": "2025-06-18",
                    "mcp.session": "server",
                    "otel.status_code": "error",
                    "otel.status_description": "the pipe broke",
                },
            ),
        ]
    "#]]
    .assert_debug_eq(&spans);
}
