//! [`RedisSessionStore`]: the snapshots of stateful sessions, as JSON.

use std::fmt;

use mcp_server::session_store::{SessionSnapshot, SessionStore, SessionStoreFuture};

use crate::connection::Redis;
use crate::error::Error;
use crate::options::millis;

/// A [`SessionStore`] on Redis: each snapshot is one JSON string under
/// `<prefix>snapshot:<session>`, living [`session_ttl`](crate::RedisOptions::session_ttl)
/// (default 1 hour) after its last save or load (and after each
/// [`RedisSessionDirectory`](crate::RedisSessionDirectory) `touch` of the session).
#[derive(Clone)]
pub struct RedisSessionStore {
    redis: Redis,
}

impl fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.redis.prefix)
            .finish()
    }
}

impl RedisSessionStore {
    pub(crate) fn new(redis: Redis) -> Self {
        RedisSessionStore { redis }
    }

    fn key(&self, session: &str) -> String {
        self.redis.key(&["snapshot:", session])
    }
}

impl SessionStore for RedisSessionStore {
    fn save<'a>(
        &'a self,
        session: &'a str,
        snapshot: &'a SessionSnapshot,
    ) -> SessionStoreFuture<'a, ()> {
        Box::pin(async move {
            let json = serde_json::to_vec(snapshot)?;
            let mut conn = self.redis.conn()?;
            redis::cmd("SET")
                .arg(self.key(session))
                .arg(json)
                .arg("PX")
                .arg(millis(self.redis.options().session_ttl))
                .query_async::<()>(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, Option<SessionSnapshot>> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let json: Option<Vec<u8>> = redis::cmd("GETEX")
                .arg(self.key(session))
                .arg("PX")
                .arg(millis(self.redis.options().session_ttl))
                .query_async(&mut conn)
                .await
                .map_err(Error::from)?;
            match json {
                None => Ok(None),
                Some(json) => Ok(Some(serde_json::from_slice(&json).map_err(|e| {
                    Error::Corrupt(format!("the snapshot of session {session}: {e}"))
                })?)),
            }
        })
    }

    fn remove<'a>(&'a self, session: &'a str) -> SessionStoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            redis::cmd("DEL")
                .arg(self.key(session))
                .query_async::<()>(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(())
        })
    }
}
