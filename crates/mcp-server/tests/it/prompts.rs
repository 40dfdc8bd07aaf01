use mcp_server::types::{GetPrompt, GetPromptRequestParams};
use serde_json::json;

use crate::fixture;
use crate::support::{Client, rpc_error};

#[tokio::test(start_paused = true)]
async fn lists_prompts_with_arguments() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let list = client.raw("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        list,
        json!({"prompts": [
            {"name": "simple", "description": "No arguments"},
            {"name": "greet", "description": "Greets", "arguments": [
                {"name": "name", "description": "Who to greet", "required": true},
                {"name": "style", "description": "How", "required": false}
            ]}
        ]})
    );
}

#[tokio::test(start_paused = true)]
async fn gets_prompts_with_every_content_kind() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let simple = client
        .raw("prompts/get", json!({"name": "simple"}))
        .await
        .unwrap();
    assert_eq!(
        simple,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "simple prompt"}}]})
    );

    let mut params = GetPromptRequestParams::new("greet");
    params.arguments = Some(
        [
            ("name".to_owned(), "Ada".to_owned()),
            ("style".to_owned(), "formal".to_owned()),
        ]
        .into(),
    );
    let r = client.call::<GetPrompt>(params).await.unwrap();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["messages"][0]["content"]["text"], "Hello Ada (formal)");
    assert_eq!(v["messages"][1]["content"]["type"], "image");
    assert_eq!(v["messages"][2]["role"], "assistant");
    assert_eq!(v["messages"][2]["content"]["type"], "resource");
}

#[tokio::test(start_paused = true)]
async fn missing_required_arguments_and_unknown_prompts_are_32602() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let err = rpc_error(
        client
            .raw(
                "prompts/get",
                json!({"name": "greet", "arguments": {"style": "x"}}),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    assert_eq!(err.message, "Missing required argument: name");
    let err = rpc_error(
        client
            .raw("prompts/get", json!({"name": "nope"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
}
