// `#[debug_handler]` points at the parameter that is no extractor.
use mcp_server::{PromptArguments, debug_handler};

struct Db;

#[debug_handler(prompt)]
async fn review(args: PromptArguments, _db: Db) -> String {
    format!("Review this {} code.", args["language"])
}

fn main() {}
