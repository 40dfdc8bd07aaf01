//! [`Holders`]: which instance holds a session, as this instance last read it from the
//! directory, so that forwarding a session's requests does not read the directory each time.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::directory::SessionRecord;

/// At most this many sessions are remembered; past it the memory starts over (a directory
/// read per session again), so it never grows with the number of sessions.
pub(crate) const MAX_REMEMBERED: usize = 4096;

/// How long a holder is trusted without reading the directory again. A stale entry costs
/// one failed connection: forwarding to a gone holder reads the directory afresh.
pub(crate) const TRUSTED_FOR: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
pub(crate) struct Holders {
    known: Mutex<HashMap<String, (SessionRecord, Instant)>>,
}

impl Holders {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, (SessionRecord, Instant)>> {
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The record remembered for `id`, if read within [`TRUSTED_FOR`].
    pub(crate) fn get(&self, id: &str) -> Option<SessionRecord> {
        let known = self.lock();
        let (record, at) = known.get(id)?;
        (at.elapsed() < TRUSTED_FOR).then(|| record.clone())
    }

    pub(crate) fn remember(&self, record: &SessionRecord) {
        let mut known = self.lock();
        if known.len() >= MAX_REMEMBERED && !known.contains_key(&record.id) {
            known.clear();
        }
        known.insert(record.id.clone(), (record.clone(), Instant::now()));
    }

    pub(crate) fn forget(&self, id: &str) {
        self.lock().remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn records_are_trusted_for_a_while_and_bounded() {
        let holders = Holders::default();
        let record = SessionRecord::new("s", "http://a/mcp", None);
        holders.remember(&record);
        assert_eq!(holders.get("s"), Some(record.clone()));
        tokio::time::advance(TRUSTED_FOR).await;
        assert_eq!(holders.get("s"), None);
        for i in 0..=MAX_REMEMBERED {
            holders.remember(&SessionRecord::new(format!("s{i}"), "http://a/mcp", None));
        }
        assert!(holders.lock().len() <= MAX_REMEMBERED);
        holders.forget(&format!("s{MAX_REMEMBERED}"));
        assert_eq!(holders.get(&format!("s{MAX_REMEMBERED}")), None);
    }
}
