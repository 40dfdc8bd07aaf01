use serde_json::{Value, json};

use crate::result::test_util::round_trip;
use crate::*;

const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {}}"#;

#[test]
fn tool_examples_2026_round_trip() {
    let t: Tool = round_trip(
        r#"{"name": "list_users", "title": "User List", "description": "Returns a list of all users",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "array", "items": {"type": "object",
                "properties": {"id": {"type": "string", "description": "User ID"}},
                "required": ["id"]}}}"#,
    );
    assert_eq!(
        t.output_schema.as_ref().and_then(|s| s.get("type")),
        Some(&json!("array"))
    );
    round_trip::<Tool>(
        r#"{"name": "find_resource", "title": "Resource Finder", "description": "Find a resource",
            "inputSchema": {"type": "object", "oneOf": [
                {"properties": {"id": {"type": "string"}}, "required": ["id"]},
                {"properties": {"name": {"type": "string"}}, "required": ["name"]}]}}"#,
    );
    round_trip::<Tool>(
        r##"{"name": "calculate_sum", "description": "Add two numbers",
            "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}"##,
    );
    let t: Tool = round_trip(
        r#"{"name": "get_current_time", "description": "Returns the current server time",
            "inputSchema": {"type": "object", "additionalProperties": false}}"#,
    );
    assert_eq!(
        t.input_schema.get("additionalProperties"),
        Some(&Value::Bool(false))
    );
    round_trip::<Tool>(
        r#"{"name": "get_weather_data", "title": "Weather Data Retriever",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
            "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}},
                             "required": ["temperature"]},
            "icons": [{"src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]}"#,
    );
}

#[test]
fn schema_keywords_are_kept_verbatim() {
    let t: Tool = round_trip(
        r##"{"name": "x", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "$defs": {"p": {"type": "integer", "default": 3, "minimum": 0}},
            "properties": {"p": {"$ref": "#/$defs/p"}, "q": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            "if": {"required": ["p"]}, "then": {"required": ["q"]}, "x-mcp-header": "X-P"}}"##,
    );
    assert!(t.input_schema.contains_key("$defs"));
}

#[test]
fn tool_older_revisions_round_trip() {
    // 2024-11-05: no title, annotations, outputSchema or _meta.
    round_trip::<Tool>(
        r#"{"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}"#,
    );
    // 2025-03-26 annotations; 2025-11-25 execution.
    let t: Tool = round_trip(
        r#"{"name": "rm", "inputSchema": {"type": "object"},
            "annotations": {"title": "Remove", "readOnlyHint": false, "destructiveHint": true,
                            "idempotentHint": true, "openWorldHint": false},
            "execution": {"taskSupport": "optional"}, "_meta": {"k": 1}, "vendorField": [1]}"#,
    );
    assert_eq!(
        t.execution.and_then(|e| e.task_support),
        Some(ToolTaskSupport::Optional)
    );
    assert_eq!(t.extra.get("vendorField"), Some(&json!([1])));
}

#[test]
fn call_tool_params_and_requests() {
    let p: CallToolRequestParams = round_trip(&format!(
        r#"{{"_meta": {META_2026}, "name": "get_weather", "arguments": {{"location": "New York"}}}}"#
    ));
    assert_eq!(p.name, "get_weather");
    let p: CallToolRequestParams = round_trip(
        r#"{"_meta": {"progressToken": "oivaizmir"}, "name": "build_simulation", "arguments": {"city": "Micropolis"}}"#,
    );
    assert_eq!(
        p.meta.as_ref().and_then(|m| m.get("progressToken")),
        Some(&json!("oivaizmir"))
    );
    // 2025-11-25 task; 2026-07-28 retry fields.
    round_trip::<CallToolRequestParams>(r#"{"name": "slow", "task": {"ttl": 60000}}"#);
    round_trip::<CallToolRequestParams>(
        r#"{"name": "x", "inputResponses": {"a": {"action": "decline"}}, "requestState": "abc"}"#,
    );
    let r: CallToolRequest = round_trip(&format!(
        r#"{{"jsonrpc": "2.0", "id": "call-tool-example", "method": "tools/call",
            "params": {{"_meta": {META_2026}, "name": "get_weather", "arguments": {{"location": "New York"}}}}}}"#
    ));
    assert_eq!(r.id, RequestId::from("call-tool-example"));
    // 2024-11-05: integer id, no _meta.
    round_trip::<CallToolRequest>(
        r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo"}}"#,
    );
    assert!(
        serde_json::from_str::<CallToolRequest>(
            r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"name": "echo"}}"#
        )
        .is_err()
    );
}

