//! Samples of what only the stateless era (2026-07-28) has: the `subscriptions/listen` stream
//! with its acknowledgement, and the `InputRequiredResult` with the retry that answers it.

use std::collections::BTreeMap;

use mcp_types::{
    CallTool, CallToolRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitResult,
    EmptyParams, InputRequest, InputRequests, InputRequiredResult, InputResponse, InputResponses,
    JsonRpcResultResponse, JsonRpcVersion, RequestId, SamplingContent, SubscriptionFilter,
    SubscriptionsAcknowledged, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListen,
    SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use serde_json::json;

use super::Samples;
use super::client_features::{create_message, form_answers, list_roots, requested_schema};
use super::values::{LISTEN_ID, object};

/// `subscriptions/listen` and its acknowledgement (2026-07-28).
pub(super) fn subscriptions(s: &mut Samples<'_>) {
    if s.stateful() {
        return;
    }
    let filter = {
        let mut built = SubscriptionFilter::default();
        built.tools_list_changed = Some(true);
        built.prompts_list_changed = Some(true);
        built.resources_list_changed = Some(false);
        built.resource_subscriptions = Some(vec!["file:///project/src/main.rs".to_owned()]);
        built
    };
    let id = RequestId::from(LISTEN_ID);
    s.request_with_id::<SubscriptionsListen>("SubscriptionsListenRequest", id.clone(), {
        let mut built = SubscriptionsListenRequestParams::default();
        built.notifications = filter.clone();
        built
    });
    s.notification::<SubscriptionsAcknowledged>("SubscriptionsAcknowledgedNotification", {
        let mut built = SubscriptionsAcknowledgedNotificationParams::default();
        built.notifications = {
            let mut built = filter;
            built.resources_list_changed = None;
            built
        };
        built.meta = s.subscription_meta();
        built
    });
    s.answer(
        id.clone(),
        "SubscriptionsListenResult",
        "SubscriptionsListenResultResponse",
        SubscriptionsListenResult::closing(&id),
    );
}

/// `InputRequiredResult` and the retry that answers it (2026-07-28).
pub(super) fn input_required(s: &mut Samples<'_>) {
    if s.stateful() {
        return;
    }
    let profile = ElicitRequestFormParams::new("Please fill in your profile", requested_schema(s));
    let requests: InputRequests = BTreeMap::from([
        ("profile".to_owned(), InputRequest::Elicit(profile.into())),
        (
            "summary".to_owned(),
            InputRequest::CreateMessage(create_message(s)),
        ),
        (
            "roots".to_owned(),
            InputRequest::ListRoots(EmptyParams::default()),
        ),
    ]);
    let needed = InputRequiredResult::new(requests).with_request_state("eyJzdGVwIjoyfQ");
    s.push("InputRequiredResult", &needed);
    s.push(
        "InputRequiredResult",
        &InputRequiredResult::default().with_request_state("eyJzdGVwIjozfQ"),
    );
    // A `*ResultResponse` of a retryable request may hold an `InputRequiredResult`.
    let id = s.next_id();
    s.push(
        "CallToolResultResponse",
        &JsonRpcResultResponse {
            jsonrpc: JsonRpcVersion,
            id,
            result: needed,
        },
    );

    let responses: InputResponses = BTreeMap::from([
        (
            "profile".to_owned(),
            InputResponse::Elicit(ElicitResult::accept(Some(form_answers(s)))),
        ),
        (
            "summary".to_owned(),
            CreateMessageResult::new("claude-sonnet-4", SamplingContent::text("Paris.")).into(),
        ),
        ("roots".to_owned(), list_roots().into()),
    ]);
    let retry = {
        let mut built =
            CallToolRequestParams::with_arguments("get_weather", object(json!({"city": "Paris"})));
        built.input_responses = Some(responses);
        built.request_state = Some("eyJzdGVwIjoyfQ".to_owned());
        built
    };
    s.request::<CallTool>("CallToolRequest", retry);
}
