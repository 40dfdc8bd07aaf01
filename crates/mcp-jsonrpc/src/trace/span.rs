//! The spans of MCP operations and sessions (the field sets of the module docs), made here
//! once for `mcp-server` and `mcp-client`: one callsite per kind of span, so that the
//! fields are declared in one place. Not part of the documented API.

use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tracing::Span;
use tracing::field::{Empty, display};

use super::{TraceContext, propagator};
use crate::error::ErrorObject;
use crate::message::Id;
use crate::transport::ConnectionInfo;

/// Which side of an operation a span is: the side that sent the message (the conventions'
/// client span) or the side that received it (their server span), whichever of the two MCP
/// roles it plays. (Not named `Client` and `Server`: rustc would then print
/// `mcp_server::Server` in full in its diagnostics.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The sender of a request or notification: `otel.kind` `client`.
    Sender,
    /// Its receiver: `otel.kind` `server`.
    Receiver,
}

/// What an operation is about, by the conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// Nothing in particular.
    None,
    /// A tool (`tools/call`): named in the span's name, and the call's `isError` read.
    Tool(&'a str),
    /// A prompt (`prompts/get`): named in the span's name.
    Prompt(&'a str),
    /// A resource: recorded, but not in the span's name.
    Resource(&'a str),
}

/// What a span reads of a message's params, in one pass: `name` and `uri` (when strings)
/// and the trace context in `_meta`. Read only for enabled spans.
#[derive(Debug, Default)]
pub struct Peek {
    /// The `name` member.
    pub name: Option<String>,
    /// The `uri` member.
    pub uri: Option<String>,
    /// `_meta`'s trace context, when its `traceparent` is valid.
    pub context: Option<TraceContext>,
}

impl Peek {
    /// Reads `params`; whatever does not read is left out.
    pub fn of(params: Option<&RawValue>) -> Peek {
        #[derive(Deserialize)]
        struct Head<'a> {
            #[serde(borrow, default)]
            name: Option<&'a RawValue>,
            #[serde(borrow, default)]
            uri: Option<&'a RawValue>,
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct MetaHead<'a> {
            #[serde(borrow, default)]
            traceparent: Option<&'a RawValue>,
            #[serde(borrow, default)]
            tracestate: Option<&'a RawValue>,
            #[serde(borrow, default)]
            baggage: Option<&'a RawValue>,
        }
        let Some(params) = params else {
            return Peek::default();
        };
        let Ok(head) = serde_json::from_str::<Head<'_>>(params.get()) else {
            return Peek::default();
        };
        let text = |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str(r.get()).ok());
        let context = head
            .meta
            .and_then(|meta| serde_json::from_str::<MetaHead<'_>>(meta.get()).ok())
            .and_then(|meta| {
                let fields: [Option<String>; 3] = [
                    text(meta.traceparent),
                    text(meta.tracestate),
                    text(meta.baggage),
                ];
                TraceContext::from_fields(|key| {
                    let i = match key {
                        super::TRACEPARENT => 0,
                        super::TRACESTATE => 1,
                        _ => 2,
                    };
                    fields[i].as_deref()
                })
            });
        Peek {
            name: text(head.name),
            uri: text(head.uri),
            context,
        }
    }
}

/// An operation span's `info_span!`: the fields of the module docs' table, with the peer's
/// address and port under `$peer` (`client` on the receiving side, `server` on the sending).
macro_rules! operation_span {
    ($name:literal, $kind:literal, $method:expr, $peer:ident) => {
        tracing::info_span!(
            target: "mcp",
            $name,
            otel.name = $method,
            otel.kind = $kind,
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = $method,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            gen_ai.operation.name = Empty,
            rpc.response.status_code = Empty,
            error.type = Empty,
            network.transport = Empty,
            network.protocol.name = Empty,
            network.protocol.version = Empty,
            $peer.address = Empty,
            $peer.port = Empty,
        )
    };
}

/// The span of one operation: a message sent (`Side::Sender`) or received
/// (`Side::Receiver`). Disabled ([`Span::none`]) unless a subscriber wants `INFO` spans of
/// target `mcp`; every method does nothing then.
#[derive(Debug)]
pub struct OperationSpan {
    span: Span,
    side: Side,
    tool_call: bool,
}

