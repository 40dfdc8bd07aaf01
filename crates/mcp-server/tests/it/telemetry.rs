//! The OpenTelemetry conventions' spans, on both sides (our server, and our client, which this
//! binary has as a dev-dependency), in both eras; and the trace context in `params._meta`,
//! both ways. A capturing `tracing` layer records every span (its fields, its `tracing`
//! parent) and a fake propagator stands in for OpenTelemetry: a span's context is made from
//! its capture index, and the remote parent it is given is kept for the test to read.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use mcp_client::{Client, ClientBuilder, EraChoice};
use mcp_jsonrpc::trace::{TraceContext, TraceParent, TracePropagator};
use mcp_jsonrpc::{
    Config, Connection, ConnectionInfo, ErrorObject, Handler, Message, Notification,
    NotificationContext, Request, RequestContext, SessionIdCell, Transport, memory, to_raw_value,
};
use mcp_server::tasks::Tasks;
use mcp_server::types::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ElicitRequestFormParams,
    ElicitRequestParams, ElicitResult, ElicitValue, ErrorCode, Implementation, InitializeResult,
    ProtocolVersion, Root, ServerCapabilities, ToolTaskSupport,
};
use mcp_server::{Context, Error, HandlerError, Prompt, Resource, ServeOptions, Server, Tool};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt as _};
use tracing_subscriber::registry::{LookupSpan, Registry, SpanRef};

// ---- the capture and the fake propagator ------------------------------------------------

/// A captured span: its name, its fields as recorded last, its `tracing` parent (a capture
/// index) and the remote parent it was given (a capture index when the context is the fake
/// propagator's, else the `traceparent` as sent).
#[derive(Debug, Clone)]
struct Captured {
    name: &'static str,
    fields: BTreeMap<String, String>,
    parent: Option<usize>,
    remote: Option<Remote>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Remote {
    /// The context of the captured span with this index.
    Span(usize),
    /// A context from outside (a raw peer's `_meta`).
    Foreign(TraceContext),
}

impl Captured {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// A span's capture index, in its extensions.
struct Seq(usize);

/// The remote parent the fake propagator set, in the span's extensions.
struct RemoteParent(TraceContext);

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

impl<S> Layer<S> for Capture
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let span = ctx.span(id).expect("a new span");
        let parent = span
            .parent()
            .and_then(|p| p.extensions().get::<Seq>().map(|s| s.0));
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let mut spans = self.0.lock().unwrap();
        let seq = spans.len();
        spans.push(Captured {
            name: attrs.metadata().name(),
            fields,
            parent,
            remote: None,
        });
        span.extensions_mut().insert(Seq(seq));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        let Some(seq) = ctx
            .span(id)
            .and_then(|s| s.extensions().get::<Seq>().map(|s| s.0))
        else {
            return;
        };
        values.record(&mut Fields(&mut self.0.lock().unwrap()[seq].fields));
    }

    fn on_close(&self, id: Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let extensions = span.extensions();
        let (Some(seq), Some(remote)) = (extensions.get::<Seq>(), extensions.get::<RemoteParent>())
        else {
            return;
        };
        let remote = match fake_seq(&remote.0) {
            Some(parent) => Remote::Span(parent),
            None => Remote::Foreign(remote.0.clone()),
        };
        self.0.lock().unwrap()[seq.0].remote = Some(remote);
    }
}

/// The fake propagator's trace id.
const FAKE_TRACE: [u8; 16] = [0x11; 16];

/// The fake context of the span with capture index `seq`.
fn fake_context(seq: usize) -> TraceContext {
    let parent_id = (seq as u64 + 1).to_be_bytes();
    TraceContext::new(TraceParent::new(FAKE_TRACE, parent_id, 1).unwrap()).with_tracestate("fake=1")
}

/// The capture index a fake context names.
fn fake_seq(context: &TraceContext) -> Option<usize> {
    let parent = context.traceparent();
    (parent.trace_id() == FAKE_TRACE && context.tracestate() == Some("fake=1"))
        .then(|| u64::from_be_bytes(parent.parent_id()) as usize - 1)
}

/// Stands in for OpenTelemetry: a span's context is its capture index; a remote parent is
/// kept in the span's extensions.
struct FakePropagator;

