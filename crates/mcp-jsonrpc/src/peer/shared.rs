//! The state the [`Peer`](super::Peer) handles share with the connection's driver: the
//! requests awaiting responses, progress routes, cancellations to send, and the flags and
//! counts both sides read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::task::AtomicWaker;
use serde_json::value::RawValue;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;

use super::Progress;
use crate::config::{Config, Protocol};
use crate::error::{Error, Result};
use crate::message::{Id, ProgressToken};

pub(crate) type Reply = Result<Box<RawValue>>;

pub(super) struct Pending {
    pub(super) tx: oneshot::Sender<Reply>,
    pub(super) progress_token: Option<ProgressToken>,
}

pub(super) struct ProgressRoute {
    pub(super) sink: mpsc::Sender<Progress>,
    pub(super) start: Instant,
    /// Nanoseconds after `start` of the last progress; 0 for none.
    pub(super) last: Arc<AtomicU64>,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) pending: HashMap<Id, Pending>,
    pub(super) progress: HashMap<ProgressToken, ProgressRoute>,
    /// Requests abandoned by their callers after being sent: the driver sends the cancel.
    pub(super) cancels: Vec<(Id, &'static str)>,
    pub(super) closed: Option<String>,
}

/// State shared by the [`Peer`] handles and the connection driver. The lock is never held
/// across an await.
pub(crate) struct Shared {
    state: Mutex<State>,
    pub(super) next_id: AtomicI64,
    pub(crate) waker: AtomicWaker,
    pub(super) batching: AtomicBool,
    pub(super) close_requested: AtomicBool,
    /// `state.cancels` may hold something: the driver, which looks for cancellations on every
    /// turn, takes the lock only then.
    cancels_waiting: AtomicBool,
    pub(crate) protocol: Protocol,
    pub(super) default_timeout: Option<Duration>,
    /// Set once the driver has stopped; `finished_notify` wakes [`Peer::closed`]. (Not a
    /// `watch` channel: that is one more allocation, of 344 bytes, per connection.)
    pub(super) finished: AtomicBool,
    pub(super) finished_notify: Notify,
    /// Messages the handles queued whose send has not finished (nor were they dropped):
    /// while any is, an inline request's answer goes out behind them (see
    /// [`InlineCall`](crate::InlineCall)).
    pub(super) unsent: AtomicUsize,
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
            unsent: AtomicUsize::new(0),
        }
    }

    /// Whether every message the handles queued has been sent (its send finished) or
    /// dropped: what a transport does with a message now comes after what it did with them.
    pub(crate) fn all_sent(&self) -> bool {
        self.unsent.load(Ordering::Acquire) == 0
    }

    /// `count` queued messages were sent (their send finished) or dropped.
    pub(crate) fn sent(&self, count: usize) {
        if count > 0 {
            self.unsent.fetch_sub(count, Ordering::AcqRel);
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
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

    /// Whether cancellations may wait to be sent: the driver calls `take_cancels` only then.
    pub(crate) fn has_cancels(&self) -> bool {
        self.cancels_waiting.load(Ordering::Acquire)
    }

    pub(crate) fn take_cancels(&self) -> Vec<(Id, &'static str)> {
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

    pub(super) fn closed_error(&self) -> Error {
        let reason = self.lock().closed.clone();
        Error::closed(reason.unwrap_or_else(|| "connection driver stopped".to_owned()))
    }

    /// A request future went away before its response: forget it and, if it reached the
    /// peer, have the driver send a cancellation.
    pub(super) fn abandon(&self, id: &Id, sent: bool, reason: &'static str) {
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
