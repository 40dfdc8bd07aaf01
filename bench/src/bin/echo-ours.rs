//! The bench's echo server on our SDK (see `mcp_bench::args` for the command line): `echo`,
//! `blob` and `--tools N` extra tools, typed with schemars as the SDK's docs recommend.
//! Stdio on a `current_thread` runtime, Streamable HTTP on the multi-thread one; no logging.
//! HTTP: the session table, the per-client quota and the connection limit are raised so
//! that the load generator's sessions (10,000 idle ones; tens of thousands opened back to
//! back by the session-open scenario) and 256 connections from 127.0.0.1 fit; HTTP
//! servers also offer `progress` (an echo that first sends two `notifications/progress`
//! when the call carries a progress token, so that its answer is an SSE stream of three
//! events). `--redis URL` puts every store on Redis (`mcp-redis`) as a scale-out deployment
//! does: events, the session directory (this instance's URL is its bound address), session
//! snapshots and the event bus (no task store: no call runs as a task here). `--otel` sets up
//! `mcp_server::otel::init()` first (OTLP over HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`).

use std::io::Write as _;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use mcp_bench::args::{Mode, ServerArgs, blob_text};
use mcp_redis::{Redis, RedisOptions};
use mcp_server::{Context, HandlerError, ServeOptions, Server, SessionStore, Tool};
use mcp_transport_http::server::{SessionKind, SessionMode, StreamableHttpService};
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

/// The session table's size and the per-client quota: never reached by the load generator
/// (a limit only; the table grows with the sessions opened).
const MAX_SESSIONS: usize = 1_000_000;

/// `progress(text)`: two progress notifications (when the call carries a token), then the
/// text.
async fn progress(args: EchoArgs, cx: Context) -> Result<String, HandlerError> {
    if cx.progress_token().is_some() {
        cx.report_progress(1.0, Some(2.0), None).await?;
        cx.report_progress(2.0, Some(2.0), None).await?;
    }
    Ok(args.text)
}

fn builder(extra_tools: usize) -> mcp_server::ServerBuilder {
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
    builder
}

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    // Outside the runtime, so that it is dropped (flushing, blocking) after the runtime.
    let _otel = args
        .otel
        .then(mcp_server::otel::init)
        .transpose()
        .context("setting up OpenTelemetry")?;
    let builder = builder(args.tools);
    match args.mode {
        Mode::Stdio => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(async { Ok(builder.build().serve(StdioTransport::stdio()?).await?) }),
        Mode::Http { addr, stateful } => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(serve_http(builder, &addr, stateful, args.redis.as_deref())),
    }
}

async fn serve_http(
    builder: mcp_server::ServerBuilder,
    addr: &str,
    stateful: bool,
    redis: Option<&str>,
) -> Result<()> {
    let mut builder = builder.tool(
        Tool::typed("progress", progress)
            .description("Echoes the text after two progress notifications"),
    );
    let redis = match redis {
        Some(url) => {
            let (redis, driver) = Redis::connect(url, RedisOptions::default())
                .await
                .with_context(|| format!("cannot connect to Redis at {url}"))?;
            tokio::spawn(driver);
            // No task store: the bench makes no task calls, and tasks on one side only
            // would add the tasks capability's own cost to the Redis column.
            builder = builder.event_bus(redis.event_bus());
            Some(redis)
        }
        None => None,
    };
    let server = builder.build();
    let mode = if stateful {
        SessionMode::Stateful
    } else {
        SessionMode::Stateless
    };
    // Bound first: with Redis, the directory records this instance's own URL.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let mut service = StreamableHttpService::builder()
        .path("/mcp")
        .session_mode(mode)
        .max_sessions(MAX_SESSIONS)
        .max_sessions_per_client(MAX_SESSIONS)
        .max_connections(4096);
    let mut sessions: Option<Arc<dyn SessionStore>> = None;
    if let Some(redis) = &redis {
        service = service
            .event_store(Some(Arc::new(redis.event_store())))
            .directory(
                Arc::new(redis.session_directory()),
                format!("http://{bound}/mcp"),
            );
        sessions = Some(Arc::new(redis.session_store()));
    }
    let service = service.build(move |transport, info| {
        let server = server.clone();
        let mut options = ServeOptions::new();
        if let (Some(store), Some(id), SessionKind::Stateful) =
            (&sessions, &info.session_id, info.kind)
        {
            options = options.session_store(store.clone(), &**id);
        }
        async move {
            let _ = server.serve_with(transport, options).await;
        }
    });
    let http = service.listener(listener);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{bound}")?;
    stdout.flush()?;
    drop(stdout);
    http.run().await?;
    Ok(())
}
