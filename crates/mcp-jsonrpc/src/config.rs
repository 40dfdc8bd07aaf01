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
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// The method names of the generic notifications.
    pub protocol: Protocol,
    /// How many inbound requests are handled at once (a handler holds its slot until its
    /// response is handed to the transport). Default 32.
    pub max_concurrent_requests: usize,
    /// How many inbound requests may wait for a slot; beyond that they are answered -32603
    /// at once. Default 256.
    pub request_backlog: usize,
    /// How many inbound notifications may wait for the (sequential) notification handler;
    /// beyond that they are dropped with a warning. Default 256.
    pub notification_queue: usize,
    /// The capacity of the queue from [`Peer`](crate::Peer) handles to the transport.
    /// Default 64.
    pub outbound_queue: usize,
    /// The largest inbound message accepted, in bytes, as measured by
    /// [`Message::size_hint`](crate::Message::size_hint). Default 8 MiB.
    pub max_message_size: usize,
    /// The timeout of outgoing requests that do not set one. Default 60 s; `None` for none.
    pub default_timeout: Option<Duration>,
    /// Whether inbound batches (JSON arrays) are accepted; can be switched at runtime with
    /// [`Peer::set_batching`](crate::Peer::set_batching). Default `false`.
    pub batching: bool,
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
        }
    }
}
