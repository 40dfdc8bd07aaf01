//! The prompts of `everything-server`.

use mcp_jsonrpc::ErrorCode;
use mcp_types::{GetPrompt, ListPrompts};
use serde_json::{Value, json};

use super::connect;
use crate::fixture;

#[tokio::test]
async fn prompts_are_listed_with_titles_descriptions_and_arguments() {
    let session = connect().await;
    let listed = session.call::<ListPrompts>(json!({})).await.unwrap();
    assert_eq!(listed, json!({"prompts": fixture::prompts()}));
    session.close().await;
}

#[tokio::test]
async fn every_prompt_renders_the_fixture_messages() {
    let session = connect().await;
    let cases = [
        ("test_simple_prompt", Value::Null),
        (
            "test_prompt_with_arguments",
            json!({"arg1": "testValue1", "arg2": "testValue2"}),
        ),
        (
            "test_prompt_with_embedded_resource",
            json!({"resourceUri": "test://example-resource"}),
        ),
        ("test_prompt_with_image", Value::Null),
    ];
    for (name, args) in cases {
        let mut params = json!({"name": name});
        if !args.is_null() {
            params["arguments"] = args;
        }
        let got = session
            .call::<GetPrompt>(params)
            .await
            .unwrap_or_else(|e| panic!("prompts/get {name}: {e}"));
        let messages =
            fixture::prompt_messages(name, "testValue1", "testValue2", "test://example-resource");
        assert_eq!(got, json!({"messages": messages}), "{name}");
    }
    session.close().await;
}

#[tokio::test]
async fn missing_required_arguments_and_unknown_prompts_are_invalid_params() {
    let session = connect().await;
    let cases = [
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "only one"}}),
        json!({"name": "test_prompt_with_arguments"}),
        json!({"name": "test_prompt_with_embedded_resource", "arguments": {}}),
        json!({"name": "no_such_prompt"}),
    ];
    for params in cases {
        let err = session.call_err::<GetPrompt>(params.clone()).await;
        assert_eq!(err.code, ErrorCode(-32602), "{params}");
    }
    let err = session
        .call_err::<GetPrompt>(
            json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}}),
        )
        .await;
    assert!(err.message.contains("arg2"), "{}", err.message);
    session.close().await;
}
