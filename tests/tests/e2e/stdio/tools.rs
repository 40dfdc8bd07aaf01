//! Every tool of `everything-server`, with the fixture's exact payloads.

use mcp_jsonrpc::ErrorCode;
use mcp_types::{CallTool, CallToolRequestParams, ListTools, PaginatedRequestParams, SetLevel};
use serde_json::{Value, json};

use super::connect;
use crate::fixture;
use crate::support::client::Session;

/// The text of a result's single text block.
fn text_of(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "one block expected: {result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    content[0]["text"].as_str().expect("text")
}

/// The index in the wire log of the response whose result is `result`.
fn response_index(wire: &[Value], result: &Value) -> usize {
    wire.iter()
        .position(|m| m.get("id").is_some() && m.get("result") == Some(result))
        .unwrap_or_else(|| panic!("no response {result} on the wire"))
}

#[tokio::test]
async fn tools_list_has_all_14_tools_with_descriptions_and_schemas() {
    let session = connect().await;
    let listed = session
        .request::<ListTools>(&PaginatedRequestParams::default())
        .await
        .unwrap();
    assert!(listed.next_cursor.is_none());
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, fixture::tool_names());

    let raw = session.call::<ListTools>(json!({})).await.unwrap();
    let tools = raw["tools"].as_array().unwrap();
    for ((name, description), tool) in fixture::TOOLS.iter().zip(tools) {
        // Exactly these keys: name, description, inputSchema (schemas verbatim).
        assert_eq!(
            *tool,
            json!({
                "name": name,
                "description": description,
                "inputSchema": fixture::input_schema(name),
            }),
            "tool {name}"
        );
    }
    session.close().await;
}

#[tokio::test]
async fn content_tools_return_the_fixture_payloads() {
    let session = connect().await;
    for tool in [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_reconnection",
    ] {
        // The conformance suite calls test_simple_text without `arguments`, the others
        // with `{}`; both must work.
        for args in [Value::Null, json!({})] {
            let result = session.call_tool(tool, args).await;
            assert_eq!(
                result,
                json!({"content": fixture::fixed_content(tool).unwrap()}),
                "{tool}"
            );
        }
    }
    session.close().await;
}

#[tokio::test]
async fn error_tool_fails_as_a_tool_result_not_a_jsonrpc_error() {
    let session = connect().await;
    let result = session.call_tool("test_error_handling", json!({})).await;
    assert_eq!(
        result,
        json!({
            "content": fixture::fixed_content("test_error_handling").unwrap(),
            "isError": true
        })
    );
    // An unknown tool, by contrast, is a protocol error.
    let err = session
        .call_err::<CallTool>(json!({"name": "no_such_tool", "arguments": {}}))
        .await;
    assert_eq!(err.code, ErrorCode(-32602));
    session.close().await;
}

#[tokio::test]
async fn json_schema_2020_12_tool_validates_and_echoes_its_arguments() {
    let session = connect().await;
    let args = json!({"name": "Alice", "contactMethod": "phone", "phone": "555-0100",
        "address": {"street": "1 Main St", "city": "Springfield"}});
    let result = session
        .call_tool("json_schema_2020_12_tool", args.clone())
        .await;
    let text = text_of(&result);
    let echoed = text
        .strip_prefix("JSON Schema 2020-12 tool called with: ")
        .unwrap_or_else(|| panic!("unexpected text {text}"));
    assert_eq!(serde_json::from_str::<Value>(echoed).unwrap(), args);

    // `if contactMethod = phone then phone required`, and no extra properties.
    for bad in [
        json!({"contactMethod": "phone", "email": "a@example.com"}),
        json!({"email": "a@example.com", "nickname": "al"}),
        json!({}),
    ] {
        let err = session
            .call_err::<CallTool>(json!({"name": "json_schema_2020_12_tool", "arguments": bad}))
            .await;
        assert_eq!(err.code, ErrorCode(-32602), "{bad}: {err:?}");
    }
    session.close().await;
}