fn in_registry<R>(span: &tracing::Span, f: impl FnOnce(SpanRef<'_, Registry>) -> R) -> Option<R> {
    span.with_subscriber(|(id, dispatch)| {
        let registry = dispatch.downcast_ref::<Registry>()?;
        Some(f(registry.span(id)?))
    })
    .flatten()
}

impl TracePropagator for FakePropagator {
    fn set_parent(&self, span: &tracing::Span, parent: &TraceContext) {
        in_registry(span, |data| {
            data.extensions_mut().insert(RemoteParent(parent.clone()));
        });
    }

    fn context(&self, span: &tracing::Span) -> Option<TraceContext> {
        in_registry(span, |data| {
            data.extensions().get::<Seq>().map(|s| fake_context(s.0))
        })
        .flatten()
    }
}

fn install_fake_propagator() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        mcp_jsonrpc::trace::set_propagator(FakePropagator).expect("the first propagator");
    });
}

/// Installs the capture as this thread's subscriber (the tests run on a current-thread
/// runtime: every task they spawn runs here too).
fn capture() -> (Capture, tracing::subscriber::DefaultGuard) {
    install_fake_propagator();
    let capture = Capture::default();
    let guard = tracing::subscriber::set_default(Registry::default().with(capture.clone()));
    (capture, guard)
}

impl Capture {
    fn spans(&self) -> Vec<Captured> {
        self.0.lock().unwrap().clone()
    }
}

/// The spans named `name` (`mcp.client`, `mcp.server`, ...) whose `otel.name` is `otel`,
/// with their indexes.
fn find<'a>(spans: &'a [Captured], name: &str, otel: &str) -> Vec<(usize, &'a Captured)> {
    spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name == name && s.field("otel.name") == Some(otel))
        .collect()
}

/// The one span named so.
fn one<'a>(spans: &'a [Captured], name: &str, otel: &str) -> (usize, &'a Captured) {
    let found = find(spans, name, otel);
    assert_eq!(found.len(), 1, "{name} {otel:?} in {spans:#?}");
    found[0]
}

/// A client span and the server span that served it: the server's remote parent is the
/// client's span, and both have the same request id. Returns both.
fn pair<'a>(spans: &'a [Captured], otel: &str) -> (&'a Captured, &'a Captured) {
    pair_where(spans, otel, |_| true)
}

/// [`pair`], of the spans that `only` picks.
fn pair_where<'a>(
    spans: &'a [Captured],
    otel: &str,
    only: impl Fn(&Captured) -> bool,
) -> (&'a Captured, &'a Captured) {
    let picked = |name| {
        let found: Vec<_> = find(spans, name, otel)
            .into_iter()
            .filter(|(_, s)| only(s))
            .collect();
        assert_eq!(found.len(), 1, "{name} {otel:?} in {spans:#?}");
        found[0]
    };
    let (client_seq, client) = picked("mcp.client");
    let (_, server) = picked("mcp.server");
    assert_eq!(server.remote, Some(Remote::Span(client_seq)), "{otel}");
    assert_eq!(client.field("otel.kind"), Some("client"));
    assert_eq!(server.field("otel.kind"), Some("server"));
    assert_eq!(
        client.field("jsonrpc.request.id"),
        server.field("jsonrpc.request.id")
    );
    (client, server)
}

// ---- the server ---------------------------------------------------------------------------

fn server() -> Server {
    Server::builder()
        .name("traced")
        .version("1.0.0")
        .tasks(Tasks::new(|task| {
            tokio::spawn(task);
        }))
        .tool(Tool::new("ping", || async { "pong" }))
        .tool(Tool::new("broken", || async {
            CallToolResult::error("it broke")
        }))
        .tool(Tool::new("roots", |cx: Context| async move {
            let roots = cx.list_roots().await?;
            Ok::<_, HandlerError>(format!("{} roots", roots.roots.len()))
        }))
        .tool(Tool::new("ask", |cx: Context| async move {
            let form: ElicitRequestFormParams = serde_json::from_value(json!({
                "message": "Your answer?",
                "requestedSchema": {"type": "object",
                    "properties": {"answer": {"type": "string"}}}
            }))?;
            let answer = cx.elicit(form).await?;
            Ok::<_, HandlerError>(format!("{:?}", answer.action))
        }))
        .tool(
            Tool::new("later", || async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                "done later"
            })
            .task_support(ToolTaskSupport::Required),
        )
        .resource(Resource::text("test://text", "text", "some text"))
        .resource(Resource::new("test://explodes", "explodes", || async {
            Err::<String, _>(Error::rpc(ErrorCode::INTERNAL_ERROR, "the disk is gone"))
        }))
        .prompt(Prompt::new("greet", || async { "Hello" }))
        .build()
}

