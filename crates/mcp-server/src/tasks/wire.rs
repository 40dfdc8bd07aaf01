//! How a stored task looks on the wire of each era: the 2025-11-25 `Task` (`ttl`,
//! `pollInterval`) and the 2026-07-28 extension's task handle and `DetailedTask` (`ttlMs`,
//! `pollIntervalMs`, and the outstanding input, the result or the error inline).

use std::time::{Duration, SystemTime};

use mcp_types::tasks_extension::{CreateTaskResult, DetailedTask};
use mcp_types::{Task, TaskStatus};

use super::store::{TaskOutcome, TaskRecord};

/// `t` in ISO 8601 (RFC 3339, UTC, milliseconds).
pub(crate) fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The 2025-11-25 `Task`.
pub(crate) fn legacy_task(r: &TaskRecord) -> Task {
    let mut task = Task::new(
        r.id.clone(),
        r.status,
        timestamp(r.created_at),
        timestamp(r.updated_at),
    );
    task.status_message = r.status_message.clone();
    task.ttl = r.ttl.map(millis);
    task.poll_interval = r.poll_interval.map(millis);
    task
}

/// The 2026-07-28 task handle: flat, `resultType: "task"`, nothing inline.
pub(crate) fn modern_created(r: &TaskRecord) -> CreateTaskResult {
    let mut created = CreateTaskResult::new(
        r.id.clone(),
        r.status,
        timestamp(r.created_at),
        timestamp(r.updated_at),
    );
    created.status_message = r.status_message.clone();
    created.ttl_ms = r.ttl.map(millis);
    created.poll_interval_ms = r.poll_interval.map(millis);
    created
}

/// The 2026-07-28 `DetailedTask`: the outstanding input while `input_required`, the result
/// once `completed`, the error once `failed`.
pub(crate) fn modern_detailed(r: &TaskRecord) -> DetailedTask {
    let (result, error) = match (&r.outcome, r.status) {
        (Some(TaskOutcome::Result(result)), TaskStatus::Completed) => (Some(result.clone()), None),
        (Some(TaskOutcome::Error(error)), TaskStatus::Failed) => (None, Some(error.clone())),
        _ => (None, None),
    };
    let mut task = DetailedTask::new(
        r.id.clone(),
        r.status,
        timestamp(r.created_at),
        timestamp(r.updated_at),
    );
    task.status_message = r.status_message.clone();
    task.ttl_ms = r.ttl.map(millis);
    task.poll_interval_ms = r.poll_interval.map(millis);
    task.input_requests = (r.status == TaskStatus::InputRequired).then(|| r.input_requests.clone());
    task.result = result;
    task.error = error;
    task
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_785_000_000_123);
        assert_eq!(timestamp(t), "2026-07-25T17:20:00.123Z");
    }

    #[test]
    fn only_what_the_status_carries_is_inline() {
        let mut record = TaskRecord::new("t", None, Some(Duration::from_secs(60)));
        record.outcome = Some(TaskOutcome::Result(mcp_types::JsonObject::new()));
        let working = serde_json::to_value(modern_detailed(&record)).unwrap();
        assert!(working.get("result").is_none() && working.get("inputRequests").is_none());
        assert_eq!(working["ttlMs"], 60_000);
        record.status = TaskStatus::Completed;
        let done = serde_json::to_value(modern_detailed(&record)).unwrap();
        assert!(done.get("result").is_some());
        let created = serde_json::to_value(modern_created(&record)).unwrap();
        assert_eq!(created["resultType"], "task");
        assert!(created.get("result").is_none() && created.get("ttl").is_none());
        let legacy = serde_json::to_value(legacy_task(&record)).unwrap();
        assert_eq!(legacy["ttl"], 60_000);
    }
}
