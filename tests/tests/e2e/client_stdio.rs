//! Our `mcp-client` against our `everything-server` over stdio: every tool, resource,
//! prompt and completion with the fixture's exact payloads, logs, progress, sampling,
//! elicitation (with SEP-1034 defaults applied by the client), cancellation and timeouts.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::TryStreamExt as _;
use mcp_client::{CallOptions, Client, EraChoice, ErrorCode, RequestContext};
use mcp_jsonrpc::CancellationToken;
use mcp_types::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, ElicitAction,
    ElicitRequestParams, ElicitResult, ElicitValue, GetPromptRequestParams, JsonObject,
    LoggingLevel, PromptReference, ProtocolVersion, ResourceTemplateReference,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::client_support::{MODEL_TEXT, Running, everything, recording_sampler};
use crate::fixture;
use crate::support::client::within;

/// Our client in the default era choice (auto), which speaks 2026-07-28 with our server.
async fn connect() -> Running {
    Running::start(everything(), Client::builder()).await
}

/// Our client pinned to the handshake era.
async fn connect_legacy() -> Running {
    Running::start(everything(), Client::builder().era(EraChoice::Legacy)).await
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let params = if arguments.is_null() {
        CallToolRequestParams::new(name)
    } else {
        CallToolRequestParams::with_arguments(name, args(arguments))
    };
    client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("tools/call {name}: {e}"))
}

/// The only text block of a result.
fn text_of(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    result.content[0]
        .as_text()
        .unwrap_or_else(|| panic!("not text: {result:?}"))
}

/// Splits `"<prefix>content=<json>"` and parses the JSON.
fn content_json(text: &str, prefix: &str) -> Value {
    let json = text
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{text:?} does not start with {prefix:?}"));
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json:?}: {e}"))
}

#[tokio::test]
async fn client_initializes_and_lists_every_fixture_tool() {
    // The handshake era, then 2026-07-28 (auto), which adds the revision's fixture tools
    // after the 14 of the handshake era.
    for (running, version, count) in [
        (connect_legacy().await, ProtocolVersion::V2025_11_25, 14),
        (connect().await, ProtocolVersion::V2026_07_28, 28),
    ] {
        let client = &running.client;
        assert_eq!(client.server_info().name, "mcp-conformance-test-server");
        assert_eq!(client.server_info().version, "1.0.0");
        assert_eq!(*client.protocol_version(), version);
        assert_eq!(
            serde_json::to_value(client.server_capabilities()).unwrap(),
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true},
                   "prompts": {"listChanged": true}, "logging": {}, "completions": {}})
        );
        let tools: Vec<_> = client.list_tools_stream().try_collect().await.unwrap();
        assert_eq!(tools.len(), count, "{version}");
        for (tool, (name, description)) in tools.iter().zip(fixture::TOOLS) {
            assert_eq!(tool.name, name);
            assert_eq!(tool.description.as_deref(), Some(description), "{name}");
            assert_eq!(
                Value::Object(tool.input_schema.clone()),
                fixture::input_schema(name),
                "{name}"
            );
        }
        running.close().await;
    }
}

#[tokio::test]
async fn client_calls_every_content_tool_and_gets_the_exact_payloads() {
    let running = connect().await;
    let client = &running.client;
    for (name, _) in fixture::TOOLS {
        let Some(expected) = fixture::fixed_content(name) else {
            continue;
        };
        let result = call(client, name, Value::Null).await;
        assert_eq!(
            serde_json::to_value(&result.content).unwrap(),
            expected,
            "{name}"
        );
        assert_eq!(result.is_error(), name == "test_error_handling", "{name}");
        assert_eq!(result.structured_content, None, "{name}");
    }
    // The content kinds and mime types, spelled out.
    let mixed = call(client, "test_multiple_content_types", Value::Null).await;
    let kinds: Vec<_> = serde_json::to_value(&mixed.content)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let audio = serde_json::to_value(
        call(client, "test_audio_content", Value::Null)
            .await
            .content,
    )
    .unwrap();
    assert_eq!(audio[0]["mimeType"], "audio/wav");

    let arguments = json!({"name": "Ada", "contactMethod": "email", "email": "ada@example.com",
        "address": {"street": "1 Main St", "city": "Springfield"}});
    let result = call(client, "json_schema_2020_12_tool", arguments.clone()).await;
    assert_eq!(
        content_json(text_of(&result), "JSON Schema 2020-12 tool called with: "),
        arguments
    );
    running.close().await;
}

