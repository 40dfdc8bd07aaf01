use serde_json::json;

use crate::result::test_util::round_trip;
use crate::*;

const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {}}"#;

#[test]
fn resource_shapes() {
    round_trip::<Resource>(
        r#"{"uri": "file:///project/README.md", "name": "README.md", "title": "Project Documentation",
            "mimeType": "text/markdown",
            "annotations": {"audience": ["user"], "priority": 0.8, "lastModified": "2025-01-12T15:00:58Z"}}"#,
    );
    // 2024-11-05: no title, icons or _meta.
    let r: Resource = round_trip(
        r#"{"uri": "file:///a", "name": "a", "description": "d", "mimeType": "text/plain", "size": 12,
            "annotations": {"audience": ["assistant"], "priority": 1}}"#,
    );
    assert_eq!(r.size, Some(12));
    let r: Resource =
        round_trip(r#"{"uri": "x:1", "name": "x", "_meta": {"k": true}, "vendor": 1}"#);
    assert_eq!(r.extra.get("vendor"), Some(&json!(1)));
    round_trip::<ResourceTemplate>(
        r#"{"uriTemplate": "file:///{path}", "name": "Project Files", "title": "📁 Project Files",
            "description": "Access files", "mimeType": "application/octet-stream",
            "icons": [{"src": "https://example.com/folder-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]}"#,
    );
}

#[test]
fn list_results() {
    let r: ListResourcesResult = round_trip(
        r#"{"resultType": "complete", "resources": [{"uri": "file:///project/src/main.rs", "name": "main.rs",
            "title": "Rust Software Application Main File", "description": "Primary application entry point",
            "mimeType": "text/x-rust",
            "icons": [{"src": "https://example.com/rust-file-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]}],
            "nextCursor": "eyJwYWdlIjogM30=", "ttlMs": 600000, "cacheScope": "private"}"#,
    );
    assert_eq!(r.cache_scope, Some(CacheScope::Private));
    round_trip::<ListResourcesResultResponse>(
        r#"{"jsonrpc": "2.0", "id": "list-resources-example",
            "result": {"resultType": "complete", "resources": [], "ttlMs": 0, "cacheScope": "public"}}"#,
    );
    round_trip::<ListResourcesResult>(r#"{"resources": [], "nextCursor": "c"}"#);
    round_trip::<ListResourceTemplatesResult>(
        r#"{"resultType": "complete", "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "Project Files"}],
            "nextCursor": "next-page-cursor", "ttlMs": 3600000, "cacheScope": "public"}"#,
    );
    round_trip::<ListResourceTemplatesResultResponse>(
        r#"{"jsonrpc": "2.0", "id": "list-resource-templates-example",
            "result": {"resultType": "complete", "resourceTemplates": [], "ttlMs": 3600000, "cacheScope": "public"}}"#,
    );
    round_trip::<ListResourceTemplatesResult>(r#"{"resourceTemplates": [], "_meta": {"a": 1}}"#);
}

#[test]
fn requests() {
    round_trip::<ListResourcesRequest>(&format!(
        r#"{{"jsonrpc": "2.0", "id": "list-resources-example", "method": "resources/list", "params": {{"_meta": {META_2026}}}}}"#
    ));
    round_trip::<ListResourceTemplatesRequest>(&format!(
        r#"{{"jsonrpc": "2.0", "id": "t", "method": "resources/templates/list", "params": {{"_meta": {META_2026}}}}}"#
    ));
    let r: ReadResourceRequest = round_trip(&format!(
        r#"{{"jsonrpc": "2.0", "id": "read-resource-example", "method": "resources/read",
            "params": {{"_meta": {META_2026}, "uri": "file:///project/src/main.rs"}}}}"#
    ));
    assert_eq!(r.params.uri, "file:///project/src/main.rs");
    round_trip::<ReadResourceRequestParams>(
        r#"{"uri": "a:1", "requestState": "s", "inputResponses": {"k": {"action": "cancel"}}}"#,
    );
    round_trip::<SubscribeRequest>(
        r#"{"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": "file:///a"}}"#,
    );
    round_trip::<UnsubscribeRequest>(
        r#"{"jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": {"uri": "file:///a", "_meta": {"progressToken": 1}}}"#,
    );
    round_trip::<ResourceRequestParams>(r#"{"uri": "a:1", "future": "x"}"#);
}

#[test]
fn read_results() {
    let text = r#"[{"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust",
        "text": "fn main() {\n    println!(\"Hello world!\");\n}"}]"#;
    let r: ReadResourceResult = round_trip(&format!(
        r#"{{"resultType": "complete", "contents": {text}, "ttlMs": 60000, "cacheScope": "private"}}"#
    ));
    assert_eq!(r.ttl_ms, Some(60000));
    round_trip::<ReadResourceResultResponse>(&format!(
        r#"{{"jsonrpc": "2.0", "id": "read-resource-example", "result": {{"resultType": "complete", "contents": {text}}}}}"#
    ));
    let r: ReadResourceResult =
        round_trip(r#"{"contents": [{"uri": "a:1", "blob": "AA=="}, {"uri": "a:2", "text": ""}]}"#);
    assert!(matches!(r.contents[0], ResourceContents::Blob(_)));
}

#[test]
fn notifications() {
    let n: ResourceUpdatedNotification = round_trip(
        r#"{"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}, "uri": "file:///project/src/main.rs"}}"#,
    );
    assert_eq!(n.params.uri, "file:///project/src/main.rs");
    round_trip::<ResourceUpdatedNotificationParams>(r#"{"uri": "file:///project/src/main.rs"}"#);
    round_trip::<ResourceListChangedNotification>(
        r#"{"jsonrpc": "2.0", "method": "notifications/resources/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}}"#,
    );
    round_trip::<ResourceListChangedNotification>(
        r#"{"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}"#,
    );
    assert_eq!(
        <ListResourceTemplates as Request>::METHOD,
        "resources/templates/list"
    );
    assert_eq!(
        <ResourceUpdated as Notification>::METHOD,
        "notifications/resources/updated"
    );
}
