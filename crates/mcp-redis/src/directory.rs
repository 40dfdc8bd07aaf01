//! [`RedisSessionDirectory`]: which instance holds each stateful session.

use std::fmt;
use std::sync::LazyLock;

use mcp_transport_http::server::{SessionDirectory, SessionRecord, StoreFuture};
use redis::Script;

use crate::connection::Redis;
use crate::error::Error;
use crate::event_store::event_keys;
use crate::options::millis;

/// KEYS: record. ARGV: home, ttl_ms, [principal]. Returns 1, or 0 if the id is taken.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'home', ARGV[1], 'generation', 0)
if ARGV[3] then redis.call('HSET', KEYS[1], 'principal', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
",
    )
});

/// Compare-and-set of the holder. KEYS: record. ARGV: expected home, new home, ttl_ms.
/// Returns nil, or {generation, principal or false}.
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local home = redis.call('HGET', KEYS[1], 'home')
if not home or home ~= ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'home', ARGV[2])
local generation = redis.call('HINCRBY', KEYS[1], 'generation', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {generation, redis.call('HGET', KEYS[1], 'principal')}
",
    )
});

/// A [`SessionDirectory`] on Redis: one hash per session (`home`, `generation`, `principal`)
/// under `<prefix>session:<id>`, living [`session_ttl`](crate::RedisOptions::session_ttl)
/// (default 1 hour) after its creation, last claim or last [`touch`](SessionDirectory::touch).
///
/// `touch` also refreshes the session's snapshot ([`RedisSessionStore`](crate::RedisSessionStore))
/// and SSE events ([`RedisEventStore`](crate::RedisEventStore)) when they share the prefix,
/// so that a session in use keeps everything another instance needs to take it over.
/// `claim` is a Lua compare-and-set: of two instances claiming from the same home, one wins.
#[derive(Clone)]
pub struct RedisSessionDirectory {
    redis: Redis,
}

impl fmt::Debug for RedisSessionDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionDirectory")
            .field("prefix", &self.redis.prefix)
            .finish()
    }
}

impl RedisSessionDirectory {
    pub(crate) fn new(redis: Redis) -> Self {
        RedisSessionDirectory { redis }
    }

    fn key(&self, id: &str) -> String {
        self.redis.key(&["session:", id])
    }

    fn ttl(&self) -> u64 {
        millis(self.redis.options().session_ttl)
    }
}

impl SessionDirectory for RedisSessionDirectory {
    fn create<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let mut call = CREATE.key(self.key(&record.id));
            call.arg(&record.home).arg(self.ttl());
            if let Some(principal) = &record.principal {
                call.arg(principal);
            }
            let created: i64 = call.invoke_async(&mut conn).await.map_err(Error::from)?;
            if created == 0 {
                return Err("a session with this id exists already".into());
            }
            if record.generation != 0 {
                // Rare (a record carried over): set it as given.
                redis::cmd("HSET")
                    .arg(self.key(&record.id))
                    .arg("generation")
                    .arg(record.generation)
                    .query_async::<()>(&mut conn)
                    .await
                    .map_err(Error::from)?;
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let (home, generation, principal): (Option<String>, Option<u64>, Option<String>) =
                redis::cmd("HMGET")
                    .arg(self.key(id))
                    .arg(&["home", "generation", "principal"])
                    .query_async(&mut conn)
                    .await
                    .map_err(Error::from)?;
            let Some(home) = home else {
                return Ok(None);
            };
            let mut record = SessionRecord::new(id, home, principal);
            record.generation = generation.unwrap_or(0);
            Ok(Some(record))
        })
    }

    fn claim<'a>(
        &'a self,
        id: &'a str,
        expected_home: &'a str,
        new_home: &'a str,
    ) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let claimed: Option<(u64, Option<String>)> = CLAIM
                .key(self.key(id))
                .arg(expected_home)
                .arg(new_home)
                .arg(self.ttl())
                .invoke_async(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(claimed.map(|(generation, principal)| {
                let mut record = SessionRecord::new(id, new_home, principal);
                record.generation = generation;
                record
            }))
        })
    }

    fn touch<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let ttl = self.ttl();
            let mut pipe = redis::pipe();
            pipe.pexpire(self.key(id), ttl as i64).ignore();
            pipe.pexpire(self.redis.key(&["snapshot:", id]), ttl as i64)
                .ignore();
            for key in event_keys(&self.redis, id) {
                pipe.pexpire(key, ttl as i64).ignore();
            }
            pipe.query_async::<()>(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            redis::cmd("DEL")
                .arg(self.key(id))
                .query_async::<()>(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(())
        })
    }
}
