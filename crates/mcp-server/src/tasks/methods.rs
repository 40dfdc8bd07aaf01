//! The `tasks/*` methods of both eras: `tasks/get`, `tasks/result`, `tasks/list` and
//! `tasks/cancel` on a 2025-11-25 session; `tasks/get`, `tasks/update` and `tasks/cancel` of
//! the 2026-07-28 extension (where `tasks/result` and `tasks/list` do not exist).

use std::sync::Arc;

use mcp_types::tasks_extension::GetTaskResult;
use mcp_types::{
    EmptyResult, Era, ErrorCode, ErrorObject, GetTaskRequestParams, JsonObject, ListTasksResult,
    PaginatedRequestParams, ProtocolVersion, RELATED_TASK_META_KEY,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::call::{declares_tasks, extension_required, owner};
use super::runtime::{TaskRuntime, store_error};
use super::store::{TaskOutcome, TaskRecord, TaskStoreError};
use super::wire;
use crate::context::Context;
use crate::envelope::stamp_object;
use crate::error::{BoxError, Error};
use crate::server::ServerInner;
use crate::service::McpResponse;

type Reply = Result<McpResponse, BoxError>;

fn params<T: DeserializeOwned>(raw: Option<&RawValue>) -> Result<T, Error> {
    let text = raw.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| Error::invalid_params(format!("Invalid params: {e}")))
}

fn respond<T: Serialize>(value: &T) -> Reply {
    Ok(McpResponse::new(value)?)
}

fn not_found() -> Error {
    Error::invalid_params("Failed to retrieve task: Task not found")
}

fn method_not_found(method: &str) -> Reply {
    Err(Box::new(Error::method_not_found(method)))
}

/// Answers a `tasks/*` method, or `None` if `method` is not one this server serves (the
/// router goes on: -32601, or the fallback).
pub(crate) async fn route(
    server: &ServerInner,
    method: &str,
    raw: Option<&RawValue>,
    cx: &Context,
) -> Option<Reply> {
    if !method.starts_with("tasks/") {
        return None;
    }
    let runtime = server.tasks.as_ref()?;
    let methods = Methods {
        server,
        runtime,
        cx,
    };
    if cx.protocol_version().era() == Era::Stateless {
        return Some(match method {
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                // The capability comes before the task: a client that did not declare the
                // extension learns that, whatever id it sent.
                if !declares_tasks(cx) {
                    return Some(Err(Box::new(extension_required())));
                }
                methods.modern(method, raw).await
            }
            other => method_not_found(other),
        });
    }
    if *cx.protocol_version() < ProtocolVersion::V2025_11_25 {
        return None;
    }
    Some(match method {
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => {
            methods.legacy(method, raw).await
        }
        other => method_not_found(other),
    })
}

/// The params of `tasks/update`, with the answers left raw: only those the task waits for
/// are read (answers to other keys are ignored, whatever they hold).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update {
    task_id: String,
    #[serde(default)]
    input_responses: std::collections::BTreeMap<String, Value>,
}

struct Methods<'a> {
    server: &'a ServerInner,
    runtime: &'a Arc<TaskRuntime>,
    cx: &'a Context,
}

