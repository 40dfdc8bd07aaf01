//! `prompts`: prompts with arguments, and completion of those arguments.
//!
//! ```text
//! cargo build -p examples --bin prompts && cargo build -p mcp-rs-cli
//! target/debug/mcp prompt code_review --arg language=rust --arg focus=errors \
//!     -- target/debug/prompts
//! target/debug/mcp complete --prompt code_review language ru -- target/debug/prompts
//! ```
//!
//! - `code_review` takes a required `language` and an optional `focus`. A `prompts/get`
//!   without `language` is refused (-32602) before the handler runs.
//! - `language` completes from a fixed list (`complete_values`): "ru" gives rust and ruby.
//! - `focus` completes with a handler that sees the other arguments the client already
//!   chose (`CompletionRequest::context`): the suggestions depend on the language.
//! - `greeting` has no arguments and renders a user and an assistant message.

use mcp_server::types::PromptMessage;
use mcp_server::{CompletionRequest, Prompt, PromptArguments, Server};
use mcp_transport_stdio::StdioTransport;

async fn code_review(args: PromptArguments) -> Vec<PromptMessage> {
    // Required arguments are checked before the handler runs, so indexing is safe.
    let language = &args["language"];
    let focus = args.get("focus").map_or("anything", String::as_str);
    vec![PromptMessage::user_text(format!(
        "Please review the following {language} code, paying attention to {focus}."
    ))]
}

/// Suggestions for `focus`: what matters depends on the language chosen so far.
async fn complete_focus(request: CompletionRequest) -> Vec<String> {
    let suggestions: &[&str] = match request.context.get("language").map(String::as_str) {
        Some("rust") => &["borrowing", "errors", "unsafe", "performance"],
        Some("python") => &["typing", "errors", "performance"],
        _ => &["errors", "naming", "performance", "tests"],
    };
    suggestions
        .iter()
        .filter(|s| s.starts_with(&request.value))
        .map(|s| (*s).to_owned())
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let server = Server::builder()
        .name("prompts")
        .version("1.0.0")
        .prompt(
            Prompt::new("code_review", code_review)
                .description("Asks the model to review code")
                .argument("language", "The programming language", true)
                .argument("focus", "What to look at most", false)
                .complete_values("language", ["rust", "ruby", "python", "typescript"])
                .complete("focus", complete_focus),
        )
        .prompt(
            Prompt::new("greeting", || async {
                vec![
                    PromptMessage::user_text("Hello! Who are you?"),
                    PromptMessage::assistant_text("I am a model behind an MCP host."),
                ]
            })
            .description("A two-message conversation"),
        )
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
