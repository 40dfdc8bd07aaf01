//! `#[debug_handler]` leaves the function as written: handlers marked with it serve as any
//! other (its compile errors are in `tests/ui/debug_handler_*`).

use mcp_server::types::{CompleteRequestParams, PromptMessage, ResourceTemplateReference};
use mcp_server::{
    CompletionRequest, Context, Prompt, PromptArguments, ResourceTemplate, Server, State, Tool,
    UriParams, debug_handler,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::support::{connect, json};

#[derive(Clone)]
struct Tone(&'static str);

#[derive(Deserialize, JsonSchema)]
struct Shout {
    text: String,
}

#[debug_handler(tool)]
async fn shout(args: Shout, State(tone): State<Tone>, _cx: Context) -> String {
    format!("{} ({})", args.text.to_uppercase(), tone.0)
}

#[debug_handler(prompt)]
async fn review(args: PromptArguments, State(tone): State<Tone>) -> Vec<PromptMessage> {
    vec![PromptMessage::user_text(format!(
        "Review this {} code in a {} tone.",
        args["language"], tone.0
    ))]
}

#[debug_handler(resource)]
async fn note(params: UriParams) -> String {
    format!("note {}", params.get("id").unwrap_or("?"))
}

#[debug_handler(completion)]
async fn ids(req: CompletionRequest) -> Vec<String> {
    ["1", "12", "2"]
        .into_iter()
        .filter(|id| id.starts_with(&req.value))
        .map(str::to_owned)
        .collect()
}

/// No argument: nothing but the extractors and the future are checked.
#[debug_handler]
async fn tone(State(tone): State<Tone>) -> &'static str {
    tone.0
}

#[tokio::test]
async fn marked_handlers_serve_as_written() -> anyhow::Result<()> {
    let template = ResourceTemplate::new("notes://{id}", "note", note)?.complete("id", ids);
    let builder = Server::builder()
        .state(Tone("kind"))
        .tool(Tool::typed("shout", shout))
        .tool(Tool::new("tone", tone))
        .prompt(Prompt::new("review", review).argument("language", "The language", true))
        .resource_template(template);
    let client = connect(builder).await?;

    let shouted = client.call_tool(("shout", json!({"text": "hi"}))).await?;
    assert_eq!(shouted.content[0].as_text(), Some("HI (kind)"));
    let tone = client.call_tool("tone").await?;
    assert_eq!(tone.content[0].as_text(), Some("kind"));

    let prompt = client
        .get_prompt(("review", json!({"language": "rust"})))
        .await?;
    assert_eq!(
        json(&prompt.messages[0].content)["text"],
        "Review this rust code in a kind tone."
    );

    let read = client.read_resource("notes://12").await?;
    assert_eq!(json(&read.contents[0])["text"], "note 12");
    let reference = ResourceTemplateReference::new("notes://{id}");
    let completed = client
        .complete(CompleteRequestParams::new(reference, "id", "1"))
        .await?;
    assert_eq!(completed.completion.values, ["1", "12"]);
    Ok(())
}
