//! Tasks the server creates on this client (2025-11-25): a `sampling/createMessage` or
//! `elicitation/create` that carries `task` is answered at once with the created task, its
//! handler runs in the background (inside the [`Connection`](crate::Connection) future: the
//! crate spawns nothing), and the server follows it with `tasks/get`, `tasks/result`,
//! `tasks/list` and `tasks/cancel`.
//!
//! The client keeps at most [`ClientBuilder::max_received_tasks`](crate::ClientBuilder::max_received_tasks)
//! tasks (64 by default); past that, ended and expired tasks make room first, and a request
//! finding none is answered with an error (the server may send it again without `task`).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::{Duration, SystemTime};

use futures::StreamExt as _;
use futures::future::{AbortHandle, Abortable};
use futures::stream::FuturesUnordered;
use mcp_jsonrpc::{CancellationToken, ErrorObject};
use mcp_types::{
    CreateTaskResult, GetTaskPayloadResult, GetTaskRequestParams, GetTaskResult, JsonObject,
    ListTasksResult, PaginatedRequestParams, RELATED_TASK_META_KEY, Task, TaskMetadata, TaskStatus,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The default of [`ClientBuilder::max_received_tasks`](crate::ClientBuilder::max_received_tasks).
pub(crate) const DEFAULT_MAX_RECEIVED_TASKS: usize = 64;

/// How long an ended task is kept when the server asked for no ttl.
const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// The interval the client suggests between two `tasks/get`.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How many tasks one `tasks/list` page holds.
const PAGE: usize = 50;

/// One task's state.
#[derive(Clone)]
struct State {
    status: TaskStatus,
    status_message: Option<String>,
    updated_at: SystemTime,
    /// The handler's answer once `completed`, or its error once `failed`.
    outcome: Option<Result<JsonObject, ErrorObject>>,
}

struct Entry {
    seq: u64,
    created_at: SystemTime,
    ttl: Duration,
    state: watch::Sender<State>,
    abort: AbortHandle,
    cancellation: CancellationToken,
}

impl Entry {
    fn task(&self, id: &str) -> Task {
        let state = self.state.borrow();
        let mut task = Task::new(
            id,
            state.status,
            timestamp(self.created_at),
            timestamp(state.updated_at),
        );
        task.status_message = state.status_message.clone();
        task.ttl = Some(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX));
        task.poll_interval = Some(u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(u64::MAX));
        task
    }

    fn expired(&self, now: SystemTime) -> bool {
        now.duration_since(self.created_at)
            .is_ok_and(|age| age > self.ttl)
    }

    fn ended(&self) -> bool {
        self.state.borrow().status.is_terminal()
    }

    /// Moves to `status` unless the task has ended already.
    fn end(
        &self,
        status: TaskStatus,
        message: Option<String>,
        outcome: Option<Result<JsonObject, ErrorObject>>,
    ) {
        self.state.send_if_modified(|state| {
            if state.status.is_terminal() {
                return false;
            }
            state.status = status;
            state.status_message = message;
            state.updated_at = SystemTime::now();
            state.outcome = outcome;
            true
        });
    }
}

/// `t` in RFC 3339 (UTC, milliseconds).
fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

fn not_found() -> ErrorObject {
    ErrorObject::invalid_params("Failed to retrieve task: Task not found")
}

/// The tasks the server created on this client.
pub(crate) struct ReceivedTasks {
    tasks: Mutex<HashMap<String, Arc<Entry>>>,
    next_seq: std::sync::atomic::AtomicU64,
    max: usize,
    runner: mpsc::Sender<BoxFuture<()>>,
}

/// Runs the handlers of received tasks: part of the [`Connection`](crate::Connection) future,
/// so they run while the connection does and stop with it. Never completes (its output has
/// no value).
pub(crate) struct TaskRunner {
    queue: mpsc::Receiver<BoxFuture<()>>,
    running: FuturesUnordered<BoxFuture<()>>,
}

impl Future for TaskRunner {
    type Output = std::convert::Infallible;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<std::convert::Infallible> {
        while let Poll::Ready(Some(task)) = self.queue.poll_recv(cx) {
            self.running.push(task);
        }
        while let Poll::Ready(Some(())) = self.running.poll_next_unpin(cx) {}
        Poll::Pending
    }
}

