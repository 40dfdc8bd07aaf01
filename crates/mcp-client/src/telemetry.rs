//! The OpenTelemetry conventions' spans of this client (`mcp_jsonrpc::trace` has their
//! fields): a client span for every call ([`Client::call`](crate::Client), and the opening
//! exchange's, listen's and the keep-alive's requests through `mcp_jsonrpc::trace::request`),
//! a server span for every request and notification the server sends here (`router.rs`), the
//! session's span (`builder.rs`), and the span a followed task's polls run in
//! ([`task_span`]). Each is made only when a subscriber wants it; otherwise the cost is one
//! look at the callsite's interest.

use futures::FutureExt as _;
use mcp_jsonrpc::trace::{OperationSpan, Peek, Side, Target, TraceContext, propagator};
use mcp_jsonrpc::{ErrorObject, Id};
use mcp_types::{
    CallTool, GetPrompt, JsonObject, Notification as _, ReadResource, Request as _,
    ResourceUpdated, Subscribe, Unsubscribe,
};
use serde_json::Value;
use serde_json::value::RawValue;
use tracing::{Instrument as _, Span};

use crate::error::Error;

/// What `method` is about: the tool, the prompt or the resource its params name.
pub(crate) fn target<'a>(method: &str, name: Option<&'a str>, uri: Option<&'a str>) -> Target<'a> {
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

/// Describes a call's span from its params (raw: handshake era), with the request's `id`;
/// returns the params with the span's context in `_meta`, when there is one to carry.
pub(crate) fn describe_raw(
    span: &mut OperationSpan,
    method: &str,
    params: Box<RawValue>,
    id: &Id,
    version: &str,
) -> Box<RawValue> {
    let peek = Peek::of(Some(&params));
    span.describe(
        method,
        target(method, peek.name.as_deref(), peek.uri.as_deref()),
        Some(id),
        Some(version),
    );
    match span.context() {
        Some(context) => mcp_jsonrpc::trace::inject_raw(params, &context),
        None => params,
    }
}

/// Describes a call's span from its params (an object: 2026-07-28), with the first
/// round's `id`, and writes the span's context into their `_meta`: every round of the call
/// carries it, so the server's spans of all rounds are children of this one.
pub(crate) fn describe_object(
    span: &mut OperationSpan,
    method: &str,
    params: &mut JsonObject,
    id: &Id,
    version: &str,
) {
    let text = |key| params.get(key).and_then(Value::as_str);
    span.describe(
        method,
        target(method, text("name"), text("uri")),
        Some(id),
        Some(version),
    );
    if let Some(context) = span.context() {
        mcp_jsonrpc::trace::inject_into(params, &context);
    }
}

/// Records how a call ended.
pub(crate) fn record(span: &OperationSpan, outcome: &Result<Box<RawValue>, Error>) {
    if !span.is_enabled() {
        return;
    }
    match outcome {
        Ok(result) => span.record_reply(Ok(result)),
        Err(e) => match error_object(e) {
            Some(error) => span.record_error_object(error),
            None => span.record_failure(error_type(e), e),
        },
    }
}

/// The server's error response behind `e`, if it is one.
fn error_object(e: &Error) -> Option<&ErrorObject> {
    match e {
        Error::Rpc(error)
        | Error::HeaderMismatch(error)
        | Error::VersionNotSupported { error, .. }
        | Error::MissingClientCapability { error, .. } => Some(error),
        _ => None,
    }
}

/// The conventions' `error.type` of a failure that is no error response: a short,
/// low-cardinality name.
fn error_type(e: &Error) -> &'static str {
    match e {
        Error::Timeout(_) => "timeout",
        Error::Closed { .. } | Error::ConnectionNotRunning { .. } => "closed",
        Error::Transport(_) => "transport",
        Error::Jsonrpc(e) => mcp_jsonrpc::trace::error_type(e),
        Error::Decode { .. } => "decode",
        Error::MessageTooLarge { .. } => "message_too_large",
        Error::NotInRevision { .. } => "not_in_revision",
        Error::TooManyInputRounds { .. } => "too_many_input_rounds",
        Error::InputRequest { .. } => "input_request",
        Error::TaskCancelled { .. } => "task_cancelled",
        Error::Protocol { .. } => "protocol",
        _ => "_OTHER",
    }
}

/// The server span of a message the server sent here (`id`: a request's), given the remote
/// parent its `_meta` names; `None` when no subscriber wants it.
pub(crate) fn received(
    method: &str,
    params: Option<&RawValue>,
    id: Option<&Id>,
) -> Option<OperationSpan> {
    let mut span = OperationSpan::new(Side::Receiver, method);
    if !span.is_enabled() {
        return None;
    }
    let peek = Peek::of(params);
    span.describe(
        method,
        target(method, peek.name.as_deref(), peek.uri.as_deref()),
        id,
        None,
    );
    span.set_remote_parent(peek.context.as_ref());
    Some(span)
}

/// Runs an answer inside its server span and records the reply: the answer's future as it
/// is when no subscriber wants the span.
pub(crate) fn traced<'a, F>(
    span: Option<OperationSpan>,
    answer: F,
) -> futures::future::Either<F, futures::future::BoxFuture<'a, F::Output>>
where
    F: Future<Output = Result<Box<RawValue>, ErrorObject>> + Send + 'a,
{
    use futures::future::Either;
    let Some(span) = span else {
        return Either::Left(answer);
    };
    let entered = span.span().clone();
    Either::Right(
        answer
            .inspect(move |reply| span.record_reply(reply.as_deref()))
            .instrument(entered)
            .boxed(),
    )
}

/// The span a task's polls run in, when a call is followed to its result through a task
/// (`tools/call` answered with a task handle): in the call's trace, as the child of the
/// call's span (`call`, its context), without keeping that span open in `tracing`.
pub(crate) fn task_span(task_id: &str, call: Option<&TraceContext>) -> Span {
    let span = tracing::info_span!(
        target: "mcp",
        "mcp.task",
        otel.name = "task",
        mcp.task.id = task_id,
    );
    if let (false, Some(call), Some(propagator)) = (span.is_disabled(), call, propagator()) {
        propagator.set_parent(&span, call);
    }
    span
}
