//! `long-task`: a long-running tool that runs as a task, with progress and cancellation.
//!
//! ```text
//! cargo build -p examples --bin long-task
//! # a task-aware client: `call_tool_as_task`, then `watch_task`/`task_result`/`cancel_task`
//! ```
//!
//! `build` takes `steps` steps of 100 ms each, reporting progress after each. Marked with
//! `task_support(Optional)`, it runs as a task when the client can take one: the call is
//! answered at once with a task id, the client polls the task (`tasks/get`) and collects the
//! result (`tasks/result`, or inline on 2026-07-28), or cancels it (`tasks/cancel`). A client
//! that knows nothing of tasks gets the result in the call, as from any tool.
//!
//! The library never spawns: `Tasks::new` takes the executor tasks run on (tokio here).
//! Cancelling a task drops the handler's future; `cx.cancellation()` also fires, for work
//! handed off elsewhere.

use std::time::Duration;

use mcp_server::tasks::Tasks;
use mcp_server::types::ToolTaskSupport;
use mcp_server::{Context, Server, Tool};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Build {
    /// How many steps to build in; each takes 100 ms.
    steps: u32,
}

async fn build(args: Build, cx: Context) -> String {
    for step in 1..=args.steps {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
            () = cx.cancellation().cancelled() => return format!("cancelled at step {step}"),
        }
        let message = format!("step {step} of {}", args.steps);
        let total = Some(f64::from(args.steps));
        // Progress reaches the client if it asked for it; a failure to send is no reason to stop.
        let _ = cx
            .report_progress(f64::from(step), total, Some(&message))
            .await;
    }
    format!("built in {} steps", args.steps)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let tasks = Tasks::new(|task| {
        tokio::spawn(task);
    })
    // What the server suggests as the interval between two polls.
    .poll_interval(Duration::from_millis(100));
    let server = Server::builder()
        .name("long-task")
        .version("1.0.0")
        .tasks(tasks)
        .tool(
            Tool::typed("build", build)
                .description("Builds the project in `steps` steps, reporting progress after each")
                .task_support(ToolTaskSupport::Optional),
        )
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
