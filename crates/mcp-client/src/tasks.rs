//! Tasks on the client: calling a tool as a task, following it, getting its result,
//! cancelling it, in either era (see `mcp_server::tasks` for the server's side).
//!
//! - 2025-11-25: the client asks for a task (`tools/call` with `task`) where the server
//!   declared `tasks.requests.tools.call`; `tasks/result` waits for the result, and the
//!   server's requests for input arrive as ordinary requests, answered by the installed
//!   handlers.
//! - 2026-07-28: the client declares the `io.modelcontextprotocol/tasks` extension (on by
//!   default, [`ClientBuilder::tasks`](crate::ClientBuilder::tasks)) and the server decides;
//!   the result, the error or the input the task waits for come with `tasks/get`, and the
//!   input is answered with `tasks/update` through the same handlers.
//!
//! [`Client::call_tool`] runs a task to its end on its own (a tool the server must run as a
//! task, or a task the server chose), so a caller that does not care sees a plain call.

use std::collections::BTreeSet;
use std::pin::Pin;
use std::time::Duration;

use futures::StreamExt as _;
use futures::stream::{self, BoxStream};
use mcp_jsonrpc::RequestOptions;
use mcp_jsonrpc::trace::TraceContext;
use mcp_types::tasks_extension::{self, UpdateTaskRequestParams};
use mcp_types::{
    CallTool, CallToolResult, CreateTaskResult, ErrorObject, GetTaskRequestParams, InputRequests,
    JsonObject, ListTasksResult, PaginatedRequestParams, Request as _, ResultType, TaskMetadata,
    TaskStatus,
};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::arguments::IntoCallToolParams;
use crate::call_options::Limits;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::input;

/// How often a task is polled when the server suggests no interval.
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// A task, as either era describes it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskInfo {
    /// The task id.
    pub task_id: String,
    /// Its state.
    pub status: TaskStatus,
    /// A human-readable explanation of the state.
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the server keeps it after its creation; `None` for unlimited.
    pub ttl: Option<Duration>,
    /// The interval between two polls the server suggests.
    pub poll_interval: Option<Duration>,
    /// The input the task waits for (2026-07-28, while `input_required`).
    pub input_requests: Option<InputRequests>,
    /// The call's result, once `completed` (2026-07-28, inline).
    pub result: Option<JsonObject>,
    /// The call's error, once `failed` (2026-07-28, inline).
    pub error: Option<ErrorObject>,
}

impl From<mcp_types::Task> for TaskInfo {
    fn from(t: mcp_types::Task) -> Self {
        TaskInfo {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl: t.ttl.map(Duration::from_millis),
            poll_interval: t.poll_interval.map(Duration::from_millis),
            input_requests: None,
            result: None,
            error: None,
        }
    }
}

impl From<tasks_extension::DetailedTask> for TaskInfo {
    fn from(t: tasks_extension::DetailedTask) -> Self {
        TaskInfo {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl: t.ttl_ms.map(Duration::from_millis),
            poll_interval: t.poll_interval_ms.map(Duration::from_millis),
            input_requests: t.input_requests,
            result: t.result,
            error: t.error,
        }
    }
}

impl From<tasks_extension::CreateTaskResult> for TaskInfo {
    fn from(t: tasks_extension::CreateTaskResult) -> Self {
        TaskInfo {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl: t.ttl_ms.map(Duration::from_millis),
            poll_interval: t.poll_interval_ms.map(Duration::from_millis),
            input_requests: None,
            result: None,
            error: None,
        }
    }
}

/// What a call that may run as a task gave: its result, or the task.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallOutcome {
    /// The server answered at once.
    Complete(CallToolResult),
    /// The server runs the call as this task.
    Task(TaskInfo),
}

/// The `resultType` of an answer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    #[serde(default)]
    result_type: Option<ResultType>,
    #[serde(default)]
    task: Option<serde::de::IgnoredAny>,
}

/// A tools/call answer: a result, or a task handle of either era.
pub(crate) fn outcome(raw: &RawValue) -> Result<ToolCallOutcome> {
    let decode = |e| Error::decode(CallTool::METHOD, "result", e);
    let head: Head = serde_json::from_str(raw.get()).map_err(decode)?;
    if head.result_type == Some(ResultType::Task) {
        let created: tasks_extension::CreateTaskResult =
            serde_json::from_str(raw.get()).map_err(decode)?;
        return Ok(ToolCallOutcome::Task(created.into()));
    }
    if head.task.is_some() && head.result_type.is_none() {
        let created: CreateTaskResult = serde_json::from_str(raw.get()).map_err(decode)?;
        return Ok(ToolCallOutcome::Task(created.task.into()));
    }
    Ok(ToolCallOutcome::Complete(
        serde_json::from_str(raw.get()).map_err(decode)?,
    ))
}

impl Client {
    fn modern(&self) -> bool {
        self.inner.modern.is_some()
    }

