//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a server may
//! answer a `tools/call` of a client that declared the extension with a task handle
//! ([`CreateTaskResult`], `resultType: "task"`), which the client polls with `tasks/get`
//! ([`GetTaskResult`]: the task with its outstanding input requests, its result or its error
//! inline), answers with `tasks/update` ([`UpdateTaskRequestParams`]) and may cancel with
//! `tasks/cancel` (an acknowledgement only). `tasks/result` and `tasks/list` of 2025-11-25 do not
//! exist on this revision.
//!
//! The task fields are those of 2025-11-25 ([`crate::Task`]) with two renamed: `ttlMs` and
//! `pollIntervalMs`. Results of `tasks/update` and `tasks/cancel` are an [`crate::EmptyResult`]
//! with `resultType: "complete"`.
//!
//! ```
//! use mcp_types::tasks_extension::{CreateTaskResult, GetTaskResult};
//! use mcp_types::TaskStatus;
//!
//! let created: CreateTaskResult = serde_json::from_str(r#"{"resultType":"task",
//!     "taskId":"t-1","status":"working","createdAt":"2026-07-28T10:30:00Z",
//!     "lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":500}"#).unwrap();
//! assert_eq!(created.ttl_ms, Some(60000));
//! let done: GetTaskResult = serde_json::from_str(r#"{"resultType":"complete",
//!     "taskId":"t-1","status":"completed","createdAt":"2026-07-28T10:30:00Z",
//!     "lastUpdatedAt":"2026-07-28T10:31:00Z","ttlMs":60000,
//!     "result":{"content":[{"type":"text","text":"done"}]}}"#).unwrap();
//! assert_eq!(done.task.status, TaskStatus::Completed);
//! assert!(done.task.result.is_some());
//! ```

use serde::{Deserialize, Serialize};

use crate::{
    EmptyResult, ErrorObject, InputRequests, InputResponses, JsonObject, Meta, Notification,
    Request, ResultType, TaskStatus, TypedNotification, TypedRequest,
};

/// A task handle (`CreateTaskResult`): the answer to a `tools/call` the server runs as a task.
/// Flat: the task's fields at the top level of the result, with `resultType: "task"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// Always [`ResultType::Task`].
    #[serde(default = "task_result_type")]
    pub result_type: ResultType,
    /// The task id, unguessable.
    pub task_id: String,
    /// The state at creation (usually `working`).
    pub status: TaskStatus,
    /// A human-readable explanation of the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (ISO 8601).
    pub created_at: String,
    /// When the task last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long the task is kept after creation, in milliseconds; `None` (JSON `null`) for
    /// unlimited. Always sent.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// The suggested interval between two `tasks/get`, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateTaskResult {
    /// The handle of a task with its required members; the optional ones start unset.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
    ) -> Self {
        Self {
            result_type: ResultType::Task,
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl_ms: None,
            poll_interval_ms: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

fn task_result_type() -> ResultType {
    ResultType::Task
}

/// A task with what its state carries (`DetailedTask`): the outstanding input requests while
/// `input_required`, the result of the call once `completed` (even one with `isError`), the
/// JSON-RPC error once `failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
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
    /// How long the task is kept after creation, in milliseconds; `None` for unlimited.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// The suggested interval between two `tasks/get`, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// The requests the server needs answered (with `tasks/update`) before the task can go on;
    /// present only while `input_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The result of the call (a `CallToolResult`); present only once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the call ended with; present only once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl DetailedTask {
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
            ttl_ms: None,
            poll_interval_ms: None,
            input_requests: None,
            result: None,
            error: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `tasks/get`: the task in detail, with `resultType: "complete"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskResult {
    /// Always [`ResultType::Complete`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
}

impl GetTaskResult {
    /// The result carrying `task`, with `resultType: "complete"`.
    pub fn new(task: DetailedTask) -> Self {
        Self {
            result_type: Some(ResultType::Complete),
            meta: None,
            task,
        }
    }
}

/// `tasks/get` (2026-07-28 extension): the task in detail.
#[derive(Debug)]
pub enum GetTask {}

impl Request for GetTask {
    const METHOD: &'static str = "tasks/get";
    type Params = crate::GetTaskRequestParams;
    type Result = GetTaskResult;
}

/// The params of `tasks/update`: answers to the task's outstanding input requests, by key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskRequestParams {
    /// The task.
    pub task_id: String,
    /// The answers, keyed like the task's `inputRequests`.
    pub input_responses: InputResponses,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks/update` (2026-07-28 extension): answers to a task's input requests; acknowledged
/// with an empty result.
#[derive(Debug)]
pub enum UpdateTask {}

impl Request for UpdateTask {
    const METHOD: &'static str = "tasks/update";
    type Params = UpdateTaskRequestParams;
    type Result = EmptyResult;
}

/// `tasks/cancel` (2026-07-28 extension): asks the server to stop the task; acknowledged with
/// an empty result, whatever the task's state.
#[derive(Debug)]
pub enum CancelTask {}

impl Request for CancelTask {
    const METHOD: &'static str = "tasks/cancel";
    type Params = crate::GetTaskRequestParams;
    type Result = EmptyResult;
}

/// The params of `notifications/tasks`: the task in detail, as `tasks/get` would return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskNotificationParams {
    /// Metadata attached to the notification (the subscription id on a listen stream).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
}

impl TaskNotificationParams {
    /// The notification's params for `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self { meta: None, task }
    }
}

