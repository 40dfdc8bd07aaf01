//! `#[prompt]`: arguments from parameters, required unless `Option`, described by their docs.

use std::sync::Arc;

use mcp_server::types::{ErrorCode, GetPromptRequestParams, PromptMessage};
use mcp_server::{Context, HandlerError, Server, prompt, tools};
use serde_json::{Value, json};

use crate::support::{connect, json};

/// Asks for a code review.
#[prompt(title = "Code review")]
async fn review(
    /// The programming language.
    language: String,
    _cx: Context,
    focus: Option<String>,
) -> Vec<PromptMessage> {
    let focus = focus
        .map(|f| format!(", focusing on {f}"))
        .unwrap_or_default();
    vec![PromptMessage::user_text(format!(
        "Review this {language} code{focus}."
    ))]
}

#[prompt(name = "fail")]
async fn always_fails() -> Result<String, HandlerError> {
    Err(HandlerError::msg("no"))
}

struct Style {
    tone: &'static str,
}

#[tools]
impl Style {
    /// Writes in the configured tone.
    #[prompt]
    async fn write(
        &self,
        /// What to write about.
        topic: String,
    ) -> String {
        format!("Write about {topic} in a {} tone.", self.tone)
    }
}

async fn get(
    client: &mcp_client::Client,
    name: &str,
    args: Value,
) -> Result<Value, mcp_client::Error> {
    let mut params = GetPromptRequestParams::new(name);
    params.arguments = serde_json::from_value(args).expect("a map of strings");
    client.get_prompt(params).await.map(|r| json(&r))
}

#[tokio::test]
async fn prompts_list_their_arguments_and_render() -> anyhow::Result<()> {
    let style = Arc::new(Style { tone: "dry" });
    let mut builder = Server::builder()
        .prompt(review_prompt())
        .prompt(always_fails_prompt());
    for p in style.prompts() {
        builder = builder.prompt(p);
    }
    let client = connect(builder).await?;

    let listed = json(&client.list_prompts(None).await?);
    assert_eq!(
        listed["prompts"],
        json!([
            {
                "name": "review",
                "title": "Code review",
                "description": "Asks for a code review.",
                "arguments": [
                    {"name": "language", "description": "The programming language.", "required": true},
                    {"name": "focus", "required": false}
                ]
            },
            {"name": "fail"},
            {
                "name": "write",
                "description": "Writes in the configured tone.",
                "arguments": [{"name": "topic", "description": "What to write about.", "required": true}]
            }
        ])
    );

    let got = get(
        &client,
        "review",
        json!({"language": "Rust", "focus": "errors"}),
    )
    .await?;
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "Review this Rust code, focusing on errors."
    );
    let got = get(&client, "review", json!({"language": "Go"})).await?;
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "Review this Go code."
    );
    let got = get(&client, "write", json!({"topic": "tea"})).await?;
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "Write about tea in a dry tone."
    );

    match get(&client, "review", json!({})).await {
        Err(mcp_client::Error::Rpc(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}"),
        other => panic!("{other:?}"),
    }
    match get(&client, "fail", json!({})).await {
        Err(mcp_client::Error::Rpc(e)) => assert_eq!(e.code, ErrorCode::INTERNAL_ERROR, "{e:?}"),
        other => panic!("{other:?}"),
    }
    Ok(())
}