impl ReceivedTasks {
    /// A store for at most `max` tasks, and the runner of their handlers.
    pub(crate) fn new(max: usize) -> (Self, TaskRunner) {
        let (runner, queue) = mpsc::channel(max.max(1));
        let tasks = ReceivedTasks {
            tasks: Mutex::new(HashMap::new()),
            next_seq: std::sync::atomic::AtomicU64::new(0),
            max: max.max(1),
            runner,
        };
        let runner = TaskRunner {
            queue,
            running: FuturesUnordered::new(),
        };
        (tasks, runner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The task `id`, unless unknown or expired.
    fn find(&self, id: &str) -> Result<Arc<Entry>, ErrorObject> {
        let mut tasks = self.lock();
        let now = SystemTime::now();
        tasks.retain(|_, e| !(e.ended() && e.expired(now)));
        tasks.get(id).cloned().ok_or_else(not_found)
    }

    /// Creates a task running `work` (the handler's answer, as an object) and returns what
    /// the server gets at once.
    pub(crate) async fn start(
        &self,
        asked: &TaskMetadata,
        work: impl FnOnce(&str, CancellationToken) -> BoxFuture<Result<JsonObject, ErrorObject>>,
    ) -> Result<CreateTaskResult, ErrorObject> {
        let id = new_id()?;
        let now = SystemTime::now();
        let ttl = asked.ttl.map_or(DEFAULT_TTL, Duration::from_millis);
        let (abort, registration) = AbortHandle::new_pair();
        let cancellation = CancellationToken::new();
        let entry = Arc::new(Entry {
            seq: self
                .next_seq
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            created_at: now,
            ttl,
            state: watch::Sender::new(State {
                status: TaskStatus::Working,
                status_message: None,
                updated_at: now,
                outcome: None,
            }),
            abort,
            cancellation: cancellation.clone(),
        });
        {
            let mut tasks = self.lock();
            if tasks.len() >= self.max {
                tasks.retain(|_, e| !(e.ended() || e.expired(now)));
            }
            if tasks.len() >= self.max {
                return Err(ErrorObject::internal_error(format!(
                    "too many tasks on this client (at most {})",
                    self.max
                )));
            }
            tasks.insert(id.clone(), entry.clone());
        }
        let created = entry.task(&id);
        let running = entry.clone();
        let call = Abortable::new(work(&id, cancellation), registration);
        let task: BoxFuture<()> = Box::pin(async move {
            let guard = running.cancellation.clone().drop_guard();
            match call.await {
                Ok(Ok(answer)) => running.end(TaskStatus::Completed, None, Some(Ok(answer))),
                Ok(Err(error)) => {
                    let message = Some(error.message.clone());
                    running.end(TaskStatus::Failed, message, Some(Err(error)));
                }
                // Cancelled: the state says so already.
                Err(_aborted) => {}
            }
            drop(guard);
        });
        if self.runner.send(task).await.is_err() {
            self.lock().remove(&id);
            return Err(ErrorObject::internal_error("the connection is closing"));
        }
        tracing::debug!(task = %id, "task created on the client");
        Ok(CreateTaskResult::new(created))
    }

    /// `tasks/get`.
    pub(crate) fn get(&self, params: &GetTaskRequestParams) -> Result<GetTaskResult, ErrorObject> {
        let entry = self.find(&params.task_id)?;
        Ok(GetTaskResult::new(entry.task(&params.task_id)))
    }

    /// `tasks/result`: waits until the task ends, then its answer (or its error).
    pub(crate) async fn result(
        &self,
        params: &GetTaskRequestParams,
    ) -> Result<GetTaskPayloadResult, ErrorObject> {
        let entry = self.find(&params.task_id)?;
        let mut changes = entry.state.subscribe();
        let state = changes
            .wait_for(|s| s.status.is_terminal())
            .await
            .map_err(|_| ErrorObject::internal_error("the task is gone"))?
            .clone();
        let related = json!({ RELATED_TASK_META_KEY: {"taskId": params.task_id} });
        match state.outcome {
            Some(Ok(answer)) => {
                let mut result: GetTaskPayloadResult =
                    serde_json::from_value(Value::Object(answer))
                        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                let meta = result.meta.get_or_insert_default();
                if let Value::Object(related) = related {
                    meta.extend(related);
                }
                Ok(result)
            }
            Some(Err(error)) => Err(error),
            None => Err(ErrorObject::internal_error(format!(
                "Task {} was cancelled; it has no result",
                params.task_id
            ))),
        }
    }

    /// `tasks/list`: the client's tasks, oldest first, a page at a time.
    pub(crate) fn list(
        &self,
        params: &PaginatedRequestParams,
    ) -> Result<ListTasksResult, ErrorObject> {
        let start = match params.cursor.as_deref() {
            None => 0,
            Some(cursor) => cursor
                .parse::<u64>()
                .map_err(|_| ErrorObject::invalid_params("Invalid cursor"))?,
        };
        let mut tasks: Vec<(u64, Task)> = {
            let mut map = self.lock();
            let now = SystemTime::now();
            map.retain(|_, e| !(e.ended() && e.expired(now)));
            map.iter()
                .filter(|(_, e)| e.seq >= start)
                .map(|(id, e)| (e.seq, e.task(id)))
                .collect()
        };
        tasks.sort_by_key(|(seq, _)| *seq);
        let next_cursor = tasks.get(PAGE).map(|(seq, _)| seq.to_string());
        tasks.truncate(PAGE);
        let mut page = ListTasksResult::default();
        page.tasks = tasks.into_iter().map(|(_, t)| t).collect();
        page.next_cursor = next_cursor;
        Ok(page)
    }

    /// `tasks/cancel`: stops the handler; a task that has ended cannot be cancelled.
    pub(crate) fn cancel(
        &self,
        params: &GetTaskRequestParams,
    ) -> Result<GetTaskResult, ErrorObject> {
        let entry = self.find(&params.task_id)?;
        let status = entry.state.borrow().status;
        if status.is_terminal() {
            let status = serde_json::to_value(status).unwrap_or(Value::Null);
            return Err(ErrorObject::invalid_params(format!(
                "Cannot cancel task: already in terminal status {status}"
            )));
        }
        entry.end(
            TaskStatus::Cancelled,
            Some("The task was cancelled.".to_owned()),
            None,
        );
        entry.cancellation.cancel();
        entry.abort.abort();
        Ok(GetTaskResult::new(entry.task(&params.task_id)))
    }
}

/// A fresh, unguessable task id.
fn new_id() -> Result<String, ErrorObject> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ErrorObject::internal_error(format!("no randomness for a task id: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("client-task-{hex}"))
}
