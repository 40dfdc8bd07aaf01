//! Samples of the base protocol: the lifecycle (`initialize`, `ping` or `server/discover`, the
//! empty result) and the progress and cancellation notifications.

use mcp_types::{
    CacheScope, Cancelled, CancelledNotificationParams, Discover, DiscoverResult, EmptyParams,
    EmptyResult, Initialize, InitializeRequestParams, InitializeResult, Initialized, Ping,
    Progress, ProgressNotificationParams, ProgressToken, ProtocolVersion, RequestId,
    SERVER_INFO_META_KEY,
};

use super::Samples;
use super::values::{LISTEN_ID, meta_entry, to_json};

/// `initialize`, `notifications/initialized` and `ping` (up to 2025-11-25), `server/discover`
/// (2026-07-28), and the empty result.
pub(super) fn lifecycle(s: &mut Samples<'_>) {
    if s.rev.has_initialize() {
        let params = InitializeRequestParams::new(
            s.rev.clone(),
            s.client_capabilities(),
            s.implementation("example-client", "Example Client"),
        );
        s.request::<Initialize>("InitializeRequest", params);
        let result = {
            let mut built = InitializeResult::new(
                s.rev.clone(),
                s.server_capabilities(),
                s.implementation("example-server", "Example Server"),
            );
            built.instructions = Some("Use get_weather for forecasts.".to_owned());
            built
        };
        s.push("InitializeResult", &result);
        s.notification::<Initialized>("InitializedNotification", EmptyParams::default());
        s.request::<Ping>("PingRequest", EmptyParams::default());
    } else {
        let id = s.request::<Discover>("DiscoverRequest", EmptyParams::default());
        let server = s.implementation("example-server", "Example Server");
        let result = {
            let mut built = DiscoverResult::default();
            built.supported_versions = vec![ProtocolVersion::V2025_11_25, s.rev.clone()];
            built.capabilities = s.server_capabilities();
            built.instructions = Some("Use get_weather for forecasts.".to_owned());
            built.result_type = s.complete();
            built.ttl_ms = Some(3_600_000);
            built.cache_scope = Some(CacheScope::Public);
            built.meta = Some(meta_entry(SERVER_INFO_META_KEY, to_json(&server)));
            built
        };
        s.answer(id, "DiscoverResult", "DiscoverResultResponse", result);
    }
    let empty = {
        let mut built = EmptyResult::default();
        built.result_type = s.complete();
        built
    };
    s.push("EmptyResult", &empty);
}

/// `notifications/progress` and `notifications/cancelled`.
pub(super) fn progress_and_cancellation(s: &mut Samples<'_>) {
    let mut progress =
        ProgressNotificationParams::new(ProgressToken::String("call-progress-1".to_owned()), 50.0)
            .with_total(100.0);
    if s.since_2025_03_26() {
        progress = progress.with_message("Halfway there");
    }
    s.notification::<Progress>("ProgressNotification", progress);
    s.notification::<Progress>(
        "ProgressNotification",
        ProgressNotificationParams::new(ProgressToken::Number(7), 0.25),
    );
    // On 2026-07-28 the server sends it only to end a `subscriptions/listen` stream on stdio.
    let cancelled = if s.stateful() {
        CancelledNotificationParams::new(RequestId::Number(3)).with_reason("User gave up")
    } else {
        CancelledNotificationParams::new(LISTEN_ID).with_reason("Server shutting down")
    };
    s.notification::<Cancelled>("CancelledNotification", cancelled);
}