impl Methods<'_> {
    /// The task `id`, if the requestor may see it.
    async fn find(&self, id: &str) -> Result<TaskRecord, Error> {
        let record = self
            .runtime
            .config
            .store
            .get(id)
            .await
            .map_err(store_error)?
            .ok_or_else(not_found)?;
        if record.visible_to(owner_of(self.server, self.cx).as_deref()) {
            Ok(record)
        } else {
            Err(not_found())
        }
    }

    /// A 2026-07-28 result: `resultType` and the server's `_meta`.
    fn stamped<T: Serialize>(&self, value: &T) -> Reply {
        match serde_json::to_value(value)? {
            Value::Object(mut object) => {
                stamp_object(&mut object, &self.server.server_info);
                respond(&object)
            }
            other => respond(&other),
        }
    }

    async fn modern(&self, method: &str, raw: Option<&RawValue>) -> Reply {
        match method {
            "tasks/get" => {
                let p: GetTaskRequestParams = params(raw)?;
                let record = self.find(&p.task_id).await?;
                let result = GetTaskResult::new(wire::modern_detailed(&record));
                self.stamped(&result)
            }
            "tasks/update" => {
                let p: Update = params(raw)?;
                let record = self.find(&p.task_id).await?;
                if !record.status.is_terminal() {
                    self.runtime.deliver(&p.task_id, p.input_responses).await?;
                }
                self.stamped(&EmptyResult::default())
            }
            _ => {
                let p: GetTaskRequestParams = params(raw)?;
                self.find(&p.task_id).await?;
                self.runtime.cancel(&p.task_id).await.map_err(store_error)?;
                self.stamped(&EmptyResult::default())
            }
        }
    }

    async fn legacy(&self, method: &str, raw: Option<&RawValue>) -> Reply {
        match method {
            "tasks/get" => {
                let p: GetTaskRequestParams = params(raw)?;
                let record = self.find(&p.task_id).await?;
                respond(&wire::legacy_task(&record))
            }
            "tasks/result" => {
                let p: GetTaskRequestParams = params(raw)?;
                let record = self.wait_until_ended(&p.task_id).await?;
                let related = json!({"taskId": record.id});
                match record.outcome {
                    Some(TaskOutcome::Result(mut result)) => {
                        let meta = result
                            .entry("_meta")
                            .or_insert_with(|| Value::Object(JsonObject::new()));
                        if let Value::Object(meta) = meta {
                            meta.insert(RELATED_TASK_META_KEY.to_owned(), related);
                        }
                        respond(&result)
                    }
                    Some(TaskOutcome::Error(error)) => Err(Box::new(Error::Rpc(error))),
                    None => Err(Box::new(Error::Rpc(ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("Task {} was cancelled; it has no result", record.id),
                    )))),
                }
            }
            "tasks/list" => {
                let p: PaginatedRequestParams = params(raw)?;
                let owner = owner_of(self.server, self.cx);
                let page = self
                    .runtime
                    .config
                    .store
                    .list(
                        owner.as_deref(),
                        p.cursor.as_deref(),
                        self.server.paging.count(),
                    )
                    .await
                    .map_err(|e| match e {
                        TaskStoreError::InvalidCursor => Error::invalid_params("Invalid cursor"),
                        other => store_error(other),
                    })?;
                let mut result = ListTasksResult::default();
                result.tasks = page.tasks.iter().map(wire::legacy_task).collect();
                result.next_cursor = page.next_cursor;
                respond(&result)
            }
            _ => {
                let p: GetTaskRequestParams = params(raw)?;
                let record = self.find(&p.task_id).await?;
                if record.status.is_terminal() {
                    let status = serde_json::to_value(record.status)?;
                    return Err(Box::new(Error::invalid_params(format!(
                        "Cannot cancel task: already in terminal status {status}"
                    ))));
                }
                self.runtime.cancel(&p.task_id).await.map_err(store_error)?;
                let record = self.find(&p.task_id).await?;
                respond(&wire::legacy_task(&record))
            }
        }
    }

    /// Waits until the task has ended (2025-11-25 `tasks/result`): woken by the task when it
    /// runs here, polling the store otherwise.
    async fn wait_until_ended(&self, id: &str) -> Result<TaskRecord, Error> {
        loop {
            let changed = self.runtime.live(id).map(|live| live.changed.subscribe());
            let record = self.find(id).await?;
            if record.status.is_terminal() {
                return Ok(record);
            }
            let interval = self.runtime.config.poll_interval;
            match changed {
                Some(mut changed) => {
                    let _ = tokio::time::timeout(interval, changed.changed()).await;
                }
                None => tokio::time::sleep(interval).await,
            }
        }
    }
}

fn owner_of(server: &ServerInner, cx: &Context) -> Option<String> {
    owner(server, cx)
}