fn client(era: EraChoice) -> ClientBuilder {
    Client::builder()
        .era(era)
        .roots(vec![Root::new("file:///work")])
        .elicitation(|_: ElicitRequestParams, _cx| async move {
            let content = BTreeMap::from([("answer".to_owned(), ElicitValue::from("42"))]);
            Ok::<_, ErrorObject>(ElicitResult::accept(Some(content)))
        })
}

async fn connect(server: &Server, builder: ClientBuilder) -> Client {
    let (client_end, server_end) = memory::pair(64);
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(server_end).await });
    let (client, connection) = builder.connect(client_end).await.expect("connect");
    tokio::spawn(connection);
    client
}

/// Lets the spawned tasks finish what they are doing (spans close when their futures end).
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

// ---- the tests ------------------------------------------------------------------------------

/// tools/call, resources/read, prompts/get, a notification, and failures, in both eras: the
/// client span and the server span it is the remote parent of, named and attributed by the
/// conventions.
#[tokio::test]
async fn operations_have_their_spans_on_both_sides_in_both_eras() {
    for (era, version) in [
        (EraChoice::Legacy, "2025-11-25"),
        (EraChoice::Modern, "2026-07-28"),
    ] {
        let (capture, _guard) = capture();
        let server = server();
        let client = connect(&server, client(era)).await;
        client.call_tool("ping").await.unwrap();
        client.read_resource("test://text").await.unwrap();
        client.get_prompt("greet").await.unwrap();
        let broken = client.call_tool("broken").await.unwrap();
        assert_eq!(broken.is_error, Some(true));
        let unknown = client.call_tool("unknown").await.unwrap_err();
        assert_eq!(unknown.as_rpc().map(|e| e.code.0), Some(-32602));
        let explodes = client.read_resource("test://explodes").await.unwrap_err();
        assert_eq!(explodes.as_rpc().map(|e| e.code.0), Some(-32603));
        if era == EraChoice::Legacy {
            client.set_roots(vec![]).await.unwrap();
        }
        client.close();
        settle().await;
        let spans = capture.spans();

        // tools/call: named after the tool, `execute_tool`, the same request id both sides.
        let (client_span, server_span) = pair(&spans, "tools/call ping");
        for span in [client_span, server_span] {
            assert_eq!(span.field("mcp.method.name"), Some("tools/call"));
            assert_eq!(span.field("gen_ai.tool.name"), Some("ping"));
            assert_eq!(span.field("gen_ai.operation.name"), Some("execute_tool"));
            assert_eq!(span.field("mcp.protocol.version"), Some(version), "{era:?}");
            assert!(span.field("jsonrpc.request.id").is_some());
            assert_eq!(span.field("error.type"), None);
            assert_eq!(span.field("otel.status_code"), None);
        }
        // The server's span continues the client's trace; in `tracing` it is no child of an
        // MCP span (the session's span is never entered), at most of the engine's `request`
        // span (DEBUG), which this capture enables.
        assert!(
            server_span
                .parent
                .is_none_or(|p| spans[p].name == "request")
        );

        // resources/read: the URI recorded, not in the name.
        let text = |s: &Captured| s.field("mcp.resource.uri") == Some("test://text");
        let (client_span, server_span) = pair_where(&spans, "resources/read", text);
        assert_eq!(client_span.field("error.type"), None);
        assert_eq!(server_span.field("mcp.method.name"), Some("resources/read"));

        // prompts/get: named after the prompt.
        let (client_span, _) = pair(&spans, "prompts/get greet");
        assert_eq!(client_span.field("gen_ai.prompt.name"), Some("greet"));

        // A tool's `isError`: `tool_error`, the error status, both sides.
        let (client_span, server_span) = pair(&spans, "tools/call broken");
        for span in [client_span, server_span] {
            assert_eq!(span.field("error.type"), Some("tool_error"));
            assert_eq!(span.field("otel.status_code"), Some("error"));
        }

        // An unknown tool (-32602): the client's failure, the caller's mistake to the server.
        let (client_span, server_span) = pair(&spans, "tools/call unknown");
        assert_eq!(client_span.field("error.type"), Some("-32602"));
        assert_eq!(client_span.field("otel.status_code"), Some("error"));
        assert!(client_span.field("otel.status_description").is_some());
        assert_eq!(
            server_span.field("rpc.response.status_code"),
            Some("-32602")
        );
        assert_eq!(server_span.field("error.type"), None);
        assert_eq!(server_span.field("otel.status_code"), None);

        // A handler's internal error (-32603): a failure on both sides, with its message.
        let explodes = |s: &Captured| s.field("mcp.resource.uri") == Some("test://explodes");
        let (client_span, server_span) = pair_where(&spans, "resources/read", explodes);
        assert_eq!(
            server_span.field("otel.status_description"),
            Some("the disk is gone")
        );
        for span in [client_span, server_span] {
            assert_eq!(span.field("error.type"), Some("-32603"));
            assert_eq!(span.field("rpc.response.status_code"), Some("-32603"));
            assert_eq!(span.field("otel.status_code"), Some("error"));
        }

        // The sessions: one per side, with the negotiated version on the client's.
        let session = |side| {
            let found: Vec<_> = spans
                .iter()
                .filter(|s| s.name == "mcp.session" && s.field("mcp.session") == Some(side))
                .collect();
            assert_eq!(found.len(), 1, "{side}");
            found[0]
        };
        let (server_session, client_session) = (session("server"), session("client"));
        assert_eq!(client_session.field("mcp.protocol.version"), Some(version));
        assert_eq!(client_session.field("error.type"), None);

        if era == EraChoice::Legacy {
            assert_eq!(server_session.field("mcp.protocol.version"), Some(version));
            // Notifications: no request id; the server's span continues the client's.
            for method in [
                "notifications/initialized",
                "notifications/roots/list_changed",
            ] {
                let (client_span, server_span) = pair(&spans, method);
                assert_eq!(client_span.field("jsonrpc.request.id"), None);
                assert_eq!(server_span.field("mcp.method.name"), Some(method));
            }
        } else {
            // The stateless era opens with server/discover, a request like any other.
            pair(&spans, "server/discover");
        }
    }
}

