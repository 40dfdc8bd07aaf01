//! [`BoxTransport`]: any [`Transport`] behind one type, to pick a transport at run time.

use std::fmt;
use std::future::Future;

use futures::future::BoxFuture;

use crate::connection::inline::InlineRequests;
use crate::error::BoxError;
use crate::message::Message;
use crate::transport::Transport;

/// The object-safe face of a [`Transport`], with its futures boxed and its error erased.
/// Private: [`BoxTransport`] is the one way in, so there is still one transport trait.
trait Erased: Send + 'static {
    fn send(&mut self, msg: Message) -> BoxFuture<'static, Result<(), BoxError>>;
    fn send_many(&mut self, msgs: Vec<Message>) -> BoxFuture<'static, Result<(), BoxError>>;
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Message>, BoxError>>;
    fn peer_reads_after_end(&self) -> bool;
    fn accept_inline(&mut self, inline: InlineRequests) -> bool;
    fn close(&mut self) -> BoxFuture<'_, Result<(), BoxError>>;
}

impl<T: Transport> Erased for T {
    fn send(&mut self, msg: Message) -> BoxFuture<'static, Result<(), BoxError>> {
        let send = Transport::send(self, msg);
        Box::pin(async move { send.await.map_err(|e| Box::new(e) as BoxError) })
    }

    fn send_many(&mut self, msgs: Vec<Message>) -> BoxFuture<'static, Result<(), BoxError>> {
        let send = Transport::send_many(self, msgs);
        Box::pin(async move { send.await.map_err(|e| Box::new(e) as BoxError) })
    }

    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Message>, BoxError>> {
        Box::pin(async move {
            Transport::recv(self)
                .await
                .map_err(|e| Box::new(e) as BoxError)
        })
    }

    fn peer_reads_after_end(&self) -> bool {
        Transport::peer_reads_after_end(self)
    }

    fn accept_inline(&mut self, inline: InlineRequests) -> bool {
        Transport::accept_inline(self, inline)
    }

    fn close(&mut self) -> BoxFuture<'_, Result<(), BoxError>> {
        Box::pin(async move {
            Transport::close(self)
                .await
                .map_err(|e| Box::new(e) as BoxError)
        })
    }
}

/// The error of a [`BoxTransport`]: the boxed transport's own error.
#[derive(Debug)]
pub struct BoxTransportError(pub BoxError);

impl fmt::Display for BoxTransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for BoxTransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Any [`Transport`] as one type, so that which one is used can be decided at run time (a
/// command-line flag choosing stdio or HTTP) while the code around it stays the same. Each
/// call costs one allocation for its boxed future.
///
/// ```
/// use mcp_jsonrpc::{BoxTransport, Config, Connection, memory};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let use_memory = true;
/// let (near, _far) = memory::pair(16);
/// let transport = if use_memory {
///     BoxTransport::new(near)
/// } else {
///     unreachable!("a stdio or HTTP transport would go here")
/// };
/// let (peer, connection) = Connection::new(transport, (), Config::default());
/// # drop((connection, peer));
/// # }
/// ```
pub struct BoxTransport {
    inner: Box<dyn Erased>,
}

impl BoxTransport {
    /// Boxes `transport`.
    pub fn new<T: Transport>(transport: T) -> Self {
        BoxTransport {
            inner: Box::new(transport),
        }
    }
}

impl fmt::Debug for BoxTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxTransport")
    }
}

impl Transport for BoxTransport {
    type Error = BoxTransportError;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let send = self.inner.send(msg);
        async move { send.await.map_err(BoxTransportError) }
    }

    fn send_many(
        &mut self,
        msgs: Vec<Message>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let send = self.inner.send_many(msgs);
        async move { send.await.map_err(BoxTransportError) }
    }

    async fn recv(&mut self) -> Result<Option<Message>, Self::Error> {
        self.inner.recv().await.map_err(BoxTransportError)
    }

    fn peer_reads_after_end(&self) -> bool {
        self.inner.peer_reads_after_end()
    }

    fn accept_inline(&mut self, inline: InlineRequests) -> bool {
        self.inner.accept_inline(inline)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await.map_err(BoxTransportError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Connection, memory};

    #[tokio::test]
    async fn a_boxed_transport_carries_a_connection() {
        let (a, b) = memory::pair(4);
        let (_, server) = Connection::new(BoxTransport::new(b), EchoHandler, Config::default());
        let server = tokio::spawn(server.run());
        let (peer, client) = Connection::new(BoxTransport::new(a), (), Config::default());
        let client = tokio::spawn(client.run());
        let params = serde_json::value::to_raw_value(&serde_json::json!({"x": 1})).unwrap();
        let answer = peer.request("echo", Some(params)).await.unwrap();
        assert_eq!(answer.get(), r#"{"x":1}"#);
        peer.close();
        client.await.unwrap().unwrap();
        server.await.unwrap().unwrap();
    }

    struct EchoHandler;

    impl crate::Handler for EchoHandler {
        async fn handle_request(
            &self,
            request: crate::Request,
            _ctx: crate::RequestContext,
        ) -> Result<Box<serde_json::value::RawValue>, crate::ErrorObject> {
            crate::to_raw_value(&request.params::<serde_json::Value>()?)
        }
    }
}