impl OperationSpan {
    /// The span of an operation on `method`, its name the method until
    /// [`describe`](Self::describe) names a target.
    pub fn new(side: Side, method: &str) -> Self {
        // The cheapest test first (one atomic load): no subscriber at all, or none that
        // wants `INFO`, is the common case, and the one that must cost nothing.
        if !Self::wanted() {
            return OperationSpan {
                span: Span::none(),
                side,
                tool_call: false,
            };
        }
        // One callsite per side (a callsite's name and fields are static); the field set is
        // written once, in `operation_span!`, with each side's peer fields.
        let span = match side {
            Side::Receiver => operation_span!("mcp.server", "server", method, client),
            Side::Sender => operation_span!("mcp.client", "client", method, server),
        };
        OperationSpan {
            span: live(span),
            side,
            tool_call: false,
        }
    }

    /// Whether a subscriber may want operation spans: one atomic load, for callers to skip
    /// everything (making the span included) in the common case of no subscriber at `INFO`.
    #[inline]
    pub fn wanted() -> bool {
        tracing::level_enabled!(tracing::Level::INFO)
    }

    /// Whether this thread's subscriber may want the SDK's spans (`INFO`, target `mcp`):
    /// the level's one atomic load, one callsite's interest, and (as `live` does for a
    /// span) whether there is a subscriber here at all. What a connection asks its
    /// transport for ([`ConnectionInfo`]) is asked only then.
    pub fn wanted_for_connection() -> bool {
        Self::wanted()
            && tracing::enabled!(
                kind: tracing::metadata::Kind::SPAN,
                target: "mcp",
                tracing::Level::INFO
            )
            && tracing::dispatcher::get_default(|dispatch| {
                !dispatch.is::<tracing::subscriber::NoSubscriber>()
            })
    }

    /// Whether a subscriber wants the span (everything else is worth doing only then).
    pub fn is_enabled(&self) -> bool {
        !self.span.is_disabled()
    }

    /// The `tracing` span.
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// Records the target (and with it the span's name), the request's id and the
    /// protocol version.
    pub fn describe(
        &mut self,
        method: &str,
        target: Target<'_>,
        id: Option<&Id>,
        protocol_version: Option<&str>,
    ) {
        if !self.is_enabled() {
            return;
        }
        let span = &self.span;
        match target {
            Target::None => {}
            Target::Tool(name) => {
                self.tool_call = true;
                span.record("otel.name", display(Named(method, name)));
                span.record("gen_ai.tool.name", name);
                span.record("gen_ai.operation.name", "execute_tool");
            }
            Target::Prompt(name) => {
                span.record("otel.name", display(Named(method, name)));
                span.record("gen_ai.prompt.name", name);
            }
            Target::Resource(uri) => {
                span.record("mcp.resource.uri", uri);
            }
        }
        if let Some(id) = id {
            span.record("jsonrpc.request.id", display(IdText(id)));
        }
        if let Some(version) = protocol_version {
            span.record("mcp.protocol.version", version);
        }
    }

    /// Records the protocol version (known only after the operation, for `initialize`).
    pub fn record_protocol_version(&self, version: &str) {
        self.span.record("mcp.protocol.version", version);
    }

    /// Records what the transport knows of the connection: `network.*`, `mcp.session.id`,
    /// and the peer's address as the span declares it: `client.address` and `client.port`
    /// on a receiver span, `server.address` and `server.port` on a sender span. Returns
    /// whether a session id was recorded (an HTTP client learns it from the `initialize`
    /// response: [`record_session_id`](Self::record_session_id) looks again then).
    pub fn record_connection(&self, connection: &ConnectionInfo) -> bool {
        if !self.is_enabled() {
            return false;
        }
        record_network(&self.span, connection);
        match self.side {
            Side::Receiver => record_address(
                &self.span,
                ("client.address", "client.port"),
                connection.client_address.as_deref(),
                connection.client_port,
            ),
            Side::Sender => record_address(
                &self.span,
                ("server.address", "server.port"),
                connection.server_address.as_deref(),
                connection.server_port,
            ),
        }
        self.record_session_id(connection)
    }

