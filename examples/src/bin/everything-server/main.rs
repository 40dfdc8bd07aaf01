//! `everything-server`: the MCP conformance suite's server fixture, built on `mcp-server`.
//!
//! Run with:
//!
//! ```text
//! cargo run -p examples --bin everything-server            # serves MCP on stdin/stdout
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
//! `--http <addr>` is reserved for the Streamable HTTP transport, which is not available yet.

mod prompts;
mod resources;
mod tools;

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use mcp_server::Server;
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
        Listen::Http(addr) => {
            bail!("cannot serve on {addr}: the HTTP transport is not available yet")
        }
    }
}
