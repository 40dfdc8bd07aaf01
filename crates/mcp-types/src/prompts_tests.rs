use serde_json::json;

use crate::result::test_util::round_trip;
use crate::*;

#[test]
fn prompt_shapes() {
    let p: Prompt = round_trip(
        r#"{"name": "code_review", "title": "Request Code Review",
            "description": "Asks the LLM to analyze code quality and suggest improvements",
            "arguments": [{"name": "code", "description": "The code to review", "required": true}],
            "icons": [{"src": "https://example.com/review-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}]}"#,
    );
    assert_eq!(p.arguments.as_ref().map(Vec::len), Some(1));
    // 2024-11-05: no title, icons or _meta.
    round_trip::<Prompt>(r#"{"name": "p", "description": "d", "arguments": [{"name": "a"}]}"#);
    let p: Prompt = round_trip(
        r#"{"name": "p", "_meta": {"k": 1}, "x": [], "arguments": [{"name": "a", "title": "A", "y": 2}]}"#,
    );
    assert_eq!(p.extra.get("x"), Some(&json!([])));
}

#[test]
fn list_prompts() {
    let r: ListPromptsResult = round_trip(
        r#"{"resultType": "complete", "prompts": [{"name": "code_review", "arguments": [{"name": "code", "required": true}]}],
            "nextCursor": "next-page-cursor", "ttlMs": 600000, "cacheScope": "public"}"#,
    );
    assert_eq!(r.next_cursor.as_deref(), Some("next-page-cursor"));
    round_trip::<ListPromptsResultResponse>(
        r#"{"jsonrpc": "2.0", "id": "list-prompts-example",
            "result": {"resultType": "complete", "prompts": [], "ttlMs": 600000, "cacheScope": "public"}}"#,
    );
    round_trip::<ListPromptsResult>(r#"{"prompts": []}"#);
    round_trip::<ListPromptsRequest>(
        r#"{"jsonrpc": "2.0", "id": "list-prompts-example", "method": "prompts/list",
            "params": {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}}"#,
    );
    round_trip::<ListPromptsRequest>(
        r#"{"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": {"cursor": "c"}}"#,
    );
}

#[test]
fn get_prompt() {
    let r: GetPromptRequest = round_trip(
        r#"{"jsonrpc": "2.0", "id": "get-prompt-example", "method": "prompts/get",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
                                 "io.modelcontextprotocol/clientCapabilities": {}},
                       "name": "code_review", "arguments": {"code": "def hello():\n    print('world')"}}}"#,
    );
    assert_eq!(
        r.params.arguments.as_ref().map(|a| a.contains_key("code")),
        Some(true)
    );
    round_trip::<GetPromptRequestParams>(
        r#"{"name": "p", "inputResponses": {}, "requestState": "s"}"#,
    );
    let with = GetPromptRequestParams::with_arguments(
        "code_review",
        [("code".to_owned(), "x = 1".to_owned())].into(),
    );
    assert_eq!(
        serde_json::to_value(&with).unwrap(),
        json!({"name": "code_review", "arguments": {"code": "x = 1"}})
    );
    let r: GetPromptResult = round_trip(
        r#"{"resultType": "complete", "description": "Code review prompt",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Please review this Python code"}}]}"#,
    );
    assert_eq!(
        r.messages[0],
        PromptMessage::user_text("Please review this Python code")
    );
    round_trip::<GetPromptResultResponse>(
        r#"{"jsonrpc": "2.0", "id": "get-prompt-example",
            "result": {"resultType": "complete", "messages": [{"role": "assistant", "content": {"type": "text", "text": "ok"}}]}}"#,
    );
    // 2024-11-05: embedded resource content, no resultType.
    round_trip::<GetPromptResult>(
        r#"{"messages": [{"role": "user", "content": {"type": "resource", "resource": {"uri": "a:1", "text": "t"}}},
                         {"role": "user", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}]}"#,
    );
}

#[test]
fn prompt_list_changed() {
    round_trip::<PromptListChangedNotification>(
        r#"{"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}}"#,
    );
    assert_eq!(<GetPrompt as Request>::METHOD, "prompts/get");
    assert_eq!(
        <PromptListChanged as Notification>::METHOD,
        "notifications/prompts/list_changed"
    );
}
