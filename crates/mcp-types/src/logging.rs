//! Logging: `logging/setLevel` and `notifications/message`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{JsonObject, Meta};

/// The `_meta` key under which a 2026-07-28 request carries the log level it wants.
pub const LOG_LEVEL_META_KEY: &str = "io.modelcontextprotocol/logLevel";

/// The severity of a log message, as in syslog (RFC 5424), all revisions.
///
/// Ordered from least to most severe: `Debug < Info < ... < Emergency`, so
/// `level >= LoggingLevel::Warning` selects warnings and worse. On 2026-07-28 the level is chosen
/// per request with the `io.modelcontextprotocol/logLevel` `_meta` key instead of
/// `logging/setLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The wire string, e.g. `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Params of `logging/setLevel` (2024-11-05 to 2025-11-25; named from 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to receive.
    pub level: LoggingLevel,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SetLevelRequestParams {
    /// Params asking for messages of `level` and worse.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelRequestParams {
            level,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// Params of `notifications/message` (all revisions; named from 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// The severity.
    pub level: LoggingLevel,
    /// The name of the logger that issued the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value (a string, or an object with details).
    pub data: Value,
    /// Metadata attached to the notification.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl LoggingMessageNotificationParams {
    /// A message of `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        LoggingMessageNotificationParams {
            level,
            logger: None,
            data: data.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `logging/setLevel`: sets the least severe level the server sends (2024-11-05 to 2025-11-25).
#[derive(Debug)]
pub enum SetLevel {}

impl crate::Request for SetLevel {
    const METHOD: &'static str = "logging/setLevel";
    type Params = SetLevelRequestParams;
    type Result = crate::EmptyResult;
}

/// `notifications/message`: a log message from the server.
#[derive(Debug)]
pub enum LoggingMessage {}

impl crate::Notification for LoggingMessage {
    const METHOD: &'static str = "notifications/message";
    type Params = LoggingMessageNotificationParams;
}

/// A whole `logging/setLevel` request.
pub type SetLevelRequest = crate::TypedRequest<SetLevel>;
/// A whole `notifications/message` notification.
pub type LoggingMessageNotification = crate::TypedNotification<LoggingMessage>;

#[cfg(test)]
#[path = "logging_tests.rs"]
mod tests;
