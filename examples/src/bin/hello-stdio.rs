//! `hello-stdio`: the smallest useful MCP server, a notepad on stdin/stdout.
//!
//! Two tools, `add_note` (a title and a text) and `list_notes`, and one resource,
//! `notes://all`, with every note as Markdown. Notes live as long as the process.
//!
//! Try it with `mcp`, the command line of this workspace:
//!
//! ```text
//! cargo build -p examples --bin hello-stdio && cargo build -p mcp-rs-cli
//! target/debug/mcp tools -- target/debug/hello-stdio
//! target/debug/mcp call add_note --arg title=shopping --arg "text=milk, eggs" \
//!     -- target/debug/hello-stdio
//! ```
//!
//! or add it to any MCP host (Claude Desktop, an IDE) as a stdio server whose command is the
//! path of `target/debug/hello-stdio`. `cargo run -p examples --bin client-stdio` drives it
//! from Rust.

use std::sync::{Arc, Mutex};

use mcp_server::{Json, Resource, Server, State, Tool};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The notes, shared by the handlers as application state.
#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<Note>>>);

impl Notes {
    fn all(&self) -> Vec<Note> {
        self.0.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

// `add_note`'s arguments and `list_notes`' items. The `///` comments become descriptions in
// the tools' schemas, read by the model; remarks for the Rust reader are `//` comments.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
struct Note {
    /// A short title, a few words that name the note.
    title: String,
    /// The text of the note, in full.
    text: String,
}

// The structured output of `list_notes`: its schema is the tool's `outputSchema`.
#[derive(Serialize, JsonSchema)]
struct NoteList {
    /// Every saved note, oldest first.
    notes: Vec<Note>,
}

async fn add_note(note: Note, State(notes): State<Notes>, server: Server) -> String {
    let reply = format!("Saved note \"{}\"", note.title);
    if let Ok(mut all) = notes.0.lock() {
        all.push(note);
    }
    // Clients subscribed to `notes://all` are told it changed.
    server.notify_resource_updated("notes://all");
    reply
}

async fn list_notes(State(notes): State<Notes>) -> Json<NoteList> {
    Json(NoteList { notes: notes.all() })
}

async fn notes_markdown(State(notes): State<Notes>) -> String {
    let all = notes.all();
    if all.is_empty() {
        return "No notes yet.".to_owned();
    }
    all.iter()
        .map(|n| format!("# {}\n\n{}\n", n.title, n.text))
        .collect::<Vec<_>>()
        .join("\n")
}

// One thread: a stdio server has one session, and on the multi-thread runtime `main`'s
// future runs on a thread that is not the one reading stdin, so every message would cost a
// wake-up across threads (about 1.7x the latency per call; docs/benchmarks.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let server = Server::builder()
        .name("hello-stdio")
        .version("1.0.0")
        .instructions("A notepad: add notes with add_note, read them with list_notes.")
        .state(Notes::default())
        .tool(Tool::typed("add_note", add_note).description("Saves a note with a title and a text"))
        .tool(
            Tool::new("list_notes", list_notes).description("Lists every saved note, oldest first"),
        )
        .resource(
            Resource::new("notes://all", "notes", notes_markdown)
                .description("Every note, as Markdown")
                .mime_type("text/markdown"),
        )
        .build();
    // One session over this process's stdin and stdout, until the client closes stdin.
    // (Nothing else may write to stdout: it carries the protocol.)
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
