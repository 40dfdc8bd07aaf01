// `Tool::new` is for tools without arguments; this handler takes some.
use mcp_server::Tool;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct AddNote {
    text: String,
}

async fn add_note(note: AddNote) -> String {
    note.text
}

fn main() {
    let _ = Tool::new("add_note", add_note);
}
