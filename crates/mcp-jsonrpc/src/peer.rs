//! [`Peer`]: the cloneable handle to a connection, and the state it shares with the driver.

use std::borrow::Cow;
use std::fmt;
use std::future::poll_fn;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::error::{Error, Result};
use crate::message::{Id, Message, Notification, ProgressToken, Request};

mod options;
mod shared;

use options::TimeoutSetting;
pub use options::{Progress, RequestOptions};
pub(crate) use shared::Shared;
use shared::{Pending, ProgressRoute};

/// A cloneable handle to a [`Connection`](crate::Connection): sends requests and
/// notifications to the other side, and closes the connection.
///
/// Handlers get one in their [`RequestContext`](crate::RequestContext), so they can call the
/// other side while they run.
#[derive(Clone)]
pub struct Peer {
    shared: Arc<Shared>,
    tx: Outbound,
}

/// The queue from the handles to the driver. Messages go boxed: a tokio channel allocates
/// its first block of 32 slots when it is created, and 32 unboxed messages are 3.8 KiB that
/// every connection would keep, used or not (an idle HTTP session never sends through it).
pub(crate) type Outbound = mpsc::Sender<Queued>;

/// What the outbound queue carries.
pub(crate) type Queued = Box<Message>;

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Peer")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

/// Removes a pending request when its future goes away without a response.
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: Id,
    sent: bool,
    reason: &'static str,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.shared.abandon(&self.id, self.sent, self.reason);
    }
}

/// Counts a message in [`Shared::unsent`] from before it enters the outbound queue; undone
/// if it never does (the queue closed, or the sending future dropped).
struct Unsent<'a> {
    shared: &'a Shared,
    queued: bool,
}

impl<'a> Unsent<'a> {
    fn new(shared: &'a Shared) -> Self {
        shared.unsent.fetch_add(1, Ordering::AcqRel);
        Unsent {
            shared,
            queued: false,
        }
    }
}

impl Drop for Unsent<'_> {
    fn drop(&mut self) {
        if !self.queued {
            self.shared.sent(1);
        }
    }
}

