//! The bench's echo server on our SDK (see `mcp_bench::args` for the command line): `echo`,
//! `blob` and `--tools N` extra tools, typed with schemars as the SDK's docs recommend.
//! Stdio on a `current_thread` runtime, Streamable HTTP on the multi-thread one; no logging.
//! HTTP: the session table, the per-client quota and the connection limit are raised so
//! that the load generator's 10,000 sessions and 256 connections from 127.0.0.1 fit.

use std::io::Write as _;

use anyhow::Result;
use mcp_bench::args::{Mode, ServerArgs, blob_text};
use mcp_server::{Server, Tool};
use mcp_transport_http::server::{SessionMode, StreamableHttpService};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to echo.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct BlobArgs {
    /// How many bytes of text to return.
    bytes: usize,
}

#[derive(Deserialize, JsonSchema)]
struct ExtraArgs {
    /// Some text.
    #[allow(dead_code)]
    text: String,
}

fn server(extra_tools: usize) -> Server {
    let mut builder = Server::builder()
        .name("echo-ours")
        .version("0.0.0")
        .tool(
            Tool::typed("echo", |args: EchoArgs| async move { args.text })
                .description("Echoes the text"),
        )
        .tool(
            Tool::typed(
                "blob",
                |args: BlobArgs| async move { blob_text(args.bytes) },
            )
            .description("Returns a text of that many bytes"),
        );
    for i in 0..extra_tools {
        builder = builder.tool(
            Tool::typed(format!("tool_{i}"), |_: ExtraArgs| async { "ok" })
                .description(format!("Extra tool number {i}")),
        );
    }
    builder.build()
}

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    let server = server(args.tools);
    match args.mode {
        Mode::Stdio => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(async { Ok(server.serve(StdioTransport::stdio()?).await?) }),
        Mode::Http { addr, stateful } => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(serve_http(server, &addr, stateful)),
    }
}

async fn serve_http(server: Server, addr: &str, stateful: bool) -> Result<()> {
    let mode = if stateful {
        SessionMode::Stateful
    } else {
        SessionMode::Stateless
    };
    let service = StreamableHttpService::builder()
        .path("/mcp")
        .session_mode(mode)
        .max_sessions(20_000)
        .max_sessions_per_client(20_000)
        .max_connections(4096)
        .build(move |transport, _info| {
            let server = server.clone();
            async move {
                let _ = server.serve(transport).await;
            }
        });
    let http = service.bind(addr).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", http.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    http.run().await?;
    Ok(())
}