/// A request the server sends the client (roots/list, inside a tool call): a client span on
/// the server, the tool call's child; a server span on the client, continuing it.
#[tokio::test]
async fn the_servers_own_requests_have_their_spans() {
    let (capture, _guard) = capture();
    let server = server();
    let client = connect(&server, client(EraChoice::Legacy)).await;
    let result = client.call_tool("roots").await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("1 roots"));
    client.close();
    settle().await;
    let spans = capture.spans();

    let (call_seq, _) = one(&spans, "mcp.server", "tools/call roots");
    let (asked_seq, asked) = one(&spans, "mcp.client", "roots/list");
    assert_eq!(asked.parent, Some(call_seq));
    assert_eq!(asked.field("mcp.protocol.version"), Some("2025-11-25"));
    let (_, answered) = one(&spans, "mcp.server", "roots/list");
    assert_eq!(answered.remote, Some(Remote::Span(asked_seq)));
    assert_eq!(
        asked.field("jsonrpc.request.id"),
        answered.field("jsonrpc.request.id")
    );
}

/// 2026-07-28 input rounds: the client sends the request again (a new id) with the answers;
/// one client span covers the call, and every round's server span continues it.
#[tokio::test]
async fn input_rounds_keep_one_trace() {
    let (capture, _guard) = capture();
    let server = server();
    let client = connect(&server, client(EraChoice::Modern)).await;
    let result = client.call_tool("ask").await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("Accept"));
    client.close();
    settle().await;
    let spans = capture.spans();

    let (call_seq, call) = one(&spans, "mcp.client", "tools/call ask");
    let rounds = find(&spans, "mcp.server", "tools/call ask");
    assert_eq!(rounds.len(), 2, "{spans:#?}");
    for (_, round) in &rounds {
        assert_eq!(round.remote, Some(Remote::Span(call_seq)));
    }
    // The client span names the first round's request; the second had an id of its own.
    assert_eq!(
        call.field("jsonrpc.request.id"),
        rounds[0].1.field("jsonrpc.request.id")
    );
    assert_ne!(
        rounds[0].1.field("jsonrpc.request.id"),
        rounds[1].1.field("jsonrpc.request.id")
    );
}