    /// Records the connection's session id, if it has one now; returns whether it did.
    pub fn record_session_id(&self, connection: &ConnectionInfo) -> bool {
        self.is_enabled() && record_session_id(&self.span, connection)
    }

    /// Makes `context`, which the peer sent, the span's parent (through the installed
    /// [`TracePropagator`](super::TracePropagator)). Call it before the span is entered.
    pub fn set_remote_parent(&self, context: Option<&TraceContext>) {
        if let (true, Some(context), Some(propagator)) = (self.is_enabled(), context, propagator())
        {
            propagator.set_parent(&self.span, context);
        }
    }

    /// The context to send with this operation's message, from the installed propagator:
    /// `None` for a disabled span or without a propagator.
    pub fn context(&self) -> Option<TraceContext> {
        if !self.is_enabled() {
            return None;
        }
        propagator()?.context(&self.span)
    }

    /// Records how a request ended: an error response by this side's rules, a `tools/call`
    /// result's `isError`.
    pub fn record_reply(&self, reply: Result<&RawValue, &ErrorObject>) {
        if !self.is_enabled() {
            return;
        }
        match reply {
            Ok(result) => {
                if self.tool_call && is_error_result(result) {
                    self.record_tool_error();
                }
            }
            Err(error) => self.record_error_object(error),
        }
    }

    /// Records how a request sent through a [`Peer`](crate::Peer) ended: its result (a
    /// `tools/call`'s `isError`), the peer's error response, or the engine's failure
    /// (`timeout`, `closed`, `transport`, `_OTHER`).
    pub fn record_outcome(&self, outcome: &crate::Result<Box<RawValue>>) {
        if !self.is_enabled() {
            return;
        }
        match outcome {
            Ok(result) => self.record_reply(Ok(result)),
            Err(crate::Error::Rpc(error)) => self.record_error_object(error),
            Err(e) => self.record_failure(error_type(e), e),
        }
    }

    /// Records a JSON-RPC error response: its code always; on the server side the caller's
    /// mistakes (-32700, -32600, -32601, -32602, -32002) are not failures of the operation.
    pub fn record_error_object(&self, error: &ErrorObject) {
        if !self.is_enabled() {
            return;
        }
        let code = error.code.as_i32();
        // Strings, as the conventions type them ("-32602").
        self.span.record("rpc.response.status_code", display(code));
        let callers_mistake = matches!(code, -32700 | -32600 | -32601 | -32602 | -32002);
        if self.side == Side::Receiver && callers_mistake {
            return;
        }
        self.span.record("error.type", display(code));
        self.span.record("otel.status_code", "error");
        self.span
            .record("otel.status_description", error.message.as_str());
    }

    /// Records a failure without an error response (`timeout`, `closed`, ...).
    pub fn record_failure(&self, error_type: &str, description: &dyn fmt::Display) {
        if !self.is_enabled() {
            return;
        }
        self.span.record("error.type", error_type);
        self.span.record("otel.status_code", "error");
        self.span
            .record("otel.status_description", display(description));
    }

    /// Records a tool result with `isError: true`.
    pub fn record_tool_error(&self) {
        self.span.record("error.type", "tool_error");
        self.span.record("otel.status_code", "error");
    }
}

/// The `error.type` of an engine failure without an error response.
pub fn error_type(error: &crate::Error) -> &'static str {
    match error {
        crate::Error::Timeout(_) => "timeout",
        crate::Error::Closed { .. } => "closed",
        crate::Error::Transport(_) => "transport",
        _ => "_OTHER",
    }
}

/// Whether a `tools/call` result says `isError: true`.
fn is_error_result(result: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Head {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
    }
    // Most results have no such member: skip the parse.
    result.get().contains("\"isError\"")
        && serde_json::from_str::<Head>(result.get()).is_ok_and(|h| h.is_error == Some(true))
}

/// Records `network.transport`, `network.protocol.name` and `network.protocol.version`.
fn record_network(span: &Span, connection: &ConnectionInfo) {
    if let Some(transport) = connection.network_transport {
        span.record("network.transport", transport);
    }
    if let Some(name) = connection.network_protocol_name {
        span.record("network.protocol.name", name);
    }
    if let Some(version) = connection.network_protocol_version {
        span.record("network.protocol.version", version);
    }
}

