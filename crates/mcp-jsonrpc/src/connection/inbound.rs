//! The inbound side of the engine: what happens to each message read (requests started or
//! queued for a slot, batches, notifications in order, cancellations, responses routed),
//! and to handlers as they finish.

use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};

use futures::FutureExt;
use serde::Deserialize;

use super::running::{self, HandlerDone};
use super::{Batch, Driver, Kind, Outgoing, Running};
use crate::error::{Error, ErrorObject};
use crate::handler::{Handler, NotificationContext};
use crate::message::{Id, InvalidMessage, Message, Notification, Request, Response, too_large};
use crate::peer::Progress;

impl<H: Handler> Driver<H> {
    fn slots_in_use(&self) -> usize {
        let inline = self.inline.as_ref().map_or(0, |i| i.running());
        self.running.len() + self.queued_responses + inline
    }

    pub(super) fn start_backlog(&mut self) -> bool {
        let mut any = false;
        while self.slots_in_use() < self.limits.max_concurrent {
            let Some((request, batch)) = self.backlog.pop_front() else {
                break;
            };
            self.backlog_ids.remove(&request.id);
            self.start_request(request, batch);
            any = true;
        }
        any
    }

    fn start_request(&mut self, request: Request, batch: Option<u64>) {
        let handler = self.handler.clone();
        let (task, token) = running::start(request, &self.peer, |request, ctx| {
            // The handler's future in a box of its own: it can be large (kilobytes), and
            // moving it into the task by value would copy it.
            Box::pin(async move { handler.handle_request(request, ctx).await })
        });
        let Some(id) = task.id().cloned() else {
            return;
        };
        self.running.insert(id, Running { token, batch });
        match &self.fresh {
            None => self.fresh = Some(task),
            Some(_) => self.handlers.push(task),
        }
    }

    /// Takes over an inline call whose caller went away (see [`InlineRequests`]).
    ///
    /// [`InlineRequests`]: super::InlineRequests
    pub(super) fn adopt(&mut self, task: running::HandlerTask) {
        let Some(id) = task.id().cloned() else {
            return;
        };
        let token = task.token().clone();
        self.running.insert(id, Running { token, batch: None });
        self.handlers.push(task);
    }

    pub(super) fn on_handler_done(&mut self, done: HandlerDone) {
        let Some(running) = self.running.remove(&done.id) else {
            return;
        };
        // What the handler sent through its peer before returning (progress, logs) goes out
        // before its response.
        while let Ok(msg) = self.outbound_rx.try_recv() {
            self.outbound_waiting = false;
            self.enqueue_from_peer(msg);
        }
        let response = done.into_response(running.token.is_cancelled());
        match running.batch {
            Some(batch) => self.batch_item_done(batch, response),
            None => {
                if let Some(response) = response {
                    self.queued_responses += 1;
                    self.write_queue.push_back(Outgoing {
                        msg: Message::Response(response),
                        kind: Kind::Response,
                    });
                }
            }
        }
    }

