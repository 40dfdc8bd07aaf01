//! [`Redis::shared_secret`]: a random key every instance of a deployment reads the same.

use crate::connection::Redis;
use crate::error::{Error, Result};

impl Redis {
    /// The deployment's secret named `name`: 32 random bytes (from the OS CSPRNG) made by the
    /// first instance that asks (`SET NX`), then read by every other, under
    /// `<prefix>secret:<name>` with no time to live. For keys the instances must share,
    /// such as `ServerBuilder::request_state_key` (a `requestState` sealed by one instance
    /// must open on the instance serving the retry).
    ///
    /// Anyone who can read the Redis can read the secret: keep the Redis private to the
    /// deployment. To rotate, delete the key and restart the instances one by one (each
    /// keeps accepting states sealed before with the key it had, through
    /// `request_state_key`'s previous keys only if the application passes them).
    pub async fn shared_secret(&self, name: &str) -> Result<Vec<u8>> {
        let key = self.key(&["secret:", name]);
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh)
            .map_err(|e| Error::Unsupported(format!("no OS random numbers: {e}")))?;
        let mut conn = self.conn()?;
        // Sets it if absent, and reads whatever is there now: one round trip, no race.
        let (stored,): (Vec<u8>,) = redis::pipe()
            .atomic()
            .cmd("SET")
            .arg(&key)
            .arg(&fresh[..])
            .arg("NX")
            .ignore()
            .cmd("GET")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .map_err(Error::from)?;
        if stored.len() < 16 {
            return Err(Error::Corrupt(format!("the secret {name} is too short")));
        }
        Ok(stored)
    }
}
