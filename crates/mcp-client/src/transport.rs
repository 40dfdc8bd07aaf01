//! A wrapper around the caller's transport that remembers why it failed.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_jsonrpc::{Message, Transport};

use crate::error::SharedError;

/// The first failure of a transport, shared with the client so that calls failing with
/// "connection closed" can carry the transport's own error as their source.
#[derive(Debug, Clone, Default)]
pub(crate) struct FailureSlot(Arc<Mutex<Option<SharedError>>>);

impl FailureSlot {
    pub(crate) fn get(&self) -> Option<SharedError> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn record<E: std::error::Error + Send + Sync + 'static>(&self, e: E) -> SharedError {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let shared = SharedError(Arc::new(e));
        if slot.is_none() {
            *slot = Some(shared.clone());
        }
        shared
    }
}

/// Records the transport's first error in a [`FailureSlot`] before handing it on. The error
/// is recorded before the connection sees it, hence before any pending call fails.
#[derive(Debug)]
pub(crate) struct Recording<T> {
    pub(crate) inner: T,
    pub(crate) slot: FailureSlot,
}

impl<T: Transport> Transport for Recording<T> {
    type Error = SharedError;

    fn send(
        &mut self,
        msg: Message,
    ) -> impl Future<Output = Result<(), SharedError>> + Send + 'static {
        let fut = self.inner.send(msg);
        let slot = self.slot.clone();
        async move { fut.await.map_err(|e| slot.record(e)) }
    }

    async fn recv(&mut self) -> Result<Option<Message>, SharedError> {
        self.inner.recv().await.map_err(|e| self.slot.record(e))
    }

    fn accept_inline(&mut self, inline: mcp_jsonrpc::InlineRequests) -> bool {
        self.inner.accept_inline(inline)
    }

    async fn close(&mut self) -> Result<(), SharedError> {
        // A failure to close is not a failure of the connection.
        self.inner
            .close()
            .await
            .map_err(|e| SharedError(Arc::new(e)))
    }
}