    pub(super) fn poll_notifications(&mut self, cx: &mut Context<'_>) -> bool {
        let mut any = false;
        loop {
            if let Some(current) = self.current_notification.as_mut() {
                match current.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        self.current_notification = None;
                        any = true;
                    }
                    Poll::Pending => return any,
                }
            }
            let Some(notification) = self.notifications.pop_front() else {
                return any;
            };
            let handler = self.handler.clone();
            let ctx = NotificationContext {
                peer: self.peer.clone(),
            };
            let method = notification.method.clone();
            let call = async move { handler.handle_notification(notification, ctx).await };
            self.current_notification = Some(Box::pin(AssertUnwindSafe(call).catch_unwind().map(
                move |r| {
                    if r.is_err() {
                        tracing::error!(%method, "notification handler panicked");
                    }
                },
            )));
            any = true;
        }
    }

    pub(super) fn dispatch(&mut self, msg: Message) {
        match msg {
            Message::Batch(items) => self.dispatch_batch(items),
            msg => {
                if let Some(reply) = self.dispatch_one(msg, None) {
                    self.push_reply(reply);
                }
            }
        }
    }

    fn dispatch_batch(&mut self, items: Vec<Message>) {
        if !self.shared.batching() {
            self.push_reply(Response::error(
                None,
                ErrorObject::invalid_request("batches are not supported"),
            ));
            return;
        }
        let size = items.iter().map(Message::size_hint).sum::<usize>();
        if size > self.limits.max_size {
            self.push_reply(Response::error(None, too_large(size, self.limits.max_size)));
            return;
        }
        let key = self.next_batch;
        self.next_batch += 1;
        self.batches.insert(key, Batch::default());
        for item in items {
            if let Some(reply) = self.dispatch_one(item, Some(key))
                && let Some(batch) = self.batches.get_mut(&key)
            {
                batch.responses.push(Message::Response(reply));
            }
        }
        self.finish_batch_if_done(key);
    }

    fn batch_item_done(&mut self, key: u64, response: Option<Response>) {
        if let Some(batch) = self.batches.get_mut(&key) {
            batch.waiting = batch.waiting.saturating_sub(1);
            if let Some(response) = response {
                batch.responses.push(Message::Response(response));
            }
        }
        self.finish_batch_if_done(key);
    }

    fn finish_batch_if_done(&mut self, key: u64) {
        if self.batches.get(&key).is_some_and(|b| b.waiting == 0)
            && let Some(batch) = self.batches.remove(&key)
            && !batch.responses.is_empty()
        {
            self.write_queue.push_back(Outgoing {
                msg: Message::Batch(batch.responses),
                kind: Kind::Engine,
            });
        }
    }

    /// Handles one message; returns the error reply to send, if any.
    fn dispatch_one(&mut self, msg: Message, batch: Option<u64>) -> Option<Response> {
        let size = msg.size_hint();
        let limit = self.limits.max_size;
        match msg {
            Message::Request(request) => {
                if size > limit {
                    return Some(Response::error(Some(request.id), too_large(size, limit)));
                }
                if self.running.contains_key(&request.id)
                    || self.backlog_ids.contains(&request.id)
                    || self
                        .inline
                        .as_ref()
                        .is_some_and(|i| i.contains(&request.id))
                {
                    return Some(Response::error(
                        Some(request.id),
                        ErrorObject::invalid_request("duplicate request id"),
                    ));
                }
                // Only reachable while this side awaits responses (otherwise reading paused
                // at a full backlog, bar one batch's overflow): see `reading_paused`.
                if self.slots_in_use() >= self.limits.max_concurrent
                    && self.backlog.len() >= self.limits.backlog
                    && self.shared.awaiting_responses()
                {
                    tracing::warn!(id = %request.id,
                        "request backlog full while awaiting responses, refusing a request");
                    return Some(Response::error(
                        Some(request.id),
                        ErrorObject::internal_error("too many concurrent requests"),
                    ));
                }
                if let Some(b) = batch.and_then(|key| self.batches.get_mut(&key)) {
                    b.waiting += 1;
                }
                if self.slots_in_use() < self.limits.max_concurrent {
                    self.start_request(request, batch);
                } else {
                    self.backlog_ids.insert(request.id.clone());
                    self.backlog.push_back((request, batch));
                }
                None
            }
            Message::Notification(notification) => {
                if size > limit {
                    tracing::warn!(method = %notification.method, size, limit,
                        "dropping an oversized notification");
                } else {
                    self.on_notification(notification);
                }
                None
            }
            Message::Response(response) => {
                self.on_response(response, (size > limit).then_some(size));
                None
            }
            Message::Invalid(invalid) if invalid.is_response() => {
                self.on_invalid_response(invalid);
                None
            }
            Message::Invalid(invalid) => {
                tracing::debug!(error = %invalid.error, "invalid message");
                Some(Response::error(invalid.id, invalid.error))
            }
            Message::Batch(_) => Some(Response::error(
                None,
                ErrorObject::invalid_request("nested batch"),
            )),
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        let protocol = &self.shared.protocol;
        if notification.method == protocol.cancelled_method {
            self.on_cancel(&notification);
            return;
        }
        if notification.method == protocol.progress_method
            && let Ok(progress) = notification.params::<Progress>()
            && self.shared.route_progress(progress)
        {
            return;
        }
        // Only reachable while this side awaits responses (otherwise reading paused at a
        // full queue, bar one batch's overflow): see `reading_paused`.
        if self.notifications.len() >= self.limits.notifications && self.shared.awaiting_responses()
        {
            tracing::warn!(method = %notification.method,
                "notification queue full while awaiting responses, dropping a notification");
            return;
        }
        self.notifications.push_back(notification);
    }

    fn on_cancel(&mut self, notification: &Notification) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Cancelled {
            request_id: Id,
            #[serde(default)]
            reason: Option<String>,
        }
        let cancelled = match notification.params::<Cancelled>() {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(error = %e, "ignoring a malformed cancellation");
                return;
            }
        };
        let id = cancelled.request_id;
        tracing::debug!(%id, reason = cancelled.reason.as_deref(), "peer cancelled a request");
        if let Some(running) = self.running.get(&id) {
            running.token.cancel();
            return;
        }
        if self.inline.as_ref().is_some_and(|i| i.cancel(&id)) {
            return;
        }
        if self.backlog_ids.remove(&id)
            && let Some(i) = self.backlog.iter().position(|(r, _)| r.id == id)
            && let Some((_, Some(batch))) = self.backlog.remove(i)
        {
            self.batch_item_done(batch, None);
        }
    }

    fn on_response(&mut self, response: Response, too_big: Option<usize>) {
        let Some(id) = response.id else {
            if let Err(error) = &response.result {
                tracing::warn!(%error, "peer reported an error without a request id");
            }
            return;
        };
        let reply = match too_big {
            Some(size) => Err(Error::MessageTooLarge {
                size,
                limit: self.limits.max_size,
            }),
            None => response.result.map_err(Error::Rpc),
        };
        if !self.shared.complete(&id, reply) {
            tracing::debug!(%id, "dropping a response to an unknown or cancelled request");
        }
    }

    /// A frame meant as a response that could not be read (malformed, or too large to
    /// keep): it fails the request it names, at once, and gets no reply.
    fn on_invalid_response(&mut self, invalid: InvalidMessage) {
        let Some(id) = invalid.id.clone() else {
            tracing::warn!(error = %invalid.error, "unreadable response without a readable id");
            return;
        };
        let error = match invalid.too_large() {
            Some((size, limit)) => Error::MessageTooLarge { size, limit },
            None => Error::InvalidResponse(invalid.error),
        };
        tracing::debug!(%id, %error, "failing a request on an unreadable response");
        if !self.shared.complete(&id, Err(error)) {
            tracing::debug!(%id, "unreadable response to an unknown or cancelled request");
        }
    }
}
