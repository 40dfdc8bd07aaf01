//! Tasks (2025-11-25) with the TypeScript SDK v1 1.32.2, over Streamable HTTP and stdio:
//!
//! - its client's experimental task API (`tests/peers/ts_task_client.mjs`) runs tasks on
//!   `everything-server --tasks`: a task with progress and its result, `tasks/get`,
//!   `tasks/list`, a cancelled task, a tool that must be a task, the refusals of the spec;
//! - our client runs tasks on its server (`tests/peers/ts_task_server.mjs`);
//! - its server runs sampling and elicitation as tasks on our client
//!   (`tests/peers/ts_task_requestor.mjs`), following them with `tasks/*`.
//!
//! (The 2026-07-28 extension is checked against the conformance suite's `tasks-*` scenarios,
//! in `cargo xtask conformance`.)

use std::time::Duration;

use futures::StreamExt as _;
use mcp_client::{Client, ClientBuilder, EraChoice, RequestContext, ToolCallOutcome};
use mcp_types::{
    CallToolRequestParams, CallToolResult, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitValue, JsonObject, SamplingContent,
    SamplingMessageContentBlock, TaskStatus, TextContent, ToolTaskSupport,
};
use serde_json::{Value, json};

use crate::client_support::Running;
use crate::http_support::{HttpServer, close, connect};
use crate::support::bins::everything_server;
use crate::support::output_within;
use crate::support::peers::peers;
use crate::support::peers_dir;

/// Runs `ts_task_client.mjs` with `target` args and returns its report, asserting that every
/// step behaved as the spec says.
async fn ts_task_client(what: &str, target: &[&str]) -> Value {
    let mut cmd = tokio::process::Command::new(&peers().node);
    cmd.arg(peers_dir().join("ts_task_client.mjs"))
        .args(["--timeout", "20"])
        .args(target);
    let output = output_within(what, Duration::from_secs(90), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON report ({e}); status {}\nstderr:\n{stderr}",
            output.status
        )
    });
    assert_eq!(report["errors"], json!([]), "{what} stderr:\n{stderr}");
    assert!(output.status.success(), "{what}: status {}", output.status);
    report
}

