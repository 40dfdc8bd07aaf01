//! `sampling`: a tool that asks the client's model to write something (sampling).
//!
//! ```text
//! cargo build -p examples --bin sampling
//! # then call `summarize` from a host that supports sampling (it runs its own LLM)
//! ```
//!
//! `summarize` sends the text to the host's model with `cx.sample` and returns the model's
//! answer. The server needs no API key: the host decides which model runs and may show the
//! request to the user first. Written once, it works in both protocol eras:
//!
//! - up to 2025-11-25, `cx.sample` sends `sampling/createMessage` and awaits the answer;
//! - on 2026-07-28 the first run ends with an `input_required` result; the client samples,
//!   sends the call again with the answer, and the handler runs again from the start.
//!
//! A client that did not declare sampling gets a failed call (legacy) or -32021.

use mcp_server::types::{CreateMessageRequestParams, SamplingMessage};
use mcp_server::{Context, HandlerError, Server, Tool};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Summarize {
    /// The text to summarize.
    text: String,
    /// The longest summary wanted, in words (default 20).
    max_words: Option<u32>,
}

async fn summarize(args: Summarize, cx: Context) -> Result<String, HandlerError> {
    let words = args.max_words.unwrap_or(20);
    let prompt = format!("Summarize in at most {words} words:\n\n{}", args.text);
    let mut request =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 200);
    request.system_prompt = Some("You write short, plain summaries.".to_owned());
    let reply = cx.sample(request).await?;
    let summary = reply
        .content
        .first_text()
        .ok_or_else(|| HandlerError::msg("the model answered without text"))?;
    Ok(format!("Summary by {}: {summary}", reply.model))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let server = Server::builder()
        .name("sampling")
        .version("1.0.0")
        .tool(
            Tool::typed("summarize", summarize)
                .description("Summarizes a text with the host's model"),
        )
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
