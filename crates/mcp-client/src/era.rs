//! Which protocol era a client speaks: the choice made on the builder ([`EraChoice`]), and the
//! memory of past outcomes ([`EraMemory`]) that spares a reconnect the probe.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_types::ProtocolVersion;

/// The protocol era a client connects in, set with
/// [`ClientBuilder::era`](crate::ClientBuilder::era).
///
/// The two eras are the handshake revisions (2024-11-05 to 2025-11-25: `initialize`, then a
/// session) and the stateless revisions (2026-07-28: `server/discover`, then every request on
/// its own with its `_meta`). The typed API of [`Client`](crate::Client) is the same in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EraChoice {
    /// Follow the revision's dual-era rules (the default): ask `server/discover` first and
    /// speak 2026-07-28 if the server answers it, or refuses it the way only a 2026-07-28
    /// server does (-32020, -32021, or -32022 naming a version this client speaks, which it
    /// then uses). On any other error (-32601 for the unknown method, an HTTP error without a
    /// JSON-RPC body, "no session"), or no answer within the
    /// [`probe_timeout`](crate::ClientBuilder::probe_timeout), fall back to `initialize`.
    #[default]
    Auto,
    /// Speak 2026-07-28 only: `server/discover` must succeed.
    Modern,
    /// Speak the handshake revisions only: start with `initialize`.
    Legacy,
}

/// What a past connection found a server speaks: the version it settled on (whose era says
/// which era to start in).
///
/// Share one memory between the builders of the reconnects to the same server
/// ([`ClientBuilder::era_memory`](crate::ClientBuilder::era_memory), with a key naming the
/// server, such as its URL or command line): in [`EraChoice::Auto`] a server met before is
/// spoken to in its era at once, without the probe. If that fails, the memory of that server
/// is forgotten, so the next connection probes again.
///
/// ```
/// use mcp_client::EraMemory;
/// use mcp_types::ProtocolVersion;
///
/// let memory = EraMemory::new();
/// assert_eq!(memory.get("https://example.com/mcp"), None);
/// memory.remember("https://example.com/mcp", ProtocolVersion::V2026_07_28);
/// assert_eq!(
///     memory.get("https://example.com/mcp"),
///     Some(ProtocolVersion::V2026_07_28)
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct EraMemory {
    servers: Arc<Mutex<HashMap<String, ProtocolVersion>>>,
}

impl EraMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// The version last negotiated with the server named `key`.
    pub fn get(&self, key: &str) -> Option<ProtocolVersion> {
        self.lock().get(key).cloned()
    }

    /// Records the version negotiated with the server named `key`.
    pub fn remember(&self, key: impl Into<String>, version: ProtocolVersion) {
        self.lock().insert(key.into(), version);
    }

    /// Forgets the server named `key`.
    pub fn forget(&self, key: &str) {
        self.lock().remove(key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ProtocolVersion>> {
        self.servers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
