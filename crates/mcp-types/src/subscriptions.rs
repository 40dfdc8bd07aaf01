//! `subscriptions/listen` (2026-07-28): a long-lived request on which the server delivers the
//! notifications the client opted in to. It replaces the HTTP GET stream and
//! `resources/subscribe`.

use serde::{Deserialize, Serialize};

use crate::{
    JsonObject, JsonRpcResultResponse, Meta, Notification, Request, RequestId, ResultType,
    TypedNotification, TypedRequest,
};

/// The `_meta` key naming the subscription a notification (or the closing
/// [`SubscriptionsListenResult`]) belongs to: the id of the `subscriptions/listen` request.
pub const SUBSCRIPTION_ID_META_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// Marker for `subscriptions/listen` (client to server; 2026-07-28).
#[derive(Debug)]
pub enum SubscriptionsListen {}

impl Request for SubscriptionsListen {
    const METHOD: &'static str = "subscriptions/listen";
    type Params = SubscriptionsListenRequestParams;
    type Result = SubscriptionsListenResult;
}

/// Marker for `notifications/subscriptions/acknowledged` (server to client; 2026-07-28).
#[derive(Debug)]
pub enum SubscriptionsAcknowledged {}

impl Notification for SubscriptionsAcknowledged {
    const METHOD: &'static str = "notifications/subscriptions/acknowledged";
    type Params = SubscriptionsAcknowledgedNotificationParams;
}

/// A whole `subscriptions/listen` request.
pub type SubscriptionsListenRequest = TypedRequest<SubscriptionsListen>;
/// A whole response to `subscriptions/listen`, sent when the server ends the stream gracefully.
pub type SubscriptionsListenResultResponse = JsonRpcResultResponse<SubscriptionsListenResult>;
/// A whole `notifications/subscriptions/acknowledged` notification.
pub type SubscriptionsAcknowledgedNotification = TypedNotification<SubscriptionsAcknowledged>;

/// The notification types a client opts in to (2026-07-28). The server sends nothing else.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// Receive `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// Receive `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// Receive `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// Receive `notifications/resources/updated` for these resource URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The params of `subscriptions/listen` (2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// What the client wants to receive on this stream.
    pub notifications: SubscriptionFilter,
    /// Request metadata (required: protocol version and client capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The answer to `subscriptions/listen`, sent only when the server ends the subscription
/// gracefully (2026-07-28). Its `_meta` names the subscription under
/// [`SUBSCRIPTION_ID_META_KEY`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// `"complete"` (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (required by the schema, holding the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SubscriptionsListenResult {
    /// The result closing subscription `id`.
    pub fn closing(id: &RequestId) -> Self {
        let mut meta = Meta::new();
        meta.insert(
            SUBSCRIPTION_ID_META_KEY.to_owned(),
            subscription_id_value(id),
        );
        SubscriptionsListenResult {
            result_type: Some(ResultType::Complete),
            meta: Some(meta),
            extra: JsonObject::new(),
        }
    }

    /// The subscription this result closes, from `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        subscription_id(self.meta.as_ref())
    }
}

/// The params of `notifications/subscriptions/acknowledged` (2026-07-28): the first message of
/// a subscription, saying which of the requested notification types the server will send.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The requested types the server supports and will send.
    pub notifications: SubscriptionFilter,
    /// Metadata, holding the subscription id under [`SUBSCRIPTION_ID_META_KEY`].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// The subscription this acknowledges, from `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        subscription_id(self.meta.as_ref())
    }
}

fn subscription_id_value(id: &RequestId) -> serde_json::Value {
    match id {
        RequestId::Number(n) => (*n).into(),
        RequestId::String(s) => s.clone().into(),
    }
}

fn subscription_id(meta: Option<&Meta>) -> Option<RequestId> {
    serde_json::from_value(meta?.get(SUBSCRIPTION_ID_META_KEY)?.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_util::round_trip;

    #[test]
    fn examples_2026() {
        let req: SubscriptionsListenRequest = round_trip(
            r#"{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"_meta":{
                "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},
                "io.modelcontextprotocol/clientCapabilities":{}},
                "notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///project/config.json"]}}}"#,
        );
        assert_eq!(req.params.notifications.tools_list_changed, Some(true));

        let ack: SubscriptionsAcknowledgedNotification = round_trip(
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
                "_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"},
                "notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///project/config.json"]}}}"#,
        );
        assert_eq!(
            ack.params.subscription_id(),
            Some(RequestId::from("listen-1"))
        );

        let res: SubscriptionsListenResult = round_trip(
            r#"{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}"#,
        );
        assert_eq!(
            res,
            SubscriptionsListenResult::closing(&RequestId::from("listen-1"))
        );
        assert_eq!(res.subscription_id(), Some(RequestId::from("listen-1")));
        round_trip::<SubscriptionsListenResultResponse>(
            r#"{"jsonrpc":"2.0","id":"listen-1","result":{"resultType":"complete",
                "_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}"#,
        );
    }

    #[test]
    fn unknown_fields_and_numeric_ids() {
        let f: SubscriptionFilter = round_trip(
            r#"{"promptsListChanged":false,"resourcesListChanged":true,"futureKind":true}"#,
        );
        assert!(f.extra.contains_key("futureKind"));
        let r = SubscriptionsListenResult::closing(&RequestId::Number(9));
        assert_eq!(r.subscription_id(), Some(RequestId::Number(9)));
        round_trip::<SubscriptionsListenRequestParams>(r#"{"notifications":{},"x":1}"#);
    }
}
