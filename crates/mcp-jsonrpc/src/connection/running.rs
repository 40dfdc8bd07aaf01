//! One request's handler as the engine runs it: [`HandlerTask`], a named future (so that the
//! engine's set of running handlers needs no second box per request) that catches the
//! handler's panics, stops at the request's cancellation, and runs inside its span.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::HandlerDone;
use crate::error::ErrorObject;
use crate::message::Id;

type Call = BoxFuture<'static, Result<Box<RawValue>, ErrorObject>>;

/// A handler's future with what the engine needs around it.
pub(super) struct HandlerTask {
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
    pub(super) fn new(id: Id, call: Call, token: CancellationToken, span: tracing::Span) -> Self {
        HandlerTask {
            call: Some(call),
            id: Some(id),
            token,
            cancelled: None,
            span,
        }
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
