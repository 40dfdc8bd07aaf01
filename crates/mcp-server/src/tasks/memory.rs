//! [`InMemoryTaskStore`]: the default [`TaskStore`], bounded, in this process.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::store::{
    StoreFuture, TaskPage, TaskRecord, TaskStore, TaskStoreError, TaskUpdate, transition_allowed,
};

/// The default of [`InMemoryTaskStore::new`]'s bound.
pub const DEFAULT_MAX_TASKS: usize = 1024;

#[derive(Default)]
struct State {
    by_id: HashMap<String, (u64, TaskRecord)>,
    /// Creation order: sequence number to id.
    order: BTreeMap<u64, String>,
    next: u64,
}

impl State {
    fn purge(&mut self, now: SystemTime) {
        let expired: Vec<(u64, String)> = self
            .by_id
            .iter()
            .filter(|(_, (_, r))| r.is_expired(now))
            .map(|(id, (seq, _))| (*seq, id.clone()))
            .collect();
        for (seq, id) in expired {
            self.by_id.remove(&id);
            self.order.remove(&seq);
        }
    }
}

/// Tasks in memory: at most `max_tasks` at a time (expired ones are dropped first), each
/// kept until its TTL is up. Tasks are lost when the process ends.
///
/// ```
/// use mcp_server::tasks::{InMemoryTaskStore, TaskRecord, TaskStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = InMemoryTaskStore::new(16);
/// store.create(TaskRecord::new("t-1", None, None)).await.unwrap();
/// assert!(store.get("t-1").await.unwrap().is_some());
/// # }
/// ```
pub struct InMemoryTaskStore {
    max_tasks: usize,
    state: Mutex<State>,
}

impl std::fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTaskStore")
            .field("max_tasks", &self.max_tasks)
            .field("tasks", &self.lock().by_id.len())
            .finish()
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        InMemoryTaskStore::new(DEFAULT_MAX_TASKS)
    }
}

impl InMemoryTaskStore {
    /// A store of at most `max_tasks` tasks.
    pub fn new(max_tasks: usize) -> Self {
        InMemoryTaskStore {
            max_tasks,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
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

impl TaskStore for InMemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let outcome = (|| {
            let mut st = self.lock();
            if st.by_id.contains_key(&record.id) {
                return Err(TaskStoreError::Exists(record.id));
            }
            if st.by_id.len() >= self.max_tasks {
                st.purge(SystemTime::now());
                if st.by_id.len() >= self.max_tasks {
                    return Err(TaskStoreError::Full(self.max_tasks));
                }
            }
            let seq = st.next;
            st.next += 1;
            st.order.insert(seq, record.id.clone());
            st.by_id.insert(record.id.clone(), (seq, record));
            Ok(())
        })();
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let now = SystemTime::now();
        let found = self
            .lock()
            .by_id
            .get(id)
            .map(|(_, r)| r.clone())
            .filter(|r| !r.is_expired(now));
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let outcome = (|| {
            let now = SystemTime::now();
            let mut st = self.lock();
            let Some((_, record)) = st.by_id.get_mut(id).filter(|(_, r)| !r.is_expired(now)) else {
                return Ok(None);
            };
            if record.status.is_terminal() {
                return Err(TaskStoreError::Ended(id.to_owned()));
            }
            if let Some(to) = update.status {
                if !transition_allowed(record.status, to) {
                    return Err(TaskStoreError::Transition {
                        id: id.to_owned(),
                        from: record.status,
                        to,
                    });
                }
                record.status = to;
            }
            if let Some(message) = update.status_message {
                record.status_message = message;
            }
            if let Some(requests) = update.input_requests {
                record.input_requests = requests;
            }
            if let Some(outcome) = update.outcome {
                record.outcome = Some(outcome);
            }
            record.updated_at = now.max(record.updated_at);
            Ok(Some(record.clone()))
        })();
        Box::pin(std::future::ready(outcome))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor_at: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage> {
        let outcome = (|| {
            let from = cursor_at.map(parse_cursor).transpose()?.unwrap_or(0);
            let now = SystemTime::now();
            let st = self.lock();
            let mut tasks = Vec::new();
            let mut next_cursor = None;
            for (seq, id) in st.order.range(from..) {
                let Some((_, record)) = st.by_id.get(id) else {
                    continue;
                };
                if record.is_expired(now) || record.owner.as_deref() != owner {
                    continue;
                }
                if tasks.len() == limit.max(1) {
                    next_cursor = Some(cursor(*seq));
                    break;
                }
                tasks.push(record.clone());
            }
            Ok(TaskPage { tasks, next_cursor })
        })();
        Box::pin(std::future::ready(outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_in_memory_store_keeps_the_contract() {
        super::super::contract::verify(InMemoryTaskStore::new)
            .await
            .unwrap();
    }
}
