//! The task part of a `subscriptions/listen` stream (2026-07-28 extension): the `taskIds` a
//! client asks for, those it may watch, and the `notifications/tasks` each change brings.

use std::collections::BTreeSet;
use std::sync::Arc;

use mcp_types::tasks_extension::{TaskChanged, TaskNotificationParams};
use mcp_types::{JsonObject, Meta, Notification as _, SubscriptionFilter};
use serde_json::Value;

use super::call::extension_required;
use super::runtime::{TaskRuntime, store_error};
use super::wire;
use crate::error::{Error, Result};

/// The field of the listen filter (and of its acknowledgement) that names tasks.
const TASK_IDS: &str = "taskIds";

/// Who is listening, as far as tasks go.
pub(crate) struct TaskScope {
    pub(crate) runtime: Arc<TaskRuntime>,
    /// The requestor (its principal); it sees only the tasks it owns.
    pub(crate) owner: Option<String>,
    /// Whether the request declared the tasks extension.
    pub(crate) declared: bool,
}

/// The tasks one subscription watches, until each ends.
#[derive(Default)]
pub(crate) struct WatchedTasks {
    ids: BTreeSet<String>,
    runtime: Option<Arc<TaskRuntime>>,
}

impl WatchedTasks {
    /// The tasks of `asked` the subscription may watch: those that exist and the requestor
    /// owns (the others are left out of the acknowledgement, as the spec has unsupported
    /// types). Asking without the extension is -32021; a server without tasks honours none.
    pub(crate) async fn new(asked: &SubscriptionFilter, scope: Option<TaskScope>) -> Result<Self> {
        let ids: Vec<String> = match asked.extra.get(TASK_IDS) {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
                Error::invalid_params(format!("Invalid params: notifications.taskIds: {e}"))
            })?,
        };
        let Some(scope) = scope.filter(|_| !ids.is_empty()) else {
            return Ok(Self::default());
        };
        if !scope.declared {
            return Err(extension_required());
        }
        let mut watched = BTreeSet::new();
        for id in ids {
            let record = scope
                .runtime
                .config
                .store
                .get(&id)
                .await
                .map_err(store_error)?;
            if record.is_some_and(|r| r.visible_to(scope.owner.as_deref())) {
                watched.insert(id);
            }
        }
        Ok(WatchedTasks {
            ids: watched,
            runtime: Some(scope.runtime),
        })
    }

    /// Adds the watched ids to an acknowledgement's filter.
    pub(crate) fn acknowledge(&self, filter: &mut SubscriptionFilter) {
        if !self.ids.is_empty() {
            filter
                .extra
                .insert(TASK_IDS.to_owned(), self.ids.iter().cloned().collect());
        }
    }

    /// The ids still watched.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.ids.iter().cloned().collect()
    }

    /// The `notifications/tasks` params for task `id` as it is now, tagged with the
    /// subscription's `meta`; `None` if the subscription does not watch it (or it is gone).
    /// A task that ended is told once, then no longer watched.
    pub(crate) async fn changed(
        &mut self,
        id: &str,
        meta: &Meta,
    ) -> Result<Option<(&'static str, JsonObject)>> {
        let Some(runtime) = self.runtime.as_ref().filter(|_| self.ids.contains(id)) else {
            return Ok(None);
        };
        let Some(record) = runtime.config.store.get(id).await.map_err(store_error)? else {
            self.ids.remove(id);
            return Ok(None);
        };
        if record.status.is_terminal() {
            self.ids.remove(id);
        }
        let mut params = TaskNotificationParams::new(wire::modern_detailed(&record));
        params.meta = Some(meta.clone());
        match serde_json::to_value(params)? {
            Value::Object(object) => Ok(Some((TaskChanged::METHOD, object))),
            _ => Ok(None),
        }
    }
}
