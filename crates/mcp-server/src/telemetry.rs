//! The OpenTelemetry conventions' spans of this server (`mcp_jsonrpc::trace` has their
//! fields): a server span for every request and notification the session handler receives
//! (`serve.rs`), a client span for every request this server sends the client
//! ([`request`]), the session's span, and the span a task's work runs in ([`task_span`]).
//! Each is made only when a subscriber wants it; otherwise the cost is one look at the
//! callsite's interest.

use futures::FutureExt as _;
use mcp_jsonrpc::trace::{OperationSpan, Peek, Side, Target, propagator};
use mcp_jsonrpc::{ConnectionInfo, Id, Peer, RequestOptions};
use mcp_types::{
    CallTool, GetPrompt, Notification as _, ProtocolVersion, ReadResource, Request as _,
    ResourceUpdated, Subscribe, Unsubscribe,
};
use serde_json::value::RawValue;
use tracing::{Instrument as _, Span};

/// What `method` is about, from its params: the tool, the prompt or the resource.
pub(crate) fn target<'a>(method: &str, peek: &'a Peek) -> Target<'a> {
    let name = peek.name.as_deref();
    let uri = peek.uri.as_deref();
    match method {
        CallTool::METHOD => name.map_or(Target::None, Target::Tool),
        GetPrompt::METHOD => name.map_or(Target::None, Target::Prompt),
        ReadResource::METHOD
        | Subscribe::METHOD
        | Unsubscribe::METHOD
        | ResourceUpdated::METHOD => uri.map_or(Target::None, Target::Resource),
        _ => Target::None,
    }
}

/// The server span of a message received (`id`: a request's), described (with what the
/// transport said of the `connection`, if it was asked) and given the remote parent its
/// `_meta` names; `None` when no subscriber wants it. `version` is asked only then.
#[inline]
pub(crate) fn received(
    method: &str,
    params: Option<&RawValue>,
    id: Option<&Id>,
    version: impl FnOnce() -> Option<ProtocolVersion>,
    connection: Option<&ConnectionInfo>,
) -> Option<OperationSpan> {
    // Inlined: with no subscriber for `INFO`, this is all a request pays.
    if !OperationSpan::wanted() {
        return None;
    }
    describe_received(method, params, id, version, connection)
}

#[inline(never)]
fn describe_received(
    method: &str,
    params: Option<&RawValue>,
    id: Option<&Id>,
    version: impl FnOnce() -> Option<ProtocolVersion>,
    connection: Option<&ConnectionInfo>,
) -> Option<OperationSpan> {
    let mut span = OperationSpan::new(Side::Receiver, method);
    if !span.is_enabled() {
        return None;
    }
    let peek = Peek::of(params);
    let version = version();
    span.describe(
        method,
        target(method, &peek),
        id,
        version.as_ref().map(ProtocolVersion::as_str),
    );
    if let Some(connection) = connection {
        span.record_connection(connection);
    }
    span.set_remote_parent(peek.context.as_ref());
    Some(span)
}

/// Sends `method` to the client inside its client span (with the span's context in
/// `_meta`, when there is one to carry), and records how it ended.
pub(crate) async fn request(
    peer: &Peer,
    method: &'static str,
    params: Box<RawValue>,
    options: RequestOptions,
    version: &ProtocolVersion,
) -> mcp_jsonrpc::Result<Box<RawValue>> {
    mcp_jsonrpc::trace::request(peer, method, Some(params), options, Some(version.as_str())).await
}

/// Runs a request's answer inside its server span and records the reply.
pub(crate) fn traced<'a, F>(
    span: OperationSpan,
    answer: F,
) -> futures::future::BoxFuture<'a, F::Output>
where
    F: Future<Output = Result<Box<RawValue>, mcp_types::ErrorObject>> + Send + 'a,
{
    let entered = span.span().clone();
    answer
        .inspect(move |reply| span.record_reply(reply.as_deref()))
        .instrument(entered)
        .boxed()
}

/// The span a task's work runs in (the task started by a `tools/call` whose span is
/// current): not that span's `tracing` child, which would keep it open until the task
/// ends, but its child in the trace through the installed propagator, so that the task's
/// work (and the requests it sends the client) are in the call's trace. Without a
/// propagator it follows from the call's span.
pub(crate) fn task_span(task_id: &str) -> Span {
    let span = tracing::info_span!(
        target: "mcp",
        parent: None,
        "mcp.task",
        otel.name = "task",
        mcp.task.id = task_id,
    );
    if span.is_disabled() {
        return span;
    }
    let call = Span::current();
    if call.is_disabled() {
        return span;
    }
    span.follows_from(&call);
    if let Some(propagator) = propagator()
        && let Some(context) = propagator.context(&call)
    {
        propagator.set_parent(&span, &context);
    }
    span
}