#[test]
fn call_tool_results() {
    let r: CallToolResult = round_trip(
        r#"{"resultType": "complete", "content": [{"type": "text", "text": "Invalid departure date"}], "isError": true}"#,
    );
    assert!(r.is_error());
    assert_eq!(r.result_type, Some(ResultType::Complete));
    let r: CallToolResult = round_trip(
        r#"{"resultType": "complete", "content": [{"type": "text", "text": "Found 2 users"}],
            "structuredContent": [{"id": "1", "name": "Alice"}, {"id": "2", "name": "Bob"}]}"#,
    );
    assert!(r.structured_content.as_ref().is_some_and(Value::is_array));
    round_trip::<CallToolResult>(
        r#"{"resultType": "complete", "content": [{"type": "text", "text": "{\"temperature\": 22.5}"}],
            "structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}}"#,
    );
    round_trip::<CallToolResult>(
        r#"{"resultType": "complete", "content": [{"type": "text", "text": "72°F"}], "isError": false}"#,
    );
    // Older revisions: no resultType; a present null structuredContent survives.
    round_trip::<CallToolResult>(
        r#"{"content": [], "structuredContent": null, "_meta": {"k": 1}, "x": 2}"#,
    );
    let resp: CallToolResultResponse = round_trip(
        r#"{"jsonrpc": "2.0", "id": "call-tool-example",
            "result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}], "isError": false}}"#,
    );
    assert_eq!(resp.result.content[0].as_text(), Some("ok"));
}

#[test]
fn call_tool_result_constructors() {
    let v = serde_json::to_value(CallToolResult::error("boom")).unwrap();
    assert_eq!(
        v,
        json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
    );
    let v = serde_json::to_value(CallToolResult::structured(json!({"a": 1}))).unwrap();
    assert_eq!(
        v,
        json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}})
    );
    let t = Tool::new("now", Tool::empty_input_schema());
    assert_eq!(
        serde_json::to_value(t).unwrap(),
        json!({"name": "now", "inputSchema": {"type": "object"}})
    );
}

#[test]
fn list_tools() {
    let tools = r#"[{"name": "get_weather", "title": "Weather Information Provider",
        "description": "Get current weather information for a location",
        "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
        "icons": [{"src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]}]"#;
    let r: ListToolsResult = round_trip(&format!(
        r#"{{"resultType": "complete", "tools": {tools}, "nextCursor": "next-page-cursor",
            "ttlMs": 300000, "cacheScope": "public"}}"#
    ));
    assert_eq!(
        (r.ttl_ms, r.cache_scope),
        (Some(300000), Some(CacheScope::Public))
    );
    round_trip::<ListToolsResultResponse>(&format!(
        r#"{{"jsonrpc": "2.0", "id": "list-tools-example", "result": {{"resultType": "complete",
            "tools": {tools}, "nextCursor": "next-page-cursor", "ttlMs": 3600000, "cacheScope": "public"}}}}"#
    ));
    round_trip::<ListToolsResult>(r#"{"tools": []}"#);
    round_trip::<ListToolsRequest>(&format!(
        r#"{{"jsonrpc": "2.0", "id": "list-tools-example", "method": "tools/list", "params": {{"_meta": {META_2026}}}}}"#
    ));
    let p: PaginatedRequestParams = round_trip(&format!(
        r#"{{"_meta": {META_2026}, "cursor": "eyJwYWdlIjogMn0="}}"#
    ));
    assert_eq!(p.cursor.as_deref(), Some("eyJwYWdlIjogMn0="));
    // Older revisions may omit params entirely.
    let r: ListToolsRequest =
        serde_json::from_str(r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#).unwrap();
    assert_eq!(r.params, PaginatedRequestParams::default());
}

#[test]
fn tool_list_changed() {
    round_trip::<ToolListChangedNotification>(
        r#"{"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}}"#,
    );
    round_trip::<ToolListChangedNotification>(
        r#"{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}"#,
    );
    assert_eq!(<ListTools as Request>::METHOD, "tools/list");
    assert_eq!(<CallTool as Request>::METHOD, "tools/call");
}
