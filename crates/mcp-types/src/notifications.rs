//! Notifications any side may send: progress and cancellation.

use serde::{Deserialize, Serialize};

use crate::{JsonObject, Meta, Notification, ProgressToken, RequestId, TypedNotification};

/// Marker for `notifications/progress` (either direction; all revisions).
#[derive(Debug)]
pub enum Progress {}

impl Notification for Progress {
    const METHOD: &'static str = "notifications/progress";
    type Params = ProgressNotificationParams;
}

/// Marker for `notifications/cancelled` (either direction up to 2025-11-25; on 2026-07-28 the
/// client cancels its requests, and on stdio the server uses it only to end a
/// `subscriptions/listen` stream).
#[derive(Debug)]
pub enum Cancelled {}

impl Notification for Cancelled {
    const METHOD: &'static str = "notifications/cancelled";
    type Params = CancelledNotificationParams;
}

/// A whole `notifications/progress` notification.
pub type ProgressNotification = TypedNotification<Progress>;

/// A whole `notifications/cancelled` notification.
pub type CancelledNotification = TypedNotification<Cancelled>;

/// The params of `notifications/progress` (all revisions; `message` from 2025-03-26).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token from the `_meta.progressToken` of the request this reports on.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with each notification, even if `total` is unknown.
    pub progress: f64,
    /// The total amount of work, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable description of the current step (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata attached to the notification (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ProgressNotificationParams {
    /// Progress `progress` (of an unknown total) for `token`.
    pub fn new(token: ProgressToken, progress: f64) -> Self {
        ProgressNotificationParams {
            progress_token: token,
            progress,
            total: None,
            message: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the total.
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// Sets the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// The params of `notifications/cancelled`.
///
/// `requestId` is required in every revision except 2025-11-25, where it is optional (tasks are
/// cancelled with `tasks/cancel` instead).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why the request was cancelled; may be logged or shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata attached to the notification (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CancelledNotificationParams {
    /// Cancels request `id`.
    pub fn new(id: impl Into<RequestId>) -> Self {
        CancelledNotificationParams {
            request_id: Some(id.into()),
            ..Default::default()
        }
    }

    /// Sets the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_util::{decode_err, round_trip};

    #[test]
    fn examples_2026() {
        let p: ProgressNotificationParams = round_trip(
            r#"{"progressToken":"oivaizmir","progress":50,"total":100,"message":"Reticulating splines..."}"#,
        );
        let built =
            ProgressNotificationParams::new(ProgressToken::String("oivaizmir".into()), 50.0)
                .with_total(100.0)
                .with_message("Reticulating splines...");
        assert_eq!(p, built);
        round_trip::<ProgressNotification>(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"oivaizmir",
                "progress":50,"total":100,"message":"Reticulating splines..."}}"#,
        );
        let c: CancelledNotificationParams =
            round_trip(r#"{"requestId":"123","reason":"User requested cancellation"}"#);
        assert_eq!(
            c,
            CancelledNotificationParams::new("123").with_reason("User requested cancellation")
        );
        round_trip::<CancelledNotification>(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled",
                "params":{"requestId":"123","reason":"User requested cancellation"}}"#,
        );
    }

    #[test]
    fn older_shapes_meta_and_unknown_fields() {
        // 2024-11-05: no message; integer token; fractional progress.
        let p: ProgressNotificationParams = round_trip(r#"{"progressToken":5,"progress":0.25}"#);
        assert_eq!(p.progress_token, ProgressToken::Number(5));
        round_trip::<ProgressNotificationParams>(
            r#"{"progressToken":1,"progress":1,"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"x":1}"#,
        );
        // 2025-11-25 allows cancelling without a request id.
        round_trip::<CancelledNotificationParams>(r#"{"reason":"r","_meta":{"a":1},"y":2}"#);
        round_trip::<CancelledNotificationParams>(r#"{"requestId":42}"#);
        decode_err::<ProgressNotificationParams>(r#"{"progress":1}"#);
        decode_err::<CancelledNotification>(
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
        );
    }
}
