//! [`TaskStore`]: where tasks are kept, so that a status, a result or an error outlives the
//! request that created the task (and, with a shared store, the process that ran it).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use mcp_types::{ErrorObject, InputRequests, JsonObject, TaskStatus};

/// A boxed future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// A task as a store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task id: unguessable, made by the server.
    pub id: String,
    /// Who may see the task: the principal of the request that created it (or, without one,
    /// its session); `None` for anyone who has the id.
    pub owner: Option<String>,
    /// The current state.
    pub status: TaskStatus,
    /// A human-readable explanation of the state.
    pub status_message: Option<String>,
    /// When the task was created.
    pub created_at: SystemTime,
    /// When the task last changed.
    pub updated_at: SystemTime,
    /// How long the task is kept after its creation; `None` for as long as the store lives.
    pub ttl: Option<Duration>,
    /// The suggested interval between two polls.
    pub poll_interval: Option<Duration>,
    /// The input the task waits for, by key (while `input_required`).
    pub input_requests: InputRequests,
    /// How the call ended: set with a terminal status (but `cancelled`).
    pub outcome: Option<TaskOutcome>,
}

/// How a task's call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// The call's result (a `CallToolResult`, possibly with `isError`).
    Result(JsonObject),
    /// The JSON-RPC error the call ended with.
    Error(ErrorObject),
}

impl TaskRecord {
    /// Whether a requestor that is `owner` may see the task.
    pub fn visible_to(&self, owner: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == owner
    }

    /// A new `working` task created now.
    pub fn new(id: impl Into<String>, owner: Option<String>, ttl: Option<Duration>) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id: id.into(),
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            updated_at: now,
            ttl,
            poll_interval: None,
            input_requests: InputRequests::new(),
            outcome: None,
        }
    }

    /// Whether the task's time is up at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.ttl
            .and_then(|ttl| self.created_at.checked_add(ttl))
            .is_some_and(|end| end <= now)
    }
}

/// A change to a task: the fields given are replaced, and `updated_at` is set to now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskUpdate {
    /// The new state.
    pub status: Option<TaskStatus>,
    /// The new explanation (`Some(None)` removes it).
    pub status_message: Option<Option<String>>,
    /// The new outstanding input.
    pub input_requests: Option<InputRequests>,
    /// How the call ended.
    pub outcome: Option<TaskOutcome>,
}

impl TaskUpdate {
    /// A change of state only.
    pub fn status(status: TaskStatus) -> Self {
        TaskUpdate {
            status: Some(status),
            ..Default::default()
        }
    }
}

/// One page of [`TaskStore::list`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// Where the next page starts, if there is one.
    pub next_cursor: Option<String>,
}

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// A task with this id exists already.
    #[error("a task with id {0} exists already")]
    Exists(String),
    /// The store holds as many tasks as it may.
    #[error("the task store is full ({0} tasks)")]
    Full(usize),
    /// The change would move a task out of a terminal state, or from one state to another
    /// the protocol does not allow.
    #[error("task {id}: {from:?} cannot become {to:?}")]
    Transition {
        /// The task.
        id: String,
        /// Its state.
        from: TaskStatus,
        /// The state asked for.
        to: TaskStatus,
    },
    /// A task that has ended cannot change any more.
    #[error("task {0} has ended")]
    Ended(String),
    /// The cursor was not made by this store.
    #[error("invalid cursor")]
    InvalidCursor,
    /// The store itself failed (a backend error).
    #[error("task store: {0}")]
    Backend(String),
}

/// Whether a task may go from `from` to `to`: `working` and `input_required` to each other
/// or to a terminal state; nothing out of a terminal state.
pub fn transition_allowed(from: TaskStatus, _to: TaskStatus) -> bool {
    !from.is_terminal()
}

/// Where tasks are kept. The server calls it for every task operation; a store shared by
/// several server processes (a database, Redis) lets any of them answer `tasks/get`, while
/// input and cancellation reach the task in the process that runs it.
///
/// An implementation must keep the promises [`contract::verify`](super::contract::verify)
/// checks: `create` is durable when it returns (a `get` right after finds the task), a task
/// whose time is up is not returned, terminal tasks never change, `list` pages with opaque
/// cursors, and it holds a bounded number of tasks (failing `create` with
/// [`TaskStoreError::Full`] rather than growing without limit).
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()>;

    /// The task with `id`, unless it does not exist or its time is up.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `update` to the task with `id` and returns it changed; `None` if there is no
    /// such task. A status change must be allowed ([`transition_allowed`]), and a terminal
    /// task refuses every change ([`TaskStoreError::Ended`]).
    fn update<'a>(&'a self, id: &'a str, update: TaskUpdate)
    -> StoreFuture<'a, Option<TaskRecord>>;

    /// One page of at most `limit` tasks of `owner` (every task with that owner), oldest
    /// first, from `cursor`.
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage>;
}

/// A store shared by several servers in one process (each given a clone of the `Arc`).
impl<S: TaskStore + ?Sized> TaskStore for std::sync::Arc<S> {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        (**self).create(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        (**self).get(id)
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        (**self).update(id, update)
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, TaskPage> {
        (**self).list(owner, cursor, limit)
    }
}

impl fmt::Debug for dyn TaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TaskStore")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions() {
        use TaskStatus::*;
        assert!(transition_allowed(Working, InputRequired));
        assert!(transition_allowed(InputRequired, Working));
        assert!(transition_allowed(Working, Working));
        for end in [Completed, Failed, Cancelled] {
            assert!(transition_allowed(Working, end));
            assert!(transition_allowed(InputRequired, end));
            for to in [Working, InputRequired, Completed, Failed, Cancelled] {
                assert!(!transition_allowed(end, to), "{end:?} -> {to:?}");
            }
        }
    }
}
