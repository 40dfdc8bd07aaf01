//! A tool call that runs as a task: whether it may or must ([`plan`]), and how it becomes one
//! ([`start`]), linked to its handler's context ([`TaskLink`]).

use std::sync::Arc;
use std::time::Duration;

use futures::future::{Either, select};
use mcp_types::{
    CallToolResult, Era, ErrorCode, ErrorObject, ProtocolVersion, TASKS_EXTENSION, TaskMetadata,
    TaskStatus, ToolTaskSupport,
};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::link::{TaskLink, TaskSlot};
use super::runtime::{FinishedTask, LiveTask, TaskRuntime, result_object, store_error};
use super::store::{TaskOutcome, TaskRecord};
use super::wire;
use crate::context::Context;
use crate::error::{BoxError, Error, Result, error_object, find_mcp_error};
use crate::handler::BoxFuture;
use crate::server::ServerInner;
use crate::tool::Tool;

/// Whether a call runs as a task.
pub(crate) enum Plan {
    /// In the request, as usual.
    Sync,
    /// As a task (from the start, or when the handler asks if `deferred`), kept for
    /// `ttl`.
    Task {
        deferred: bool,
        ttl: Option<Duration>,
    },
}

/// The -32021 a client that did not declare the tasks extension gets where it needs it.
pub(crate) fn extension_required() -> Error {
    Error::Rpc(
        ErrorObject::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("Missing required client capability: the {TASKS_EXTENSION} extension"),
        )
        .with_data(json!({
            "requiredCapabilities": mcp_types::tasks_extension::required_capabilities()
        })),
    )
}

/// Whether the request's client declared the tasks extension (2026-07-28, per request).
pub(crate) fn declares_tasks(cx: &Context) -> bool {
    cx.client_capabilities()
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// Whether a call of `tool` with `params` runs as a task, following the tool's
/// `execution.taskSupport` and what the client asked for (2025-11-25) or declared
/// (2026-07-28).
pub(crate) fn plan(
    runtime: Option<&TaskRuntime>,
    tool: &Tool,
    asked: Option<&TaskMetadata>,
    cx: &Context,
) -> Result<Plan> {
    let Some(runtime) = runtime else {
        return Ok(Plan::Sync);
    };
    let support = tool
        .definition()
        .execution
        .as_ref()
        .and_then(|e| e.task_support)
        .unwrap_or(ToolTaskSupport::Forbidden);
    let config = &runtime.config;
    let deferred = tool.task_deferred();
    if cx.protocol_version().era() == Era::Stateless {
        return match (support, declares_tasks(cx)) {
            (ToolTaskSupport::Forbidden, _) | (ToolTaskSupport::Optional, false) => Ok(Plan::Sync),
            (ToolTaskSupport::Required, false) => Err(extension_required()),
            (_, false) => Ok(Plan::Sync),
            (_, true) => Ok(Plan::Task {
                deferred,
                ttl: config.ttl,
            }),
        };
    }
    if *cx.protocol_version() < ProtocolVersion::V2025_11_25 {
        return Ok(Plan::Sync);
    }
    let name = tool.name();
    match (support, asked) {
        (ToolTaskSupport::Forbidden, Some(_)) => Err(Error::Rpc(ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Tool {name} does not support task-augmented execution"),
        ))),
        (ToolTaskSupport::Required, None) => Err(Error::Rpc(ErrorObject::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Tool {name} requires task-augmented execution"),
        ))),
        (_, Some(asked)) => {
            let ttl = asked.ttl.map(Duration::from_millis).or(config.ttl);
            let ttl = match (ttl, config.max_ttl) {
                (Some(ttl), Some(max)) => Some(ttl.min(max)),
                (None, max) => max,
                (ttl, None) => ttl,
            };
            Ok(Plan::Task { deferred, ttl })
        }
        (_, None) => Ok(Plan::Sync),
    }
}

/// What became of a call planned as a task.
pub(crate) enum Started {
    /// A task: the result to send (the era's task handle).
    Task(Value),
    /// A deferred handler that finished without asking for a task, on 2026-07-28: its result
    /// is the call's.
    Finished(std::result::Result<CallToolResult, BoxError>),
}

/// Runs a call planned as a task: creates the task (durably, before answering) and hands the
/// handler's future to the executor, at once or when a deferred handler asks.
pub(crate) async fn start(
    runtime: &Arc<TaskRuntime>,
    server: &ServerInner,
    call: BoxFuture<std::result::Result<CallToolResult, BoxError>>,
    cx: Context,
    deferred: bool,
    ttl: Option<Duration>,
) -> Result<Started> {
    let modern = cx.protocol_version().era() == Era::Stateless;
    let mut call = call;
    if deferred {
        let (start, started) = oneshot::channel();
        let (linked_tx, linked) = oneshot::channel();
        cx.offer_task(TaskSlot { start, linked });
        match select(call, started).await {
            Either::Left((finished, _)) => {
                if modern {
                    return Ok(Started::Finished(finished));
                }
                // 2025-11-25: the client asked for a task, so it gets one, born finished.
                return born_finished(runtime, server, &cx, finished, ttl).await;
            }
            Either::Right((_, pending)) => {
                call = pending;
                let created = create(runtime, server, &cx, ttl).await;
                let (record, live) = created?;
                cx.link_task(TaskLink {
                    runtime: runtime.clone(),
                    live: live.clone(),
                });
                let version = cx.protocol_version().clone();
                runtime.spawn(live, call, move |ended| finished_task(ended, &version));
                let _ = linked_tx.send(());
                return Ok(Started::Task(handle(&record, modern)?));
            }
        }
    }
    let (record, live) = create(runtime, server, &cx, ttl).await?;
    cx.link_task(TaskLink {
        runtime: runtime.clone(),
        live: live.clone(),
    });
    let version = cx.protocol_version().clone();
    runtime.spawn(live, call, move |ended| finished_task(ended, &version));
    Ok(Started::Task(handle(&record, modern)?))
}