#[tokio::test]
async fn client_handler_receives_the_logs_of_test_tool_with_logging() {
    let mut running = connect().await;
    running
        .client
        .set_logging_level(LoggingLevel::Debug)
        .await
        .unwrap();
    let result = call(&running.client, "test_tool_with_logging", json!({})).await;
    assert_eq!(text_of(&result), "Tool with logging executed successfully");
    let mut tool_logs = Vec::new();
    while tool_logs.len() < 3 {
        let log = running.next_log().await;
        // Anything else the server logs (e.g. about the level change) is not the tool's.
        if fixture::LOG_MESSAGES.iter().any(|m| log.data == *m) {
            tool_logs.push(serde_json::to_value(log).unwrap());
        }
    }
    let expected: Vec<Value> = fixture::LOG_MESSAGES
        .iter()
        .map(|m| json!({"level": "info", "data": m}))
        .collect();
    assert_eq!(tool_logs, expected);
    running.close().await;
}

#[tokio::test]
async fn call_tool_with_progress_sees_0_50_100() {
    let running = connect().await;
    let (mut progress, call) = running.client.call_tool_with_progress(
        CallToolRequestParams::with_arguments("test_tool_with_progress", JsonObject::new()),
        CallOptions::new(),
    );
    let result = within("test_tool_with_progress", call).await.unwrap();
    let mut seen = Vec::new();
    while let Some(p) = progress.recv().await {
        seen.push(p);
    }
    let values: Vec<_> = seen
        .iter()
        .map(|p| (p.progress, p.total, p.message.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        values,
        [0.0, 50.0, 100.0].map(|v| (v, Some(100.0), format!("Completed step {v} of 100")))
    );
    // The tool returns the token it was given: the one the progress carried.
    assert_eq!(text_of(&result), seen[0].progress_token.to_string());
    running.close().await;
}

#[tokio::test]
async fn sampling_handler_answers_test_sampling() {
    let (sampler, seen) = recording_sampler();
    let running = Running::start(everything(), Client::builder().sampling(sampler)).await;
    let result = call(
        &running.client,
        "test_sampling",
        json!({"prompt": "Test prompt for sampling"}),
    )
    .await;
    assert_eq!(text_of(&result), format!("LLM response: {MODEL_TEXT}"));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}],
                "maxTokens": 100})
        ]
    );
    running.close().await;
}

/// An elicitation handler that accepts with `{"response": <the message reversed>}`, declines
/// when the message is `"decline"`, and records the requests.
fn elicitor() -> (impl mcp_client::ElicitationHandler, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = move |params: ElicitRequestParams, _cx: RequestContext| {
        record
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
        let message = params.message().to_owned();
        async move {
            Ok(match message.as_str() {
                "decline" => ElicitResult::decline(),
                "Please select options from the enum fields" => {
                    ElicitResult::accept(Some(BTreeMap::from([
                        ("untitledSingle".to_owned(), ElicitValue::from("option2")),
                        ("titledSingle".to_owned(), ElicitValue::from("value3")),
                        ("legacyEnum".to_owned(), ElicitValue::from("opt1")),
                        (
                            "untitledMulti".to_owned(),
                            ElicitValue::StringArray(vec!["option1".into(), "option3".into()]),
                        ),
                        (
                            "titledMulti".to_owned(),
                            ElicitValue::StringArray(vec!["value2".into()]),
                        ),
                    ])))
                }
                _ => ElicitResult::accept(Some(BTreeMap::from([(
                    "response".to_owned(),
                    ElicitValue::from(message.chars().rev().collect::<String>()),
                )]))),
            })
        }
    };
    (handler, seen)
}

#[tokio::test]
async fn elicitation_handler_answers_test_elicitation_and_sep1330() {
    let (handler, seen) = elicitor();
    let running = Running::start(everything(), Client::builder().elicitation(handler)).await;
    let client = &running.client;

    let result = call(
        client,
        "test_elicitation",
        json!({"message": "Please provide your information"}),
    )
    .await;
    assert_eq!(
        text_of(&result),
        r#"User response: action=accept, content={"response":"noitamrofni ruoy edivorp esaelP"}"#
    );
    let result = call(client, "test_elicitation", json!({"message": "decline"})).await;
    assert_eq!(
        text_of(&result),
        "User response: action=decline, content={}"
    );

    let result = call(client, "test_elicitation_sep1330_enums", json!({})).await;
    assert_eq!(
        content_json(
            text_of(&result),
            "Elicitation completed: action=accept, content="
        ),
        json!({"untitledSingle": "option2", "titledSingle": "value3", "legacyEnum": "opt1",
               "untitledMulti": ["option1", "option3"], "titledMulti": ["value2"]})
    );

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0]["message"], "Please provide your information");
    assert_eq!(seen[0]["requestedSchema"], fixture::elicitation_schema());
    assert!(
        fixture::same_json(&seen[2]["requestedSchema"], &fixture::sep1330_schema()),
        "{}",
        seen[2]["requestedSchema"]
    );
    running.close().await;
}

