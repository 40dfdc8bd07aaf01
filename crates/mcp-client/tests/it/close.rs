//! The connection closing: by the server, by the transport failing, by the client.

use std::future::Future;

use mcp_client::{Client, Error};
use mcp_jsonrpc::memory::MemoryTransport;
use mcp_jsonrpc::{Message, Transport};
use mcp_types::{CallTool, CallToolRequestParams, Request as _};
use tokio::sync::mpsc;

use crate::support::FakeServer;

/// A server whose `tools/call` never answers.
fn hanging() -> FakeServer {
    FakeServer::new().route(CallTool::METHOD, |_, _| std::future::pending())
}

#[tokio::test]
async fn a_pending_call_fails_when_the_server_closes() {
    let mut h = hanging().connect(Client::builder()).await;
    let call = h.client.call_tool(CallToolRequestParams::new("x"));
    let close = async {
        h.server.next_with(CallTool::METHOD).await;
        h.server.peer.close();
    };
    let (result, ()) = tokio::join!(call, close);
    let err = result.unwrap_err();
    assert!(
        matches!(&err, Error::Closed { source: None, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "connection closed: peer closed the connection"
    );
    // The connection future ends cleanly, and later calls fail at once.
    h.connection.await.unwrap().unwrap();
    assert!(h.client.is_closed());
    assert!(h.client.ping().await.unwrap_err().is_closed());
}

/// The error of a transport whose server process died.
#[derive(Debug)]
struct Exited;

impl std::fmt::Display for Exited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("server process exited with exit status: 3")
    }
}

impl std::error::Error for Exited {}

/// A memory transport that fails its `recv` once `fail` receives a message.
struct Failing {
    inner: MemoryTransport,
    fail: mpsc::Receiver<()>,
}

impl Transport for Failing {
    type Error = Exited;

    fn send(&mut self, msg: Message) -> impl Future<Output = Result<(), Exited>> + Send + 'static {
        let fut = self.inner.send(msg);
        async move { fut.await.map_err(|_| Exited) }
    }

    async fn recv(&mut self) -> Result<Option<Message>, Exited> {
        tokio::select! {
            msg = self.inner.recv() => msg.map_err(|_| Exited),
            _ = self.fail.recv() => Err(Exited),
        }
    }
}

#[tokio::test]
async fn a_transport_failure_carries_its_error() {
    let (client_end, mut server) = hanging().start();
    let (fail_tx, fail) = mpsc::channel(1);
    let transport = Failing {
        inner: client_end,
        fail,
    };
    let (client, connection) = Client::builder().connect(transport).await.unwrap();
    let connection = tokio::spawn(connection);
    let call = client.call_tool(CallToolRequestParams::new("x"));
    let kill = async {
        server.next_with(CallTool::METHOD).await;
        fail_tx.send(()).await.unwrap();
    };
    let (result, ()) = tokio::join!(call, kill);
    let err = result.unwrap_err();
    match &err {
        Error::Closed {
            reason,
            source: Some(source),
        } => {
            assert_eq!(reason, "the transport failed");
            assert_eq!(
                source.to_string(),
                "server process exited with exit status: 3"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let source = std::error::Error::source(&err).unwrap();
    assert_eq!(
        source.to_string(),
        "server process exited with exit status: 3"
    );

    let end = connection.await.unwrap().unwrap_err();
    assert!(matches!(end, Error::Transport(_)), "{end:?}");
    assert_eq!(
        std::error::Error::source(&end).unwrap().to_string(),
        "server process exited with exit status: 3"
    );
}

#[tokio::test]
async fn dropping_the_last_client_closes_the_connection() {
    let h = hanging().connect(Client::builder()).await;
    let second = h.client.clone();
    drop(h.client);
    assert!(!second.is_closed());
    drop(second);
    h.connection.await.unwrap().unwrap();
    // The server saw the stream end.
    h.server.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn dropping_the_connection_fails_pending_calls() {
    let mut h = hanging().connect(Client::builder()).await;
    let call = h.client.call_tool(CallToolRequestParams::new("x"));
    let abort = async {
        h.server.next_with(CallTool::METHOD).await;
        h.connection.abort();
    };
    let (result, ()) = tokio::join!(call, abort);
    assert!(result.unwrap_err().is_closed());
    h.client.closed().await;
}

#[tokio::test]
async fn close_ends_the_connection() {
    let h = hanging().connect(Client::builder()).await;
    h.client.close();
    h.client.closed().await;
    h.connection.await.unwrap().unwrap();
}
