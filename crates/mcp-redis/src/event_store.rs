//! [`RedisEventStore`]: the SSE events of stateful sessions, resumable from any instance.

use std::fmt;

use bytes::Bytes;
use mcp_transport_http::server::{EventStore, Replay, StoreFuture, StoredEvent, StreamId};
use redis::Script;
use std::sync::LazyLock;

use crate::connection::Redis;
use crate::error::Error;
use crate::options::millis;

/// Appends one event and drops the oldest past the bounds, recording per stream the newest
/// dropped sequence number (at most `max_events` streams; older records fold into `floor`),
/// as `InMemoryEventStore` does.
///
/// KEYS: log (sorted set of "<stream> <seq> <data>" scored by seq), meta (hash: next, bytes,
/// floor), drops (sorted set: stream scored by its newest dropped seq).
/// ARGV: stream, data, max_events, max_bytes, ttl_ms. Returns the event's seq.
static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local seq = redis.call('HINCRBY', KEYS[2], 'next', 1) - 1
local bytes = redis.call('HINCRBY', KEYS[2], 'bytes', #ARGV[2])
redis.call('ZADD', KEYS[1], seq, ARGV[1] .. ' ' .. seq .. ' ' .. ARGV[2])
local len = redis.call('ZCARD', KEYS[1])
local max_events = tonumber(ARGV[3])
local max_bytes = tonumber(ARGV[4])
while len > max_events or (bytes > max_bytes and len > 1) do
  local old = redis.call('ZPOPMIN', KEYS[1])[1]
  local s1 = string.find(old, ' ', 1, true)
  local s2 = string.find(old, ' ', s1 + 1, true)
  bytes = redis.call('HINCRBY', KEYS[2], 'bytes', s2 - #old)
  len = len - 1
  redis.call('ZADD', KEYS[3], string.sub(old, s1 + 1, s2 - 1), string.sub(old, 1, s1 - 1))
  if redis.call('ZCARD', KEYS[3]) > max_events then
    local gone = redis.call('ZPOPMIN', KEYS[3])
    local floor = redis.call('HGET', KEYS[2], 'floor')
    if not floor or tonumber(gone[2]) > tonumber(floor) then
      redis.call('HSET', KEYS[2], 'floor', gone[2])
    end
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return seq
",
    )
});

/// The events of one stream after a seq, and whether some were dropped.
///
/// KEYS: log, meta, drops. ARGV: stream, seq, ttl_ms.
/// Returns nil if the session has no event `seq`, else {truncated (0/1), seq, data, ...}.
static REPLAY: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local next = redis.call('HGET', KEYS[2], 'next')
local after = tonumber(ARGV[2])
if not next or after >= tonumber(next) then return false end
local out = {0}
local dropped = redis.call('ZSCORE', KEYS[3], ARGV[1])
local floor = redis.call('HGET', KEYS[2], 'floor')
if (dropped and tonumber(dropped) > after) or (floor and tonumber(floor) > after) then
  out[1] = 1
end
local head = ARGV[1] .. ' '
for _, e in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[2], '+inf')) do
  if string.sub(e, 1, #head) == head then
    local s2 = string.find(e, ' ', #head + 1, true)
    local seq = string.sub(e, #head + 1, s2 - 1)
    if tonumber(seq) > after then
      out[#out + 1] = seq
      out[#out + 1] = string.sub(e, s2 + 1)
    end
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return out
",
    )
});

/// An [`EventStore`] on Redis, shared by every instance of a deployment: a client can resume
/// its SSE stream (`Last-Event-ID`) on any of them.
///
/// Per session: one sorted set of events (by sequence number, so that a replay reads only
/// the events after the client's) and two small bookkeeping keys, at most
/// [`max_events_per_session`](crate::RedisOptions::max_events_per_session) events (default
/// 1024, 8 MiB; the oldest are dropped first and a resumption from before a dropped event
/// of its stream is [`truncated`](Replay::truncated), as with `InMemoryEventStore`). The keys
/// live for [`session_ttl`](crate::RedisOptions::session_ttl) after their last use.
///
/// Event ids are `"<stream>-<seq>"` with `seq` numbered by Redis per session, so ids are
/// unique whichever instance appends. An append is one Lua script: atomic, and stored in
/// Redis when its future completes.
#[derive(Clone)]
pub struct RedisEventStore {
    redis: Redis,
}

impl fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("prefix", &self.redis.prefix)
            .finish()
    }
}

impl RedisEventStore {
    pub(crate) fn new(redis: Redis) -> Self {
        RedisEventStore { redis }
    }

    /// The keys of `session`'s events: log, meta, drops.
    fn keys(&self, session: &str) -> [String; 3] {
        event_keys(&self.redis, session)
    }
}

/// The keys of `session`'s events (also refreshed by the directory's `touch`).
pub(crate) fn event_keys(redis: &Redis, session: &str) -> [String; 3] {
    ["log", "meta", "drops"].map(|k| redis.key(&["events:", session, ":", k]))
}

fn parse_id(id: &str) -> Option<(StreamId, u64)> {
    let (stream, seq) = id.split_once('-')?;
    Some((StreamId(stream.parse().ok()?), seq.parse().ok()?))
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: StreamId,
        data: Bytes,
    ) -> StoreFuture<'a, String> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            let options = self.redis.options();
            let seq: u64 = APPEND
                .key(&self.keys(session))
                .arg(stream.0)
                .arg(&data[..])
                .arg(options.max_events)
                .arg(options.max_event_bytes)
                .arg(millis(options.session_ttl))
                .invoke_async(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(format!("{}-{seq}", stream.0))
        })
    }

    fn replay_after<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> StoreFuture<'a, Option<Replay>> {
        Box::pin(async move {
            let Some((stream, after)) = parse_id(last_event_id) else {
                return Ok(None);
            };
            let mut conn = self.redis.conn()?;
            let found: Option<Vec<redis::Value>> = REPLAY
                .key(&self.keys(session))
                .arg(stream.0)
                .arg(after)
                .arg(millis(self.redis.options().session_ttl))
                .invoke_async(&mut conn)
                .await
                .map_err(Error::from)?;
            let Some(found) = found else {
                return Ok(None);
            };
            Ok(Some(decode_replay(stream, found)?))
        })
    }

    fn remove_session<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.redis.conn()?;
            redis::cmd("DEL")
                .arg(&self.keys(session))
                .query_async::<()>(&mut conn)
                .await
                .map_err(Error::from)?;
            Ok(())
        })
    }
}

fn decode_replay(stream: StreamId, found: Vec<redis::Value>) -> Result<Replay, Error> {
    let corrupt = || Error::Corrupt("a replay answer of an unexpected shape".into());
    let mut items = found.into_iter();
    let parse = |e: redis::ParsingError| Error::Corrupt(format!("a replay answer: {e}"));
    let truncated: i64 =
        redis::from_redis_value(items.next().ok_or_else(corrupt)?).map_err(parse)?;
    let mut events = Vec::with_capacity(items.len() / 2);
    while let Some(seq) = items.next() {
        let seq: u64 = redis::from_redis_value(seq).map_err(parse)?;
        let data: Vec<u8> =
            redis::from_redis_value(items.next().ok_or_else(corrupt)?).map_err(parse)?;
        events.push(StoredEvent {
            id: format!("{}-{seq}", stream.0),
            data: Bytes::from(data),
        });
    }
    Ok(Replay::new(stream, events, truncated != 0))
}
