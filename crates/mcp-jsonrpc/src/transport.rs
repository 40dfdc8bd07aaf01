//! The [`Transport`] trait: the one thing a transport implements.

use std::future::Future;

use crate::connection::InlineRequests;
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

    /// Closes the transport. Called once, after the last send has completed.
    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        async { Ok(()) }
    }
}
