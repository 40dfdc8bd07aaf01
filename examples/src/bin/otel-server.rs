//! `otel-server`: a small notepad server that exports its traces and metrics with
//! OpenTelemetry (OTLP over HTTP, protobuf).
//!
//! Run with:
//!
//! ```text
//! # A collector (or Jaeger, which takes OTLP) listening on 127.0.0.1:4318, then:
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=notes \
//!     cargo run -p examples --bin otel-server                         # stdio
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
//!     cargo run -p examples --bin otel-server -- --http 127.0.0.1:3000  # Streamable HTTP
//! ```
//!
//! Tools `echo`, `add_note` and `list_notes`. Each request is a span named and attributed
//! by the OpenTelemetry semantic conventions for MCP (`tools/call echo`, `mcp.method.name`,
//! `gen_ai.tool.name`, ...), a child of the client's span when the client sends W3C trace
//! context in `_meta` (the Python SDK does with OpenTelemetry on; so does `mcp-client` with
//! its `otel` feature). Sessions and requests are timed in the conventions' histograms.
//! Logs go to stderr (`RUST_LOG`); with `--http` it prints `listening on <url>` there and
//! stops on Ctrl-C, exporting what is left on the way out.

use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use mcp_server::{Server, State, Tool};
use mcp_transport_http::server::StreamableHttpService;
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;
use tracing_subscriber::{EnvFilter, Layer as _};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct Note {
    /// The text of the note.
    text: String,
}

#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<String>>>);

async fn add_note(note: Note, State(notes): State<Notes>) -> String {
    tracing::info!(chars = note.text.len(), "saving a note"); // an event on the request's span
    if let Ok(mut all) = notes.0.lock() {
        all.push(note.text);
    }
    "Saved".to_owned()
}

async fn list_notes(State(notes): State<Notes>) -> String {
    notes.0.lock().map(|n| n.join("\n")).unwrap_or_default()
}

fn server() -> Server {
    Server::builder()
        .name("otel-server")
        .version("1.0.0")
        .state(Notes::default())
        .tool(
            Tool::typed("echo", |a: EchoArgs| async move { a.text }).description("Echoes the text"),
        )
        .tool(Tool::typed("add_note", add_note).description("Saves a note"))
        .tool(Tool::new("list_notes", list_notes).description("Lists the notes, oldest first"))
        .build()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // Spans and metrics to $OTEL_EXPORTER_OTLP_ENDPOINT, logs to stderr. The guard flushes
    // and shuts the exporters down when `main` returns.
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(EnvFilter::from_default_env());
    let _otel = mcp_server::otel::init_with(logs).context("setting up OpenTelemetry")?;

    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => server().serve(StdioTransport::stdio()?).await?,
        [flag, addr] if flag == "--http" => {
            let service = StreamableHttpService::builder().build(server().session_factory());
            let http = service.bind(addr.as_str()).await?;
            #[allow(clippy::print_stderr)] // Scripts and tests read the address from this line.
            {
                eprintln!("listening on http://{}/mcp", http.local_addr()?);
            }
            let stop = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            http.run_until(stop).await?;
        }
        _ => anyhow::bail!("usage: otel-server [--http <addr>]"),
    }
    Ok(())
}