/// Records an address and its port under the `(address, port)` field names (the port as
/// an integer, as the conventions type it, and only with its address).
fn record_address(span: &Span, fields: (&str, &str), address: Option<&str>, port: Option<u16>) {
    let Some(address) = address else { return };
    span.record(fields.0, address);
    if let Some(port) = port {
        span.record(fields.1, i64::from(port));
    }
}

/// Records `mcp.session.id` if the connection has one now.
fn record_session_id(span: &Span, connection: &ConnectionInfo) -> bool {
    match connection.session_id.as_ref().and_then(|cell| cell.get()) {
        Some(id) => {
            span.record("mcp.session.id", &*id);
            true
        }
        None => false,
    }
}

/// `span`, or [`Span::none`] if no subscriber will see it: a callsite once enabled stays so
/// after its subscriber went away (a scoped one, in tests) or on threads without one, and its
/// spans then go to `tracing`'s no-op subscriber.
fn live(span: Span) -> Span {
    if span.is_disabled() {
        return span;
    }
    let seen = span
        .with_subscriber(|(_, dispatch)| !dispatch.is::<tracing::subscriber::NoSubscriber>())
        .unwrap_or(false);
    if seen { span } else { Span::none() }
}

/// `{method} {target}`.
struct Named<'a>(&'a str, &'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

/// A request id as the conventions write it: a string as is, a number in decimal.
struct IdText<'a>(&'a Id);

impl fmt::Display for IdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Id::String(s) => f.write_str(s),
            other => fmt::Display::fmt(other, f),
        }
    }
}

/// The span of one session, from its start to its end: the measure of the session-duration
/// metrics. Never entered.
#[derive(Debug, Clone)]
pub struct SessionSpan {
    span: Span,
    /// The client's session (which records the server's address), or the server's.
    client: bool,
}

impl SessionSpan {
    /// The span of a session this process serves.
    pub fn server() -> Self {
        Self::new("server")
    }

    /// The span of a session this process opened as a client.
    pub fn client() -> Self {
        Self::new("client")
    }

    fn new(side: &'static str) -> Self {
        let client = side == "client";
        if !tracing::level_enabled!(tracing::Level::INFO) {
            return SessionSpan {
                span: Span::none(),
                client,
            };
        }
        let span = live(tracing::info_span!(
            target: "mcp",
            "mcp.session",
            mcp.session = side,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
            network.transport = Empty,
            network.protocol.name = Empty,
            network.protocol.version = Empty,
            server.address = Empty,
            server.port = Empty,
        ));
        SessionSpan { span, client }
    }

    /// The `tracing` span.
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// Whether a subscriber wants the span.
    pub fn is_enabled(&self) -> bool {
        !self.span.is_disabled()
    }

    /// Records the negotiated protocol version.
    pub fn record_protocol_version(&self, version: &str) {
        self.span.record("mcp.protocol.version", version);
    }

    /// Records what the transport knows of the connection: `network.*`, `mcp.session.id`,
    /// and on the client's session the server's address (`server.address`, `server.port`;
    /// the server's session-duration metric has no address). Returns whether a session id
    /// was recorded.
    pub fn record_connection(&self, connection: &ConnectionInfo) -> bool {
        if !self.is_enabled() {
            return false;
        }
        record_network(&self.span, connection);
        if self.client {
            record_address(
                &self.span,
                ("server.address", "server.port"),
                connection.server_address.as_deref(),
                connection.server_port,
            );
        }
        record_session_id(&self.span, connection)
    }

    /// Records the connection's session id, if it has one now; returns whether it did.
    pub fn record_session_id(&self, connection: &ConnectionInfo) -> bool {
        self.is_enabled() && record_session_id(&self.span, connection)
    }

    /// Records that the session ended in an error.
    pub fn record_failure(&self, error_type: &str, description: &dyn fmt::Display) {
        if self.span.is_disabled() {
            return;
        }
        self.span.record("error.type", error_type);
        self.span.record("otel.status_code", "error");
        self.span
            .record("otel.status_description", display(description));
    }
}

/// `params` with `context` in its `_meta` (members already there are kept); absent or
/// `null` params become an object holding only `_meta`; params that are neither (an array)
/// stay as they are.
pub fn inject(params: Option<Box<RawValue>>, context: &TraceContext) -> Option<Box<RawValue>> {
    Some(inject_raw(
        params.unwrap_or_else(|| RawValue::NULL.to_owned()),
        context,
    ))
}

