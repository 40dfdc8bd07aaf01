//! `everything-server`: the MCP conformance suite's server fixture, built on `mcp-server`.
//!
//! Run with:
//!
//! ```text
//! cargo run -p examples --bin everything-server                        # MCP on stdin/stdout
//! cargo run -p examples --bin everything-server -- --http 3000          # http://127.0.0.1:3000/mcp
//! cargo run -p examples --bin everything-server -- --http 127.0.0.1:0   # any free port
//! RUST_LOG=debug cargo run -p examples --bin everything-server
//! ```
//!
//! It offers exactly what the conformance suite's reference "everything server" offers
//! (`examples/servers/typescript/everything-server.ts` in `modelcontextprotocol/conformance`):
//! the `test_*` tools (text, image, audio, embedded resource, mixed content, logging,
//! progress, errors, sampling, elicitation with SEP-1034 defaults and SEP-1330 enums), a
//! JSON Schema 2020-12 tool, the `test://` resources and template, four prompts, and
//! completion. Logs go to stderr (stdout carries the protocol); `RUST_LOG` filters them.
//!
//! `--http <addr>` serves Streamable HTTP at `/mcp` instead (stateful sessions, resumable SSE
//! streams, `Host`/`Origin` limited to localhost), plus the legacy HTTP+SSE endpoints `/sse`
//! and `/messages`. A bare port binds 127.0.0.1. Once bound it logs
//! `listening on http://<addr>/mcp` to stderr (port 0 picks a free port).

mod prompts;
mod resources;
mod tools;

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use mcp_server::Server;
use mcp_transport_http::server::StreamableHttpService;
use mcp_transport_stdio::StdioTransport;
use tracing_subscriber::EnvFilter;

/// A 1×1 red PNG, base64-encoded (the fixture's `TEST_IMAGE_BASE64`).
const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file, base64-encoded (the fixture's `TEST_AUDIO_BASE64`).
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Where to serve.
enum Listen {
    Stdio,
    Http(String),
}

fn parse_args(mut args: impl Iterator<Item = String>) -> anyhow::Result<Listen> {
    let mut listen = Listen::Stdio;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let addr = args
                    .next()
                    .context("--http needs an address, e.g. 127.0.0.1:3000")?;
                listen = Listen::Http(addr);
            }
            other => bail!("unknown argument {other:?}; usage: everything-server [--http <addr>]"),
        }
    }
    Ok(listen)
}

/// The server with every tool, resource, template and prompt of the fixture.
fn server() -> anyhow::Result<Server> {
    let mut builder = Server::builder()
        .name("mcp-conformance-test-server")
        .version("1.0.0");
    for tool in tools::all()? {
        builder = builder.tool(tool);
    }
    for resource in resources::resources() {
        builder = builder.resource(resource);
    }
    builder = builder.resource_template(resources::template()?);
    for prompt in prompts::all() {
        builder = builder.prompt(prompt);
    }
    Ok(builder.build())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let listen = parse_args(std::env::args().skip(1))?;
    let server = server()?;
    match listen {
        Listen::Stdio => {
            tracing::info!("serving MCP on stdio");
            server.serve(StdioTransport::stdio()?).await?;
            tracing::info!("stdin closed; exiting");
            Ok(())
        }
        Listen::Http(addr) => serve_http(server, &addr).await,
    }
}

/// Serves `server` over Streamable HTTP (and legacy HTTP+SSE) on `addr` until killed.
async fn serve_http(server: Server, addr: &str) -> anyhow::Result<()> {
    let service = StreamableHttpService::builder()
        .path("/mcp")
        .legacy_sse("/sse", "/messages")
        .build(move |transport, info| {
            let server = server.clone();
            async move {
                tracing::debug!(session = ?info.session_id, kind = ?info.kind, "session opened");
                if let Err(e) = server.serve(transport).await {
                    tracing::warn!(session = ?info.session_id, "session failed: {e:#}");
                }
            }
        });
    // A bare port means 127.0.0.1.
    let http = match addr.parse::<u16>() {
        Ok(port) => service.bind_localhost(port).await,
        Err(_) => service.bind(addr).await,
    }
    .with_context(|| format!("cannot bind {addr}"))?;
    // Printed whatever `RUST_LOG` says: tests and scripts read the port from it.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("listening on http://{}/mcp", http.local_addr()?);
    }
    http.run().await?;
    Ok(())
}