fn assert_all_steps_ran(report: &Value) {
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 14, "{steps:?}");
    for step in steps {
        assert_eq!(step["ok"], true, "{step}");
        assert!(step.get("skipped").is_none(), "{step}");
    }
    let tasks = &report["server"]["capabilities"]["tasks"];
    assert_eq!(tasks["requests"]["tools"]["call"], json!({}), "{report}");
    // `slow_task` reported its three steps while it ran as a task.
    let progress: Vec<&Value> = report["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["tool"] == "slow_task")
        .collect();
    assert!(progress.len() >= 3, "{progress:?}");
    // `notifications/tasks/status` told the client of each task's end.
    let told: Vec<&str> = report["statusNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["status"].as_str())
        .collect();
    for status in ["completed", "cancelled", "failed"] {
        assert!(
            told.contains(&status),
            "no {status} status notification: {told:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_task_client_on_our_server_over_http() {
    let server = HttpServer::everything_with(&["--tasks"]).await;
    let report = ts_task_client("ts_task_client.mjs --http", &["--http", &server.mcp_url()]).await;
    assert_eq!(report["server"]["name"], "mcp-conformance-test-server");
    assert_all_steps_ran(&report);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_task_client_on_our_server_over_stdio() {
    let server = everything_server().to_string_lossy().into_owned();
    let report = ts_task_client("ts_task_client.mjs (stdio)", &["--", &server, "--tasks"]).await;
    assert_all_steps_ran(&report);
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Our client running tasks on the TypeScript SDK's server.
async fn our_client_runs_tasks(client: &Client) {
    let tools = client.list_tools(None).await.unwrap();
    let support = |name: &str| {
        tools
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.execution.as_ref())
            .and_then(|e| e.task_support)
    };
    assert_eq!(support("required_task"), Some(ToolTaskSupport::Required));
    assert_eq!(support("slow_task"), Some(ToolTaskSupport::Optional));

    // A task, followed until it ends, then its result.
    let params =
        CallToolRequestParams::with_arguments("slow_task", args(json!({"steps": 3, "ms": 50})));
    let ToolCallOutcome::Task(task) = client
        .call_tool_as_task(params, Some(Duration::from_secs(60)))
        .await
        .unwrap()
    else {
        panic!("slow_task did not become a task")
    };
    let states: Vec<_> = client.watch_task(&task.task_id).collect().await;
    let last = states.last().unwrap().as_ref().unwrap();
    assert_eq!(last.status, TaskStatus::Completed);
    let result = client.task_result(&task.task_id).await.unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some("slow_task done after 3 steps")
    );
    let listed = client.list_tasks(None).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.task_id == task.task_id));

    // Cancelled.
    let long =
        CallToolRequestParams::with_arguments("slow_task", args(json!({"steps": 100, "ms": 100})));
    let ToolCallOutcome::Task(long) = client.call_tool_as_task(long, None).await.unwrap() else {
        panic!("a task")
    };
    client.cancel_task(&long.task_id).await.unwrap();
    assert_eq!(
        client.get_task(&long.task_id).await.unwrap().status,
        TaskStatus::Cancelled
    );

    // A tool that must be a task: `call_tool` asks for one and waits.
    let required = client
        .call_tool(CallToolRequestParams::new("required_task"))
        .await
        .unwrap();
    assert_eq!(required.content[0].as_text(), Some("required done"));
    let plain = client
        .call_tool(CallToolRequestParams::new("plain"))
        .await
        .unwrap();
    assert_eq!(plain.content[0].as_text(), Some("plain done"));
    // A task whose tool fails: the result says so.
    let ToolCallOutcome::Task(failing) = client
        .call_tool_as_task(CallToolRequestParams::new("failing_task"), None)
        .await
        .unwrap()
    else {
        panic!("a task")
    };
    let failed = client.task_result(&failing.task_id).await.unwrap();
    assert!(failed.is_error(), "{failed:?}");
    assert_eq!(failed.content[0].as_text(), Some("task failed on purpose"));
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_runs_tasks_on_the_typescript_server_over_http() {
    let peers = peers();
    let script = peers_dir().join("ts_task_server.mjs");
    let server = HttpServer::peer(&peers.node, &[script.as_os_str()]).await;
    let builder = Client::builder().era(EraChoice::Auto);
    let (client, connection) = connect(&server.mcp_url(), builder).await;
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    our_client_runs_tasks(&client).await;
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_runs_tasks_on_the_typescript_server_over_stdio() {
    let command = mcp_transport_stdio::ChildProcessTransport::builder(&peers().node)
        .arg(peers_dir().join("ts_task_server.mjs"));
    let running = Running::start(command, Client::builder()).await;
    our_client_runs_tasks(&running.client).await;
    running.close().await;
}

/// A client that answers elicitation with the colour blue (or, asked to wait, waits until
/// cancelled) and sampling with "hi", saying it ran as a task.
fn receiving_client() -> ClientBuilder {
    Client::builder()
        .era(EraChoice::Auto)
        .elicitation(
            |params: ElicitRequestParams, ctx: RequestContext| async move {
                if params.message().contains("Wait") {
                    ctx.cancellation().cancelled().await;
                    return Ok(ElicitResult::decline());
                }
                let colour = if ctx.task_id().is_some() {
                    "blue"
                } else {
                    "not a task"
                };
                let content = [("colour".to_owned(), ElicitValue::from(colour))].into();
                Ok::<_, mcp_jsonrpc::ErrorObject>(ElicitResult::accept(Some(content)))
            },
        )
        .sampling(
            |_: CreateMessageRequestParams, ctx: RequestContext| async move {
                let text = if ctx.task_id().is_some() {
                    "hi"
                } else {
                    "not a task"
                };
                let text = SamplingMessageContentBlock::Text(TextContent::new(text));
                Ok(CreateMessageResult::new(
                    "model",
                    SamplingContent::Single(text),
                ))
            },
        )
}

async fn requestor_tool(client: &Client, name: &str) -> CallToolResult {
    let result = client
        .call_tool(CallToolRequestParams::new(name))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(!result.is_error(), "{name}: {result:?}");
    result
}

/// The TypeScript server runs our handlers as tasks and follows them.
async fn tasks_run_on_our_client(client: &Client) {
    let elicited = requestor_tool(client, "elicit_as_task").await;
    let text = elicited.content[0].as_text().unwrap();
    assert!(
        text.starts_with("elicited accept blue via client-task-"),
        "{text}"
    );
    let polled = &elicited.structured_content.as_ref().unwrap()["polled"];
    assert_eq!(polled.as_array().unwrap().last(), Some(&json!("completed")));
    let sampled = requestor_tool(client, "sample_as_task").await;
    let text = sampled.content[0].as_text().unwrap();
    assert!(text.starts_with("sampled hi via client-task-"), "{text}");
    let listed = requestor_tool(client, "list_client_tasks").await;
    assert_eq!(listed.content[0].as_text(), Some("2 tasks"));
    let cancelled = requestor_tool(client, "cancel_client_task").await;
    assert_eq!(cancelled.content[0].as_text(), Some("cancelled cancelled"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_server_runs_tasks_on_our_client_over_http() {
    let peers = peers();
    let script = peers_dir().join("ts_task_requestor.mjs");
    let server = HttpServer::peer(&peers.node, &[script.as_os_str()]).await;
    let (client, connection) = connect(&server.mcp_url(), receiving_client()).await;
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    tasks_run_on_our_client(&client).await;
    close(client, connection).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_server_runs_tasks_on_our_client_over_stdio() {
    let command = mcp_transport_stdio::ChildProcessTransport::builder(&peers().node)
        .arg(peers_dir().join("ts_task_requestor.mjs"));
    let running = Running::start(command, receiving_client()).await;
    tasks_run_on_our_client(&running.client).await;
    running.close().await;
}
