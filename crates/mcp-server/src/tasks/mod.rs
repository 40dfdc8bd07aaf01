//! Tasks: a tool call the server runs in the background while the client polls for it.
//!
//! A tool opts in with [`Tool::task_support`](crate::Tool::task_support); its handler is an
//! ordinary async handler, with progress, cancellation and input (`cx.elicit`, `cx.sample`,
//! `cx.list_roots`) as usual. The server runs a call of it as a task when the client asks for
//! one and the tool allows it (protocol 2025-11-25: the request's `task` param), or when the
//! client declared the `io.modelcontextprotocol/tasks` extension on the request and the tool
//! supports tasks (2026-07-28, where the server decides). A tool whose support is
//! `Required` called without task support is refused (-32601 on 2025-11-25, -32021 on
//! 2026-07-28).
//!
//! Both eras' methods are served from one [`TaskStore`]:
//!
//! | | 2025-11-25 | 2026-07-28 (extension) |
//! |---|---|---|
//! | the call's answer | `{task: {...}}` | flat task handle, `resultType: "task"` |
//! | `tasks/get` | the task | the task, with its outstanding `inputRequests`, `result` or `error` |
//! | the result | `tasks/result` (waits until the task ends) | inline in `tasks/get` |
//! | input | server requests tied to the task | `inputRequests` answered with `tasks/update` |
//! | `tasks/list` | the requestor's tasks, paginated | -32601 |
//! | `tasks/cancel` | the task, now `cancelled` (-32602 if it has ended) | an acknowledgement |
//!
//! # Running tasks
//!
//! The library never spawns behind the application's back: tasks run on the
//! [`TaskExecutor`] given to [`Tasks::new`], typically `|task| { tokio::spawn(task); }`. At
//! most [`Tasks::max_running`] run at a time in one process (a call beyond is refused
//! with -32603), and the store holds a bounded number of tasks ([`InMemoryTaskStore::new`]).
//! With a store ([`Tasks::store`]) and an event bus
//! ([`ServerBuilder::event_bus`](crate::ServerBuilder::event_bus)) shared by several server
//! instances (such as `mcp-redis`'s), any of them answers `tasks/get`, and `tasks/cancel` and
//! `tasks/update` reach the task through whichever instance they arrive at: that instance
//! updates the stored task and publishes [`ServerEvent::TaskCancelled`](crate::ServerEvent::TaskCancelled) or
//! [`ServerEvent::TaskInput`](crate::ServerEvent::TaskInput), which the instance running the
//! task acts on. When the bus loses events (a subscriber that lagged), the instance running a
//! task reads it from the store: a cancellation stops it, and requests whose answers were lost
//! are asked again (outstanding in the stored task once more), rather than the task waiting
//! until its time is up.
//!
//! A task belongs to the principal of the request that created it
//! ([`ServerBuilder::request_state_principal`](crate::ServerBuilder::request_state_principal)),
//! or without one to its session (2025-11-25); other requestors do not find it. Task ids are
//! 128 random bits.
//!
//! ```
//! use std::time::Duration;
//! use mcp_server::tasks::Tasks;
//! use mcp_server::types::ToolTaskSupport;
//! use mcp_server::{Context, Server, Tool};
//!
//! let build = Tool::new("build", |cx: Context| async move {
//!     for step in 1..=3 {
//!         tokio::select! {
//!             _ = cx.cancellation().cancelled() => return "cancelled".to_owned(),
//!             _ = tokio::time::sleep(Duration::from_millis(10)) => {}
//!         }
//!         let _ = cx.report_progress(f64::from(step), Some(3.0), None).await;
//!     }
//!     "built".to_owned()
//! })
//! .task_support(ToolTaskSupport::Optional);
//! let server = Server::builder()
//!     .tasks(Tasks::new(|task| {
//!         tokio::spawn(task);
//!     }))
//!     .tool(build)
//!     .build();
//! # let _ = server;
//! ```

pub mod contract;
mod memory;
mod store;

pub(crate) mod call;
pub(crate) mod link;
pub(crate) mod listen;
pub(crate) mod methods;
pub(crate) mod runtime;
pub(crate) mod wire;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use memory::{DEFAULT_MAX_TASKS, InMemoryTaskStore};
pub use store::{
    StoreFuture, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError, TaskUpdate,
    transition_allowed,
};

/// Runs a task's future to its end, on the application's runtime (`tokio::spawn`).
pub trait TaskExecutor: Send + Sync + 'static {
    /// Runs `task` in the background.
    fn execute(&self, task: futures::future::BoxFuture<'static, ()>);
}

impl<F> TaskExecutor for F
where
    F: Fn(futures::future::BoxFuture<'static, ()>) + Send + Sync + 'static,
{
    fn execute(&self, task: futures::future::BoxFuture<'static, ()>) {
        self(task);
    }
}

/// Turns tasks on, for [`ServerBuilder::tasks`](crate::ServerBuilder::tasks): where they run,
/// where they are kept, and their limits.
#[derive(Clone)]
pub struct Tasks {
    pub(crate) executor: Arc<dyn TaskExecutor>,
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) max_ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) max_running: usize,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("ttl", &self.ttl)
            .field("max_ttl", &self.max_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_running", &self.max_running)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Tasks run by `executor`, kept in an [`InMemoryTaskStore`] of
    /// [`DEFAULT_MAX_TASKS`], each for 5 minutes after its creation (at most 1 hour when a
    /// 2025-11-25 client asks for longer), polled every 500 ms, at most 64 running at a time.
    pub fn new(executor: impl TaskExecutor) -> Self {
        Tasks {
            executor: Arc::new(executor),
            store: Arc::new(InMemoryTaskStore::default()),
            ttl: Some(Duration::from_secs(300)),
            max_ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_running: 64,
        }
    }

    /// Keeps tasks in `store`.
    #[must_use]
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How long a task is kept after its creation when the client does not say (`None`:
    /// as long as the store keeps it).
    #[must_use]
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }

    /// The longest a 2025-11-25 client may ask a task to be kept (`None`: no limit).
    #[must_use]
    pub fn max_ttl(mut self, max: Option<Duration>) -> Self {
        self.max_ttl = max;
        self
    }

    /// The interval between two polls the server suggests.
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many tasks may run at a time in this process.
    #[must_use]
    pub fn max_running(mut self, max: usize) -> Self {
        self.max_running = max;
        self
    }
}
