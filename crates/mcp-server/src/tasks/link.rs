//! What links a handler's [`Context`](crate::Context) to the task its call became: the
//! task itself ([`TaskLink`], through which the handler's input reaches the client from inside
//! the task) and the slot through which a deferred handler asks to become one ([`TaskSlot`]).
//! Kept apart from `call.rs` so that `context.rs` needs nothing that needs it.

use std::sync::Arc;

use mcp_jsonrpc::{Peer, RequestOptions};
use mcp_types::{RELATED_TASK_META_KEY, TaskStatus};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::runtime::{LiveTask, TaskRuntime, store_error};
use super::store::{TaskStoreError, TaskUpdate};
use crate::error::{Error, Result};
use crate::input::Ask;

/// The task a call became, as its handler's [`Context`] knows it.
pub(crate) struct TaskLink {
    pub(crate) runtime: Arc<TaskRuntime>,
    pub(crate) live: Arc<LiveTask>,
}

/// How a deferred task tool's handler asks for its call to become a task
/// ([`Context::start_task`]), and learns that it did.
pub(crate) struct TaskSlot {
    pub(crate) start: oneshot::Sender<()>,
    pub(crate) linked: oneshot::Receiver<()>,
}

impl TaskLink {
    /// Asks the client for input from inside the task: an input request the client answers
    /// with `tasks/update` (2026-07-28), or a server request tied to the task (2025-11-25);
    /// the task is `input_required` meanwhile.
    pub(crate) async fn ask<M: mcp_types::Request>(
        &self,
        peer: &Peer,
        ask: Ask<'_, M>,
        version: &mcp_types::ProtocolVersion,
    ) -> Result<M::Result> {
        if self.live.modern {
            let key = match ask.key {
                Some(key) => key.to_owned(),
                None => self.live.fresh_key(ask.kind),
            };
            let response = self
                .runtime
                .ask(&self.live, key.clone(), (ask.wrap)(ask.params))
                .await?;
            return (ask.unwrap)(response).ok_or_else(|| {
                Error::invalid_params(format!(
                    "input response {key} does not answer a {}",
                    M::METHOD
                ))
            });
        }
        let mut params = serde_json::to_value(&ask.params)?;
        if let Value::Object(object) = &mut params {
            let meta = object.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(
                    RELATED_TASK_META_KEY.to_owned(),
                    json!({"taskId": self.live.id}),
                );
            }
        }
        let raw = serde_json::value::to_raw_value(&params)?;
        self.set_status(TaskStatus::InputRequired).await?;
        let answered = crate::telemetry::request(
            peer,
            M::METHOD,
            raw,
            RequestOptions::new().without_timeout(),
            version,
        )
        .await;
        self.set_status(TaskStatus::Working).await?;
        Ok(serde_json::from_str(answered?.get())?)
    }

    async fn set_status(&self, status: TaskStatus) -> Result<()> {
        match self
            .runtime
            .update(&self.live.id, TaskUpdate::status(status))
            .await
        {
            Ok(_) => Ok(()),
            // Cancelled meanwhile: the handler is about to be dropped.
            Err(TaskStoreError::Ended(_)) => Ok(()),
            Err(e) => Err(store_error(e)),
        }
    }
}
