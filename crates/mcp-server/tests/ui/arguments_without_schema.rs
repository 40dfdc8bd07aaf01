// The arguments' type does not derive `JsonSchema`.
use mcp_server::Tool;
use serde::Deserialize;

#[derive(Deserialize)]
struct AddNote {
    text: String,
}

fn main() {
    let _ = Tool::typed("add_note", |note: AddNote| async move { note.text });
}
