//! `--tasks`: tools that run as tasks (see `mcp_server::tasks`), on a server with tasks on.
//!
//! - The tasks extension fixture of the conformance suite's `tasks-*` scenarios (the tools
//!   of its reference, mcpkit's `examples/tasks-v2`): `greet` (never a task), `slow_compute`
//!   (may be), `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input` (must be),
//!   and `test_tool_with_task`, which asks for the user's name in the request before it
//!   becomes a task.
//! - The tools `tests/peers/ts_task_client.mjs` (TypeScript SDK v1, 2025-11-25) drives:
//!   `slow_task` (may be; progress per step), `required_task` (must be), `plain` (never),
//!   `failing_task` (may be; ends with a tool error).

use std::task::Poll;
use std::time::Duration;

use mcp_server::service::ToolCall;
use mcp_server::types::{
    CallToolResult, ElicitRequestFormParams, ElicitResult, ElicitValue, ErrorObject,
    ToolTaskSupport,
};
use mcp_server::{BoxError, BoxFuture, Context, Error, HandlerError, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// A form asking for one required field of JSON type `kind`.
fn form(message: &str, field: &str, kind: &str) -> Result<ElicitRequestFormParams, HandlerError> {
    let request = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field],
        },
    });
    Ok(serde_json::from_value(request)?)
}

/// The text of field `field` of an accepted form, or `""`.
fn text_of(result: &ElicitResult, field: &str) -> String {
    match result.content.as_ref().and_then(|c| c.get(field)) {
        Some(ElicitValue::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// Whether field `field` of an accepted form is `true`.
fn confirmed(result: &ElicitResult, field: &str) -> bool {
    matches!(
        result.content.as_ref().and_then(|c| c.get(field)),
        Some(ElicitValue::Boolean(true))
    )
}

/// Sleeps `d`, or until the call is cancelled; `false` if it was.
async fn sleep_unless_cancelled(cx: &Context, d: Duration) -> bool {
    tokio::select! {
        () = cx.cancellation().cancelled() => false,
        () = tokio::time::sleep(d) => true,
    }
}

#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowCompute {
    /// How many seconds the computation takes.
    #[serde(default = "three")]
    seconds: i64,
    /// A label echoed in the result.
    #[serde(default = "default_label")]
    label: String,
}

fn three() -> i64 {
    3
}

fn default_label() -> String {
    "default".to_owned()
}

async fn slow_compute(args: SlowCompute, cx: Context) -> String {
    let SlowCompute { seconds, label } = args;
    if seconds <= 0 {
        return format!("Computation \"{label}\" completed instantly. Result: 42.");
    }
    for _ in 0..seconds {
        if !sleep_unless_cancelled(&cx, Duration::from_secs(1)).await {
            return format!("Computation \"{label}\" was cancelled.");
        }
    }
    format!("Computation \"{label}\" completed after {seconds} seconds. Result: 42.")
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDelete {
    /// The file to delete.
    #[serde(default = "important")]
    filename: String,
}

fn important() -> String {
    "important.txt".to_owned()
}

async fn confirm_delete(args: ConfirmDelete, cx: Context) -> Result<String, HandlerError> {
    let name = args.filename;
    let answer = cx
        .elicit(form(&format!("Delete '{name}'?"), "confirm", "boolean")?)
        .await?;
    Ok(if confirmed(&answer, "confirm") {
        format!("deleted '{name}'")
    } else {
        format!("kept '{name}'")
    })
}

async fn multi_input(cx: Context) -> Result<String, HandlerError> {
    // Joined: both are outstanding at once.
    let (name, confirm) = futures::join!(
        cx.elicit(form("Enter your name:", "name", "string")?),
        cx.elicit(form("Confirm action?", "confirm", "boolean")?),
    );
    let (name, confirm) = (name?, confirm?);
    Ok(format!(
        "name=\"{}\" confirmed={}",
        text_of(&name, "name"),
        confirmed(&confirm, "confirm")
    ))
}

async fn tool_with_task(cx: Context) -> Result<String, HandlerError> {
    // Asked in the request (an input round on 2026-07-28), before the task exists.
    let answer = cx
        .elicit_keyed("user_name", form("What is your name?", "name", "string")?)
        .await?;
    cx.start_task().await?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let name = text_of(&answer, "name");
    if name.is_empty() {
        return Ok("task continuation lost user_name".to_owned());
    }
    Ok(format!("Hello, {name}! (computed in task)"))
}

#[derive(Deserialize, JsonSchema)]
struct SlowTask {
    /// How many steps.
    #[serde(default = "three_steps")]
    steps: u32,
    /// How long each step takes, in milliseconds.
    #[serde(default = "hundred")]
    ms: u64,
}

fn three_steps() -> u32 {
    3
}

fn hundred() -> u64 {
    100
}

async fn slow_task(args: SlowTask, cx: Context) -> Result<String, HandlerError> {
    for step in 1..=args.steps {
        if !sleep_unless_cancelled(&cx, Duration::from_millis(args.ms)).await {
            return Ok(format!("slow_task cancelled at step {step}"));
        }
        let message = format!("step {step} of {}", args.steps);
        cx.report_progress(f64::from(step), Some(f64::from(args.steps)), Some(&message))
            .await?;
    }
    Ok(format!("slow_task done after {} steps", args.steps))
}

/// A tool service that answers every call, after 500 ms, with a JSON-RPC error.
#[derive(Clone)]
struct ProtocolError;

impl tower_service::Service<ToolCall> for ProtocolError {
    type Response = CallToolResult;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallToolResult, BoxError>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: ToolCall) -> Self::Future {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let error = ErrorObject::internal_error(
                "internal error: simulated protocol error: server internal failure",
            );
            Err(Error::Rpc(error).into())
        })
    }
}

/// The task tools.
pub(crate) fn tools() -> anyhow::Result<Vec<Tool>> {
    use ToolTaskSupport::{Optional, Required};
    Ok(vec![
        Tool::typed("greet", |args: Greet| async move {
            format!("Hello, {}!", args.name)
        })
        .description("Greets synchronously; never a task"),
        Tool::typed("slow_compute", slow_compute)
            .description("Computes for `seconds` seconds; a task when the client allows")
            .task_support(Optional),
        Tool::new("failing_job", || async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            CallToolResult::error("tool \"failing_job\": simulated failure: job crashed")
        })
        .description("A task whose tool call fails (isError)")
        .task_support(Required),
        // A handler's error is the tool's failure (`isError`); a JSON-RPC error comes from a
        // layer around the tool.
        Tool::new("protocol_error_job", || async { "unreachable" })
            .layer(tower_layer::layer_fn(|_| ProtocolError))
            .description("A task that ends with a JSON-RPC error")
            .task_support(Required),
        Tool::typed("confirm_delete", confirm_delete)
            .description("Asks for a confirmation inside the task")
            .task_support(Required),
        Tool::new("multi_input", multi_input)
            .description("Asks for two things at once inside the task")
            .task_support(Required),
        Tool::new("test_tool_with_task", tool_with_task)
            .description("Asks for a name in the request, then goes on as a task")
            .task_support(Required)
            .deferred_task(),
        Tool::typed("slow_task", slow_task)
            .description("Takes `steps` steps of `ms` milliseconds, with progress")
            .task_support(Optional),
        Tool::new("required_task", || async { "required done" })
            .description("Runs only as a task")
            .task_support(Required),
        Tool::new("plain", || async { "plain done" }).description("Never a task"),
        Tool::new("failing_task", || async {
            CallToolResult::error("task failed on purpose")
        })
        .description("Ends with a tool error")
        .task_support(Optional),
    ])
}
