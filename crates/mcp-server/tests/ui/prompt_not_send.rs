// A prompt whose future holds a `std::sync::MutexGuard` across an `.await`.
use std::sync::{Arc, Mutex};

use mcp_server::{Prompt, PromptArguments, State};

#[derive(Clone, Default)]
struct Style(Arc<Mutex<String>>);

async fn load() {}

async fn review(args: PromptArguments, State(style): State<Style>) -> String {
    let style = style.0.lock().unwrap();
    load().await;
    format!("Review this {} code in a {} tone.", args["language"], *style)
}

fn main() {
    let _ = Prompt::new("review", review);
}