/// The owner of a request's tasks: its principal, or its session.
pub(crate) fn owner(server: &ServerInner, cx: &Context) -> Option<String> {
    let principal = server
        .state_principal
        .as_ref()
        .and_then(|p| p(cx.extensions()));
    principal.or_else(|| cx.session().map(|s| format!("session-{}", s.id())))
}

/// Creates the task's record and registers it to run here.
async fn create(
    runtime: &Arc<TaskRuntime>,
    server: &ServerInner,
    cx: &Context,
    ttl: Option<Duration>,
) -> Result<(TaskRecord, Arc<LiveTask>)> {
    if !runtime.has_room() {
        return Err(Error::Rpc(ErrorObject::internal_error(format!(
            "too many tasks running (at most {})",
            runtime.config.max_running
        ))));
    }
    let mut record = TaskRecord::new(TaskRuntime::new_id()?, owner(server, cx), ttl);
    record.poll_interval = Some(runtime.config.poll_interval);
    runtime
        .config
        .store
        .create(record.clone())
        .await
        .map_err(store_error)?;
    let modern = cx.protocol_version().era() == Era::Stateless;
    let status_to = (!modern).then(|| cx.peer().clone());
    let live = runtime.register(&record.id, modern, status_to);
    tracing::debug!(task = %record.id, "task created");
    Ok((record, live))
}

/// A task created finished: a deferred handler that ended before asking for one, for a
/// 2025-11-25 client that asked for a task.
async fn born_finished(
    runtime: &Arc<TaskRuntime>,
    server: &ServerInner,
    cx: &Context,
    finished: std::result::Result<CallToolResult, BoxError>,
    ttl: Option<Duration>,
) -> Result<Started> {
    let mut record = TaskRecord::new(TaskRuntime::new_id()?, owner(server, cx), ttl);
    record.poll_interval = Some(runtime.config.poll_interval);
    let FinishedTask::Ended {
        status,
        outcome,
        message,
    } = finished_task(Ok(Ok(finished)), cx.protocol_version())
    else {
        unreachable!("a finished call is not a cancelled one");
    };
    record.status = status;
    record.outcome = Some(outcome);
    record.status_message = message;
    runtime
        .config
        .store
        .create(record.clone())
        .await
        .map_err(store_error)?;
    Ok(Started::Task(handle(&record, false)?))
}

/// The era's answer to a call that became a task.
fn handle(record: &TaskRecord, modern: bool) -> Result<Value> {
    Ok(if modern {
        serde_json::to_value(wire::modern_created(record))?
    } else {
        json!({"task": wire::legacy_task(record)})
    })
}

/// What the end of a task's future means for the task.
fn finished_task(ended: super::runtime::Ended, version: &ProtocolVersion) -> FinishedTask {
    let modern = version.era() == Era::Stateless;
    let result = match ended {
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the handler panicked".to_owned());
            tracing::error!(panic = %what, "a task's handler panicked");
            Err(ErrorObject::internal_error(format!(
                "internal error: {what}"
            )))
        }
        Ok(Err(_aborted)) => return FinishedTask::Cancelled,
        Ok(Ok(Ok(result))) => Ok(result),
        // Before 2026-07-28 a missing capability is the tool's failure, as in a plain call.
        Ok(Ok(Err(e)))
            if !modern && matches!(find_mcp_error(&*e), Some(Error::CapabilityNotDeclared(_))) =>
        {
            Ok(CallToolResult::error(e.to_string()))
        }
        Ok(Ok(Err(e))) => Err(error_object(&*e, version)),
    };
    match result {
        Ok(mut result) => {
            if modern {
                result.result_type = Some(mcp_types::ResultType::Complete);
            }
            // 2025-11-25 counts a tool error as a failed task; the extension as completed.
            let status = if result.is_error() && !modern {
                TaskStatus::Failed
            } else {
                TaskStatus::Completed
            };
            match result_object(&result) {
                Ok(object) => FinishedTask::Ended {
                    status,
                    outcome: TaskOutcome::Result(object),
                    message: None,
                },
                Err(e) => FinishedTask::Ended {
                    status: TaskStatus::Failed,
                    outcome: TaskOutcome::Error(ErrorObject::internal_error(e.to_string())),
                    message: Some(e.to_string()),
                },
            }
        }
        Err(error) => FinishedTask::Ended {
            status: TaskStatus::Failed,
            message: Some(error.message.clone()),
            outcome: TaskOutcome::Error(error),
        },
    }
}
