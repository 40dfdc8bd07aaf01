//! Connection configuration: [`Config`] and the [`Protocol`] method names it needs.

use std::borrow::Cow;
use std::time::Duration;

/// The only two method names the engine knows: the generic notifications whose semantics it
/// implements. The defaults are MCP's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Protocol {
    /// Cancels a request: params `{requestId, reason?}`.
    /// Default: [`Protocol::MCP_CANCELLED`].
    pub cancelled_method: Cow<'static, str>,
    /// Reports progress: params `{progressToken, progress, total?, message?}`.
    /// Default: [`Protocol::MCP_PROGRESS`].
    pub progress_method: Cow<'static, str>,
}

impl Protocol {
    /// MCP's cancellation notification.
    pub const MCP_CANCELLED: &'static str = "notifications/cancelled";
    /// MCP's progress notification.
    pub const MCP_PROGRESS: &'static str = "notifications/progress";
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            cancelled_method: Cow::Borrowed(Self::MCP_CANCELLED),
            progress_method: Cow::Borrowed(Self::MCP_PROGRESS),
        }
    }
}

/// Limits and defaults of a [`Connection`](crate::Connection).
///
/// Start from [`Config::default`] and set fields:
///
/// ```
/// let mut config = mcp_jsonrpc::Config::default();
/// config.max_concurrent_requests = 8;
/// config.batching = true;
/// ```
///
/// # Load: backpressure, never loss
///
/// What the peer sends waits in bounded queues: requests for a slot
/// ([`request_backlog`](Self::request_backlog)), notifications for the sequential handler
/// ([`notification_queue`](Self::notification_queue)), and the error replies the connection
/// makes itself for the peer to read ([`outbound_queue`](Self::outbound_queue)). When one is
/// full, the connection stops reading until there is room: the transport's buffers fill and
/// the peer's writes wait. No request is refused and no reply or notification dropped
/// because of load.
///
/// One exception keeps a connection from deadlocking on itself: while a request of this
/// side awaits its response (a handler asking the peer for sampling in the middle of a
/// tool call, say), a full backlog or notification queue does not stop reading, since the
/// response may be behind the messages that fill them. Requests that then find the backlog
/// full are answered -32603 ("too many concurrent requests"), and notifications that find
/// the queue full are dropped with a warning. Error replies always stop reading when
/// [`outbound_queue`](Self::outbound_queue) of them wait.
///
/// Cancellation: a `notifications/cancelled` is acted on as soon as it is read. While
/// reading is stopped, it waits behind the requests sent before it, so the backlog is the
/// look-ahead within which cancellations act at once (cancelling a request still in the
/// backlog removes it); a cancelled running handler frees its slot at once, so reading
/// resumes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// The method names of the generic notifications.
    pub protocol: Protocol,
    /// How many inbound requests are handled at once (a handler holds its slot until its
    /// response is handed to the transport). Default 32.
    pub max_concurrent_requests: usize,
    /// How many inbound requests may wait for a slot; when that many wait, the connection
    /// stops reading until a slot frees (see [Load](Self#load-backpressure-never-loss)).
    /// Default 256; at least 1.
    pub request_backlog: usize,
    /// How many inbound notifications may wait for the (sequential) notification handler;
    /// when that many wait, the connection stops reading until the handler takes one (see
    /// [Load](Self#load-backpressure-never-loss)). Default 256; at least 1.
    pub notification_queue: usize,
    /// The capacity of the queue from [`Peer`](crate::Peer) handles to the transport (a
    /// handle waits for room), and the number of error replies to invalid or oversized
    /// messages that may wait to be written before the connection stops reading. Default 64.
    pub outbound_queue: usize,
    /// The largest inbound message accepted, in bytes, as measured by
    /// [`Message::size_hint`](crate::Message::size_hint). Default 8 MiB.
    pub max_message_size: usize,
    /// The timeout of outgoing requests that do not set one. Default 60 s; `None` for none.
    pub default_timeout: Option<Duration>,
    /// Whether inbound batches (JSON arrays) are accepted; can be switched at runtime with
    /// [`Peer::set_batching`](crate::Peer::set_batching). Default `false`.
    pub batching: bool,
    /// How long the connection, once it ends (closed locally, or the peer ended its
    /// stream), may spend writing the messages still queued before it gives up on a peer
    /// that stopped reading and closes the transport anyway; and, when the peer ended its
    /// stream but still reads ([`Transport::peer_reads_after_end`](crate::Transport::peer_reads_after_end)),
    /// how long the requests it sent before that may still run to be answered (then they are
    /// cancelled). Default 5 s.
    pub flush_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            protocol: Protocol::default(),
            max_concurrent_requests: 32,
            request_backlog: 256,
            notification_queue: 256,
            outbound_queue: 64,
            max_message_size: 8 * 1024 * 1024,
            default_timeout: Some(Duration::from_secs(60)),
            batching: false,
            flush_timeout: Duration::from_secs(5),
        }
    }
}
