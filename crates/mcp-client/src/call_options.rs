//! [`CallOptions`]: the options of one call (timeouts, progress), and the client's defaults.

use std::time::Duration;

use mcp_jsonrpc::{Progress, RequestOptions};
use tokio::sync::mpsc;

/// Per-call options: timeouts and a progress sink. The defaults are the client's.
///
/// ```
/// use std::time::Duration;
/// use mcp_client::CallOptions;
///
/// let options = CallOptions::new()
///     .timeout(Duration::from_secs(10))
///     .max_total_timeout(Duration::from_secs(300));
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    timeout: Option<Option<Duration>>,
    max_total_timeout: Option<Duration>,
    reset_timeout_on_progress: Option<bool>,
    progress: Option<mpsc::Sender<Progress>>,
}

impl CallOptions {
    /// The client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fails the call with [`Error::Timeout`](crate::Error::Timeout) if no response (and no
    /// progress, for calls with a progress sink) arrives within `timeout`. On 2026-07-28, where
    /// a call may take several requests, each request and each answering of the server's input
    /// (by the installed handlers) has this long. Overrides
    /// [`ClientBuilder::request_timeout`](crate::ClientBuilder::request_timeout).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(Some(timeout));
        self
    }

    /// Waits without a resettable timeout; a hard maximum still applies.
    #[must_use]
    pub fn without_timeout(mut self) -> Self {
        self.timeout = Some(None);
        self
    }

    /// A hard maximum for the whole call, which progress does not extend. Overrides
    /// [`ClientBuilder::max_total_timeout`](crate::ClientBuilder::max_total_timeout).
    #[must_use]
    pub fn max_total_timeout(mut self, max: Duration) -> Self {
        self.max_total_timeout = Some(max);
        self
    }

    /// Whether progress restarts the timeout (default `true`; only calls with a progress sink
    /// see their progress).
    #[must_use]
    pub fn reset_timeout_on_progress(mut self, reset: bool) -> Self {
        self.reset_timeout_on_progress = Some(reset);
        self
    }

    /// Asks the server for progress (a `progressToken` is added to the params) and delivers it
    /// to `sink`. Delivery does not wait: progress that finds the sink full is dropped.
    #[must_use]
    pub fn progress(mut self, sink: mpsc::Sender<Progress>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The timeouts of the whole call (on 2026-07-28 a call is several requests, with the
    /// answering of the server's input in between).
    pub(crate) fn limits(&self, defaults: &Defaults) -> Limits {
        Limits {
            idle: self.timeout.unwrap_or(defaults.request_timeout),
            total: self.max_total_timeout.or(defaults.max_total_timeout),
        }
    }

    pub(crate) fn to_request_options(&self, defaults: &Defaults) -> RequestOptions {
        let mut options = RequestOptions::new();
        match self.timeout {
            Some(Some(d)) => options = options.timeout(d),
            Some(None) => options = options.without_timeout(),
            None => {}
        }
        if let Some(max) = self.max_total_timeout.or(defaults.max_total_timeout) {
            options = options.max_total_timeout(max);
        }
        if let Some(reset) = self.reset_timeout_on_progress {
            options = options.reset_timeout_on_progress(reset);
        }
        if let Some(sink) = &self.progress {
            options = options.progress(sink.clone());
        }
        options
    }
}

/// The timeouts of one call.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// How long each step may take: each request, and (2026-07-28) the answering of each
    /// `input_required` result, as a server request would be bounded in the handshake era.
    pub(crate) idle: Option<Duration>,
    /// How long the whole call may take.
    pub(crate) total: Option<Duration>,
}

/// Client-wide defaults of [`CallOptions`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Defaults {
    pub(crate) max_total_timeout: Option<Duration>,
    /// The resettable timeout of every call (also how long a subscription waits for its
    /// acknowledgement).
    pub(crate) request_timeout: Option<Duration>,
    /// How many pages a list stream fetches (see `ClientBuilder::max_list_pages`).
    pub(crate) max_list_pages: usize,
    /// The limits a held skill's entry is checked against (see
    /// `ClientBuilder::skill_limits`).
    #[cfg(feature = "skills")]
    pub(crate) skill_limits: crate::skills::limits::SkillLimits,
}