/// A tool call that becomes a task (2025-11-25, a tool that requires one): the task's work
/// runs in a span in the call's trace (not the call's `tracing` child, which would keep the
/// call's span open), and so do the client's polls for its result.
#[tokio::test]
async fn a_task_keeps_the_calls_trace() {
    let (capture, _guard) = capture();
    let server = server();
    let client = connect(&server, client(EraChoice::Legacy)).await;
    client.list_tools(None).await.unwrap();
    let done = client
        .call_tool(CallToolRequestParams::new("later"))
        .await
        .unwrap();
    assert_eq!(done.content[0].as_text(), Some("done later"));
    client.close();
    settle().await;
    let spans = capture.spans();

    let (client_call_seq, _) = one(&spans, "mcp.client", "tools/call later");
    let (server_call_seq, _) = one(&spans, "mcp.server", "tools/call later");
    let tasks: Vec<_> = spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name == "mcp.task")
        .collect();
    assert_eq!(tasks.len(), 2, "{spans:#?}");
    // The server's: the call's child through the propagator, no `tracing` parent.
    let server_task = tasks
        .iter()
        .find(|(_, t)| t.remote == Some(Remote::Span(server_call_seq)))
        .expect("the server's task span");
    assert_eq!(server_task.1.parent, None);
    // The client's: its polls (tasks/result) are its children.
    let (client_task_seq, _) = *tasks
        .iter()
        .find(|(_, t)| t.remote == Some(Remote::Span(client_call_seq)))
        .expect("the client's task span");
    let (poll_seq, poll) = one(&spans, "mcp.client", "tasks/result");
    assert_eq!(poll.parent, Some(client_task_seq));
    let (_, served) = one(&spans, "mcp.server", "tasks/result");
    assert_eq!(served.remote, Some(Remote::Span(poll_seq)));
}

/// A transport that says of its connection what `info` says, as an HTTP transport would;
/// with `learns`, the session id is set in the cell once the first response arrives (as
/// an HTTP client learns it from the answer to `initialize`).
struct Described<T> {
    inner: T,
    info: ConnectionInfo,
    learns: Option<(SessionIdCell, &'static str)>,
}

impl<T: Transport> Transport for Described<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
        let msg = self.inner.recv().await?;
        if let (Some(Message::Response(_)), Some((cell, id))) = (&msg, &self.learns) {
            cell.set(Some(id));
        }
        Ok(msg)
    }

    fn connection_info(&self) -> ConnectionInfo {
        self.info.clone()
    }
}

