//! The promises every [`TaskStore`] keeps, as a check any implementation can run in its own
//! tests:
//!
//! ```
//! use mcp_server::tasks::{InMemoryTaskStore, contract};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // `make(capacity)` gives a fresh, empty store bounded to `capacity` tasks.
//! contract::verify(InMemoryTaskStore::new).await.unwrap();
//! # }
//! ```

use std::time::Duration;

use mcp_types::{ErrorObject, InputRequest, InputRequests, JsonObject, TaskStatus};

use super::store::{TaskOutcome, TaskRecord, TaskStore, TaskStoreError, TaskUpdate};

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

fn fail<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e:?}")
}

/// Runs every check against stores made by `make` (called with the capacity the check needs;
/// each call must give a new, empty store). The first broken promise is the error.
pub async fn verify<S: TaskStore>(make: impl Fn(usize) -> S) -> Result<(), String> {
    create_and_get(&make(8)).await?;
    transitions(&make(8)).await?;
    expiry(&make(8)).await?;
    listing(&make(16)).await?;
    bounded(&make(3)).await?;
    Ok(())
}

async fn create_and_get(store: &impl TaskStore) -> Result<(), String> {
    ensure!(
        store.get("missing").await.map_err(fail("get"))?.is_none(),
        "get of an unknown id found something"
    );
    let record = TaskRecord::new("a", Some("alice".into()), Some(Duration::from_secs(60)));
    store.create(record.clone()).await.map_err(fail("create"))?;
    let got = store.get("a").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&record),
        "get after create gave {got:?}"
    );
    let again = store.create(record).await;
    ensure!(
        matches!(again, Err(TaskStoreError::Exists(_))),
        "a second create with the same id gave {again:?}"
    );
    let none = store
        .update("missing", TaskUpdate::status(TaskStatus::Completed))
        .await
        .map_err(fail("update"))?;
    ensure!(none.is_none(), "update of an unknown id gave {none:?}");
    Ok(())
}

async fn transitions(store: &impl TaskStore) -> Result<(), String> {
    store
        .create(TaskRecord::new("t", None, None))
        .await
        .map_err(fail("create"))?;
    let mut asking = InputRequests::new();
    // A method of no revision, so that a store serializing tasks gets back what it stored
    // (a known method would decode as its own variant).
    asking.insert(
        "k".into(),
        InputRequest::Other {
            method: "x-example/confirm".into(),
            params: None,
        },
    );
    let waiting = store
        .update(
            "t",
            TaskUpdate {
                status: Some(TaskStatus::InputRequired),
                input_requests: Some(asking.clone()),
                ..Default::default()
            },
        )
        .await
        .map_err(fail("update to input_required"))?
        .ok_or("the task vanished")?;
    ensure!(
        waiting.status == TaskStatus::InputRequired && waiting.input_requests == asking,
        "the update was not applied: {waiting:?}"
    );
    ensure!(
        waiting.updated_at >= waiting.created_at,
        "updated_at went back in time"
    );
    let mut result = JsonObject::new();
    result.insert("content".into(), serde_json::json!([]));
    let done = store
        .update(
            "t",
            TaskUpdate {
                status: Some(TaskStatus::Completed),
                input_requests: Some(InputRequests::new()),
                outcome: Some(TaskOutcome::Result(result.clone())),
                ..Default::default()
            },
        )
        .await
        .map_err(fail("update to completed"))?
        .ok_or("the task vanished")?;
    ensure!(
        done.outcome == Some(TaskOutcome::Result(result)),
        "the outcome was not kept: {done:?}"
    );
    for to in [TaskStatus::Working, TaskStatus::Cancelled] {
        let refused = store.update("t", TaskUpdate::status(to)).await;
        ensure!(
            matches!(refused, Err(TaskStoreError::Ended(_))),
            "a completed task changed to {to:?}: {refused:?}"
        );
    }
    let message = store
        .update(
            "t",
            TaskUpdate {
                status_message: Some(Some("late".into())),
                ..Default::default()
            },
        )
        .await;
    ensure!(
        matches!(message, Err(TaskStoreError::Ended(_))),
        "a completed task took a new message: {message:?}"
    );
    store
        .create(TaskRecord::new("f", None, None))
        .await
        .map_err(fail("create"))?;
    let failed = store
        .update(
            "f",
            TaskUpdate {
                status: Some(TaskStatus::Failed),
                outcome: Some(TaskOutcome::Error(ErrorObject::internal_error("boom"))),
                ..Default::default()
            },
        )
        .await
        .map_err(fail("update to failed"))?
        .ok_or("the task vanished")?;
    ensure!(
        matches!(failed.outcome, Some(TaskOutcome::Error(_))),
        "the error was not kept: {failed:?}"
    );
    Ok(())
}

async fn expiry(store: &impl TaskStore) -> Result<(), String> {
    store
        .create(TaskRecord::new("gone", None, Some(Duration::ZERO)))
        .await
        .map_err(fail("create"))?;
    let got = store.get("gone").await.map_err(fail("get"))?;
    ensure!(
        got.is_none(),
        "a task whose time is up was returned: {got:?}"
    );
    let updated = store
        .update("gone", TaskUpdate::status(TaskStatus::Completed))
        .await
        .map_err(fail("update"))?;
    ensure!(updated.is_none(), "a task whose time is up was updated");
    let page = store.list(None, None, 10).await.map_err(fail("list"))?;
    ensure!(
        page.tasks.iter().all(|t| t.id != "gone"),
        "a task whose time is up was listed"
    );
    Ok(())
}

async fn listing(store: &impl TaskStore) -> Result<(), String> {
    for i in 0..5 {
        store
            .create(TaskRecord::new(format!("a{i}"), Some("alice".into()), None))
            .await
            .map_err(fail("create"))?;
        store
            .create(TaskRecord::new(format!("b{i}"), Some("bob".into()), None))
            .await
            .map_err(fail("create"))?;
    }
    let mut seen = Vec::new();
    let mut cursor = None;
    for _ in 0..10 {
        let page = store
            .list(Some("alice"), cursor.as_deref(), 2)
            .await
            .map_err(fail("list"))?;
        ensure!(page.tasks.len() <= 2, "a page exceeded its limit");
        seen.extend(page.tasks.into_iter().map(|t| t.id));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    ensure!(
        seen == ["a0", "a1", "a2", "a3", "a4"],
        "alice's tasks, oldest first, were {seen:?}"
    );
    let refused = store.list(Some("alice"), Some("not-a-cursor"), 2).await;
    ensure!(
        matches!(refused, Err(TaskStoreError::InvalidCursor)),
        "an invalid cursor gave {refused:?}"
    );
    let nobody = store.list(None, None, 10).await.map_err(fail("list"))?;
    ensure!(
        nobody.tasks.is_empty(),
        "tasks with an owner were listed without one: {:?}",
        nobody.tasks
    );
    Ok(())
}

async fn bounded(store: &impl TaskStore) -> Result<(), String> {
    for i in 0..3 {
        store
            .create(TaskRecord::new(format!("t{i}"), None, None))
            .await
            .map_err(fail("create"))?;
    }
    let full = store.create(TaskRecord::new("t3", None, None)).await;
    ensure!(
        matches!(full, Err(TaskStoreError::Full(_))),
        "a store bounded to 3 tasks took a 4th: {full:?}"
    );
    Ok(())
}
