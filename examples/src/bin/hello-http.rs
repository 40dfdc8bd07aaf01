//! `hello-http`: the notepad of `hello-stdio`, served over Streamable HTTP.
//!
//! ```text
//! cargo run -p examples --bin hello-http                  # http://127.0.0.1:3000/mcp
//! cargo run -p examples --bin hello-http -- --port 8080
//! PORT=0 cargo run -p examples --bin hello-http           # any free port
//! cargo run -p examples --bin client-http -- http://127.0.0.1:3000/mcp
//! ```
//!
//! It listens on 127.0.0.1 only and prints `listening on http://127.0.0.1:<port>/mcp` on
//! stderr once bound. Every HTTP session runs the same `Server`, so the notes are shared by
//! all clients; clients of either protocol era are served on the same endpoint.

use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use mcp_server::{Json, Resource, Server, State, Tool};
use mcp_transport_http::server::StreamableHttpService;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<Note>>>);

// As in `hello-stdio`: the `///` comments are descriptions in the tools' schemas.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
struct Note {
    /// A short title, a few words that name the note.
    title: String,
    /// The text of the note, in full.
    text: String,
}

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
    server.notify_resource_updated("notes://all");
    reply
}

async fn list_notes(State(notes): State<Notes>) -> Json<NoteList> {
    let notes = notes.0.lock().map(|n| n.clone()).unwrap_or_default();
    Json(NoteList { notes })
}

async fn notes_markdown(State(notes): State<Notes>) -> String {
    let notes = notes.0.lock().map(|n| n.clone()).unwrap_or_default();
    let all: Vec<String> = notes
        .iter()
        .map(|n| format!("# {}\n\n{}\n", n.title, n.text))
        .collect();
    all.join("\n")
}

/// `--port <n>`, else `$PORT`, else 3000.
fn port() -> anyhow::Result<u16> {
    let mut args = std::env::args().skip(1);
    let port = match (args.next().as_deref(), args.next()) {
        (Some("--port"), Some(port)) => port,
        (None, _) => std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned()),
        _ => anyhow::bail!("usage: hello-http [--port <port>]"),
    };
    port.parse()
        .with_context(|| format!("not a port: {port:?}"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = Server::builder()
        .name("hello-http")
        .version("1.0.0")
        .state(Notes::default())
        .tool(Tool::typed("add_note", add_note).description("Saves a note with a title and a text"))
        .tool(
            Tool::new("list_notes", list_notes).description("Lists every saved note, oldest first"),
        )
        .resource(Resource::new("notes://all", "notes", notes_markdown).mime_type("text/markdown"))
        .build();
    // Each HTTP session (or 2026-07-28 request) is served by `server`, run by the service on
    // tokio.
    let service = StreamableHttpService::builder().build(server.session_factory());
    let http = service.bind_localhost(port()?).await?;
    #[allow(clippy::print_stderr)] // Scripts and tests read the port from this line.
    {
        eprintln!("listening on http://{}/mcp", http.local_addr()?);
    }
    http.run().await?;
    Ok(())
}