/// Accepts every form with no content at all.
async fn accept_empty(
    _: ElicitRequestParams,
    _: RequestContext,
) -> Result<ElicitResult, mcp_client::ErrorObject> {
    Ok(ElicitResult::accept(Some(BTreeMap::new())))
}

#[tokio::test]
async fn sep1034_defaults_are_applied_by_the_client_when_asked() {
    let builder = Client::builder()
        .elicitation(accept_empty)
        .elicitation_apply_defaults(true);
    let running = Running::start(everything(), builder).await;
    let result = call(
        &running.client,
        "test_elicitation_sep1034_defaults",
        json!({}),
    )
    .await;
    let content = content_json(
        text_of(&result),
        "Elicitation completed: action=accept, content=",
    );
    assert!(
        fixture::same_json(
            &content,
            &json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        ),
        "{content}"
    );
    running.close().await;

    // Without applyDefaults the server sees exactly what the handler returned.
    let running = Running::start(everything(), Client::builder().elicitation(accept_empty)).await;
    let result = call(
        &running.client,
        "test_elicitation_sep1034_defaults",
        json!({}),
    )
    .await;
    assert_eq!(
        text_of(&result),
        "Elicitation completed: action=accept, content={}"
    );
    running.close().await;
}

#[tokio::test]
async fn resources_templates_and_not_found() {
    // The handshake era: `resources/subscribe` and -32002 (2026-07-28 is in client_eras.rs).
    let running = connect_legacy().await;
    let client = &running.client;
    let resources: Vec<_> = client.list_resources_stream().try_collect().await.unwrap();
    assert_eq!(
        serde_json::to_value(&resources).unwrap(),
        fixture::resources()
    );
    let templates: Vec<_> = client
        .list_resource_templates_stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&templates).unwrap(),
        fixture::templates()
    );

    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/42/data",
    ] {
        let read = client
            .read_resource(uri)
            .await
            .unwrap_or_else(|e| panic!("{uri}: {e}"));
        assert_eq!(
            serde_json::to_value(&read.contents).unwrap(),
            fixture::read_contents(uri),
            "{uri}"
        );
    }
    // Text, binary and the template variable, spelled out.
    let text =
        serde_json::to_value(client.read_resource("test://static-text").await.unwrap()).unwrap();
    assert_eq!(
        text["contents"][0]["text"],
        "This is the content of the static text resource."
    );
    let blob =
        serde_json::to_value(client.read_resource("test://static-binary").await.unwrap()).unwrap();
    assert_eq!(blob["contents"][0]["blob"], fixture::IMAGE);
    assert_eq!(blob["contents"][0]["mimeType"], "image/png");
    let templated = serde_json::to_value(
        client
            .read_resource("test://template/7/data")
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        templated["contents"][0]["text"],
        r#"{"id":"7","templateTest":true,"data":"Data for ID: 7"}"#
    );

    let missing = "test://nonexistent-resource-for-conformance-testing";
    match client.read_resource(missing).await {
        Err(mcp_client::Error::Rpc(e)) => {
            assert_eq!(e.code, ErrorCode(-32002));
            assert_eq!(e.data, Some(json!({"uri": missing})));
        }
        other => panic!("expected Error::Rpc, got {other:?}"),
    }
    // The session is fine after an error.
    client.subscribe("test://watched-resource").await.unwrap();
    client.unsubscribe("test://watched-resource").await.unwrap();
    client.ping().await.unwrap();
    running.close().await;
}

