//! Keeping a stateful session's [`SessionSnapshot`] in a [`SessionStore`]: restored when the
//! session starts (another instance opened it), saved after each change, before the client
//! sees the answer that made it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_jsonrpc::Peer;

use crate::server::{STATEFUL_VERSIONS, Server};
use crate::session_state::{ClientState, InitState, SessionShared};
use crate::session_store::SessionStore;
use mcp_types::ProtocolVersion;

/// A session's link to its store.
pub(crate) struct Persist {
    store: Arc<dyn SessionStore>,
    id: String,
    /// The session revision last saved.
    saved: AtomicU64,
    /// Saves one at a time, so that an older snapshot never lands after a newer one.
    saving: tokio::sync::Mutex<()>,
}

impl Persist {
    pub(crate) fn new(store: Arc<dyn SessionStore>, id: String) -> Self {
        Persist {
            store,
            id,
            saved: AtomicU64::new(0),
            saving: tokio::sync::Mutex::new(()),
        }
    }

    /// Takes up the session's stored snapshot, if any: the session is then initialized as
    /// the instance that opened it had it. A store error is logged and the session starts
    /// uninitialized (its requests get "server not initialized", which a client answers by
    /// opening a new session).
    pub(crate) async fn restore(&self, server: &Server, session: &SessionShared, peer: &Peer) {
        let snapshot = match self.store.load(&self.id).await {
            Ok(Some(snapshot)) => snapshot,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(session = %self.id, error = %e, "session store: loading failed");
                return;
            }
        };
        let version = ProtocolVersion::negotiate(&snapshot.protocol_version, STATEFUL_VERSIONS);
        peer.set_batching(version.supports_batching());
        let init = InitState {
            capabilities: server.capabilities_for(&version),
            client: Arc::new(ClientState {
                version,
                info: snapshot.client_info.clone(),
                capabilities: snapshot.client_capabilities.clone(),
            }),
        };
        if session.restore(init, snapshot) {
            self.saved.store(session.revision(), Ordering::Release);
            tracing::debug!(session = %self.id, "session taken up from the session store");
        }
    }

    /// Saves the session's snapshot if it changed since the last save. A store error is
    /// logged: the session goes on here, and another instance taking it over would find
    /// the previous snapshot.
    pub(crate) async fn save_if_changed(&self, session: &SessionShared) {
        if session.revision() == self.saved.load(Ordering::Acquire) {
            return;
        }
        let _one_at_a_time = self.saving.lock().await;
        let revision = session.revision();
        if revision == self.saved.load(Ordering::Acquire) {
            return;
        }
        let Some(snapshot) = session.snapshot() else {
            return;
        };
        match self.store.save(&self.id, &snapshot).await {
            Ok(()) => self.saved.store(revision, Ordering::Release),
            Err(e) => {
                tracing::warn!(session = %self.id, error = %e, "session store: saving failed");
            }
        }
    }
}