/// What the transports say of the connection goes on the spans: `network.*` and the session
/// id everywhere, the client's address on the server's spans, the server's on the client's
/// (and on its session span), a session id learned from the answer to `initialize` from
/// that answer on.
#[tokio::test]
async fn the_transports_connection_is_recorded() {
    const SESSION: &str = "4f7c0a9e";
    let (capture, _guard) = capture();
    let (client_end, server_end) = memory::pair(64);
    let server_side = Described {
        inner: server_end,
        info: ConnectionInfo::new()
            .with_network_transport("tcp")
            .with_network_protocol("http", Some("1.1"))
            .with_client("127.0.0.1", Some(51234))
            .with_server("127.0.0.1", Some(8080))
            .with_session_id(SessionIdCell::fixed(SESSION)),
        learns: None,
    };
    let learned = SessionIdCell::new();
    let client_side = Described {
        inner: client_end,
        info: ConnectionInfo::new()
            .with_network_transport("tcp")
            .with_network_protocol("http", None)
            .with_server("localhost", Some(8080))
            .with_session_id(learned.clone()),
        learns: Some((learned, SESSION)),
    };
    let server = server();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(server_side).await });
    let (client, connection) = client(EraChoice::Legacy)
        .connect(client_side)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client.call_tool("ping").await.unwrap();
    client.set_roots(vec![]).await.unwrap();
    client.close();
    settle().await;
    let spans = capture.spans();

    let client_fields = |span: &Captured| {
        assert_eq!(span.field("network.transport"), Some("tcp"), "{span:?}");
        assert_eq!(span.field("network.protocol.name"), Some("http"));
        assert_eq!(span.field("network.protocol.version"), None);
        assert_eq!(span.field("server.address"), Some("localhost"));
        assert_eq!(span.field("server.port"), Some("8080"));
        assert_eq!(span.field("client.address"), None);
        assert_eq!(span.field("mcp.session.id"), Some(SESSION));
    };
    let server_fields = |span: &Captured| {
        assert_eq!(span.field("network.transport"), Some("tcp"), "{span:?}");
        assert_eq!(span.field("network.protocol.name"), Some("http"));
        assert_eq!(span.field("network.protocol.version"), Some("1.1"));
        assert_eq!(span.field("client.address"), Some("127.0.0.1"));
        assert_eq!(span.field("client.port"), Some("51234"));
        assert_eq!(span.field("server.address"), None);
        assert_eq!(span.field("mcp.session.id"), Some(SESSION));
    };
    for method in [
        "initialize",
        "notifications/initialized",
        "tools/call ping",
        "notifications/roots/list_changed",
    ] {
        let (client_span, server_span) = pair(&spans, method);
        client_fields(client_span);
        server_fields(server_span);
    }

    let session = |side| {
        let found: Vec<_> = spans
            .iter()
            .filter(|s| s.name == "mcp.session" && s.field("mcp.session") == Some(side))
            .collect();
        assert_eq!(found.len(), 1, "{side}");
        found[0]
    };
    client_fields(session("client"));
    // The server's session-duration metric has no address: the span has none either.
    let server_session = session("server");
    assert_eq!(server_session.field("network.transport"), Some("tcp"));
    assert_eq!(
        server_session.field("network.protocol.version"),
        Some("1.1")
    );
    assert_eq!(server_session.field("mcp.session.id"), Some(SESSION));
    assert_eq!(server_session.field("server.address"), None);
    assert_eq!(server_session.field("client.address"), None);
}

/// Without a subscriber nobody asks the transport.
#[tokio::test]
async fn without_a_subscriber_the_transport_is_not_asked() {
    /// Fails the test if asked.
    struct Unasked<T>(T);

    impl<T: Transport> Transport for Unasked<T> {
        type Error = T::Error;

        fn send(
            &mut self,
            msg: Message,
        ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
            self.0.send(msg)
        }

        async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
            self.0.recv().await
        }

        fn connection_info(&self) -> ConnectionInfo {
            panic!("asked for the connection without a subscriber");
        }
    }

    let (client_end, server_end) = memory::pair(16);
    let server = server();
    let serving = tokio::spawn(async move { server.serve(Unasked(server_end)).await });
    let (client, connection) = client(EraChoice::Legacy)
        .connect(Unasked(client_end))
        .await
        .expect("connect");
    let connection = tokio::spawn(connection);
    client.call_tool("ping").await.unwrap();
    client.close();
    connection.await.unwrap().unwrap();
    serving.await.unwrap().unwrap();
}

// ---- `_meta` both ways, against raw peers ----------------------------------------------

const PYTHON_TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// What another SDK sends (the Python SDK's `inject` into `_meta`): read into the server
/// span's remote parent, in both eras; an invalid `traceparent` is ignored.
#[tokio::test]
async fn an_incoming_context_becomes_the_remote_parent() {
    let (capture, _guard) = capture();
    let (client_end, server_end) = memory::pair(16);
    let server = server();
    let options = ServeOptions::new().assume_initialized(None, ClientCapabilities::default());
    tokio::spawn(async move { server.serve_with(server_end, options).await });
    let (peer, connection) = Connection::new(client_end, (), Config::default());
    tokio::spawn(connection.run());

    let call = |meta: Value| {
        let params = json!({"name": "ping", "_meta": meta});
        serde_json::value::to_raw_value(&params).unwrap()
    };
    let meta = json!({
        "traceparent": PYTHON_TRACEPARENT,
        "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
        "baggage": "userId=alice",
    });
    peer.request("tools/call", Some(call(meta))).await.unwrap();
    let uppercase = PYTHON_TRACEPARENT.to_uppercase();
    let meta = json!({"traceparent": uppercase});
    peer.request("tools/call", Some(call(meta))).await.unwrap();
    // A 2026-07-28 request, on a connection nobody initialized: served on its own.
    let (modern_end, server_end) = memory::pair(16);
    let server = self::server();
    tokio::spawn(async move { server.serve(server_end).await });
    let (modern_peer, connection) = Connection::new(modern_end, (), Config::default());
    tokio::spawn(connection.run());
    let modern = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": PYTHON_TRACEPARENT,
    });
    modern_peer
        .request("tools/call", Some(call(modern)))
        .await
        .unwrap();
    modern_peer.close();
    peer.close();
    settle().await;

    let spans = capture.spans();
    let calls = find(&spans, "mcp.server", "tools/call ping");
    assert_eq!(calls.len(), 3);
    let Some(Remote::Foreign(context)) = &calls[0].1.remote else {
        panic!("no remote parent: {:?}", calls[0].1);
    };
    assert_eq!(context.traceparent().to_string(), PYTHON_TRACEPARENT);
    assert_eq!(
        context.tracestate(),
        Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
    );
    assert_eq!(context.baggage(), Some("userId=alice"));
    assert_eq!(calls[1].1.remote, None);
    assert!(matches!(calls[2].1.remote, Some(Remote::Foreign(_))));
    assert_eq!(calls[2].1.field("mcp.protocol.version"), Some("2026-07-28"));
}

