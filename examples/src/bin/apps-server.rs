//! `apps-server`: the notepad of `hello-stdio` with a view (MCP Apps,
//! `io.modelcontextprotocol/ui`): a host that renders views shows the notes as a list with a
//! form, which adds a note and refreshes the list by calling tools through the host.
//!
//! Run with:
//!
//! ```text
//! cargo xtask setup   # once: the view's library comes from the npm peers
//! cargo run -p examples --bin apps-server                        # stdio
//! cargo run -p examples --bin apps-server -- --http 127.0.0.1:0  # Streamable HTTP
//! ```
//!
//! With `--http` it listens on 127.0.0.1 only (port 0: any free port) and prints
//! `listening on http://127.0.0.1:<port>/mcp` on stderr. The view is `examples/apps/notes.html`
//! with the `@modelcontextprotocol/ext-apps` app library (`app-with-deps.js`, from
//! `.tools/npm`, or the file `$EXT_APPS_BUNDLE` names) inlined when the server starts: no
//! CDN, so it runs offline and under the host's default content security policy. Hosts
//! that did not declare the extension get `add_note` and `list_notes` as plain tools.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use mcp_server::apps::UiResource;
use mcp_server::types::McpUiToolVisibility;
use mcp_server::{Json, Server, State, Tool};
use mcp_transport_http::server::StreamableHttpService;
use mcp_transport_stdio::StdioTransport;
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

async fn add_note(note: Note, State(notes): State<Notes>) -> String {
    let reply = format!("Saved note \"{}\"", note.title);
    if let Ok(mut all) = notes.0.lock() {
        all.push(note);
    }
    reply
}

// Its text content (the JSON of the list) is what the model and hosts without views read.
async fn list_notes(State(notes): State<Notes>) -> Json<NoteList> {
    let notes = notes.0.lock().map(|n| n.clone()).unwrap_or_default();
    Json(NoteList { notes })
}

const VIEW: &str = "ui://notes/app";

/// The page with the app library in place of its marker. The library is an ES module ending
/// in `export{a as App,...};`; that list becomes the object `ExtApps` the page reads.
fn view() -> anyhow::Result<String> {
    let bundle =
        "../.tools/npm/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js";
    let path = std::env::var_os("EXT_APPS_BUNDLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(bundle));
    let bundle = std::fs::read_to_string(&path)
        .with_context(|| format!("{} (run `cargo xtask setup` first)", path.display()))?;
    let (code, exports) = bundle.rsplit_once("export{").context("not an ES module")?;
    let exports: Vec<String> = (exports.trim_end().trim_end_matches(['}', ';']).split(','))
        .map(|e| e.split_once(" as ").unwrap_or((e, e)))
        .map(|(local, name)| format!("{name}:{local}"))
        .collect();
    let library = format!("{code}\nconst ExtApps = {{{}}};", exports.join(","));
    let page = include_str!("../../apps/notes.html");
    Ok(page.replace("/* @modelcontextprotocol/ext-apps */", &library))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let view = UiResource::html(VIEW, "notes", view()?)?
        .description("The notes as a list, with a form to add one")
        .prefers_border(true);
    let server = Server::builder()
        .name("apps-server")
        .version("1.0.0")
        .instructions("A notepad: add notes with add_note, show them with list_notes.")
        .state(Notes::default())
        .ui_resource(view)
        .tool(Tool::typed("add_note", add_note).description("Saves a note with a title and a text"))
        .tool(
            Tool::new("list_notes", list_notes)
                .description("Shows every note")
                .ui(VIEW),
        )
        .tool(
            Tool::new("refresh_notes", list_notes)
                .description("The notes, for the view's list")
                .ui(VIEW)
                .ui_visibility([McpUiToolVisibility::App]),
        )
        .build();
    let mut args = std::env::args().skip(1);
    let addr = match (args.next().as_deref(), args.next()) {
        (None, _) => return Ok(server.serve(StdioTransport::stdio()?).await?),
        (Some("--http"), Some(addr)) => addr,
        _ => bail!("usage: apps-server [--http <127.0.0.1:port>]"),
    };
    let port = match addr.rsplit_once(':') {
        None => addr.as_str(),
        Some(("127.0.0.1" | "localhost", port)) => port,
        Some(_) => bail!("apps-server listens on 127.0.0.1 only, not {addr}"),
    };
    let port: u16 = port.parse().context("not a port")?;
    let service = StreamableHttpService::builder().build(server.session_factory());
    let http = service.bind_localhost(port).await?;
    #[allow(clippy::print_stderr)] // Scripts and tests read the port from this line.
    {
        eprintln!("listening on http://{}/mcp", http.local_addr()?);
    }
    http.run().await?;
    Ok(())
}
