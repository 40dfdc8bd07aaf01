//! Distributed tracing: the W3C trace context that MCP messages carry in `params._meta`, and
//! the seam through which an OpenTelemetry integration connects it to `tracing` spans.
//!
//! `mcp-server` and `mcp-client` open a `tracing` span for every MCP request and notification
//! they send or receive, named and attributed by the OpenTelemetry semantic conventions for
//! MCP (see "The spans" below). Those spans are ordinary `tracing` spans: with no subscriber,
//! or one that does not enable them, they cost a check of the callsite's interest and
//! nothing else is done (no params are read, nothing is formatted or allocated).
//!
//! What crosses the wire is the context of the span that sent a message: `traceparent`,
//! `tracestate` and `baggage` in `params._meta` (the conventions' recommendation, and what
//! the Python SDK reads and writes):
//!
//! ```json
//! {"name": "get-weather", "_meta": {
//!   "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
//!   "tracestate": "rojo=00f067aa0ba902b7"}}
//! ```
//!
//! Incoming values are read strictly ([`TraceParent::parse`]; a `tracestate` or `baggage`
//! that breaks its grammar is dropped, an invalid `traceparent` drops all three) and handed,
//! as a [`TraceContext`], to the installed [`TracePropagator`], which makes it the remote
//! parent of the receiving span. Outgoing, the propagator is asked for the sending span's
//! context, which is written into `_meta` (members the caller put there are kept). With no
//! propagator installed ([`set_propagator`]), nothing is read and nothing is written: a
//! `tracing` span alone has no trace id to send.
//!
//! The propagator is process-wide, like OpenTelemetry's own propagators and `tracing`'s
//! global subscriber: an OpenTelemetry integration installs one once at start-up, and every
//! server and client in the process uses it.
//!
//! ```
//! use mcp_jsonrpc::trace::{TraceContext, TracePropagator};
//!
//! /// Keeps traces in a system of its own (an OpenTelemetry integration would call
//! /// `tracing_opentelemetry::OpenTelemetrySpanExt::set_parent` and `context` here).
//! struct MyPropagator;
//!
//! impl TracePropagator for MyPropagator {
//!     fn set_parent(&self, span: &tracing::Span, parent: &TraceContext) {
//!         let _ = (span, parent.traceparent().trace_id());
//!     }
//!     fn context(&self, span: &tracing::Span) -> Option<TraceContext> {
//!         let _ = span;
//!         None
//!     }
//! }
//!
//! mcp_jsonrpc::trace::set_propagator(MyPropagator).expect("installed once");
//! ```
//!
//! # The spans
//!
//! Level `INFO`, target `mcp` (an `EnvFilter` directive `mcp=info` selects them). Each
//! field is named after the conventions' attribute, so that `tracing-opentelemetry` exports
//! it under that name; fields the SDK does not know for a message stay empty (unrecorded).
//!
//! An operation span (`mcp.server`: a message this side received; `mcp.client`: one it
//! sent, requests and notifications alike):
//!
//! | field | value |
//! |---|---|
//! | `otel.name` | `{mcp.method.name} {target}`, the target being the tool or prompt name; the method alone otherwise (resource URIs are not put in names) |
//! | `otel.kind` | `server` or `client` |
//! | `otel.status_code`, `otel.status_description` | `error` and the JSON-RPC error's message, when the operation failed (below) |
//! | `mcp.method.name` | the method |
//! | `mcp.protocol.version` | the negotiated revision, or the request's own on 2026-07-28 |
//! | `mcp.session.id` | the transport's session id, where it has one (Streamable HTTP's `Mcp-Session-Id`) |
//! | `mcp.resource.uri` | `resources/read`, `resources/subscribe`, `resources/unsubscribe`, `notifications/resources/updated` |
//! | `jsonrpc.request.id` | the request's id (not on notifications) |
//! | `gen_ai.tool.name`, `gen_ai.operation.name` | `tools/call`: the tool's name, `execute_tool` |
//! | `gen_ai.prompt.name` | `prompts/get`: the prompt's name |
//! | `rpc.response.status_code` | the JSON-RPC error code of an error response |
//! | `error.type` | why the operation failed (below) |
//! | `network.transport` | `pipe` over stdio, `tcp` over HTTP (`quic` over HTTP/3) |
//! | `network.protocol.name`, `network.protocol.version` | `http` and its version (`1.1`, `2`) over HTTP; the client side knows no version |
//! | `client.address`, `client.port` | `mcp.server` spans of a server: the client's address, as the server-side HTTP transport saw the connection that opened the session (for a 2026-07-28 request, the request's own; from axum's `ConnectInfo`, which `HttpServer` attaches) |
//! | `server.address`, `server.port` | `mcp.client` spans of a client: the server's host and port, from the HTTP transport's URL |
//!
//! These last rows and `mcp.session.id` come from the transport
//! ([`Transport::connection_info`](crate::Transport::connection_info), a
//! [`ConnectionInfo`](crate::ConnectionInfo)), asked once per connection when a subscriber
//! wants these spans; a transport that does not say (the in-memory pair, a
//! [`BoxTransport`](crate::BoxTransport)) leaves them empty. A server records them on the
//! spans of the messages it receives, a client on the spans of the calls and notifications
//! it sends (a session id learned from the answer to `initialize` is recorded from that
//! answer on). Not yet on the spans of messages going the other way (a server's requests
//! and notifications to its client, on either side) nor on those of `mcp-client`'s
//! `listen` requests.
//!
//! Failure, by the conventions: on the client side every JSON-RPC error response is a
//! failure; on the server side the caller's mistakes are not (-32700, -32600, -32601,
//! -32602, -32002: `rpc.response.status_code` only), every other code is. A failure sets
//! `error.type` to the code (`"-32603"`), or, for a failure with no code, to a short name
//! (`timeout`, `closed`, `transport`, `_OTHER`). A `tools/call` result with `isError: true`
//! sets `error.type` `tool_error` and the error status, on both sides.
//!
//! A session span (`mcp.session`, with the field `mcp.session` set to `server` or `client`)
//! lasts from the start of a session (`Server::serve`, `ClientBuilder::connect`) to its end,
//! the measure of the conventions' session-duration metrics; it has `mcp.protocol.version`,
//! `network.*`, `mcp.session.id` (as above), on the client's session `server.address` and
//! `server.port`, and `error.type` if the session ended in an error. It is never entered,
//! so operation spans are not its children.

