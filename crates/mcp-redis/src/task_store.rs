//! [`RedisTaskStore`]: tasks shared by every instance, with liveness of the instance running
//! each one.

use std::fmt;
use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_server::tasks::{
    StoreFuture, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError, TaskUpdate,
    transition_allowed,
};
use mcp_types::{ErrorObject, TaskStatus};
use redis::Script;

use crate::connection::Redis;
use crate::error::Error;
use crate::options::millis;
use crate::task_codec::{decode, encode};

/// The status message of a task whose instance stopped before it ended.
pub const INSTANCE_STOPPED: &str = "the server instance running this task stopped";

/// How often `update` retries a compare-and-set that another writer won.
const CAS_ATTEMPTS: usize = 16;

/// KEYS: task, all (id by deadline), owner's (id by seq), seq.
/// ARGV: json, instance, deadline_ms, px, max, now_ms, id, task key prefix.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
local max = tonumber(ARGV[5])
if redis.call('ZCARD', KEYS[2]) >= max then return 'full' end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'inst', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[7])
redis.call('ZADD', KEYS[3], seq, ARGV[7])
if redis.call('ZCARD', KEYS[3]) > 2 * max then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if redis.call('EXISTS', ARGV[8] .. id) == 0 then redis.call('ZREM', KEYS[3], id) end
  end
end
for i = 2, 4 do
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[4]) then
    redis.call('PEXPIRE', KEYS[i], ARGV[4])
  end
end
return 'ok'
",
    )
});

/// KEYS: task. ARGV: instance key prefix. Returns nil or {json, instance, alive (0/1)}.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local v = redis.call('HMGET', KEYS[1], 'json', 'inst')
if not v[1] then return false end
return {v[1], v[2], redis.call('EXISTS', ARGV[1] .. v[2])}
",
    )
});

/// KEYS: task. ARGV: old json, new json. Returns 1 if the task still was `old` and is now
/// `new`, else 0.
static SWAP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'json') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2])
return 1
",
    )
});

/// KEYS: owner's index. ARGV: first seq, how many, task key prefix, instance key prefix.
/// Returns {seq, json, instance, alive, ...}, dropping index entries of expired tasks.
static LIST: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local out = {}
local from = ARGV[1]
local want = tonumber(ARGV[2])
while #out < want * 4 do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', 0, want)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local v = redis.call('HMGET', ARGV[3] .. batch[i], 'json', 'inst')
    if v[1] then
      out[#out + 1] = batch[i + 1]
      out[#out + 1] = v[1]
      out[#out + 1] = v[2]
      out[#out + 1] = redis.call('EXISTS', ARGV[4] .. v[2])
      if #out >= want * 4 then break end
    else
      redis.call('ZREM', KEYS[1], batch[i])
    end
  end
  from = '(' .. batch[#batch]
end
return out
",
    )
});

/// A [`TaskStore`] on Redis shared by every instance: any of them answers `tasks/get`,
/// `tasks/list` and `tasks/result`.
///
/// Each task is a hash `<prefix>task:<id>` (its JSON and the id of the instance that created
/// it) expiring with the task's TTL (tasks without one:
/// [`task_ttl`](crate::RedisOptions::task_ttl), default 24 hours); two sorted sets index
/// them (by deadline, to bound the count: [`max_tasks`](crate::RedisOptions::max_tasks),
/// default 1024 unexpired tasks, then `create` fails with [`TaskStoreError::Full`]; by owner
/// and creation order, for `list`). Updates are compare-and-set (Lua), so terminal tasks
/// never change even with writers on several instances.
///
/// **Liveness**: the [`Driver`](crate::Driver) keeps this instance's key
/// `<prefix>instance:<id>` alive ([`instance_ttl`](crate::RedisOptions::instance_ttl),
/// default 10 s). A task that is not finished and whose instance's key has expired is
/// reported, and stored, as `failed` with the status message [`INSTANCE_STOPPED`]: it is
/// never left `working` forever. Tasks of this instance are never failed this way by this
/// instance.
#[derive(Clone)]
pub struct RedisTaskStore {
    redis: Redis,
    max_tasks: usize,
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.redis.prefix)
            .field("max_tasks", &self.max_tasks)
            .finish()
    }
}

