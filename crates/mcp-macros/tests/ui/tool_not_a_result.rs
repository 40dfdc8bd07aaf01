// A `#[tool]` returning a plain struct: structured output goes in `Json(..)`.
use mcp_server::tool;
use serde::Serialize;

#[derive(Serialize)]
struct Count {
    notes: usize,
}

/// Counts the notes.
#[tool]
async fn count_notes() -> Count {
    Count { notes: 0 }
}

fn main() {
    let _ = count_notes_tool();
}