impl Peer {
    pub(crate) fn new(shared: Arc<Shared>, tx: Outbound) -> Self {
        Peer { shared, tx }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Queues `msg` for the driver (waiting for room), counted as unsent until its send has
    /// finished. `Err` once the connection has stopped.
    pub(crate) async fn enqueue(&self, msg: Queued) -> std::result::Result<(), ()> {
        let mut unsent = Unsent::new(&self.shared);
        self.tx.send(msg).await.map_err(|_| ())?;
        unsent.queued = true;
        Ok(())
    }

    /// A fresh request id, never handed out before on this connection; send a request with it
    /// through [`RequestOptions::id`].
    pub fn next_id(&self) -> Id {
        Id::Number(self.shared.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Sends a request with the default [`RequestOptions`] and waits for its result.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future cancels the request: it is forgotten, and if it was already sent
    /// the other side gets a cancellation notification. A late response is dropped.
    pub async fn request(
        &self,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
    ) -> Result<Box<RawValue>> {
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    /// Sends a request with `options` (timeouts, progress) and waits for its result.
    ///
    /// On timeout the request is cancelled on the other side and [`Error::Timeout`] returned.
    ///
    /// # Cancel safety
    ///
    /// As for [`request`](Self::request): dropping the future cancels the request.
    pub async fn request_with(
        &self,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
        options: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let start = Instant::now();
        let id = match options.id {
            Some(id) => id,
            None => self.next_id(),
        };
        let mut params = params;
        let mut route = None;
        if let Some(sink) = options.progress {
            let (token, new_params) = progress_token_for(&id, params)?;
            params = new_params;
            route = Some((token, sink));
        }
        let last_progress = Arc::new(AtomicU64::new(0));
        let (tx, rx) = oneshot::channel();
        {
            let mut st = self.shared.lock();
            if let Some(reason) = &st.closed {
                return Err(Error::closed(reason.clone()));
            }
            if st.pending.contains_key(&id) {
                return Err(Error::DuplicateId(id));
            }
            let progress_token = route.map(|(token, sink)| {
                st.progress.insert(
                    token.clone(),
                    ProgressRoute {
                        sink,
                        start,
                        last: last_progress.clone(),
                    },
                );
                token
            });
            st.pending
                .insert(id.clone(), Pending { tx, progress_token });
        }
        let mut guard = PendingGuard {
            shared: &self.shared,
            id: id.clone(),
            sent: false,
            reason: "request cancelled",
        };

        let idle = match options.timeout {
            TimeoutSetting::Default => self.shared.default_timeout,
            TimeoutSetting::After(d) => Some(d),
            TimeoutSetting::Never => None,
        };
        let hard = options.max_total_timeout;
        let mut idle_sleep = pin!(idle.map(|d| sleep_until(start + d)));
        let mut hard_sleep = pin!(hard.map(|d| sleep_until(start + d)));
        let reset = options.reset_timeout_on_progress;

        // Polls the timers: `Some(elapsed timeout)` once one of them fires for good.
        let mut poll_timers = |cx: &mut std::task::Context<'_>| -> Option<Duration> {
            if let (Some(d), Some(s)) = (hard, hard_sleep.as_mut().as_pin_mut())
                && s.poll(cx).is_ready()
            {
                return Some(d);
            }
            if let (Some(d), Some(mut s)) = (idle, idle_sleep.as_mut().as_pin_mut()) {
                while s.as_mut().poll(cx).is_ready() {
                    let last = last_progress.load(Ordering::Relaxed);
                    let next = start + Duration::from_nanos(last) + d;
                    if reset && last != 0 && next > Instant::now() {
                        s.as_mut().reset(next);
                    } else {
                        return Some(d);
                    }
                }
            }
            None
        };

        let mut request = Request::new(id, method, params);
        request.extensions = options.extensions;
        let request = Box::new(Message::Request(request));
        let mut send = pin!(self.enqueue(request));
        let sent = poll_fn(|cx| {
            if let Poll::Ready(r) = send.as_mut().poll(cx) {
                return Poll::Ready(r.map_err(|()| None));
            }
            match poll_timers(cx) {
                Some(d) => Poll::Ready(Err(Some(d))),
                None => Poll::Pending,
            }
        })
        .await;
        match sent {
            Ok(()) => guard.sent = true,
            Err(Some(d)) => return Err(Error::Timeout(d)),
            Err(None) => return Err(self.shared.closed_error()),
        }

        let mut rx = rx;
        let outcome = poll_fn(|cx| {
            if let Poll::Ready(r) = Pin::new(&mut rx).poll(cx) {
                return Poll::Ready(Ok(r));
            }
            match poll_timers(cx) {
                Some(d) => Poll::Ready(Err(d)),
                None => Poll::Pending,
            }
        })
        .await;
        match outcome {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(self.shared.closed_error()),
            Err(d) => {
                guard.reason = "request timed out";
                Err(Error::Timeout(d))
            }
        }
    }

    /// Sends a notification.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future before it completes may or may not send the notification.
    pub async fn notify(
        &self,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
    ) -> Result<()> {
        if let Some(reason) = &self.shared.lock().closed {
            return Err(Error::closed(reason.clone()));
        }
        let msg = Box::new(Message::Notification(Notification::new(method, params)));
        self.enqueue(msg)
            .await
            .map_err(|()| self.shared.closed_error())
    }

    /// Sends a progress notification (the method is
    /// [`Protocol::progress_method`](crate::Protocol::progress_method)).
    pub async fn notify_progress(
        &self,
        token: &ProgressToken,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<()> {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a ProgressToken,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        let params = serde_json::value::to_raw_value(&Params {
            progress_token: token,
            progress,
            total,
            message,
        })?;
        self.notify(self.shared.protocol.progress_method.clone(), Some(params))
            .await
    }

    /// Switches acceptance of inbound batches on or off (e.g. once protocol revision
    /// 2025-03-26 has been negotiated). Takes effect for the next message read.
    pub fn set_batching(&self, enabled: bool) {
        self.shared.batching.store(enabled, Ordering::Relaxed);
    }

    /// Whether inbound batches are accepted.
    pub fn batching(&self) -> bool {
        self.shared.batching()
    }

    /// Asks the connection to close: pending requests fail with [`Error::Closed`], running
    /// handlers are cancelled, queued messages are flushed, the transport is closed, and the
    /// [`run`](crate::Connection::run) future completes. Returns at once; await
    /// [`closed`](Self::closed) to wait for the end.
    pub fn close(&self) {
        self.shared.close_requested.store(true, Ordering::Release);
        self.shared.waker.wake();
    }

    /// Whether the connection is closed (new requests fail at once).
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed.is_some()
    }

    /// Waits until the connection's [`run`](crate::Connection::run) future has finished (or
    /// was dropped). Cancel-safe.
    pub async fn closed(&self) {
        let mut notified = pin!(self.shared.finished_notify.notified());
        // Registered before the flag is read, so `set_finished` in between still wakes it.
        notified.as_mut().enable();
        if !self.shared.finished.load(Ordering::Acquire) {
            notified.await;
        }
    }
}

/// Finds the progress token in `params._meta.progressToken`, inserting `id` as the token if
/// there is none.
fn progress_token_for(
    id: &Id,
    params: Option<Box<RawValue>>,
) -> Result<(ProgressToken, Option<Box<RawValue>>)> {
    if let Some(token) = read_progress_token(params.as_deref()) {
        return Ok((token, params));
    }
    let mut map = match &params {
        None => Map::new(),
        Some(raw) => match serde_json::from_str::<Value>(raw.get())? {
            Value::Object(map) => map,
            _ => {
                return Err(Error::Decode(serde::de::Error::custom(
                    "a progress token needs object params",
                )));
            }
        },
    };
    let meta = map
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(meta) = meta {
        meta.insert("progressToken".to_owned(), serde_json::to_value(id)?);
    }
    let raw = serde_json::value::to_raw_value(&map)?;
    Ok((id.clone(), Some(raw)))
}

/// Reads `_meta.progressToken` from request params, skipping everything else.
pub(crate) fn read_progress_token(params: Option<&RawValue>) -> Option<ProgressToken> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(Deserialize)]
    struct Meta {
        #[serde(rename = "progressToken")]
        progress_token: Option<ProgressToken>,
    }
    let text = params?.get();
    if !text.contains("progressToken") {
        return None;
    }
    serde_json::from_str::<Probe>(text)
        .ok()?
        .meta?
        .progress_token
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn reads_an_existing_token() {
        let p = raw(r#"{"x":1,"_meta":{"progressToken":"abc"}}"#);
        assert_eq!(read_progress_token(Some(&p)), Some(Id::from("abc")));
        let (token, params) = progress_token_for(&Id::Number(7), Some(p)).unwrap();
        assert_eq!(token, Id::from("abc"));
        assert_eq!(
            params.unwrap().get(),
            r#"{"x":1,"_meta":{"progressToken":"abc"}}"#
        );
    }

    #[test]
    fn inserts_a_token() {
        let (token, params) = progress_token_for(&Id::Number(7), None).unwrap();
        assert_eq!(token, Id::Number(7));
        assert_eq!(params.unwrap().get(), r#"{"_meta":{"progressToken":7}}"#);

        let p = raw(r#"{"x":1,"_meta":{"other":true}}"#);
        let (_, params) = progress_token_for(&Id::Number(8), Some(p)).unwrap();
        let v: Value = serde_json::from_str(params.unwrap().get()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"x":1,"_meta":{"other":true,"progressToken":8}})
        );
    }

    /// The block of 32 slots a tokio channel allocates up front is what an idle connection
    /// keeps of its outbound queue: pointers, not 32 messages.
    #[test]
    fn the_outbound_queue_keeps_a_block_of_pointers() {
        assert!(32 * std::mem::size_of::<Queued>() <= 256);
    }

    #[test]
    fn array_params_cannot_carry_a_token() {
        let err = progress_token_for(&Id::Number(1), Some(raw("[1]"))).unwrap_err();
        assert!(matches!(err, Error::Decode(_)));
    }
}
