// `#[debug_handler]` names an input placed after an extractor.
use mcp_server::{Prompt, PromptArguments, State, debug_handler};

#[derive(Clone)]
struct Style(String);

#[debug_handler(prompt)]
async fn review(State(style): State<Style>, args: PromptArguments) -> String {
    format!("Review this {} code in a {} tone.", args["language"], style.0)
}

fn main() {
    let _ = Prompt::new("review", review);
}
