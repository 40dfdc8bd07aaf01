//! The [`Transport`] trait: the one thing a transport implements.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};

use crate::connection::inline::InlineRequests;
use crate::message::Message;

/// Moves whole JSON-RPC [`Message`]s to and from a peer.
///
/// # Contract
///
/// - [`send`](Self::send) returns a future that does **not** borrow the transport
///   (`'static`): the connection keeps receiving while a send is in flight, which is what
///   keeps two peers that both write at once from deadlocking on full buffers. The connection
///   starts at most one send at a time and awaits it to completion (it is not cancel-safe),
///   so messages go out in order. Serialize the message inside `send` itself, before returning
///   the future, so that the order of calls is the order on the wire.
/// - [`recv`](Self::recv) must be cancel-safe: the connection drops a pending `recv` future
///   whenever it needs to start a send, and calls `recv` again right after. `Ok(None)` is a
///   clean end of stream.
/// - A frame that cannot be decoded is not an error of the transport: yield it as a
///   [`Message::Invalid`] (see [`Message::decode`] and [`Message::decode_limited`]), and the
///   connection answers it with -32700 or -32600 and carries on. `Err` from `recv` is for the
///   transport itself failing; it ends the connection.
/// - [`send_many`](Self::send_many) sends several messages, in order, when more than one is
///   waiting to go out (pipelined replies): a transport that can write them in one go (one
///   write call, one body) overrides it; the default sends them one by one.
/// - [`peer_reads_after_end`](Self::peer_reads_after_end) says whether requests already
///   read are still answered after the peer's end of stream.
/// - [`close`](Self::close) flushes and shuts the transport down; the default does nothing.
/// - [`accept_inline`](Self::accept_inline) is offered, once, a handle that runs requests in
///   the transport's own task instead of the connection's; the default declines it.
/// - [`connection_info`](Self::connection_info) describes the connection for the
///   OpenTelemetry attributes of the SDK's spans; the default knows nothing.
///
/// To choose a transport at run time, wrap it in [`BoxTransport`](crate::BoxTransport).
pub trait Transport: Send + 'static {
    /// The transport's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Sends one message. The returned future is not cancel-safe: once created, the
    /// connection always awaits it to completion.
    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static;

    /// Sends `msgs` in order, like that many [`send`](Self::send)s awaited one after the other
    /// (the connection calls this instead of `send` when several messages are waiting). The
    /// default does exactly that: it creates every message's `send` future first, then awaits
    /// them in order; override it to write them together.
    fn send_many(
        &mut self,
        msgs: Vec<Message>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Boxed: each `send` future is 'static, and erasing its type lets them share a Vec.
        let mut sends: Vec<futures::future::BoxFuture<'static, Result<(), Self::Error>>> =
            Vec::with_capacity(msgs.len());
        for msg in msgs {
            sends.push(Box::pin(self.send(msg)));
        }
        async move {
            for send in sends {
                send.await?;
            }
            Ok(())
        }
    }

    /// Receives the next message. Cancel-safe. `Ok(None)` is a clean end of stream.
    fn recv(&mut self) -> impl Future<Output = Result<Option<Message>, Self::Error>> + Send;

    /// Whether the peer may still read after its stream ended (after [`recv`](Self::recv)
    /// yielded `Ok(None)`). True for a pipe whose writer closed while its reader stays: a
    /// stdio client that closes the server's stdin reads the server's stdout until the
    /// server exits. The connection then answers the requests it already read (see
    /// [`Config::flush_timeout`](crate::Config::flush_timeout)) before it ends. The default,
    /// false, ends at once: the end of the stream is the peer going away, and in-flight
    /// handlers are cancelled.
    fn peer_reads_after_end(&self) -> bool {
        false
    }

    /// Offered once by [`Connection::new`](crate::Connection::new), before anything else: an
    /// [`InlineRequests`] handle that runs this connection's requests in the caller's task.
    /// A transport that holds a request in the task waiting for its answer (an HTTP POST)
    /// can start it there with [`InlineRequests::start`] instead of yielding it from
    /// [`recv`](Self::recv), and send the answer itself; it returns `true` to keep the
    /// handle. The default declines (`false`), and then the connection does nothing for
    /// inline requests at all.
    fn accept_inline(&mut self, inline: InlineRequests) -> bool {
        let _ = inline;
        false
    }

    /// What the transport knows of its connection (the network transport and protocol, the
    /// addresses of the MCP server and client, the session id), for the OpenTelemetry
    /// attributes of the spans `mcp-server` and `mcp-client` make over it (see
    /// [`trace`](crate::trace)). They call it once per connection, before it starts, and only
    /// when a subscriber wants those spans; so it may allocate. The default knows nothing.
    ///
    /// ```
    /// use mcp_jsonrpc::{ConnectionInfo, Message, Transport};
    ///
    /// /// A transport over a Unix domain socket (its sends and receives left out).
    /// struct UnixSocket {
    ///     path: String,
    /// }
    ///
    /// impl Transport for UnixSocket {
    ///     type Error = std::io::Error;
    /// #   fn send(&mut self, _: Message)
    /// #       -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
    /// #       async { Ok(()) }
    /// #   }
    /// #   async fn recv(&mut self) -> Result<Option<Message>, Self::Error> { Ok(None) }
    ///     // ...
    ///     fn connection_info(&self) -> ConnectionInfo {
    ///         ConnectionInfo::new()
    ///             .with_network_transport("unix")
    ///             .with_server(self.path.clone(), None)
    ///     }
    /// }
    ///
    /// let info = UnixSocket { path: "/tmp/mcp.sock".into() }.connection_info();
    /// assert_eq!(info.server_address.as_deref(), Some("/tmp/mcp.sock"));
    /// ```
    fn connection_info(&self) -> ConnectionInfo {
        ConnectionInfo::default()
    }

    /// Closes the transport. Called once, after the last send has completed.
    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        async { Ok(()) }
    }
}

