use super::*;
use crate::result::test_util::{decode_err, round_trip};

const TASK: &str = r#"{"taskId":"t1","status":"working","statusMessage":"busy",
    "createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:05Z",
    "ttl":60000,"pollInterval":500}"#;

#[test]
fn task_and_status() {
    let t: Task = round_trip(TASK);
    assert_eq!(t.status, TaskStatus::Working);
    assert!(!t.status.is_terminal());
    assert!(TaskStatus::Cancelled.is_terminal());
    // `ttl` is required and nullable: `None` is written as `null`.
    let t: Task = round_trip(
        r#"{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttl":null,"x":1}"#,
    );
    assert_eq!(t.ttl, None);
    assert!(t.extra.contains_key("x"));
    decode_err::<Task>(
        r#"{"taskId":"t","status":"sleeping","createdAt":"a","lastUpdatedAt":"b","ttl":1}"#,
    );
}

#[test]
fn results() {
    let r: GetTaskResult = round_trip(TASK);
    assert_eq!(r.task.task_id, "t1");
    round_trip::<GetTaskResult>(
        r#"{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"taskId":"t1",
            "status":"completed","createdAt":"a","lastUpdatedAt":"b","ttl":null,"future":true}"#,
    );
    round_trip::<CancelTaskResult>(
        r#"{"taskId":"t1","status":"cancelled","createdAt":"a","lastUpdatedAt":"b","ttl":null}"#,
    );
    let created: CreateTaskResult = round_trip(&format!(r#"{{"task":{TASK},"_meta":{{"k":1}}}}"#));
    assert_eq!(created.task.poll_interval, Some(500));
    let list: ListTasksResult = round_trip(&format!(r#"{{"tasks":[{TASK}],"nextCursor":"c2"}}"#));
    assert_eq!(list.next_cursor.as_deref(), Some("c2"));

    let payload: GetTaskPayloadResult = round_trip(
        r#"{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"a":1}}"#,
    );
    let inner: serde_json::Value = payload.decode().expect("decodes");
    assert_eq!(inner["isError"], false);
    assert_eq!(inner["_meta"]["a"], 1);
}

#[test]
fn requests_and_notifications() {
    let req: GetTaskRequest =
        round_trip(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t1"}}"#);
    assert_eq!(req.params, GetTaskRequestParams::new("t1"));
    round_trip::<GetTaskPayloadRequest>(
        r#"{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"t1"}}"#,
    );
    round_trip::<CancelTaskRequest>(
        r#"{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"t1","_meta":{"m":1}}}"#,
    );
    round_trip::<ListTasksRequest>(
        r#"{"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{"cursor":"abc"}}"#,
    );
    let n: TaskStatusNotification = round_trip(&format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{TASK}}}"#
    ));
    assert_eq!(n.params.task.status, TaskStatus::Working);
    round_trip::<TaskAugmentedRequestParams>(
        r#"{"task":{"ttl":1000},"_meta":{"progressToken":1},"z":0}"#,
    );
    round_trip::<RelatedTaskMetadata>(r#"{"taskId":"t1"}"#);
    round_trip::<TaskMetadata>(r#"{}"#);
    decode_err::<GetTaskRequest>(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}"#);
}