mod span;
mod w3c;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

#[doc(hidden)]
pub use span::{
    OperationSpan, Peek, SessionSpan, Side, Target, error_type, inject, inject_into, inject_raw,
    notify, notify_on, request, request_on,
};
pub use w3c::TraceParent;

/// The trace context a message carries in `params._meta`: a valid `traceparent`, with the
/// `tracestate` and `baggage` that came with it when they were valid too.
///
/// ```
/// use mcp_jsonrpc::trace::{TraceContext, TraceParent};
///
/// let parent = TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
///     .unwrap();
/// let context = TraceContext::new(parent).with_tracestate("rojo=00f067aa0ba902b7");
/// assert_eq!(context.tracestate(), Some("rojo=00f067aa0ba902b7"));
///
/// // Made from any carrier's fields (an OpenTelemetry propagator's output, say):
/// let fields = [("traceparent", parent.to_string()), ("tracestate", "bad state".to_owned())];
/// let read = TraceContext::from_fields(|key| {
///     fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
/// })
/// .unwrap();
/// assert_eq!(read.traceparent(), &parent);
/// assert_eq!(read.tracestate(), None); // invalid, dropped
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    parent: TraceParent,
    /// `parent` as it goes on the wire, so that [`get`](Self::get) can lend it.
    parent_text: String,
    tracestate: Option<String>,
    baggage: Option<String>,
}

/// The `_meta` keys of the trace context, as the conventions name them.
pub const TRACEPARENT: &str = "traceparent";
/// See [`TRACEPARENT`].
pub const TRACESTATE: &str = "tracestate";
/// See [`TRACEPARENT`].
pub const BAGGAGE: &str = "baggage";

impl TraceContext {
    /// A context of `parent` alone.
    pub fn new(parent: TraceParent) -> Self {
        TraceContext {
            parent,
            parent_text: parent.to_string(),
            tracestate: None,
            baggage: None,
        }
    }

