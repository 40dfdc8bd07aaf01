//! `client-http`: a client of a Streamable HTTP server, given its URL.
//!
//! ```text
//! cargo run -p examples --bin hello-http &
//! cargo run -p examples --bin client-http -- http://127.0.0.1:3000/mcp "remember the milk"
//! ```
//!
//! It adds a note with `add_note` (the second argument, default "hello from client-http"),
//! then prints what `list_notes` and the `notes://all` resource hold, on stdout. The client
//! speaks whichever protocol era the server does (2026-07-28 with `hello-http`); the
//! negotiated revision is printed first.

use anyhow::Context as _;
use mcp_client::Client;
use mcp_client::types::{Implementation, ResourceContents};
use mcp_transport_http::client::StreamableHttpClientTransport;
use serde_json::{Value, json};

#[allow(clippy::print_stdout)] // Printing the answers is this program's job.
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .context("usage: client-http <url> [note text]")?;
    let text = args
        .next()
        .unwrap_or_else(|| "hello from client-http".to_owned());

    let transport = StreamableHttpClientTransport::new(url.as_str())?;
    let (client, connection) = Client::builder()
        .client_info(Implementation::new("client-http", "1.0.0"))
        .connect(transport)
        .await
        .with_context(|| format!("cannot connect to {url}"))?;
    let connection = tokio::spawn(connection);
    println!(
        "connected to {} ({})",
        client.server_info().name,
        client.protocol_version().as_str()
    );

    let added = client
        .call_tool(("add_note", json!({"title": "http", "text": text})))
        .await?;
    let reply = added.content.first().and_then(|c| c.as_text());
    println!("add_note: {}", reply.unwrap_or_default());

    let listed: Value = client.call_tool_structured("list_notes").await?;
    println!("list_notes: {listed}");

    for contents in client.read_resource("notes://all").await?.contents {
        if let ResourceContents::Text(text) = contents {
            println!("notes://all:\n{}", text.text);
        }
    }

    // Ends the HTTP session (a DELETE, on the handshake era) and the connection.
    client.close();
    connection.await??;
    Ok(())
}
