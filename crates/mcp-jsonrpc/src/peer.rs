//! [`Peer`]: the cloneable handle to a connection, and the state it shares with the driver.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::future::poll_fn;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Poll;
use std::time::Duration;

use futures::task::AtomicWaker;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::config::{Config, Protocol};
use crate::error::{Error, Result};
use crate::message::{Id, Message, Notification, ProgressToken, Request};

mod options;

use options::TimeoutSetting;
pub use options::{Progress, RequestOptions};

pub(crate) type Reply = Result<Box<RawValue>>;

struct Pending {
    tx: oneshot::Sender<Reply>,
    progress_token: Option<ProgressToken>,
}

struct ProgressRoute {
    sink: mpsc::Sender<Progress>,
    start: Instant,
    /// Nanoseconds after `start` of the last progress; 0 for none.
    last: Arc<AtomicU64>,
}

#[derive(Default)]
struct State {
    pending: HashMap<Id, Pending>,
    progress: HashMap<ProgressToken, ProgressRoute>,
    /// Requests abandoned by their callers after being sent: the driver sends the cancel.
    cancels: Vec<(Id, &'static str)>,
    closed: Option<String>,
}

/// State shared by the [`Peer`] handles and the connection driver. The lock is never held
/// across an await.
pub(crate) struct Shared {
    state: Mutex<State>,
    next_id: AtomicI64,
    pub(crate) waker: AtomicWaker,
    batching: AtomicBool,
    close_requested: AtomicBool,
    /// `state.cancels` may hold something: the driver, which looks for cancellations on every
    /// turn, takes the lock only then.
    cancels_waiting: AtomicBool,
    pub(crate) protocol: Protocol,
    default_timeout: Option<Duration>,
    /// Set once the driver has stopped; `finished_notify` wakes [`Peer::closed`]. (Not a
    /// `watch` channel: that is one more allocation, of 344 bytes, per connection.)
    finished: AtomicBool,
    finished_notify: Notify,
}

impl Shared {
    pub(crate) fn new(config: &Config) -> Self {
        Shared {
            state: Mutex::default(),
            next_id: AtomicI64::new(1),
            waker: AtomicWaker::new(),
            batching: AtomicBool::new(config.batching),
            close_requested: AtomicBool::new(false),
            cancels_waiting: AtomicBool::new(false),
            protocol: config.protocol.clone(),
            default_timeout: config.default_timeout,
            finished: AtomicBool::new(false),
            finished_notify: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn batching(&self) -> bool {
        self.batching.load(Ordering::Relaxed)
    }

    pub(crate) fn close_requested(&self) -> bool {
        self.close_requested.load(Ordering::Acquire)
    }

    pub(crate) fn is_pending(&self, id: &Id) -> bool {
        self.lock().pending.contains_key(id)
    }

    /// Whether a request of this side awaits its response.
    pub(crate) fn awaiting_responses(&self) -> bool {
        !self.lock().pending.is_empty()
    }

    pub(crate) fn take_cancels(&self) -> Vec<(Id, &'static str)> {
        if !self.cancels_waiting.load(Ordering::Acquire) {
            return Vec::new();
        }
        let mut st = self.lock();
        // Cleared under the lock that `abandon` sets it under: none is missed.
        self.cancels_waiting.store(false, Ordering::Relaxed);
        std::mem::take(&mut st.cancels)
    }

    /// Delivers a response; `false` if no request with this id is pending.
    pub(crate) fn complete(&self, id: &Id, reply: Reply) -> bool {
        let pending = {
            let mut st = self.lock();
            let Some(p) = st.pending.remove(id) else {
                return false;
            };
            if let Some(token) = &p.progress_token {
                st.progress.remove(token);
            }
            p
        };
        // The caller may have just given up; then nobody wants the reply.
        let _ = pending.tx.send(reply);
        true
    }

    /// Routes a progress notification; `false` if its token belongs to no pending request.
    pub(crate) fn route_progress(&self, progress: Progress) -> bool {
        let st = self.lock();
        let Some(route) = st.progress.get(&progress.progress_token) else {
            return false;
        };
        let nanos = u64::try_from(route.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        route.last.store(nanos.max(1), Ordering::Relaxed);
        if route.sink.try_send(progress).is_err() {
            tracing::debug!("progress sink full or closed, dropping a progress notification");
        }
        true
    }

    /// Marks the connection closed and fails every pending request. Idempotent.
    pub(crate) fn fail_all(&self, reason: &str) {
        let pending = {
            let mut st = self.lock();
            if st.closed.is_none() {
                st.closed = Some(reason.to_owned());
            }
            st.progress.clear();
            st.cancels.clear();
            std::mem::take(&mut st.pending)
        };
        for (_, p) in pending {
            let _ = p.tx.send(Err(Error::closed(reason)));
        }
    }

    pub(crate) fn set_finished(&self) {
        self.finished.store(true, Ordering::Release);
        self.finished_notify.notify_waiters();
    }

    fn closed_error(&self) -> Error {
        let reason = self.lock().closed.clone();
        Error::closed(reason.unwrap_or_else(|| "connection driver stopped".to_owned()))
    }

    /// A request future went away before its response: forget it and, if it reached the
    /// peer, have the driver send a cancellation.
    fn abandon(&self, id: &Id, sent: bool, reason: &'static str) {
        let mut st = self.lock();
        let Some(p) = st.pending.remove(id) else {
            return;
        };
        if let Some(token) = &p.progress_token {
            st.progress.remove(token);
        }
        if sent && st.closed.is_none() {
            st.cancels.push((id.clone(), reason));
            self.cancels_waiting.store(true, Ordering::Release);
            drop(st);
            self.waker.wake();
        }
    }
}

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

impl Peer {
    pub(crate) fn new(shared: Arc<Shared>, tx: Outbound) -> Self {
        Peer { shared, tx }
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
        let mut send = pin!(self.tx.send(request));
        let sent = poll_fn(|cx| {
            if let Poll::Ready(r) = send.as_mut().poll(cx) {
                return Poll::Ready(r.map_err(|_| None));
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
        self.tx
            .send(msg)
            .await
            .map_err(|_| self.shared.closed_error())
    }

    /// Sends a progress notification (the method is [`Protocol::progress_method`]).
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
