// A `#[tool]` whose future holds a `std::sync::MutexGuard` across an `.await`.
use std::sync::{Arc, Mutex};

use mcp_server::{State, tool};

#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<String>>>);

async fn save(_text: &str) {}

/// Saves a note.
#[tool]
async fn add_note(text: String, State(notes): State<Notes>) -> String {
    let mut list = notes.0.lock().unwrap();
    save(&text).await;
    list.push(text);
    "saved".to_owned()
}

fn main() {
    let _ = add_note_tool();
}
