//! [`RedisOptions`]: key prefix, time limits, bounds.

use std::time::Duration;

/// How [`Redis::connect`](crate::Redis::connect) connects and what the stores keep.
///
/// Every key this crate writes has a time to live, refreshed when the key is used, so that
/// instances that die leave nothing behind for good; every per-session collection is bounded.
#[derive(Debug, Clone)]
pub struct RedisOptions {
    pub(crate) prefix: String,
    pub(crate) response_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) reconnect_min: Duration,
    pub(crate) reconnect_max: Duration,
    pub(crate) session_ttl: Duration,
    pub(crate) max_events: usize,
    pub(crate) max_event_bytes: usize,
    pub(crate) max_tasks: usize,
    pub(crate) task_ttl: Duration,
    pub(crate) instance_ttl: Duration,
    pub(crate) publish_queue: usize,
    pub(crate) bus_capacity: usize,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            prefix: "mcp:".into(),
            response_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            reconnect_min: Duration::from_millis(100),
            reconnect_max: Duration::from_secs(5),
            session_ttl: Duration::from_secs(60 * 60),
            max_events: 1024,
            max_event_bytes: 8 * 1024 * 1024,
            max_tasks: 1024,
            task_ttl: Duration::from_secs(24 * 60 * 60),
            instance_ttl: Duration::from_secs(10),
            publish_queue: 1024,
            bus_capacity: 1024,
        }
    }
}

impl RedisOptions {
    /// The prefix of every key and of the event bus's channel. Default `mcp:`; give each
    /// deployment sharing one Redis its own.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long a command may wait for its answer before it fails. Default 5 s.
    #[must_use]
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How long connecting (TCP and handshake) may take. Default 5 s.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The driver's delays between reconnection attempts: from `min`, doubling up to `max`.
    /// Default 100 ms to 5 s.
    #[must_use]
    pub fn reconnect_backoff(mut self, min: Duration, max: Duration) -> Self {
        self.reconnect_min = min;
        self.reconnect_max = max.max(min);
        self
    }

    /// How long a session's keys (directory record, snapshot, SSE events) live after their
    /// last use (`SessionDirectory::touch` refreshes all of them). Default 1 hour; keep it
    /// above the HTTP server's idle session timeout.
    #[must_use]
    pub fn session_ttl(mut self, ttl: Duration) -> Self {
        self.session_ttl = ttl;
        self
    }

    /// Per session, the newest `max_events` SSE events totalling at most `max_bytes` are kept
    /// (the oldest are dropped first, as in `InMemoryEventStore`). Default 1024 events and
    /// 8 MiB.
    #[must_use]
    pub fn max_events_per_session(mut self, max_events: usize, max_bytes: usize) -> Self {
        self.max_events = max_events.max(1);
        self.max_event_bytes = max_bytes;
        self
    }

    /// How many unexpired tasks the deployment's task store holds (then `create` fails with
    /// `TaskStoreError::Full`). Default 1024.
    #[must_use]
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max;
        self
    }

    /// How long a task without a TTL of its own is kept. Default 24 hours.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// The time to live of this instance's liveness key, refreshed by the driver every third
    /// of it. Once it has expired, other instances report this instance's unfinished tasks as
    /// failed. Default 10 s.
    #[must_use]
    pub fn instance_ttl(mut self, ttl: Duration) -> Self {
        self.instance_ttl = ttl.max(Duration::from_millis(30));
        self
    }

    /// How many published events wait for the driver to send them; past that `publish`
    /// drops the event (with a warning, counted by
    /// [`RedisEventBus::dropped`](crate::RedisEventBus::dropped)). Default 1024.
    #[must_use]
    pub fn publish_queue(mut self, capacity: usize) -> Self {
        self.publish_queue = capacity.max(1);
        self
    }

    /// How many events a local subscriber may fall behind before it is told it lagged.
    /// Default 1024.
    #[must_use]
    pub fn bus_capacity(mut self, capacity: usize) -> Self {
        self.bus_capacity = capacity.max(1);
        self
    }
}

/// Milliseconds of `d`, at least 1 (Redis refuses an expiry of 0).
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
