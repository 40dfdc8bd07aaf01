// A `std::sync::MutexGuard` held across an `.await`: the handler's future is not `Send`.
use std::sync::{Arc, Mutex};

use mcp_server::{State, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<String>>>);

#[derive(Deserialize, JsonSchema)]
struct AddNote {
    text: String,
}

async fn save(_text: &str) {}

async fn add_note(note: AddNote, State(notes): State<Notes>) -> String {
    let mut list = notes.0.lock().unwrap();
    save(&note.text).await;
    list.push(note.text);
    "saved".to_owned()
}

fn main() {
    let _ = Tool::typed("add_note", add_note);
}
