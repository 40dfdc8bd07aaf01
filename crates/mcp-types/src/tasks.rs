//! Tasks (2025-11-25): long-running requests the receiver runs in the background, polled with
//! `tasks/get` and collected with `tasks/result`.
//!
//! Tasks are part of the core protocol only in 2025-11-25. In 2026-07-28 they moved out of the
//! core into the `io.modelcontextprotocol/tasks` extension ([`TASKS_EXTENSION`]), declared under
//! `capabilities.extensions`; these types still describe its messages.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{
    JsonObject, JsonRpcResultResponse, Meta, Notification, PaginatedRequestParams, Request,
    ResultType, TypedNotification, TypedRequest,
};

/// The extension id under which 2026-07-28 peers declare task support in
/// `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` key holding a [`RelatedTaskMetadata`] on messages that belong to a task.
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// The state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Being worked on.
    Working,
    /// Waiting for input from the requestor.
    InputRequired,
    /// Finished; the result is available through `tasks/result`.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task can no longer change state (`completed`, `failed` or `cancelled`).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The data of a task (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task id.
    pub task_id: String,
    /// The current state.
    pub status: TaskStatus,
    /// A human-readable explanation of the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (ISO 8601).
    pub created_at: String,
    /// When the task last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the task is kept after creation, in milliseconds; `None` (sent as `null`) means
    /// without limit.
    #[serde(default)]
    pub ttl: Option<u64>,
    /// A suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Task {
    /// A task with its required members; the optional ones start unset.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl: None,
            poll_interval: None,
            extra: JsonObject::new(),
        }
    }
}

/// The `task` field of a request asking for task-augmented execution (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskMetadata {
    /// How long to keep the task after creation, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Ties a message to a task; sent in `_meta` under [`RELATED_TASK_META_KEY`] (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// The id of the task the message belongs to.
    pub task_id: String,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The common params of a request that may be task-augmented (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskAugmentedRequestParams {
    /// Asks for task-augmented execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The immediate answer to a task-augmented request: the task that was created (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The new task.
    pub task: Task,
    /// `resultType` (2026-07-28 extension; absent on 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        Self {
            task,
            result_type: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel` (2025-11-25): a task id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskRequestParams {
    /// The task to act on.
    pub task_id: String,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetTaskRequestParams {
    /// Params naming task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        GetTaskRequestParams {
            task_id: task_id.into(),
            ..Default::default()
        }
    }
}

/// The params of `tasks/result` (same shape as [`GetTaskRequestParams`]).
pub type GetTaskPayloadRequestParams = GetTaskRequestParams;

/// The params of `tasks/cancel` (same shape as [`GetTaskRequestParams`]).
pub type CancelTaskRequestParams = GetTaskRequestParams;

/// The answer to `tasks/get`: the task's current data (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskResult {
    /// `resultType` (2026-07-28 extension; absent on 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task, whose fields sit at the top level of the result. Unknown fields end up in
    /// `task.extra`.
    #[serde(flatten)]
    pub task: Task,
}

impl GetTaskResult {
    /// The result carrying `task`.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: None,
            meta: None,
            task,
        }
    }
}

/// The answer to `tasks/cancel`: the task after cancellation (same shape as [`GetTaskResult`]).
pub type CancelTaskResult = GetTaskResult;

/// The answer to `tasks/result`: the result of the original request, whatever its type
/// (2025-11-25). Use [`GetTaskPayloadResult::decode`] to read it as that type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskPayloadResult {
    /// `resultType` (2026-07-28 extension; absent on 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The fields of the original request's result.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetTaskPayloadResult {
    /// Reads the payload as `R`, the result type of the original request (e.g.
    /// `CallToolResult`).
    pub fn decode<R: DeserializeOwned>(&self) -> Result<R, serde_json::Error> {
        serde_json::to_value(self).and_then(serde_json::from_value)
    }
}

/// The answer to `tasks/list` (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResult {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<crate::Cursor>,
    /// `resultType` (2026-07-28 extension; absent on 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The params of `notifications/tasks/status`: the task's new data (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStatusNotificationParams {
    /// Metadata attached to the notification.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task, whose fields sit at the top level of the params.
    #[serde(flatten)]
    pub task: Task,
}

impl TaskStatusNotificationParams {
    /// The notification's params for `task`.
    pub fn new(task: Task) -> Self {
        Self { meta: None, task }
    }
}

/// Marker for `tasks/get` (either direction; 2025-11-25).
#[derive(Debug)]
pub enum GetTask {}

impl Request for GetTask {
    const METHOD: &'static str = "tasks/get";
    type Params = GetTaskRequestParams;
    type Result = GetTaskResult;
}

/// Marker for `tasks/result` (either direction; 2025-11-25).
#[derive(Debug)]
pub enum GetTaskPayload {}

impl Request for GetTaskPayload {
    const METHOD: &'static str = "tasks/result";
    type Params = GetTaskPayloadRequestParams;
    type Result = GetTaskPayloadResult;
}

/// Marker for `tasks/list` (either direction; 2025-11-25).
#[derive(Debug)]
pub enum ListTasks {}

impl Request for ListTasks {
    const METHOD: &'static str = "tasks/list";
    type Params = PaginatedRequestParams;
    type Result = ListTasksResult;
}

/// Marker for `tasks/cancel` (either direction; 2025-11-25).
#[derive(Debug)]
pub enum CancelTask {}

impl Request for CancelTask {
    const METHOD: &'static str = "tasks/cancel";
    type Params = CancelTaskRequestParams;
    type Result = CancelTaskResult;
}

/// Marker for `notifications/tasks/status` (either direction; 2025-11-25). Named
/// `TaskStatusChanged` because [`TaskStatus`] is the status enum.
#[derive(Debug)]
pub enum TaskStatusChanged {}

impl Notification for TaskStatusChanged {
    const METHOD: &'static str = "notifications/tasks/status";
    type Params = TaskStatusNotificationParams;
}

/// A whole `tasks/get` request.
pub type GetTaskRequest = TypedRequest<GetTask>;
/// A whole `tasks/result` request.
pub type GetTaskPayloadRequest = TypedRequest<GetTaskPayload>;
/// A whole `tasks/list` request.
pub type ListTasksRequest = TypedRequest<ListTasks>;
/// A whole `tasks/cancel` request.
pub type CancelTaskRequest = TypedRequest<CancelTask>;
/// A whole `notifications/tasks/status` notification.
pub type TaskStatusNotification = TypedNotification<TaskStatusChanged>;
/// A whole response to `tasks/get`.
pub type GetTaskResultResponse = JsonRpcResultResponse<GetTaskResult>;
/// A whole response to `tasks/list`.
pub type ListTasksResultResponse = JsonRpcResultResponse<ListTasksResult>;
/// A whole response to a task-augmented request.
pub type CreateTaskResultResponse = JsonRpcResultResponse<CreateTaskResult>;

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
