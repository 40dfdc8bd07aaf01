//! The tasks running in this process: their cancellation, the input they wait for, and the
//! future that runs each (handed to the application's [`TaskExecutor`](super::TaskExecutor)).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt as _;
use futures::future::{AbortHandle, Abortable, Aborted};
use mcp_jsonrpc::{CancellationToken, Peer};
use mcp_types::{
    CallToolResult, ErrorObject, InputRequest, InputRequests, InputResponse, JsonObject,
    Notification as _, TaskStatus, TaskStatusChanged, TaskStatusNotificationParams,
};
use tokio::sync::{oneshot, watch};

use super::Tasks;
use super::store::{TaskOutcome, TaskRecord, TaskStoreError, TaskUpdate};
use super::wire;
use crate::error::{BoxError, Result};
use crate::events::{EventBus, Received, ServerEvent};

/// A task running in this process.
pub(crate) struct LiveTask {
    pub(crate) id: String,
    /// Whether the task belongs to a 2026-07-28 request (input through `tasks/update`, no
    /// progress or log messages) or to a session (input as server requests).
    pub(crate) modern: bool,
    /// Where `notifications/tasks/status` goes when the status changes: the session that
    /// created the task (2025-11-25; the extension has no such notification on the request's
    /// connection).
    status_to: Option<Peer>,
    /// Fired by `tasks/cancel` (and when the task's future is dropped).
    pub(crate) cancellation: CancellationToken,
    abort: Mutex<Option<AbortHandle>>,
    /// The input the task waits for (2026-07-28), by key.
    pending: tokio::sync::Mutex<BTreeMap<String, Pending>>,
    /// Makes input keys that are never reused.
    next_key: AtomicU64,
    /// Requests answered elsewhere were asked again after the bus lost their answers (see
    /// [`TaskRuntime::reconcile`]): answers from the bus then update the store here too.
    reasked: AtomicBool,
    /// Bumped whenever the task's stored state changes: what `tasks/result` waits on.
    pub(crate) changed: watch::Sender<u64>,
}

struct Pending {
    request: InputRequest,
    answer: oneshot::Sender<InputResponse>,
}

impl LiveTask {
    pub(crate) fn cancel(&self) {
        self.cancellation.cancel();
        if let Some(abort) = self
            .abort
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            abort.abort();
        }
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Sends `notifications/tasks/status` with the task as `record` has it, if the task
    /// tells a session.
    async fn tell_status(&self, record: &TaskRecord) {
        let Some(peer) = &self.status_to else {
            return;
        };
        let params = TaskStatusNotificationParams::new(wire::legacy_task(record));
        let sent = match serde_json::value::to_raw_value(&params) {
            Ok(raw) => peer.notify(TaskStatusChanged::METHOD, Some(raw)).await,
            Err(e) => {
                tracing::warn!(task = %self.id, error = %e, "encoding a task status failed");
                return;
            }
        };
        if let Err(e) = sent {
            tracing::debug!(task = %self.id, error = %e, "task status not sent");
        }
    }

    /// A key for an input request the handler did not name: `<kind>-<n>`, never reused.
    pub(crate) fn fresh_key(&self, kind: &str) -> String {
        format!("{kind}-{}", self.next_key.fetch_add(1, Ordering::Relaxed))
    }
}

/// The tasks of a server: its configuration, and those running here.
pub(crate) struct TaskRuntime {
    pub(crate) config: Tasks,
    /// Where status changes are published, for `subscriptions/listen` streams (2026-07-28).
    events: Arc<dyn EventBus>,
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
}

impl std::fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuntime")
            .field("running", &self.lock().len())
            .finish_non_exhaustive()
    }
}

/// How a task's future ended.
pub(crate) type Ended = std::result::Result<
    std::result::Result<Result<CallToolResult, BoxError>, Aborted>,
    Box<dyn std::any::Any + Send>,
>;