#[tokio::test]
async fn logging_tool_sends_three_info_messages_in_order_before_its_result() {
    let session = connect().await;
    // As the conformance scenario does: lower the level first.
    session
        .call::<SetLevel>(json!({"level": "debug"}))
        .await
        .unwrap();
    let result = session.call_tool("test_tool_with_logging", json!({})).await;
    assert_eq!(
        result["content"],
        fixture::fixed_content("test_tool_with_logging").unwrap()
    );
    let logs = session
        .wait_for("3 log messages", 3, |m| {
            m["method"] == "notifications/message"
        })
        .await;
    let expected: Vec<Value> = fixture::LOG_MESSAGES
        .iter()
        .map(|text| {
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": text}})
        })
        .collect();
    assert_eq!(logs, expected);
    let wire = session.wire();
    let response = response_index(&wire, &result);
    let last_log = wire.iter().rposition(|m| *m == expected[2]).unwrap();
    assert!(last_log < response, "a log message came after the result");

    // Above the tool's level, nothing is sent.
    session
        .call::<SetLevel>(json!({"level": "error"}))
        .await
        .unwrap();
    session.call_tool("test_tool_with_logging", json!({})).await;
    session.call_tool("test_simple_text", json!({})).await;
    let count = session
        .wire()
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .count();
    assert_eq!(count, 3, "no log messages at level error");
    session.close().await;
}