    /// Whether the server runs tool calls as tasks on request (2025-11-25).
    fn server_takes_tool_tasks(&self) -> bool {
        self.server_capabilities()
            .tasks
            .as_ref()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some())
    }

    /// Calls a tool, letting it run as a task: on 2025-11-25 the client asks for one (kept for
    /// `ttl` if given) where the server runs tool calls as tasks; on 2026-07-28 the server
    /// decides. Either way the answer is the result or the task.
    ///
    /// # Errors
    ///
    /// As for [`call_tool`](Self::call_tool).
    pub async fn call_tool_as_task(
        &self,
        call: impl IntoCallToolParams,
        ttl: Option<Duration>,
    ) -> Result<ToolCallOutcome> {
        self.tool_task(call, ttl).await.map(|(outcome, _)| outcome)
    }

    /// [`call_tool_as_task`](Self::call_tool_as_task), and the context of the call's span
    /// (for the polls that follow the task: [`follow_task`](Self::follow_task)).
    pub(crate) async fn tool_task(
        &self,
        call: impl IntoCallToolParams,
        ttl: Option<Duration>,
    ) -> Result<(ToolCallOutcome, Option<TraceContext>)> {
        let mut params = call.into_call_tool_params()?;
        if !self.modern() && self.server_takes_tool_tasks() {
            let mut task = TaskMetadata::default();
            task.ttl = ttl.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
            params.task = Some(task);
        }
        let limits = Limits {
            idle: self.inner.defaults.request_timeout,
            total: self.inner.defaults.max_total_timeout,
        };
        let (raw, context) = self
            .call_spanned(CallTool::METHOD, &params, RequestOptions::new(), limits)
            .await;
        Ok((outcome(&raw?)?, context))
    }

    /// The task `task_id` (`tasks/get`).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request); -32602 for a task the server does not know.
    pub async fn get_task(&self, task_id: &str) -> Result<TaskInfo> {
        let params = GetTaskRequestParams::new(task_id);
        if self.modern() {
            let got = self.request::<tasks_extension::GetTask>(params).await?;
            return Ok(got.task.into());
        }
        let got = self.request::<mcp_types::GetTask>(params).await?;
        Ok(got.task.into())
    }

    /// Asks the server to stop the task `task_id` (`tasks/cancel`). On 2026-07-28 that is a
    /// request the server acknowledges; the task may still end otherwise.
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request); on 2025-11-25, -32602 for a task that has ended.
    pub async fn cancel_task(&self, task_id: &str) -> Result<()> {
        let params = GetTaskRequestParams::new(task_id);
        if self.modern() {
            self.request::<tasks_extension::CancelTask>(params).await?;
        } else {
            self.request::<mcp_types::CancelTask>(params).await?;
        }
        Ok(())
    }

    /// One page of the tasks the server keeps for this client (`tasks/list`, 2025-11-25 only).
    ///
    /// # Errors
    ///
    /// As for [`request`](Self::request); [`Error::NotInRevision`] on 2026-07-28.
    pub async fn list_tasks(&self, cursor: Option<String>) -> Result<ListTasksResult> {
        let params = match cursor {
            Some(c) => PaginatedRequestParams::at(c),
            None => PaginatedRequestParams::default(),
        };
        self.request::<mcp_types::ListTasks>(params).await
    }

    /// Waits for the task's result: `tasks/result` on 2025-11-25 (the server's requests for
    /// input meanwhile reach the installed handlers); on 2026-07-28, `tasks/get` at the
    /// interval the server suggests, answering the input the task waits for through the
    /// installed handlers with `tasks/update`.
    ///
    /// # Errors
    ///
    /// The call's JSON-RPC error for a task that `failed` ([`Error::Rpc`]),
    /// [`Error::TaskCancelled`], the errors of [`request`](Self::request), and those of
    /// answering input ([`Error::InputRequest`]).
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult> {
        if !self.modern() {
            let params = GetTaskRequestParams::new(task_id);
            let raw = self
                .call(
                    mcp_types::GetTaskPayload::METHOD,
                    &params,
                    RequestOptions::new().without_timeout(),
                    Limits {
                        idle: None,
                        total: self.inner.defaults.max_total_timeout,
                    },
                )
                .await?;
            return serde_json::from_str(raw.get())
                .map_err(|e| Error::decode(mcp_types::GetTaskPayload::METHOD, "result", e));
        }
        let mut answered = BTreeSet::new();
        loop {
            let task = self.get_task(task_id).await?;
            match task.status {
                TaskStatus::Completed => {
                    let result = task.result.unwrap_or_default();
                    return serde_json::from_value(serde_json::Value::Object(result))
                        .map_err(|e| Error::decode("tasks/get", "result", e));
                }
                TaskStatus::Failed => {
                    return Err(Error::Rpc(task.error.unwrap_or_else(|| {
                        ErrorObject::internal_error(
                            task.status_message
                                .unwrap_or_else(|| "the task failed".to_owned()),
                        )
                    })));
                }
                TaskStatus::Cancelled => {
                    return Err(Error::TaskCancelled {
                        task_id: task.task_id,
                    });
                }
                TaskStatus::InputRequired => {
                    let mut asked = task.input_requests.unwrap_or_default();
                    asked.retain(|key, _| !answered.contains(key));
                    if !asked.is_empty() {
                        answered.extend(asked.keys().cloned());
                        let responses = input::answer(&self.inner.shared, asked).await?;
                        let mut update = UpdateTaskRequestParams::default();
                        update.task_id = task_id.to_owned();
                        update.input_responses = responses;
                        self.request::<tasks_extension::UpdateTask>(update).await?;
                        continue;
                    }
                }
                // Working, or a state this crate does not know: look again later.
                _ => {}
            }
            let interval = task.poll_interval.unwrap_or(DEFAULT_POLL_INTERVAL);
            tokio::time::sleep(interval).await;
        }
    }

    /// The task's state each time it is polled (`tasks/get` at the interval the server
    /// suggests, or as soon as a 2025-11-25 server sends `notifications/tasks/status`), until
    /// it ends; the last item is its terminal state. It does not answer
    /// input (see [`task_result`](Self::task_result)).
    pub fn watch_task<'a>(&'a self, task_id: &'a str) -> BoxStream<'a, Result<TaskInfo>> {
        // Before each look, a `Notified` is taken: it catches a status told while the look
        // is under way (2025-11-25), so the next look comes at once instead of a poll later.
        type Told<'a> = Pin<Box<tokio::sync::futures::Notified<'a>>>;
        stream::unfold(
            Some(None::<(Duration, Told<'a>)>),
            move |state| async move {
                if let Some((wait, told)) = state? {
                    let poll = std::pin::pin!(tokio::time::sleep(wait));
                    futures::future::select(told, poll).await;
                }
                let told: Told<'a> = Box::pin(self.inner.shared.task_status.notified());
                match self.get_task(task_id).await {
                    Ok(task) => {
                        let next = (!task.status.is_terminal()).then(|| {
                            Some((task.poll_interval.unwrap_or(DEFAULT_POLL_INTERVAL), told))
                        });
                        Some((Ok(task), next))
                    }
                    Err(e) => Some((Err(e), None)),
                }
            },
        )
        .boxed()
    }

    /// A call that became a task, run to its end (see [`call_tool`](Self::call_tool)).
    pub(crate) async fn finish_task(
        &self,
        raw: &RawValue,
        call: Option<&TraceContext>,
    ) -> Result<Option<CallToolResult>> {
        match outcome(raw)? {
            ToolCallOutcome::Complete(_) => Ok(None),
            ToolCallOutcome::Task(task) => self.follow_task(&task.task_id, call).await.map(Some),
        }
    }

    /// [`task_result`](Self::task_result) for a task a call of this client's became: its
    /// polls in the call's trace (`call`: the context of the call's span), under a span of
    /// the task's.
    pub(crate) async fn follow_task(
        &self,
        task_id: &str,
        call: Option<&TraceContext>,
    ) -> Result<CallToolResult> {
        let span = crate::telemetry::task_span(task_id, call);
        tracing::Instrument::instrument(self.task_result(task_id), span).await
    }

    /// Whether a plain call of `name` must go as a task (2025-11-25: the tool requires it and
    /// the server runs tool calls as tasks).
    pub(crate) fn needs_task(&self, name: &str) -> bool {
        !self.modern()
            && self.server_takes_tool_tasks()
            && self.inner.shared.known_tools.task_support(name)
                == Some(mcp_types::ToolTaskSupport::Required)
    }

    /// Whether the server's answer to a `tools/call` is a task handle (2026-07-28).
    pub(crate) fn is_task_handle(raw: &RawValue) -> bool {
        serde_json::from_str::<Head>(raw.get())
            .is_ok_and(|h| h.result_type == Some(ResultType::Task))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn answers_of_both_eras_are_told_apart() {
        let legacy = raw(r#"{"task":{"taskId":"t","status":"working","createdAt":"x",
            "lastUpdatedAt":"x","ttl":60000,"pollInterval":100}}"#);
        match outcome(&legacy).unwrap() {
            ToolCallOutcome::Task(t) => {
                assert_eq!(t.ttl, Some(Duration::from_secs(60)));
                assert_eq!(t.poll_interval, Some(Duration::from_millis(100)));
            }
            other => panic!("{other:?}"),
        }
        let modern = raw(r#"{"resultType":"task","taskId":"t","status":"working",
            "createdAt":"x","lastUpdatedAt":"x","ttlMs":null}"#);
        assert!(matches!(outcome(&modern).unwrap(), ToolCallOutcome::Task(t) if t.ttl.is_none()));
        let done = raw(r#"{"resultType":"complete","content":[]}"#);
        assert!(matches!(
            outcome(&done).unwrap(),
            ToolCallOutcome::Complete(_)
        ));
    }
}