/// A raw server that records the params of what it receives.
struct Recorder(Arc<Mutex<Vec<(String, Value)>>>);

impl Handler for Recorder {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let params: Value = request.params()?;
        self.0
            .lock()
            .unwrap()
            .push((request.method.to_string(), params));
        match &*request.method {
            "initialize" => to_raw_value(&InitializeResult::new(
                ProtocolVersion::V2025_11_25,
                serde_json::from_value::<ServerCapabilities>(json!({"tools": {}})).unwrap(),
                Implementation::new("recorder", "1"),
            )),
            _ => to_raw_value(&CallToolResult::text("ok")),
        }
    }

    async fn handle_notification(&self, notification: Notification, _ctx: NotificationContext) {
        let params = notification.params::<Value>().unwrap_or(Value::Null);
        self.0
            .lock()
            .unwrap()
            .push((notification.method.to_string(), params));
    }
}

/// What our client sends: its span's context in `_meta`, beside what was there (another
/// SDK's server reads it with its propagator); with no subscriber, nothing is added.
#[tokio::test]
async fn an_outgoing_request_carries_its_spans_context() {
    install_fake_propagator();
    for traced in [true, false] {
        let (capture, guard) = capture();
        if !traced {
            drop(guard);
        }
        let received = Arc::new(Mutex::new(Vec::new()));
        let (client_end, server_end) = memory::pair(16);
        let (_peer, serving) =
            Connection::new(server_end, Recorder(received.clone()), Config::default());
        tokio::spawn(serving.run());
        let client = connect_raw(client_end).await;
        let mut params = CallToolRequestParams::new("ping");
        params.meta = Some(
            serde_json::from_value(json!({"progressToken": "mine", "tracestate": "kept=1"}))
                .unwrap(),
        );
        client.call_tool(params).await.unwrap();
        client.close();
        settle().await;

        let received = received.lock().unwrap().clone();
        let methods: Vec<_> = received.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            methods,
            ["initialize", "notifications/initialized", "tools/call"]
        );
        let meta = &received[2].1["_meta"];
        if !traced {
            assert_eq!(
                meta,
                &json!({"progressToken": "mine", "tracestate": "kept=1"})
            );
            assert!(received[0].1.get("_meta").is_none());
            continue;
        }
        let spans = capture.spans();
        let (seq, _) = one(&spans, "mcp.client", "tools/call ping");
        let sent = fake_context(seq);
        assert_eq!(
            meta,
            &json!({
                "progressToken": "mine",
                // The caller's own member is kept.
                "tracestate": "kept=1",
                "traceparent": sent.traceparent().to_string(),
            })
        );
        let (seq, _) = one(&spans, "mcp.client", "initialize");
        let sent = fake_context(seq).traceparent().to_string();
        assert_eq!(received[0].1["_meta"]["traceparent"], sent.as_str());
        let (seq, _) = one(&spans, "mcp.client", "notifications/initialized");
        let sent = fake_context(seq).traceparent().to_string();
        assert_eq!(received[1].1["_meta"]["traceparent"], sent.as_str());
    }
}

async fn connect_raw(transport: impl mcp_jsonrpc::Transport) -> Client {
    let (client, connection) = Client::builder()
        .era(EraChoice::Legacy)
        .connect(transport)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
}