    /// With `tracestate`, if it is valid (otherwise without one).
    #[must_use]
    pub fn with_tracestate(mut self, tracestate: impl Into<String>) -> Self {
        let tracestate = tracestate.into();
        self.tracestate = (!tracestate.trim().is_empty() && w3c::valid_tracestate(&tracestate))
            .then_some(tracestate);
        self
    }

    /// With `baggage`, if it is valid (otherwise without).
    #[must_use]
    pub fn with_baggage(mut self, baggage: impl Into<String>) -> Self {
        let baggage = baggage.into();
        self.baggage =
            (!baggage.trim().is_empty() && w3c::valid_baggage(&baggage)).then_some(baggage);
        self
    }

    /// Reads a context from a carrier's fields (`get("traceparent")`, ...): `None` unless
    /// `traceparent` is valid; an invalid `tracestate` or `baggage` is left out.
    pub fn from_fields<'a>(mut get: impl FnMut(&str) -> Option<&'a str>) -> Option<Self> {
        let parent = TraceParent::parse(get(TRACEPARENT)?)?;
        let mut context = TraceContext::new(parent);
        if let Some(state) = get(TRACESTATE) {
            context = context.with_tracestate(state);
        }
        if let Some(baggage) = get(BAGGAGE) {
            context = context.with_baggage(baggage);
        }
        Some(context)
    }

    /// The `traceparent`.
    pub fn traceparent(&self) -> &TraceParent {
        &self.parent
    }

    /// The `tracestate`, if one came and was valid.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The `baggage`, if one came and was valid.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }

    /// A field by its carrier key (`traceparent`, `tracestate`, `baggage`): for a
    /// propagator's extractor.
    pub fn get(&self, key: &str) -> Option<&str> {
        match key {
            TRACEPARENT => Some(&self.parent_text),
            TRACESTATE => self.tracestate(),
            BAGGAGE => self.baggage(),
            _ => None,
        }
    }

    /// The fields present, as `(key, value)`: what goes into `_meta`.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            (TRACEPARENT, Some(self.parent_text.as_str())),
            (TRACESTATE, self.tracestate()),
            (BAGGAGE, self.baggage()),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
    }
}

/// Connects the SDK's `tracing` spans to a tracing system's context: what an OpenTelemetry
/// integration implements (on `tracing-opentelemetry`'s `OpenTelemetrySpanExt`), and
/// installs once with [`set_propagator`].
///
/// The SDK calls it only for spans that are enabled (a subscriber wants them), never for
/// [`tracing::Span::none`].
pub trait TracePropagator: Send + Sync + 'static {
    /// Makes `parent`, which the peer sent, the parent of `span`: a span just created for a
    /// message received, not yet entered (an OpenTelemetry span's parent is fixed when it
    /// starts). The conventions also ask to link the span that was current in this process
    /// (`tracing::Span::current()`, an HTTP request's span say), which is the
    /// implementation's to do.
    fn set_parent(&self, span: &tracing::Span, parent: &TraceContext);

    /// The context to send with a message that `span` sends (a span of this side's, whose
    /// name and fields are already recorded), or `None` when it has none: then nothing is
    /// added to the message.
    fn context(&self, span: &tracing::Span) -> Option<TraceContext>;
}

static PROPAGATOR: OnceLock<Box<dyn TracePropagator>> = OnceLock::new();

/// [`set_propagator`] was called before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a trace propagator is already installed")]
pub struct PropagatorAlreadySet;

/// Installs the process's [`TracePropagator`]; once, as a `tracing` global subscriber is.
///
/// # Errors
///
/// [`PropagatorAlreadySet`] if one was installed before; the first one stays.
pub fn set_propagator(propagator: impl TracePropagator) -> Result<(), PropagatorAlreadySet> {
    PROPAGATOR
        .set(Box::new(propagator))
        .map_err(|_| PropagatorAlreadySet)
}

/// The installed [`TracePropagator`], if any.
pub fn propagator() -> Option<&'static dyn TracePropagator> {
    PROPAGATOR.get().map(|p| &**p)
}
