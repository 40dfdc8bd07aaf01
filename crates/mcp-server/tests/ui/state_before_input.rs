// The tool's arguments after an extractor: the input must come first.
use mcp_server::{State, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone, Default)]
struct Notes;

#[derive(Deserialize, JsonSchema)]
struct AddNote {
    text: String,
}

async fn add_note(State(_notes): State<Notes>, note: AddNote) -> String {
    note.text
}

fn main() {
    let _ = Tool::typed("add_note", add_note);
}
