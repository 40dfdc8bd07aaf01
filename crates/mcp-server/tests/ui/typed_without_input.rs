// `Tool::typed` on a handler that takes no arguments, only extractors.
use mcp_server::{State, Tool};

#[derive(Clone, Default)]
struct Notes(Vec<String>);

async fn count_notes(State(notes): State<Notes>) -> usize {
    notes.0.len()
}

fn main() {
    let _ = Tool::typed("count_notes", count_notes);
}
