//! How a [`TaskRecord`] is written to Redis: JSON of a mirror type (the record itself is not
//! `Serialize`), exact to the nanosecond and to the variant of each input request.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_server::tasks::{TaskOutcome, TaskRecord};
use mcp_types::{ErrorObject, InputRequest, InputRequests, JsonObject, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    owner: Option<String>,
    status: TaskStatus,
    message: Option<String>,
    created: (u64, u32),
    updated: (u64, u32),
    ttl: Option<(u64, u32)>,
    poll: Option<(u64, u32)>,
    input: Vec<(String, Input)>,
    outcome: Option<Outcome>,
}

/// An input request, keeping `Other` apart: `InputRequest`'s own encoding decodes an `Other`
/// with a known method (say `roots/list`) as that method's variant.
#[derive(Serialize, Deserialize)]
enum Input {
    Known(Box<InputRequest>),
    Other {
        method: String,
        params: Option<Value>,
    },
}

#[derive(Serialize, Deserialize)]
enum Outcome {
    Result(JsonObject),
    Error(ErrorObject),
}

fn duration(d: Duration) -> (u64, u32) {
    (d.as_secs(), d.subsec_nanos())
}

fn from_duration((secs, nanos): (u64, u32)) -> Duration {
    Duration::new(secs, nanos)
}

fn time(t: SystemTime) -> (u64, u32) {
    duration(t.duration_since(UNIX_EPOCH).unwrap_or_default())
}

fn from_time(t: (u64, u32)) -> SystemTime {
    UNIX_EPOCH + from_duration(t)
}

/// The JSON of `record`.
pub(crate) fn encode(record: &TaskRecord) -> Result<String, Error> {
    let stored = Stored {
        id: record.id.clone(),
        owner: record.owner.clone(),
        status: record.status,
        message: record.status_message.clone(),
        created: time(record.created_at),
        updated: time(record.updated_at),
        ttl: record.ttl.map(duration),
        poll: record.poll_interval.map(duration),
        input: record
            .input_requests
            .iter()
            .map(|(k, v)| {
                let input = match v {
                    InputRequest::Other { method, params } => Input::Other {
                        method: method.clone(),
                        params: params.clone(),
                    },
                    known => Input::Known(Box::new(known.clone())),
                };
                (k.clone(), input)
            })
            .collect(),
        outcome: record.outcome.as_ref().map(|o| match o {
            TaskOutcome::Result(r) => Outcome::Result(r.clone()),
            TaskOutcome::Error(e) => Outcome::Error(e.clone()),
        }),
    };
    serde_json::to_string(&stored).map_err(|e| Error::Corrupt(format!("a task: {e}")))
}

/// The record `json` holds.
pub(crate) fn decode(json: &[u8]) -> Result<TaskRecord, Error> {
    let stored: Stored =
        serde_json::from_slice(json).map_err(|e| Error::Corrupt(format!("a task: {e}")))?;
    let mut record = TaskRecord::new(stored.id, stored.owner, stored.ttl.map(from_duration));
    record.status = stored.status;
    record.status_message = stored.message;
    record.created_at = from_time(stored.created);
    record.updated_at = from_time(stored.updated);
    record.poll_interval = stored.poll.map(from_duration);
    record.input_requests = stored
        .input
        .into_iter()
        .map(|(k, v)| {
            let request = match v {
                Input::Known(request) => *request,
                Input::Other { method, params } => InputRequest::Other { method, params },
            };
            (k, request)
        })
        .collect::<InputRequests>();
    record.outcome = stored.outcome.map(|o| match o {
        Outcome::Result(r) => TaskOutcome::Result(r),
        Outcome::Error(e) => TaskOutcome::Error(e),
    });
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_exactly() {
        let mut record = TaskRecord::new("t", Some("alice".into()), Some(Duration::from_secs(60)));
        record.input_requests.insert(
            "k".into(),
            InputRequest::Other {
                method: "roots/list".into(),
                params: None,
            },
        );
        record.outcome = Some(TaskOutcome::Error(ErrorObject::internal_error("boom")));
        record.poll_interval = Some(Duration::from_millis(1500));
        let back = decode(encode(&record).unwrap().as_bytes()).unwrap();
        assert_eq!(back, record);
    }
}
