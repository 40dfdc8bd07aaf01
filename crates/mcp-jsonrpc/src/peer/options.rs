//! [`RequestOptions`], the options of one outgoing request, and [`Progress`], what a
//! request's progress sink receives.

use std::time::Duration;

use serde::Deserialize;
use tokio::sync::mpsc;

use crate::extensions::Extensions;
use crate::message::{Id, ProgressToken};

/// A progress notification routed to the caller of a request; see
/// [`RequestOptions::progress`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Progress {
    /// The token the request carried in `params._meta.progressToken`.
    pub progress_token: ProgressToken,
    /// The progress so far.
    pub progress: f64,
    /// The total, if known.
    #[serde(default)]
    pub total: Option<f64>,
    /// A human-readable message.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum TimeoutSetting {
    Default,
    After(Duration),
    Never,
}

/// Options of one outgoing request, for [`Peer::request_with`](super::Peer::request_with).
#[derive(Debug, Clone)]
pub struct RequestOptions {
    pub(super) timeout: TimeoutSetting,
    pub(super) max_total_timeout: Option<Duration>,
    pub(super) reset_timeout_on_progress: bool,
    pub(super) progress: Option<mpsc::Sender<Progress>>,
    pub(super) id: Option<Id>,
    pub(super) extensions: Extensions,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            timeout: TimeoutSetting::Default,
            max_total_timeout: None,
            reset_timeout_on_progress: true,
            progress: None,
            id: None,
            extensions: Extensions::new(),
        }
    }
}

impl RequestOptions {
    /// The defaults: the connection's default timeout, no hard maximum, progress resets the
    /// timeout, no progress sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fails the request with [`Error::Timeout`](crate::Error::Timeout) if no response (and, with
    /// [`reset_timeout_on_progress`](Self::reset_timeout_on_progress), no progress) arrives
    /// within `timeout`.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = TimeoutSetting::After(timeout);
        self
    }

    /// Waits without a (resettable) timeout; a [`max_total_timeout`](Self::max_total_timeout)
    /// still applies.
    #[must_use]
    pub fn without_timeout(mut self) -> Self {
        self.timeout = TimeoutSetting::Never;
        self
    }

    /// A hard maximum for the whole request, which progress does not extend.
    #[must_use]
    pub fn max_total_timeout(mut self, max: Duration) -> Self {
        self.max_total_timeout = Some(max);
        self
    }

    /// Whether progress notifications for this request restart its timeout (default `true`).
    /// Only requests with a [`progress`](Self::progress) sink see their progress.
    #[must_use]
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = reset;
        self
    }

    /// Routes the progress notifications of this request to `sink`.
    ///
    /// The token is read from `params._meta.progressToken`; if the params carry none, one is
    /// inserted (the params must then be absent or an object). Progress is delivered with
    /// `try_send`: when the sink is full, the notification is dropped (and logged).
    #[must_use]
    pub fn progress(mut self, sink: mpsc::Sender<Progress>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Sends the request with this id, taken from [`Peer::next_id`](super::Peer::next_id), instead of a fresh one:
    /// for a caller that must know the id before the response (say, to match notifications
    /// that name the request). An id that is already pending fails the request with
    /// [`Error::DuplicateId`](crate::Error::DuplicateId).
    #[must_use]
    pub fn id(mut self, id: Id) -> Self {
        self.id = Some(id);
        self
    }

    /// The id set with [`id`](Self::id), if any.
    pub(crate) fn chosen_id(&self) -> Option<&Id> {
        self.id.as_ref()
    }

    /// Attaches `value` to the outgoing [`Request::extensions`](crate::Request::extensions), where the transport finds it:
    /// a hint for the transport about this request (such as headers an HTTP transport derives
    /// from it). Nothing of it goes on the wire unless the transport puts it there; one value
    /// per type.
    #[must_use]
    pub fn extension<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }
}
