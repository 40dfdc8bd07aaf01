//! [`Parked`]: the calls of a bridged server that wait for their 2026-07-28 client's answers
//! between two HTTP requests, each under an opaque key the client echoes as `requestState`.
//!
//! The key is 128 random bits (hex), so it cannot be guessed; it is bound to the request it
//! was issued for (method, tool name or resource URI, and the authenticated principal), and
//! a retry naming another request (or made by another principal) is refused without
//! disturbing the call. The table is bounded (`max` entries; parking past it fails) and each
//! entry lives at most `ttl`: [`Parked::sweep`] (run periodically) drops the expired ones,
//! which cancels their calls on the server.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// The prefix of the proxy's `requestState`s.
const PREFIX: &str = "mcp-proxy.";

/// What a `requestState` was issued for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// The method of the request.
    pub(crate) method: String,
    /// Its tool or prompt name, or resource URI.
    pub(crate) target: String,
    /// The authenticated principal that made it, if any.
    pub(crate) principal: Option<String>,
}

/// Why a `requestState` could not be taken.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not issued by this proxy, expired, or already used.
    Unknown,
    /// Issued for another request or principal.
    Mismatch,
}

impl Refused {
    /// The -32602 error for the client.
    pub(crate) fn error(&self) -> mcp_jsonrpc::ErrorObject {
        let why = match self {
            Refused::Unknown => "unknown or expired",
            Refused::Mismatch => "issued for another request",
        };
        mcp_jsonrpc::ErrorObject::invalid_params(format!("Invalid requestState: {why}"))
    }
}

struct Entry<T> {
    value: T,
    binding: Binding,
    deadline: Instant,
}

/// The bounded table of parked calls.
pub(crate) struct Parked<T> {
    entries: Mutex<HashMap<String, Entry<T>>>,
    max: usize,
    ttl: Duration,
}

impl<T> std::fmt::Debug for Parked<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parked")
            .field("len", &self.len())
            .field("max", &self.max)
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// 128 random bits, in hex (`None` without an entropy source).
fn random_key() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut key = String::with_capacity(PREFIX.len() + 32);
    key.push_str(PREFIX);
    for b in bytes {
        key.push_str(&format!("{b:02x}"));
    }
    Some(key)
}

impl<T> Parked<T> {
    /// A table of at most `max` entries, each kept at most `ttl`.
    pub(crate) fn new(max: usize, ttl: Duration) -> Self {
        Parked {
            entries: Mutex::new(HashMap::new()),
            max: max.max(1),
            ttl,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry<T>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many entries are parked.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Parks `value` for the request `binding` names; returns its key, or `value` back when
    /// the table is full (or no key could be made).
    pub(crate) fn park(&self, binding: Binding, value: T) -> Result<String, T> {
        let Some(key) = random_key() else {
            return Err(value);
        };
        let mut entries = self.lock();
        if entries.len() >= self.max {
            return Err(value);
        }
        entries.insert(
            key.clone(),
            Entry {
                value,
                binding,
                deadline: Instant::now() + self.ttl,
            },
        );
        Ok(key)
    }

    /// Takes the entry parked under `key` if it was issued for `binding` and has not expired.
    pub(crate) fn take(&self, key: &str, binding: &Binding) -> Result<T, Refused> {
        let mut entries = self.lock();
        match entries.get(key) {
            None => Err(Refused::Unknown),
            Some(entry) if entry.deadline <= Instant::now() => Err(Refused::Unknown),
            Some(entry) if entry.binding != *binding => Err(Refused::Mismatch),
            Some(_) => entries
                .remove(key)
                .map(|entry| entry.value)
                .ok_or(Refused::Unknown),
        }
    }

    /// Removes the expired entries and returns them (for the caller to drop outside the lock).
    pub(crate) fn sweep(&self) -> Vec<T> {
        let now = Instant::now();
        let mut entries = self.lock();
        let expired: Vec<String> = entries
            .iter()
            .filter(|(_, e)| e.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect();
        expired
            .into_iter()
            .filter_map(|k| entries.remove(&k).map(|e| e.value))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(target: &str) -> Binding {
        Binding {
            method: "tools/call".to_owned(),
            target: target.to_owned(),
            principal: None,
        }
    }

    #[tokio::test]
    async fn entries_are_bound_bounded_and_expire() {
        let table = Parked::new(2, Duration::from_millis(200));
        let a = table.park(binding("a"), 1).unwrap();
        let b = table.park(binding("b"), 2).unwrap();
        assert!(a.starts_with(PREFIX) && a.len() == PREFIX.len() + 32 && a != b);
        // Full.
        assert_eq!(table.park(binding("c"), 3), Err(3));
        // Another request's state leaves the call alone.
        assert_eq!(table.take(&a, &binding("b")), Err(Refused::Mismatch));
        assert_eq!(table.take(&a, &binding("a")), Ok(1));
        assert_eq!(table.take(&a, &binding("a")), Err(Refused::Unknown));
        assert_eq!(table.take("forged", &binding("a")), Err(Refused::Unknown));
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(table.take(&b, &binding("b")), Err(Refused::Unknown));
        assert_eq!(table.sweep(), vec![2]);
        assert_eq!(table.len(), 0);
        assert!(Refused::Unknown.error().message.contains("expired"));
    }
}