#[tokio::test]
async fn prompts_and_completion() {
    let running = connect().await;
    let client = &running.client;
    let mut prompts: Vec<_> = client.list_prompts_stream().try_collect().await.unwrap();
    // 2026-07-28 adds the revision's input-required prompt after the fixture's four.
    let added = prompts.split_off(4);
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].name, "test_input_required_result_prompt");
    assert_eq!(serde_json::to_value(&prompts).unwrap(), fixture::prompts());

    let (arg1, arg2, uri) = ("testValue1", "testValue2", "test://example-resource");
    for name in [
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
    ] {
        let arguments: &[(&str, &str)] = match name {
            "test_prompt_with_arguments" => &[("arg1", arg1), ("arg2", arg2)],
            "test_prompt_with_embedded_resource" => &[("resourceUri", uri)],
            _ => &[],
        };
        let mut params = GetPromptRequestParams::new(name);
        if !arguments.is_empty() {
            params.arguments = Some(
                arguments
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            );
        }
        let got = client
            .get_prompt(params)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            serde_json::to_value(&got.messages).unwrap(),
            fixture::prompt_messages(name, arg1, arg2, uri),
            "{name}"
        );
    }

    let prompt = CompleteRequestParams::new(
        PromptReference::new("test_prompt_with_arguments"),
        "arg1",
        "test",
    );
    let template = CompleteRequestParams::new(
        ResourceTemplateReference::new("test://template/{id}/data"),
        "id",
        "1",
    );
    for params in [prompt, template] {
        let done = client.complete(params).await.unwrap();
        assert_eq!(
            serde_json::to_value(&done.completion).unwrap(),
            fixture::empty_completion()
        );
    }
    running.close().await;
}

/// An elicitation handler that never answers: it hands its cancellation token to the test.
fn stalling_elicitor() -> (
    impl mcp_client::ElicitationHandler,
    mpsc::Receiver<CancellationToken>,
) {
    let (tx, rx) = mpsc::channel(4);
    let handler = move |_: ElicitRequestParams, cx: RequestContext| {
        let tx = tx.clone();
        async move {
            tx.send(cx.cancellation().clone())
                .await
                .expect("the test is waiting");
            std::future::pending::<Result<ElicitResult, mcp_client::ErrorObject>>().await
        }
    };
    (handler, rx)
}

#[tokio::test]
async fn dropping_a_call_cancels_the_servers_handler() {
    let (handler, mut started) = stalling_elicitor();
    let running = Running::start(everything(), Client::builder().elicitation(handler)).await;
    let client = &running.client;
    let token = {
        let pending = call(
            client,
            "test_elicitation",
            json!({"message": "never answered"}),
        );
        tokio::select! {
            result = pending => panic!("the call completed: {result:?}"),
            token = within("the elicitation request", started.recv()) => token.unwrap(),
        }
        // The call's future is dropped here: the client sends notifications/cancelled.
    };
    // The server's tool handler is dropped, which cancels its own elicitation request.
    within("the server to cancel its elicitation", token.cancelled()).await;
    // The session still works.
    let result = call(client, "test_simple_text", Value::Null).await;
    assert_eq!(
        text_of(&result),
        "This is a simple text response for testing."
    );
    running.close().await;
}

#[tokio::test]
async fn a_tiny_per_call_timeout_fails_with_error_timeout_and_cancels_on_the_server() {
    let (handler, mut started) = stalling_elicitor();
    let running = Running::start(everything(), Client::builder().elicitation(handler)).await;
    let client = &running.client;

    // test_tool_with_progress takes 100 ms; progress was not asked for, so nothing resets the
    // timeout.
    let tiny = Duration::from_millis(20);
    let options = CallOptions::new().timeout(tiny);
    let outcome = client
        .call_tool_with(
            CallToolRequestParams::new("test_tool_with_progress"),
            options.clone(),
        )
        .await;
    assert!(
        matches!(outcome, Err(mcp_client::Error::Timeout(d)) if d == tiny),
        "{outcome:?}"
    );

    // A tool waiting for our (never given) answer times out, and the server gives up on it.
    let outcome = client
        .call_tool_with(
            CallToolRequestParams::with_arguments(
                "test_elicitation",
                args(json!({"message": "wait"})),
            ),
            CallOptions::new().timeout(Duration::from_secs(1)),
        )
        .await;
    assert!(
        matches!(outcome, Err(mcp_client::Error::Timeout(_))),
        "{outcome:?}"
    );
    let token = within("the elicitation request", started.recv())
        .await
        .unwrap();
    within("the server to cancel its elicitation", token.cancelled()).await;

    let result = call(client, "test_simple_text", Value::Null).await;
    assert_eq!(
        text_of(&result),
        "This is a simple text response for testing."
    );
    running.close().await;
}

#[tokio::test]
async fn a_cancelled_elicitation_is_reported_by_the_server() {
    let running = Running::start(
        everything(),
        Client::builder().elicitation(|_: ElicitRequestParams, _: RequestContext| async {
            Ok({
                let mut built = ElicitResult::decline();
                built.action = ElicitAction::Cancel;
                built
            })
        }),
    )
    .await;
    let result = call(&running.client, "test_elicitation", json!({"message": "m"})).await;
    assert_eq!(text_of(&result), "User response: action=cancel, content={}");
    running.close().await;
}