/// `notifications/tasks` (2026-07-28 extension): a task changed; sent on a
/// `subscriptions/listen` stream that asked for the task's id.
#[derive(Debug)]
pub enum TaskChanged {}

impl Notification for TaskChanged {
    const METHOD: &'static str = "notifications/tasks";
    type Params = TaskNotificationParams;
}

/// A whole `tasks/update` request.
pub type UpdateTaskRequest = TypedRequest<UpdateTask>;
/// A whole `notifications/tasks` notification.
pub type TaskNotification = TypedNotification<TaskChanged>;

/// The `data.requiredCapabilities` of the -32021 error a client gets when it did not declare
/// the extension and the server needs it: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`.
pub fn required_capabilities() -> serde_json::Value {
    serde_json::json!({"extensions": {crate::TASKS_EXTENSION: {}}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_util::round_trip;

    #[test]
    fn the_extension_examples_round_trip() {
        let created: CreateTaskResult = round_trip(
            r#"{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840",
                "status":"working","statusMessage":"The operation is now in progress.",
                "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z",
                "ttlMs":60000,"pollIntervalMs":5000}"#,
        );
        assert_eq!(created.result_type, ResultType::Task);
        assert_eq!(created.poll_interval_ms, Some(5000));
        let unlimited: CreateTaskResult = round_trip(
            r#"{"resultType":"task","taskId":"t","status":"working",
                "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z",
                "ttlMs":null}"#,
        );
        assert_eq!(unlimited.ttl_ms, None);
        let asking: GetTaskResult = round_trip(
            r#"{"resultType":"complete","taskId":"t","status":"input_required",
                "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z",
                "ttlMs":60000,"inputRequests":{"name":{"method":"elicitation/create",
                "params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object",
                "properties":{"input":{"type":"string"}},"required":["input"]}}}}}"#,
        );
        assert_eq!(asking.task.input_requests.map(|r| r.len()), Some(1));
        let failed: GetTaskResult = round_trip(
            r#"{"resultType":"complete","taskId":"t","status":"failed",
                "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z",
                "ttlMs":60000,"error":{"code":-32603,"message":"API rate limit exceeded"}}"#,
        );
        assert_eq!(failed.task.error.map(|e| e.code.0), Some(-32603));
        let update: UpdateTaskRequest = round_trip(
            r#"{"jsonrpc":"2.0","id":6,"method":"tasks/update","params":{"taskId":"t",
                "inputResponses":{"name":{"action":"accept","content":{"input":"Luca"}}}}}"#,
        );
        assert_eq!(update.params.input_responses.len(), 1);
        round_trip::<TaskNotification>(
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t",
                "status":"completed","createdAt":"2025-11-25T10:30:00Z",
                "lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"pollIntervalMs":5000,
                "result":{"content":[{"type":"text","text":"Operation completed successfully."}],
                "isError":false}}}"#,
        );
    }

    #[test]
    fn the_capability_data_names_the_extension() {
        assert_eq!(
            required_capabilities(),
            serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
    }
}
