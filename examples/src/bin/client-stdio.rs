//! `client-stdio`: a client that starts a server as a child process and uses it.
//!
//! ```text
//! cargo build -p examples --bin hello-stdio --bin client-stdio
//! target/debug/client-stdio                       # spawns target/debug/hello-stdio
//! target/debug/client-stdio -- <server command> [args...]
//! ```
//!
//! It lists the server's tools, adds two notes with `add_note`, calls `list_notes` and reads
//! the `notes://all` resource, printing each answer on stdout. Without a command it runs the
//! `hello-stdio` binary next to itself. The child's stderr goes to `tracing` (`RUST_LOG`).

use std::path::PathBuf;

use anyhow::Context as _;
use mcp_client::Client;
use mcp_client::types::{Implementation, ResourceContents};
use mcp_transport_stdio::ChildProcessTransport;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `add_note`'s arguments, and the notes of `list_notes`' structured output.
#[derive(Serialize, Deserialize)]
struct Note {
    title: String,
    text: String,
}

#[derive(Serialize, Deserialize)]
struct NoteList {
    notes: Vec<Note>,
}

/// The server to run: the command after `--`, or `hello-stdio` from this binary's directory.
fn server_command() -> anyhow::Result<(PathBuf, Vec<String>)> {
    let mut args = std::env::args().skip(1).skip_while(|a| a == "--");
    if let Some(program) = args.next() {
        return Ok((program.into(), args.collect()));
    }
    let me = std::env::current_exe().context("where is this binary?")?;
    let sibling = me.with_file_name(format!("hello-stdio{}", std::env::consts::EXE_SUFFIX));
    anyhow::ensure!(
        sibling.is_file(),
        "{} is missing: cargo build -p examples --bin hello-stdio",
        sibling.display()
    );
    Ok((sibling, Vec::new()))
}

#[allow(clippy::print_stdout)] // Printing the answers is this program's job.
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (program, args) = server_command()?;
    let transport = ChildProcessTransport::builder(&program)
        .args(&args)
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    let (client, connection) = Client::builder()
        .client_info(Implementation::new("client-stdio", "1.0.0"))
        .connect(transport)
        .await?;
    // The library never spawns: the connection is a future we run.
    let connection = tokio::spawn(connection);
    println!("connected to {}", client.server_info().name);

    let tools = client.list_tools(None).await?.tools;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    println!("tools: {}", names.join(", "));

    for (title, text) in [
        ("shopping", "milk, eggs"),
        ("ideas", "an MCP server in Rust"),
    ] {
        let note = Note {
            title: title.into(),
            text: text.into(),
        };
        let result = client.call_tool(("add_note", note)).await?;
        let text = result.content.first().and_then(|c| c.as_text());
        println!("add_note: {}", text.unwrap_or_default());
    }

    // A tool with an output schema answers with structured content too, read as a NoteList.
    let listed: NoteList = client.call_tool_structured("list_notes").await?;
    println!("list_notes: {}", json!(listed));

    let read = client.read_resource("notes://all").await?;
    for contents in &read.contents {
        if let ResourceContents::Text(text) = contents {
            println!("notes://all:\n{}", text.text);
        }
    }

    // Closing ends the session: the server sees its stdin close and exits.
    client.close();
    connection.await??;
    Ok(())
}
