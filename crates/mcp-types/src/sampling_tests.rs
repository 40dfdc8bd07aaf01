use serde_json::json;

use crate::result::test_util::{decode_err, round_trip};
use crate::*;

const BASIC_PARAMS: &str = r#"{"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
    "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8, "speedPriority": 0.5},
    "systemPrompt": "You are a helpful assistant.", "maxTokens": 100}"#;

#[test]
fn create_message_params() {
    let p: CreateMessageRequestParams = round_trip(BASIC_PARAMS);
    assert_eq!(p.max_tokens, 100);
    assert_eq!(
        p.messages[0],
        SamplingMessage::user_text("What is the capital of France?")
    );
    let p: CreateMessageRequestParams = round_trip(
        r#"{"messages": [
              {"role": "user", "content": {"type": "text", "text": "Weather in Paris and London?"}},
              {"role": "assistant", "content": [
                  {"type": "tool_use", "id": "call_abc123", "name": "get_weather", "input": {"city": "Paris"}},
                  {"type": "tool_use", "id": "call_def456", "name": "get_weather", "input": {"city": "London"}}]},
              {"role": "user", "content": [
                  {"type": "tool_result", "toolUseId": "call_abc123", "content": [{"type": "text", "text": "18°C"}]},
                  {"type": "tool_result", "toolUseId": "call_def456", "content": [{"type": "text", "text": "15°C"}]}]}],
            "tools": [{"name": "get_weather", "description": "Get current weather for a city",
                       "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
            "toolChoice": {"mode": "auto"}, "maxTokens": 1000}"#,
    );
    assert_eq!(p.messages[1].content.blocks().len(), 2);
    assert_eq!(p.tool_choice, Some(ToolChoice::new(ToolChoiceMode::Auto)));
    // 2024-11-05 fields and 2025-11-25 task.
    let p: CreateMessageRequestParams = round_trip(
        r#"{"messages": [{"role": "user", "content": {"type": "image", "data": "AA==", "mimeType": "image/png"}}],
            "includeContext": "thisServer", "temperature": 0.7, "maxTokens": 5, "stopSequences": ["\n"],
            "metadata": {"provider": {"x": 1}}, "task": {"ttl": 1000}, "_meta": {"progressToken": 3}, "future": 1}"#,
    );
    assert_eq!(p.include_context, Some(IncludeContext::ThisServer));
    round_trip::<ModelPreferences>(
        r#"{"hints": [{"name": "claude-3-sonnet"}, {"name": "claude"}], "costPriority": 0.3,
            "speedPriority": 0.8, "intelligencePriority": 0.5}"#,
    );
    round_trip::<ToolChoice>(r#"{"mode": "none"}"#);
}

#[test]
fn create_message_request_both_forms() {
    // 2026-07-28: an input request, without jsonrpc and id.
    let r: CreateMessageRequest = round_trip(&format!(
        r#"{{"method": "sampling/createMessage", "params": {BASIC_PARAMS}}}"#
    ));
    assert_eq!((r.jsonrpc, r.id), (None, None));
    // Up to 2025-11-25: a JSON-RPC request.
    let r: CreateMessageRequest = round_trip(&format!(
        r#"{{"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {BASIC_PARAMS}}}"#
    ));
    assert_eq!(r.id, Some(RequestId::Number(9)));
    let err = decode_err::<CreateMessageRequest>(&format!(
        r#"{{"method": "roots/list", "params": {BASIC_PARAMS}}}"#
    ));
    assert!(
        err.contains("expected method \"sampling/createMessage\""),
        "{err}"
    );
    let v = serde_json::to_value(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![],
        1,
    )))
    .unwrap();
    assert_eq!(
        v,
        json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}})
    );
}

#[test]
fn sampling_messages() {
    let m: SamplingMessage = round_trip(
        r#"{"role": "user", "content": [
              {"type": "tool_result", "toolUseId": "call_123", "content": [{"type": "text", "text": "Result 1"}]},
              {"type": "tool_result", "toolUseId": "call_456", "content": [{"type": "text", "text": "Result 2"}]}]}"#,
    );
    assert!(matches!(m.content, SamplingContent::Multiple(_)));
    let m: SamplingMessage = round_trip(
        r#"{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}"#,
    );
    assert!(matches!(m.content, SamplingContent::Single(_)));
    // A one-element array stays an array.
    round_trip::<SamplingMessage>(
        r#"{"role": "assistant", "content": [{"type": "text", "text": "x"}], "_meta": {"k": 1}}"#,
    );
    // 2025-03-26 audio, single block.
    round_trip::<SamplingMessage>(
        r#"{"role": "user", "content": {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}}"#,
    );
}

#[test]
fn create_message_results() {
    let r: CreateMessageResult = round_trip(
        r#"{"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
            "model": "claude-3-sonnet-20240307", "stopReason": "endTurn"}"#,
    );
    assert_eq!(
        r.content.first_text(),
        Some("The capital of France is Paris.")
    );
    round_trip::<CreateMessageResult>(
        r#"{"role": "assistant", "content": [
              {"type": "tool_use", "id": "call_abc123", "name": "get_weather", "input": {"city": "Paris"}},
              {"type": "tool_use", "id": "call_def456", "name": "get_weather", "input": {"city": "London"}}],
            "model": "claude-3-sonnet-20240307", "stopReason": "toolUse"}"#,
    );
    round_trip::<CreateMessageResult>(
        r#"{"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m", "_meta": {"k": 1}, "extra": 2}"#,
    );
    let v = serde_json::to_value(CreateMessageResult::new("m", TextContent::new("hi"))).unwrap();
    assert_eq!(
        v,
        json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})
    );
    assert_eq!(<CreateMessage as Request>::METHOD, "sampling/createMessage");
}
