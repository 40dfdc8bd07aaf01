//! Samples of the tasks of 2025-11-25: a task-augmented tool call and the `tasks/*` requests,
//! their results and the task status notification, all about one task.

use mcp_types::{
    CallTool, CallToolRequestParams, CallToolResult, CancelTask, CreateTaskResult, GetTask,
    GetTaskPayload, GetTaskPayloadResult, GetTaskRequestParams, GetTaskResult, JsonObject,
    ListTasks, ListTasksResult, PaginatedRequestParams, RELATED_TASK_META_KEY, RelatedTaskMetadata,
    Task, TaskMetadata, TaskStatus, TaskStatusChanged, TaskStatusNotificationParams,
};
use serde_json::json;

use super::Samples;
use super::values::{meta_entry, object, to_json, weather};

/// The id of the task the 2025-11-25 task samples talk about.
const TASK_ID: &str = "786512e2-9e0d-44bd-8f29-789f320fe840";

/// Task [`TASK_ID`] in state `status` (2025-11-25).
fn task(status: TaskStatus, message: &str) -> Task {
    {
        let mut built = Task::new(
            TASK_ID,
            status,
            "2025-11-25T10:30:00Z",
            "2025-11-25T10:40:00Z",
        );
        built.status_message = Some(message.to_owned());
        built.ttl = Some(60_000);
        built.poll_interval = Some(5_000);
        built.extra = JsonObject::new();
        built
    }
}

/// The task requests, results and notification of 2025-11-25.
pub(super) fn tasks(s: &mut Samples<'_>) {
    if !s.rev.has_core_tasks() {
        return;
    }
    let call = {
        let mut built =
            CallToolRequestParams::with_arguments("get_weather", object(json!({"city": "Oslo"})));
        built.task = Some({
            let mut built = TaskMetadata::default();
            built.ttl = Some(60_000);
            built
        });
        built
    };
    s.request::<CallTool>("CallToolRequest", call);
    let created = {
        let mut built = CreateTaskResult::new(task(TaskStatus::Working, "Fetching the forecast"));
        built.result_type = s.complete();
        built
    };
    s.push("CreateTaskResult", &created);

    s.request::<GetTask>("GetTaskRequest", GetTaskRequestParams::new(TASK_ID));
    let got = {
        let mut built = GetTaskResult::new(task(TaskStatus::InputRequired, "Waiting for the user"));
        built.result_type = s.complete();
        built
    };
    s.push("GetTaskResult", &got);

    s.request::<GetTaskPayload>("GetTaskPayloadRequest", GetTaskRequestParams::new(TASK_ID));
    let related = {
        let mut built = RelatedTaskMetadata::default();
        built.task_id = TASK_ID.to_owned();
        built
    };
    let payload = {
        let mut built = GetTaskPayloadResult::default();
        built.result_type = s.complete();
        built.meta = Some(meta_entry(RELATED_TASK_META_KEY, to_json(&related)));
        built.extra = object(to_json(&CallToolResult::structured(weather())));
        built
    };
    s.push("GetTaskPayloadResult", &payload);

    s.request::<ListTasks>("ListTasksRequest", PaginatedRequestParams::default());
    let listed = {
        let mut built = ListTasksResult::default();
        built.tasks = vec![task(TaskStatus::Working, "Fetching the forecast"), {
            let mut built = task(TaskStatus::Completed, "The forecast is ready");
            built.ttl = None;
            built.poll_interval = None;
            built
        }];
        built.next_cursor = Some("page-2".to_owned());
        built.result_type = s.complete();
        built
    };
    s.push("ListTasksResult", &listed);

    s.request::<CancelTask>("CancelTaskRequest", GetTaskRequestParams::new(TASK_ID));
    let cancelled = {
        let mut built = GetTaskResult::new(task(TaskStatus::Cancelled, "Cancelled by the user"));
        built.result_type = s.complete();
        built
    };
    s.push("CancelTaskResult", &cancelled);

    s.notification::<TaskStatusChanged>("TaskStatusNotification", {
        TaskStatusNotificationParams::new(task(TaskStatus::Failed, "The forecast service is down"))
    });
}
