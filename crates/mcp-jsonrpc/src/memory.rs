//! An in-memory transport pair, for tests and doctests.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use mcp_jsonrpc::{memory, Message, Notification, Transport};
//!
//! let (mut a, mut b) = memory::pair(8);
//! a.send(Message::Notification(Notification::new("ping", None)))
//!     .await
//!     .unwrap();
//! let got = b.recv().await.unwrap().unwrap();
//! assert_eq!(got.to_json().unwrap(), r#"{"jsonrpc":"2.0","method":"ping"}"#);
//! # }
//! ```

use std::future::Future;

use tokio::sync::mpsc;

use crate::message::Message;
use crate::transport::Transport;

/// Creates two connected in-memory transports, each direction a bounded channel of
/// `capacity` messages.
///
/// Messages move as values (no serialization), so a test can also push a
/// [`Message::Invalid`] (made with [`Message::decode`]) to play a peer that sends bad bytes.
/// Like a wire, the pair does not carry the sender's
/// [`extensions`](crate::Request::extensions): the other end receives them empty.
///
/// # Panics
///
/// Panics if `capacity` is zero.
pub fn pair(capacity: usize) -> (MemoryTransport, MemoryTransport) {
    let (tx_a, rx_b) = mpsc::channel(capacity);
    let (tx_b, rx_a) = mpsc::channel(capacity);
    (
        MemoryTransport {
            tx: Some(tx_a),
            rx: rx_a,
        },
        MemoryTransport {
            tx: Some(tx_b),
            rx: rx_b,
        },
    )
}

/// One end of an in-memory transport pair; see [`pair`].
#[derive(Debug)]
pub struct MemoryTransport {
    tx: Option<mpsc::Sender<Message>>,
    rx: mpsc::Receiver<Message>,
}

/// The error of a [`MemoryTransport`]: the other end is gone, or this end was closed.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("memory transport closed")]
pub struct MemoryClosed;

impl Transport for MemoryTransport {
    type Error = MemoryClosed;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), MemoryClosed>> + Send + 'static {
        let tx = self.tx.clone();
        let msg = msg.without_extensions();
        async move {
            match tx {
                Some(tx) => tx.send(msg).await.map_err(|_| MemoryClosed),
                None => Err(MemoryClosed),
            }
        }
    }

    async fn recv(&mut self) -> Result<Option<Message>, MemoryClosed> {
        // `mpsc::Receiver::recv` is cancel-safe.
        Ok(self.rx.recv().await)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), MemoryClosed>> + Send {
        self.tx = None;
        async { Ok(()) }
    }
}