/// [`inject`] for params that are present.
pub fn inject_raw(params: Box<RawValue>, context: &TraceContext) -> Box<RawValue> {
    let mut object = match serde_json::from_str::<Value>(params.get()) {
        Ok(Value::Object(object)) => object,
        Ok(Value::Null) => Map::new(),
        _ => return params,
    };
    if !inject_into(&mut object, context) {
        return params;
    }
    serde_json::value::to_raw_value(&object).unwrap_or(params)
}

/// Sends a request through `peer` inside its client span: described (its id the one
/// `options` chose, or taken from the connection first), its span's context in `_meta` when there is one to carry, its outcome
/// recorded. For requests without a target (the protocol's own: `initialize`, `ping`,
/// sampling, elicitation, roots); with no subscriber, just `peer.request_with`.
pub async fn request(
    peer: &crate::Peer,
    method: &'static str,
    params: Option<Box<RawValue>>,
    options: crate::RequestOptions,
    protocol_version: Option<&str>,
) -> crate::Result<Box<RawValue>> {
    request_on(peer, method, params, options, protocol_version, None).await
}

/// [`request`], with what the transport knows of the `connection` recorded on the span
/// (the session id once more after the answer, if there was none before: the answer to
/// `initialize` may have brought one).
pub async fn request_on(
    peer: &crate::Peer,
    method: &'static str,
    params: Option<Box<RawValue>>,
    options: crate::RequestOptions,
    protocol_version: Option<&str>,
    connection: Option<&ConnectionInfo>,
) -> crate::Result<Box<RawValue>> {
    use tracing::Instrument as _;
    let mut span = OperationSpan::new(Side::Sender, method);
    if !span.is_enabled() {
        return peer.request_with(method, params, options).await;
    }
    let id = options
        .chosen_id()
        .cloned()
        .unwrap_or_else(|| peer.next_id());
    span.describe(method, Target::None, Some(&id), protocol_version);
    let session_known = connection.is_some_and(|c| span.record_connection(c));
    let params = match span.context() {
        Some(context) => inject(params, &context),
        None => params,
    };
    let outcome = peer
        .request_with(method, params, options.id(id))
        .instrument(span.span().clone())
        .await;
    if let (false, Some(connection)) = (session_known, connection) {
        span.record_session_id(connection);
    }
    span.record_outcome(&outcome);
    outcome
}

/// Sends a notification through `peer` inside its client span, with the span's context in
/// `_meta` when there is one; with no subscriber, just `peer.notify`.
pub async fn notify(
    peer: &crate::Peer,
    method: &'static str,
    params: Option<Box<RawValue>>,
    protocol_version: Option<&str>,
) -> crate::Result<()> {
    notify_on(peer, method, params, protocol_version, None).await
}

/// [`notify`], with what the transport knows of the `connection` recorded on the span.
pub async fn notify_on(
    peer: &crate::Peer,
    method: &'static str,
    params: Option<Box<RawValue>>,
    protocol_version: Option<&str>,
    connection: Option<&ConnectionInfo>,
) -> crate::Result<()> {
    use tracing::Instrument as _;
    let mut span = OperationSpan::new(Side::Sender, method);
    if !span.is_enabled() {
        return peer.notify(method, params).await;
    }
    span.describe(method, Target::None, None, protocol_version);
    if let Some(connection) = connection {
        span.record_connection(connection);
    }
    let params = match span.context() {
        Some(context) => inject(params, &context),
        None => params,
    };
    let sent = peer
        .notify(method, params)
        .instrument(span.span().clone())
        .await;
    if let Err(e) = &sent {
        span.record_failure(error_type(e), e);
    }
    sent
}

/// Writes `context` into the `_meta` of `params` (made if absent; members already there are
/// kept). `false` if `_meta` is not an object.
pub fn inject_into(params: &mut Map<String, Value>, context: &TraceContext) -> bool {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(meta) = meta else {
        return false;
    };
    for (key, value) in context.fields() {
        meta.entry(key)
            .or_insert_with(|| Value::String(value.to_owned()));
    }
    true
}
