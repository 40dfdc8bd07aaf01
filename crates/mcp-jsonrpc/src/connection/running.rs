//! One request's handler as the engine runs it: [`HandlerTask`], a named future (so that the
//! engine's set of running handlers needs no second box per request) that catches the
//! handler's panics, stops at the request's cancellation, and runs inside its span; how a
//! request becomes one ([`start`]), and how its outcome becomes a response
//! ([`HandlerDone::into_response`]). The engine's own requests and inline ones
//! ([`InlineRequests`](super::InlineRequests)) share all three.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::error::ErrorObject;
use crate::extensions::Extensions;
use crate::handler::RequestContext;
use crate::message::{Id, Request, Response};
use crate::peer::{Peer, read_progress_token};

pub(crate) type Call = BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>;

/// What a handler's task came to.
pub(crate) struct HandlerDone {
    pub(crate) id: Id,
    /// `None` if cancelled; `Some(Err(_))` if it panicked.
    pub(crate) output: Option<std::thread::Result<Result<Box<RawValue>, ErrorObject>>>,
}

impl HandlerDone {
    /// The response to send: `None` if the request was cancelled (`cancelled`: its token
    /// fired, even if the handler returned meanwhile); a panic is answered -32603.
    pub(crate) fn into_response(self, cancelled: bool) -> Option<Response> {
        let id = self.id;
        match self.output {
            None => None,
            Some(_) if cancelled => None,
            Some(Ok(Ok(result))) => Some(Response::ok(id, result)),
            Some(Ok(Err(error))) => Some(Response::error(Some(id), error)),
            Some(Err(panic)) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("a non-string payload");
                tracing::error!(%id, panic = what, "request handler panicked");
                Some(Response::error(
                    Some(id),
                    ErrorObject::internal_error("request handler panicked"),
                ))
            }
        }
    }
}

/// Starts the handler on `request` (`call` makes its future from the request and its
/// context): the context takes the transport's extensions, the progress token and a fresh
/// cancellation token (returned beside the task, for the caller's registry).
pub(crate) fn start(
    mut request: Request,
    peer: &Peer,
    call: impl FnOnce(Request, RequestContext) -> Call,
) -> (HandlerTask, CancellationToken) {
    let token = CancellationToken::new();
    let id = request.id.clone();
    let ctx = RequestContext {
        id: id.clone(),
        cancellation: token.clone(),
        progress_token: read_progress_token(request.params.as_deref()),
        peer: peer.clone(),
        extensions: shared(std::mem::take(&mut request.extensions)),
    };
    let span = tracing::debug_span!("request", id = %id, method = %request.method);
    let task = HandlerTask::new(id, call(request, ctx), token.clone(), span);
    (task, token)
}

/// `extensions` behind an `Arc`; empty ones (every request of a transport that attaches
/// nothing, such as stdio) share one, so that no allocation is made for them.
fn shared(extensions: Extensions) -> Arc<Extensions> {
    static EMPTY: std::sync::OnceLock<Arc<Extensions>> = std::sync::OnceLock::new();
    if extensions.is_empty() {
        EMPTY.get_or_init(Arc::default).clone()
    } else {
        Arc::new(extensions)
    }
}

/// A handler's future with what the engine needs around it.
pub(crate) struct HandlerTask {
    /// `None` once finished.
    call: Option<Call>,
    id: Option<Id>,
    token: CancellationToken,
    /// Waits for the cancellation; made only when the handler is still pending after a poll
    /// (most finish on their first), so a quick handler never registers with the token.
    cancelled: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    span: tracing::Span,
}

impl HandlerTask {
    fn new(id: Id, call: Call, token: CancellationToken, span: tracing::Span) -> Self {
        HandlerTask {
            call: Some(call),
            id: Some(id),
            token,
            cancelled: None,
            span,
        }
    }

    /// The request's id (`None` once finished).
    pub(crate) fn id(&self) -> Option<&Id> {
        self.id.as_ref()
    }

    /// The request's cancellation token.
    pub(crate) fn token(&self) -> &CancellationToken {
        &self.token
    }

    fn finish(
        &mut self,
        output: Option<std::thread::Result<Result<Box<RawValue>, ErrorObject>>>,
    ) -> Poll<HandlerDone> {
        self.drop_call();
        match self.id.take() {
            Some(id) => Poll::Ready(HandlerDone { id, output }),
            // Polled again after it finished (never done by the engine's set).
            None => Poll::Pending,
        }
    }

    /// Drops the handler's future inside its span, as it ran.
    fn drop_call(&mut self) {
        if let Some(call) = self.call.take() {
            let _entered = self.span.enter();
            drop(call);
        }
    }
}

impl Future for HandlerTask {
    type Output = HandlerDone;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<HandlerDone> {
        let this = self.get_mut();
        if this.token.is_cancelled() {
            return this.finish(None);
        }
        let Some(call) = this.call.as_mut() else {
            return Poll::Pending;
        };
        let polled = {
            let _entered = this.span.enter();
            std::panic::catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx)))
        };
        match polled {
            Ok(Poll::Ready(output)) => return this.finish(Some(Ok(output))),
            Err(panic) => return this.finish(Some(Err(panic))),
            Ok(Poll::Pending) => {}
        }
        let token = &this.token;
        let cancelled = this
            .cancelled
            .get_or_insert_with(|| Box::pin(token.clone().cancelled_owned()));
        if cancelled.as_mut().poll(cx).is_ready() {
            return this.finish(None);
        }
        Poll::Pending
    }
}

impl Drop for HandlerTask {
    fn drop(&mut self) {
        self.drop_call();
    }
}
