// A tool returning a plain struct: structured output goes in `Json(..)`.
use mcp_server::Tool;
use serde::Serialize;

#[derive(Serialize)]
struct Count {
    notes: usize,
}

async fn count_notes() -> Count {
    Count { notes: 0 }
}

fn main() {
    let _ = Tool::new("count_notes", count_notes);
}