#[tokio::test]
async fn progress_tool_reports_0_50_100_with_the_token_before_its_result() {
    let session = connect().await;
    for token in [json!("progress-test-1"), json!(7)] {
        let mut params = CallToolRequestParams::new("test_tool_with_progress");
        params.arguments = Some(Default::default());
        let params = {
            let mut v = serde_json::to_value(&params).unwrap();
            v["_meta"] = json!({"progressToken": token});
            v
        };
        let result = session.call::<CallTool>(params).await.unwrap();
        let expected_text = match &token {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        assert_eq!(text_of(&result), expected_text);

        let progress = session
            .wait_for("3 progress notifications", 3, |m| {
                m["method"] == "notifications/progress" && m["params"]["progressToken"] == token
            })
            .await;
        let steps: Vec<(f64, f64, &str)> = progress
            .iter()
            .map(|m| {
                let p = &m["params"];
                (
                    p["progress"].as_f64().unwrap(),
                    p["total"].as_f64().unwrap(),
                    p["message"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            steps,
            [
                (0.0, 100.0, "Completed step 0 of 100"),
                (50.0, 100.0, "Completed step 50 of 100"),
                (100.0, 100.0, "Completed step 100 of 100"),
            ]
        );
        // Progress for a request stops with its response.
        let wire = session.wire();
        let response = response_index(&wire, &result);
        let last = wire.iter().rposition(|m| *m == progress[2]).unwrap();
        assert!(last < response, "progress came after the result");
    }

    // Without a token: no progress, and the reference's fallback token "0" as text.
    let before = count_progress(&session);
    let result = session
        .call_tool("test_tool_with_progress", json!({}))
        .await;
    assert_eq!(text_of(&result), "0");
    assert_eq!(count_progress(&session), before);
    session.close().await;
}

fn count_progress(session: &Session) -> usize {
    session
        .wire()
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count()
}

#[tokio::test]
async fn sampling_tool_asks_the_client_llm_and_returns_its_answer() {
    let session = connect().await;
    let result = session
        .call_tool(
            "test_sampling",
            json!({"prompt": "Test prompt for sampling"}),
        )
        .await;
    assert_eq!(
        text_of(&result),
        "LLM response: This is a test response from the client"
    );
    let requests = session.server_requests("sampling/createMessage", 1).await;
    assert_eq!(
        requests[0],
        json!({
            "messages": [{"role": "user",
                "content": {"type": "text", "text": "Test prompt for sampling"}}],
            "maxTokens": 100
        })
    );
    // A missing required argument is refused before the tool runs.
    let err = session
        .call_err::<CallTool>(json!({"name": "test_sampling", "arguments": {}}))
        .await;
    assert_eq!(err.code, ErrorCode(-32602));
    session.close().await;
}

#[tokio::test]
async fn sampling_tool_reports_a_client_without_sampling() {
    // A client that declares no capabilities: the server must not send the request.
    let session = Session::spawn(crate::support::bins::everything_server()).unwrap();
    session
        .call::<mcp_types::Initialize>(json!({
            "protocolVersion": crate::support::client::PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "bare", "version": "1"}
        }))
        .await
        .unwrap();
    let result = session
        .call_tool("test_sampling", json!({"prompt": "hi"}))
        .await;
    assert_eq!(
        text_of(&result),
        "Sampling not supported or error: the client did not declare the sampling capability"
    );
    let result = session
        .call_tool("test_elicitation", json!({"message": "hi"}))
        .await;
    assert!(
        text_of(&result).starts_with("Elicitation not supported or error: "),
        "{result}"
    );
    assert!(
        !session
            .wire()
            .iter()
            .any(|m| m.get("method").is_some() && m.get("id").is_some()),
        "no server-to-client request may be sent"
    );
    session.close().await;
}

#[tokio::test]
async fn elicitation_tool_sends_its_form_and_reports_the_answer() {
    let session = connect().await;
    // The conformance harness's answer (it does not match the schema; the server reports it).
    session.answer_next_elicitation(json!({"action": "accept",
        "content": {"username": "testuser", "email": "test@example.com"}}));
    let result = session
        .call_tool(
            "test_elicitation",
            json!({"message": "Please provide your information"}),
        )
        .await;
    // JSON objects are unordered; the server writes the keys sorted.
    assert_eq!(
        text_of(&result),
        r#"User response: action=accept, content={"email":"test@example.com","username":"testuser"}"#
    );
    let request = &session.server_requests("elicitation/create", 1).await[0];
    assert_eq!(
        *request,
        json!({"message": "Please provide your information",
            "requestedSchema": fixture::elicitation_schema()})
    );

    // No queued answer: the client declines.
    let result = session
        .call_tool("test_elicitation", json!({"message": "again"}))
        .await;
    assert_eq!(
        text_of(&result),
        "User response: action=decline, content={}"
    );
    session.close().await;
}

#[tokio::test]
async fn sep1034_elicitation_sends_defaults_for_every_field() {
    let session = connect().await;
    session.answer_next_elicitation(json!({"action": "accept", "content": {
        "name": "Jane Smith", "age": 25, "score": 88.0, "status": "inactive", "verified": false}}));
    let result = session
        .call_tool("test_elicitation_sep1034_defaults", json!({}))
        .await;
    assert_eq!(
        text_of(&result),
        r#"Elicitation completed: action=accept, content={"age":25,"name":"Jane Smith","score":88.0,"status":"inactive","verified":false}"#
    );
    let request = &session.server_requests("elicitation/create", 1).await[0];
    let expected = json!({"message": "Please review and update the form fields with defaults",
        "requestedSchema": fixture::sep1034_schema()});
    // mcp-types holds number-schema defaults as f64, so `"default": 30` goes out as `30.0`:
    // the same JSON number.
    assert!(
        fixture::same_json(request, &expected),
        "sent {request}\nexpected {expected}"
    );
    session.close().await;
}

#[tokio::test]
async fn sep1330_elicitation_sends_every_enum_shape() {
    let session = connect().await;
    session.answer_next_elicitation(json!({"action": "accept", "content": {
        "untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
        "untitledMulti": ["option1", "option2"], "titledMulti": ["value1", "value2"]}}));
    let result = session
        .call_tool("test_elicitation_sep1330_enums", json!({}))
        .await;
    assert_eq!(
        text_of(&result),
        r#"Elicitation completed: action=accept, content={"legacyEnum":"opt1","titledMulti":["value1","value2"],"titledSingle":"value1","untitledMulti":["option1","option2"],"untitledSingle":"option1"}"#
    );
    let request = &session.server_requests("elicitation/create", 1).await[0];
    assert_eq!(
        *request,
        json!({"message": "Please select options from the enum fields",
            "requestedSchema": fixture::sep1330_schema()})
    );
    session.close().await;
}