/// What a [`Transport`] knows of its connection, from
/// [`Transport::connection_info`]: the attributes of the OpenTelemetry conventions for MCP
/// that describe it, each `None` where unknown. The spans of `mcp-server` and `mcp-client`
/// record them (see [`trace`](crate::trace) for which span gets which).
///
/// The addresses are named by MCP role, whichever side the transport is on: a server-side
/// HTTP transport knows the client's address (its peer) and its own; a client-side one knows
/// the server's (from its URL).
///
/// ```
/// use mcp_jsonrpc::{ConnectionInfo, SessionIdCell};
///
/// let info = ConnectionInfo::new()
///     .with_network_transport("tcp")
///     .with_network_protocol("http", Some("1.1"))
///     .with_server("example.com", Some(443))
///     .with_session_id(SessionIdCell::fixed("4f7c"));
/// assert_eq!(info.server_port, Some(443));
/// assert_eq!(info.session_id.and_then(|id| id.get()).as_deref(), Some("4f7c"));
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ConnectionInfo {
    /// `network.transport`: `pipe` for stdio, `tcp` (or `quic`) for HTTP, `unix`, ...
    pub network_transport: Option<&'static str>,
    /// `network.protocol.name`, lowercase: `http`, `websocket`, ...
    pub network_protocol_name: Option<&'static str>,
    /// `network.protocol.version`: `1.1`, `2`, ...
    pub network_protocol_version: Option<&'static str>,
    /// `server.address`: the MCP server's domain name, IP address or Unix socket path.
    pub server_address: Option<String>,
    /// `server.port`: the MCP server's port.
    pub server_port: Option<u16>,
    /// `client.address`: the MCP client's domain name, IP address or Unix socket path.
    pub client_address: Option<String>,
    /// `client.port`: the MCP client's port.
    pub client_port: Option<u16>,
    /// `mcp.session.id`: the transport's session id, which may be learned (or change) while
    /// the connection runs.
    pub session_id: Option<SessionIdCell>,
}

impl ConnectionInfo {
    /// Nothing known.
    pub fn new() -> Self {
        ConnectionInfo::default()
    }

    /// With `network.transport`.
    #[must_use]
    pub fn with_network_transport(mut self, transport: &'static str) -> Self {
        self.network_transport = Some(transport);
        self
    }

    /// With `network.protocol.name` and, if known, `network.protocol.version`.
    #[must_use]
    pub fn with_network_protocol(
        mut self,
        name: &'static str,
        version: Option<&'static str>,
    ) -> Self {
        self.network_protocol_name = Some(name);
        self.network_protocol_version = version;
        self
    }

    /// With the MCP server's address and, if known, port.
    #[must_use]
    pub fn with_server(mut self, address: impl Into<String>, port: Option<u16>) -> Self {
        self.server_address = Some(address.into());
        self.server_port = port;
        self
    }

    /// With the MCP client's address and, if known, port.
    #[must_use]
    pub fn with_client(mut self, address: impl Into<String>, port: Option<u16>) -> Self {
        self.client_address = Some(address.into());
        self.client_port = port;
        self
    }

    /// With the MCP server's socket address (an IPv4-mapped IPv6 address as IPv4).
    #[must_use]
    pub fn with_server_socket(self, address: SocketAddr) -> Self {
        self.with_server(
            address.ip().to_canonical().to_string(),
            Some(address.port()),
        )
    }

    /// With the MCP client's socket address (an IPv4-mapped IPv6 address as IPv4).
    #[must_use]
    pub fn with_client_socket(self, address: SocketAddr) -> Self {
        self.with_client(
            address.ip().to_canonical().to_string(),
            Some(address.port()),
        )
    }

    /// With the session id `cell` holds (now or later).
    #[must_use]
    pub fn with_session_id(mut self, cell: SessionIdCell) -> Self {
        self.session_id = Some(cell);
        self
    }
}

/// A session id that a transport may learn, or change, while its connection runs (an HTTP
/// client learns it from the `initialize` response, and gets another when the server ends
/// the session): the transport keeps a clone and [`set`](Self::set)s it; the spans read it
/// with [`get`](Self::get). Clones share the value.
///
/// ```
/// use mcp_jsonrpc::SessionIdCell;
///
/// let cell = SessionIdCell::new();
/// let read = cell.clone();
/// assert_eq!(read.get(), None);
/// cell.set(Some("4f7c"));
/// assert_eq!(read.get().as_deref(), Some("4f7c"));
/// ```
#[derive(Clone, Default)]
pub struct SessionIdCell(Arc<RwLock<Option<Arc<str>>>>);

impl SessionIdCell {
    /// An empty cell.
    pub fn new() -> Self {
        SessionIdCell::default()
    }

    /// A cell holding `id`.
    pub fn fixed(id: impl Into<Arc<str>>) -> Self {
        SessionIdCell(Arc::new(RwLock::new(Some(id.into()))))
    }

    /// Replaces the session id (`None`: no session).
    pub fn set(&self, id: Option<&str>) {
        let id = id.map(Arc::from);
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = id;
    }

    /// The session id, if there is one now.
    pub fn get(&self) -> Option<Arc<str>> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl fmt::Debug for SessionIdCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SessionIdCell").field(&self.get()).finish()
    }
}
