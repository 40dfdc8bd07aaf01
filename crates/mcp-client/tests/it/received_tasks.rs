//! Tasks the server creates on the client (2025-11-25): a task-augmented
//! `elicitation/create` or `sampling/createMessage` answered with the created task, followed
//! with `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.

use std::time::Duration;

use mcp_client::{Client, ClientBuilder, RequestContext};
use mcp_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitValue, SamplingContent, SamplingMessageContentBlock, TextContent,
};
use serde_json::{Value, json};

use crate::support::{FakeServer, Harness};

/// Answers "blue" to an elicitation (or waits until cancelled when asked to wait) and "hi"
/// to sampling, saying which task it ran in.
fn answering() -> ClientBuilder {
    Client::builder()
        .elicitation(
            |params: ElicitRequestParams, ctx: RequestContext| async move {
                let ElicitRequestParams::Form(form) = params else {
                    return Ok(ElicitResult::decline());
                };
                if form.message.contains("Wait") {
                    ctx.cancellation().cancelled().await;
                    return Ok(ElicitResult::decline());
                }
                let colour = format!("blue in {}", ctx.task_id().unwrap_or("no task"));
                let content = [("colour".to_owned(), ElicitValue::from(colour))].into();
                Ok::<_, mcp_jsonrpc::ErrorObject>(ElicitResult::accept(Some(content)))
            },
        )
        .sampling(
            |_params: CreateMessageRequestParams, ctx: RequestContext| async move {
                assert!(ctx.task_id().is_some());
                let text = SamplingMessageContentBlock::Text(TextContent::new("hi"));
                Ok(CreateMessageResult::new(
                    "model",
                    SamplingContent::Single(text),
                ))
            },
        )
}

fn elicit(message: &str, task: bool) -> Value {
    let mut params = json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": {"colour": {"type": "string"}}},
    });
    if task {
        params["task"] = json!({"ttl": 60000});
    }
    params
}

async fn until_ended(h: &Harness, id: &str) -> Value {
    for _ in 0..200 {
        let task = h
            .server
            .request("tasks/get", json!({"taskId": id}))
            .await
            .unwrap();
        if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} did not end")
}

#[tokio::test]
async fn the_server_runs_elicitation_and_sampling_as_tasks() {
    let h = FakeServer::new().connect(answering()).await;
    assert_eq!(
        h.init_params["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {
            "elicitation": {"create": {}}, "sampling": {"createMessage": {}}}})
    );

    let created = h
        .server
        .request("elicitation/create", elicit("Colour?", true))
        .await
        .unwrap();
    let task = &created["task"];
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'), "{task}");
    assert!(task["pollInterval"].is_u64());
    // `tasks/result` waits for the end, then gives the answer, tied to the task.
    let result = h
        .server
        .request("tasks/result", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(result["action"], "accept");
    assert_eq!(result["content"]["colour"], format!("blue in {id}"));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id
    );
    assert_eq!(until_ended(&h, &id).await["status"], "completed");

    let sampling = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
        "maxTokens": 10,
        "task": {},
    });
    let created = h
        .server
        .request("sampling/createMessage", sampling)
        .await
        .unwrap();
    let sampled = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = h
        .server
        .request("tasks/result", json!({"taskId": sampled}))
        .await
        .unwrap();
    assert_eq!(result["content"]["text"], "hi");

    let listed = h.server.request("tasks/list", Value::Null).await.unwrap();
    let ids: Vec<&str> = listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [id.as_str(), sampled.as_str()]);

    // Cancelled while it waits: the handler is stopped, the result is an error, and an
    // ended task cannot be cancelled again.
    let created = h
        .server
        .request("elicitation/create", elicit("Wait forever?", true))
        .await
        .unwrap();
    let waiting = created["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = h
        .server
        .request("tasks/cancel", json!({"taskId": waiting}))
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(until_ended(&h, &waiting).await["status"], "cancelled");
    let err = h
        .server
        .request("tasks/result", json!({"taskId": waiting}))
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32603, "{err:?}");
    let err = h
        .server
        .request("tasks/cancel", json!({"taskId": waiting}))
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602, "{err:?}");
    let err = h
        .server
        .request("tasks/get", json!({"taskId": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602, "{err:?}");
}

#[tokio::test]
async fn the_client_holds_a_bounded_number_of_tasks() {
    let h = FakeServer::new()
        .connect(answering().max_received_tasks(1))
        .await;
    let first = h
        .server
        .request("elicitation/create", elicit("Wait forever?", true))
        .await
        .unwrap();
    let err = h
        .server
        .request("elicitation/create", elicit("Wait forever?", true))
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32603, "{err:?}");
    // An ended task makes room.
    let id = first["task"]["taskId"].as_str().unwrap();
    h.server
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    let next = h
        .server
        .request("elicitation/create", elicit("Colour?", true))
        .await
        .unwrap();
    assert_eq!(next["task"]["status"], "working");
}

#[tokio::test]
async fn without_tasks_the_request_is_answered_in_place() {
    let h = FakeServer::new().connect(answering().tasks(false)).await;
    assert!(h.init_params["capabilities"].get("tasks").is_none());
    // `task` is ignored by a receiver that did not declare it.
    let answer = h
        .server
        .request("elicitation/create", elicit("Colour?", true))
        .await
        .unwrap();
    assert_eq!(answer["content"]["colour"], "blue in no task");
    let err = h.server.request("tasks/list", json!({})).await.unwrap_err();
    assert_eq!(err.code.0, -32601, "{err:?}");
}