/// A task as read: its record, as stored, and whether its instance has stopped.
struct Read {
    record: TaskRecord,
    json: String,
    orphaned: bool,
}

fn backend(e: Error) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string() + &source_text(&e))
}

fn source_text(e: &Error) -> String {
    std::error::Error::source(e)
        .map(|s| format!(": {s}"))
        .unwrap_or_default()
}

fn redis_err(e: redis::RedisError) -> TaskStoreError {
    backend(Error::from(e))
}

fn unix_ms(t: SystemTime) -> u64 {
    u64::try_from(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
}

fn cursor(seq: u64) -> String {
    format!("t{seq:x}")
}

fn parse_cursor(cursor: &str) -> Result<u64, TaskStoreError> {
    cursor
        .strip_prefix('t')
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .ok_or(TaskStoreError::InvalidCursor)
}

impl RedisTaskStore {
    pub(crate) fn new(redis: Redis) -> Self {
        let max_tasks = redis.options().max_tasks;
        RedisTaskStore { redis, max_tasks }
    }

    /// The same store bounded to `max` tasks instead of
    /// [`RedisOptions::max_tasks`](crate::RedisOptions::max_tasks) (every instance sharing
    /// the store should use the same bound).
    #[must_use]
    pub fn with_max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max;
        self
    }

    fn task_key(&self, id: &str) -> String {
        self.redis.key(&["task:", id])
    }

    fn owner_key(&self, owner: Option<&str>) -> String {
        match owner {
            Some(owner) => self.redis.key(&["tasks:owner:o:", owner]),
            None => self.redis.key(&["tasks:owner:none"]),
        }
    }

    fn conn(&self) -> Result<redis::aio::MultiplexedConnection, TaskStoreError> {
        self.redis.conn().map_err(backend)
    }

    /// Decodes one task as read, and whether it is an unfinished task of a stopped instance.
    fn read(&self, json: String, instance: &str, alive: bool) -> Result<Read, TaskStoreError> {
        let record = decode(json.as_bytes()).map_err(backend)?;
        let orphaned =
            !alive && !record.status.is_terminal() && instance != self.redis.instance_id();
        Ok(Read {
            record,
            json,
            orphaned,
        })
    }

    async fn load(&self, id: &str) -> Result<Option<Read>, TaskStoreError> {
        let mut conn = self.conn()?;
        let found: Option<(String, String, i64)> = GET
            .key(self.task_key(id))
            .arg(self.redis.instance_key(""))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        let Some((json, instance, alive)) = found else {
            return Ok(None);
        };
        let read = self.read(json, &instance, alive != 0)?;
        Ok((!read.record.is_expired(SystemTime::now())).then_some(read))
    }

    /// Replaces `old` (as read) by `new`; false if another writer changed the task first.
    async fn swap(&self, old: &str, new: &TaskRecord) -> Result<bool, TaskStoreError> {
        let mut conn = self.conn()?;
        let swapped: i64 = SWAP
            .key(self.task_key(&new.id))
            .arg(old)
            .arg(encode(new).map_err(backend)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(swapped == 1)
    }

    /// Stores an orphaned task as failed and returns it as stored (by whichever instance
    /// got there first).
    async fn fail_orphan(&self, mut read: Read) -> Result<Option<TaskRecord>, TaskStoreError> {
        for _ in 0..CAS_ATTEMPTS {
            if !read.orphaned {
                return Ok(Some(read.record));
            }
            let mut failed = read.record.clone();
            failed.status = TaskStatus::Failed;
            failed.status_message = Some(INSTANCE_STOPPED.into());
            failed.outcome = Some(TaskOutcome::Error(ErrorObject::internal_error(
                INSTANCE_STOPPED,
            )));
            failed.updated_at = SystemTime::now().max(failed.updated_at);
            if self.swap(&read.json, &failed).await? {
                tracing::info!(task = %failed.id, "a task's instance stopped; marked failed");
                return Ok(Some(failed));
            }
            match self.load(&failed.id).await? {
                Some(again) => read = again,
                None => return Ok(None),
            }
        }
        Err(TaskStoreError::Backend(
            "too many concurrent writers".into(),
        ))
    }
}

/// `update` applied to `record` at `now`.
fn apply(record: &TaskRecord, update: &TaskUpdate) -> Result<TaskRecord, TaskStoreError> {
    if record.status.is_terminal() {
        return Err(TaskStoreError::Ended(record.id.clone()));
    }
    let mut next = record.clone();
    if let Some(to) = update.status {
        if !transition_allowed(record.status, to) {
            return Err(TaskStoreError::Transition {
                id: record.id.clone(),
                from: record.status,
                to,
            });
        }
        next.status = to;
    }
    if let Some(message) = &update.status_message {
        next.status_message.clone_from(message);
    }
    if let Some(requests) = &update.input_requests {
        next.input_requests.clone_from(requests);
    }
    if let Some(outcome) = &update.outcome {
        next.outcome = Some(outcome.clone());
    }
    next.updated_at = SystemTime::now().max(record.updated_at);
    Ok(next)
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let now = SystemTime::now();
            let keep = record.ttl.unwrap_or(self.redis.options().task_ttl);
            let deadline = record.created_at.checked_add(keep).unwrap_or(now);
            let px = millis(deadline.duration_since(now).unwrap_or(Duration::ZERO));
            let json = encode(&record).map_err(backend)?;
            let mut conn = self.conn()?;
            let answer: String = CREATE
                .key(self.task_key(&record.id))
                .key(self.redis.key(&["tasks:all"]))
                .key(self.owner_key(record.owner.as_deref()))
                .key(self.redis.key(&["tasks:seq"]))
                .arg(json)
                .arg(self.redis.instance_id())
                .arg(unix_ms(deadline))
                .arg(px)
                .arg(self.max_tasks)
                .arg(unix_ms(now))
                .arg(&record.id)
                .arg(self.redis.key(&["task:"]))
                .invoke_async(&mut conn)
                .await
                .map_err(redis_err)?;
            match answer.as_str() {
                "ok" => Ok(()),
                "exists" => Err(TaskStoreError::Exists(record.id)),
                "full" => Err(TaskStoreError::Full(self.max_tasks)),
                other => Err(TaskStoreError::Backend(format!(
                    "unexpected answer to create: {other}"
                ))),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            match self.load(id).await? {
                Some(read) => self.fail_orphan(read).await,
                None => Ok(None),
            }
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            for _ in 0..CAS_ATTEMPTS {
                let Some(read) = self.load(id).await? else {
                    return Ok(None);
                };
                if read.orphaned {
                    // Its instance stopped: it has failed, and refuses the change.
                    return match self.fail_orphan(read).await? {
                        Some(_) => Err(TaskStoreError::Ended(id.to_owned())),
                        None => Ok(None),
                    };
                }
                let next = apply(&read.record, &update)?;
                if self.swap(&read.json, &next).await? {
                    return Ok(Some(next));
                }
            }
            Err(TaskStoreError::Backend(
                "too many concurrent writers".into(),
            ))
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor_at: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage> {
        Box::pin(async move {
            let from = cursor_at.map(parse_cursor).transpose()?.unwrap_or(0);
            let limit = limit.clamp(1, 1000);
            let want = limit + 1;
            let mut conn = self.conn()?;
            let found: Vec<(u64, String, String, i64)> = LIST
                .key(self.owner_key(owner))
                .arg(from)
                .arg(want)
                .arg(self.redis.key(&["task:"]))
                .arg(self.redis.instance_key(""))
                .invoke_async(&mut conn)
                .await
                .map_err(redis_err)?;
            let full = found.len() == want;
            let last = found.last().map(|(seq, ..)| *seq);
            let now = SystemTime::now();
            let mut tasks = Vec::new();
            let mut next_cursor = None;
            for (seq, json, instance, alive) in found {
                let read = self.read(json, &instance, alive != 0)?;
                if read.record.is_expired(now) {
                    continue;
                }
                if tasks.len() == limit {
                    next_cursor = Some(cursor(seq));
                    break;
                }
                if let Some(record) = self.fail_orphan(read).await? {
                    tasks.push(record);
                }
            }
            if next_cursor.is_none() && full {
                next_cursor = last.map(|seq| cursor(seq + 1));
            }
            Ok(TaskPage { tasks, next_cursor })
        })
    }
}