impl TaskRuntime {
    pub(crate) fn new(config: Tasks, events: Arc<dyn EventBus>) -> Self {
        TaskRuntime {
            config,
            events,
            live: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh, unguessable task id.
    pub(crate) fn new_id() -> Result<String> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            crate::Error::Rpc(ErrorObject::internal_error(format!(
                "no randomness for a task id: {e}"
            )))
        })?;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(format!("task-{hex}"))
    }

    /// Whether another task may start here (at most [`Tasks::max_running`] at a time).
    pub(crate) fn has_room(&self) -> bool {
        self.lock().len() < self.config.max_running
    }

    /// Registers a task about to run here; its status changes are told to `status_to`.
    pub(crate) fn register(
        &self,
        id: &str,
        modern: bool,
        status_to: Option<Peer>,
    ) -> Arc<LiveTask> {
        let live = Arc::new(LiveTask {
            id: id.to_owned(),
            modern,
            status_to,
            cancellation: CancellationToken::new(),
            abort: Mutex::new(None),
            pending: tokio::sync::Mutex::new(BTreeMap::new()),
            next_key: AtomicU64::new(0),
            reasked: AtomicBool::new(false),
            changed: watch::Sender::new(0),
        });
        self.lock().insert(id.to_owned(), live.clone());
        live
    }

    /// The task with `id` if it runs here.
    pub(crate) fn live(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.lock().get(id).cloned()
    }

    /// Hands the task's future to the executor: it runs until it ends or is cancelled, then
    /// its outcome is stored.
    pub(crate) fn spawn(
        self: &Arc<Self>,
        live: Arc<LiveTask>,
        call: futures::future::BoxFuture<'static, Result<CallToolResult, BoxError>>,
        finish: impl FnOnce(Ended) -> FinishedTask + Send + 'static,
    ) {
        let (abort, registration) = AbortHandle::new_pair();
        *live.abort.lock().unwrap_or_else(PoisonError::into_inner) = Some(abort);
        let live_id = live.id.clone();
        let runtime = self.clone();
        let task = async move {
            let guard = live.cancellation.clone().drop_guard();
            let run =
                std::panic::AssertUnwindSafe(Abortable::new(call, registration)).catch_unwind();
            // Cancellation and input that reach another instance come over the bus.
            let watch = runtime.watch_bus(&live);
            let ended =
                match futures::future::select(std::pin::pin!(run), std::pin::pin!(watch)).await {
                    futures::future::Either::Left((ended, _)) => ended,
                    futures::future::Either::Right((never, _)) => match never {},
                };
            let finished = finish(ended);
            runtime.finish(&live, finished).await;
            drop(guard);
        };
        // In the call's trace, without keeping the call's span open (`telemetry::task_span`).
        let span = crate::telemetry::task_span(&live_id);
        self.config
            .executor
            .execute(Box::pin(tracing::Instrument::instrument(task, span)));
    }

    /// Acts on what other instances publish about this task (`tasks/cancel` and
    /// `tasks/update` that reached them) for as long as it runs.
    async fn watch_bus(&self, live: &LiveTask) -> std::convert::Infallible {
        use futures::StreamExt as _;
        let mut events = self.events.subscribe();
        while let Some(received) = events.next().await {
            match received {
                Received::Event(ServerEvent::TaskCancelled { task_id }) if task_id == live.id => {
                    live.cancel();
                    live.bump();
                }
                Received::Event(ServerEvent::TaskInput { task_id, responses })
                    if task_id == live.id =>
                {
                    // The instance that took the answers updated the store, unless requests
                    // were asked again here since (their keys back in the store).
                    let store = live.reasked.load(Ordering::Acquire);
                    let delivered = match serde_json::from_str(&responses) {
                        Ok(responses) => self.deliver_here(live, responses, store).await,
                        Err(e) => Err(e.into()),
                    };
                    if let Err(e) = delivered {
                        tracing::warn!(task = %live.id, error = %e, "input from another instance dropped");
                    }
                }
                // Events were lost, this task's among them maybe: the store says.
                Received::Lagged => self.reconcile(live).await,
                _ => {}
            }
        }
        std::future::pending().await
    }

    /// After the bus lost events, acts on what the store says of the task. Cancelled by another
    /// instance: it stops. Requests another instance took the answers of (no longer outstanding
    /// in the store, still pending here), whose answers were lost with the events: asked again
    /// (back in the stored task, `input_required`), so that the client answers them again
    /// instead of the task waiting until its time is up.
    pub(crate) async fn reconcile(&self, live: &LiveTask) {
        // Under the lock `ask` and `deliver_here` hold while they change the stored requests.
        let pending = live.pending.lock().await;
        let record = match self.config.store.get(&live.id).await {
            Ok(Some(record)) => record,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(task = %live.id, error = %e, "reading the task after lost events failed");
                return;
            }
        };
        if record.status == TaskStatus::Cancelled {
            drop(pending);
            live.cancel();
            live.bump();
            return;
        }
        if pending
            .keys()
            .all(|key| record.input_requests.contains_key(key))
        {
            return;
        }
        tracing::warn!(task = %live.id, "answers given through another instance were lost with the event bus; asking again");
        live.reasked.store(true, Ordering::Release);
        let update = TaskUpdate {
            status: Some(TaskStatus::InputRequired),
            input_requests: Some(snapshot(&pending)),
            ..Default::default()
        };
        match self.update(&live.id, update).await {
            Ok(_) | Err(TaskStoreError::Ended(_)) => {}
            Err(e) => tracing::warn!(task = %live.id, error = %e, "asking again failed"),
        }
        drop(pending);
        live.bump();
    }

    /// Stores how a task ended (unless it was cancelled, which the store knows already) and
    /// forgets it here.
    async fn finish(&self, live: &LiveTask, finished: FinishedTask) {
        if let FinishedTask::Ended {
            status,
            outcome,
            message,
        } = finished
        {
            let update = TaskUpdate {
                status: Some(status),
                status_message: message.map(Some),
                input_requests: Some(InputRequests::new()),
                outcome: Some(outcome),
            };
            match self.update(&live.id, update).await {
                Ok(_) | Err(TaskStoreError::Ended(_)) => {}
                Err(e) => {
                    tracing::warn!(task = %live.id, error = %e, "storing the task's outcome failed")
                }
            }
        }
        self.lock().remove(&live.id);
        live.bump();
    }

    /// Applies `update` to the stored task. A new status is published on the event bus (for
    /// `subscriptions/listen`), and told to the session that created the task if it runs here
    /// (`notifications/tasks/status`, best effort: a closed connection is not an error of the
    /// task).
    pub(crate) async fn update(
        &self,
        id: &str,
        update: TaskUpdate,
    ) -> std::result::Result<Option<TaskRecord>, TaskStoreError> {
        let new_status = update.status.is_some();
        let record = self.config.store.update(id, update).await?;
        if let (true, Some(record)) = (new_status, &record) {
            self.events.publish(ServerEvent::TaskChanged {
                task_id: id.to_owned(),
            });
            if let Some(live) = self.live(id) {
                live.tell_status(record).await;
            }
        }
        Ok(record)
    }

    /// Marks the task cancelled in the store, then stops it if it runs here. A task that has
    /// ended stays as it is.
    pub(crate) async fn cancel(&self, id: &str) -> std::result::Result<(), TaskStoreError> {
        let update = TaskUpdate {
            status: Some(TaskStatus::Cancelled),
            status_message: Some(Some("The task was cancelled.".to_owned())),
            input_requests: Some(InputRequests::new()),
            outcome: None,
        };
        let outcome = match self.update(id, update).await {
            Ok(_) | Err(TaskStoreError::Ended(_)) => Ok(()),
            Err(e) => Err(e),
        };
        match self.live(id) {
            Some(live) => {
                live.cancel();
                live.bump();
            }
            // It may run on another instance sharing the store and the bus.
            None if outcome.is_ok() => self.events.publish(ServerEvent::TaskCancelled {
                task_id: id.to_owned(),
            }),
            None => {}
        }
        outcome
    }

    /// Waits for an answer to `request` under `key` (2026-07-28): the task is
    /// `input_required` with every outstanding request until `tasks/update` answers them.
    pub(crate) async fn ask(
        &self,
        live: &LiveTask,
        key: String,
        request: InputRequest,
    ) -> Result<InputResponse> {
        let (answer, answered) = oneshot::channel();
        {
            let mut pending = live.pending.lock().await;
            pending.insert(key, Pending { request, answer });
            let update = TaskUpdate {
                status: Some(TaskStatus::InputRequired),
                input_requests: Some(snapshot(&pending)),
                ..Default::default()
            };
            self.update(&live.id, update).await.map_err(store_error)?;
        }
        live.bump();
        answered.await.map_err(|_| crate::Error::Closed {
            reason: "the task ended while waiting for input".to_owned(),
        })
    }

    /// Delivers `responses` to the task (2026-07-28 `tasks/update`): the answered requests
    /// leave the stored task before this returns, and the task is `working` again once none
    /// is left. Answers to keys the task does not wait for are ignored.
    pub(crate) async fn deliver(
        &self,
        id: &str,
        responses: BTreeMap<String, serde_json::Value>,
    ) -> Result<()> {
        match self.live(id) {
            Some(live) => self.deliver_here(&live, responses, true).await,
            None => self.deliver_elsewhere(id, responses).await,
        }
    }

    /// `tasks/update` for a task this instance does not run (another instance sharing the
    /// store and the event bus may): the answered requests leave the stored task here, and
    /// the answers go to the instance running it over the bus.
    async fn deliver_elsewhere(
        &self,
        id: &str,
        responses: BTreeMap<String, serde_json::Value>,
    ) -> Result<()> {
        let Some(record) = self.config.store.get(id).await.map_err(store_error)? else {
            return Ok(());
        };
        let mut outstanding = record.input_requests.clone();
        let answered: BTreeMap<String, serde_json::Value> = responses
            .into_iter()
            .filter(|(key, _)| outstanding.remove(key).is_some())
            .collect();
        if answered.is_empty() {
            return Ok(());
        }
        for (key, value) in &answered {
            serde_json::from_value::<InputResponse>(value.clone()).map_err(|e| {
                crate::Error::invalid_params(format!("input response {key} is not valid: {e}"))
            })?;
        }
        let status = if outstanding.is_empty() {
            TaskStatus::Working
        } else {
            TaskStatus::InputRequired
        };
        let update = TaskUpdate {
            status: Some(status),
            input_requests: Some(outstanding),
            ..Default::default()
        };
        match self.update(id, update).await {
            Ok(_) => {}
            Err(TaskStoreError::Ended(_)) => return Ok(()),
            Err(e) => return Err(store_error(e)),
        }
        self.events.publish(ServerEvent::TaskInput {
            task_id: id.to_owned(),
            responses: serde_json::to_string(&answered)?,
        });
        Ok(())
    }

    /// Hands answers to a task running here; with `store`, the answered requests leave the
    /// stored task first (without, another instance took them off already).
    async fn deliver_here(
        &self,
        live: &LiveTask,
        responses: BTreeMap<String, serde_json::Value>,
        store: bool,
    ) -> Result<()> {
        let id = &*live.id;
        let mut pending = live.pending.lock().await;
        let mut decoded = Vec::new();
        for (key, value) in responses {
            if !pending.contains_key(&key) {
                continue;
            }
            let response: InputResponse = serde_json::from_value(value).map_err(|e| {
                crate::Error::invalid_params(format!("input response {key} is not valid: {e}"))
            })?;
            decoded.push((key, response));
        }
        let answered: Vec<(Pending, InputResponse)> = decoded
            .into_iter()
            .filter_map(|(key, response)| pending.remove(&key).map(|p| (p, response)))
            .collect();
        if answered.is_empty() {
            return Ok(());
        }
        let status = if pending.is_empty() {
            TaskStatus::Working
        } else {
            TaskStatus::InputRequired
        };
        if store {
            let update = TaskUpdate {
                status: Some(status),
                input_requests: Some(snapshot(&pending)),
                ..Default::default()
            };
            match self.update(id, update).await {
                Ok(_) | Err(TaskStoreError::Ended(_)) => {}
                Err(e) => return Err(store_error(e)),
            }
        }
        for (pending, response) in answered {
            let _ = pending.answer.send(response);
        }
        drop(pending);
        live.bump();
        Ok(())
    }
}

fn snapshot(pending: &BTreeMap<String, Pending>) -> InputRequests {
    pending
        .iter()
        .map(|(k, p)| (k.clone(), p.request.clone()))
        .collect()
}

pub(crate) fn store_error(e: TaskStoreError) -> crate::Error {
    crate::Error::Rpc(ErrorObject::internal_error(e.to_string()))
}

/// What a task's end means for the store.
pub(crate) enum FinishedTask {
    /// Ended with a terminal status and an outcome.
    Ended {
        status: TaskStatus,
        outcome: TaskOutcome,
        message: Option<String>,
    },
    /// Cancelled: the store says so already.
    Cancelled,
}

/// A tool result as a task keeps it: the `CallToolResult` as an object.
pub(crate) fn result_object(result: &CallToolResult) -> Result<JsonObject> {
    match serde_json::to_value(result)? {
        serde_json::Value::Object(object) => Ok(object),
        _ => Ok(JsonObject::new()),
    }
}

#[cfg(test)]
#[path = "runtime_tests.rs"]
mod tests;
