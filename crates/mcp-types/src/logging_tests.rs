use serde_json::json;

use crate::result::test_util::round_trip;
use crate::*;

#[test]
fn levels_order_and_names() {
    let all = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];
    assert!(all.windows(2).all(|w| w[0] < w[1]));
    for level in all {
        assert_eq!(serde_json::to_value(level).unwrap(), json!(level.as_str()));
        assert_eq!(level.to_string(), level.as_str());
    }
    assert!(serde_json::from_str::<LoggingLevel>(r#""verbose""#).is_err());
}

#[test]
fn logging_messages() {
    let n: LoggingMessageNotification = round_trip(
        r#"{"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "logger": "database",
                       "data": {"error": "Connection failed", "details": {"host": "localhost", "port": 5432}}}}"#,
    );
    assert_eq!(n.params.level, LoggingLevel::Error);
    round_trip::<LoggingMessageNotificationParams>(
        r#"{"level": "error", "logger": "database", "data": {"error": "Connection failed"}}"#,
    );
    round_trip::<LoggingMessageNotificationParams>(
        r#"{"level": "debug", "data": "plain", "_meta": {"io.modelcontextprotocol/subscriptionId": 1}, "x": 1}"#,
    );
    let v = serde_json::to_value(LoggingMessageNotificationParams::new(
        LoggingLevel::Info,
        "hi",
    ))
    .unwrap();
    assert_eq!(v, json!({"level": "info", "data": "hi"}));
}

#[test]
fn set_level() {
    let r: SetLevelRequest = round_trip(
        r#"{"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "warning"}}"#,
    );
    assert_eq!(r.params, SetLevelRequestParams::new(LoggingLevel::Warning));
    round_trip::<SetLevelRequestParams>(
        r#"{"level": "alert", "_meta": {"progressToken": "t"}, "y": [1]}"#,
    );
    assert_eq!(<SetLevel as Request>::METHOD, "logging/setLevel");
    assert_eq!(
        <LoggingMessage as Notification>::METHOD,
        "notifications/message"
    );
}
