//! `mcp-inspect`: one MCP request from the command line, built on `mcp-client`.
//!
//! Run with:
//!
//! ```text
//! cargo run -p examples --bin mcp-inspect -- tools/list -- target/debug/everything-server
//! cargo run -p examples --bin mcp-inspect -- tools/call --params '{"name":"test_simple_text"}' \
//!     -- target/debug/everything-server
//! cargo run -p examples --bin mcp-inspect -- resources/read --params '{"uri":"test://hello"}' \
//!     --url http://127.0.0.1:3000/mcp
//! ```
//!
//! It connects (a child process over stdio, or Streamable HTTP with `--url`) in the protocol
//! era `--era` asks for (`auto`, the default: 2026-07-28 if the server speaks it, else the
//! handshake revisions; `modern`; `legacy`), prints what was negotiated on stderr as
//! `{"negotiated":{"protocolVersion":"2026-07-28","era":"stateless"}}`, performs one request
//! and prints its result as JSON on stdout. List methods follow every page, up to
//! `--max-pages` (default 100; past it, or on a cursor given twice, it fails); `ping` is a
//! `server/discover` on 2026-07-28, which has no `ping`. On failure it exits with status 1
//! (2 for usage errors) and prints the error as JSON on the last line of stderr:
//! `{"error":{"code":-32602,"message":...,"data":...}}` for an error of the server,
//! `{"error":{"message":"..."}}` otherwise. `RUST_LOG=info` shows the server's stderr.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use futures::{Stream, TryStreamExt as _};
use mcp_client::{Client, EraChoice, Transport};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_transport_stdio::ChildProcessTransport;
use mcp_types::{CallTool, Complete, Era, GetPrompt, Implementation, ReadResource, Request};
use serde::Serialize;
use serde_json::{Value, json};
use tracing_subscriber::EnvFilter;

const USAGE: &str = "usage: mcp-inspect <method> [--params <json>] [--era auto|modern|legacy] \
    [--max-pages <n>] (--url <url> | -- <command> [args...])";

/// How many pages a list follows unless `--max-pages` says otherwise.
const DEFAULT_MAX_PAGES: usize = 100;

/// The methods `mcp-inspect` performs.
const METHODS: &str = "tools/list tools/call resources/list resources/read \
    resources/templates/list prompts/list prompts/get completion/complete ping";

/// Where the server is.
enum Target {
    Url(String),
    Command(Vec<String>),
}

/// What to do: the method, its params, the era, and the server.
struct Invocation {
    method: String,
    params: Value,
    era: EraChoice,
    max_pages: usize,
    target: Target,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> anyhow::Result<Invocation> {
    let method = args.next().filter(|m| !m.starts_with('-')).context(USAGE)?;
    if !METHODS.split_whitespace().any(|m| m == method) {
        bail!("unsupported method {method:?}; one of: {METHODS}");
    }
    let (mut params, mut target, mut era) = (json!({}), None, EraChoice::Auto);
    let mut max_pages = DEFAULT_MAX_PAGES;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--params" => {
                let text = args.next().context("--params needs a JSON value")?;
                params = serde_json::from_str(&text).context("--params is not valid JSON")?;
            }
            "--era" => {
                era = match args.next().as_deref() {
                    Some("auto") => EraChoice::Auto,
                    Some("modern") => EraChoice::Modern,
                    Some("legacy") => EraChoice::Legacy,
                    other => bail!("--era takes auto, modern or legacy, not {other:?}"),
                };
            }
            "--max-pages" => {
                let text = args.next().context("--max-pages needs a number")?;
                max_pages = text.parse().ok().filter(|n| *n > 0).with_context(|| {
                    format!("--max-pages takes a positive number, not {text:?}")
                })?;
            }
            "--url" => target = Some(Target::Url(args.next().context("--url needs a URL")?)),
            "--" => target = Some(Target::Command(args.by_ref().collect())),
            other => bail!("unexpected argument {other:?}; {USAGE}"),
        }
    }
    match target {
        Some(Target::Command(c)) if c.is_empty() => bail!("no server command after `--`"),
        Some(target) => Ok(Invocation {
            method,
            params,
            era,
            max_pages,
            target,
        }),
        None => bail!("no server given; {USAGE}"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| "off".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let (outcome, code) = match parse_args(std::env::args().skip(1)) {
        Err(e) => (Err(e), 2),
        Ok(invocation) => (run(invocation).await, 1),
    };
    match outcome {
        Ok(result) => {
            let _ = writeln!(std::io::stdout().lock(), "{result}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            let rpc = e
                .downcast_ref::<mcp_client::Error>()
                .and_then(|e| e.as_rpc());
            let error = rpc.map_or_else(|| json!({"message": format!("{e:#}")}), |rpc| json!(rpc));
            let _ = writeln!(std::io::stderr().lock(), "{}", json!({"error": error}));
            ExitCode::from(code)
        }
    }
}

async fn run(invocation: Invocation) -> anyhow::Result<Value> {
    match &invocation.target {
        Target::Url(url) => {
            let transport = StreamableHttpClientTransport::new(url.as_str())?;
            inspect(transport, invocation).await
        }
        Target::Command(cmd) => {
            let child = ChildProcessTransport::builder(&cmd[0]).args(&cmd[1..]);
            inspect(child.spawn()?, invocation).await
        }
    }
}

/// Connects over `transport`, performs the request, and closes the connection.
async fn inspect(transport: impl Transport, invocation: Invocation) -> anyhow::Result<Value> {
    let info = Implementation::new("mcp-inspect", env!("CARGO_PKG_VERSION"));
    let (client, connection) = Client::builder()
        .client_info(info)
        .era(invocation.era)
        .max_list_pages(invocation.max_pages)
        .connect(transport)
        .await
        .context("connecting to the server")?;
    let connection = tokio::spawn(connection);
    let era = match client.era() {
        Era::Stateful => "stateful",
        Era::Stateless => "stateless",
    };
    let negotiated = json!({"negotiated": {
        "protocolVersion": client.protocol_version().as_str(),
        "era": era,
    }});
    let _ = writeln!(std::io::stderr().lock(), "{negotiated}");
    let result = request(&client, &invocation.method, invocation.params).await;
    client.close();
    // How the server exits is not our business once we have the answer.
    let _ = connection.await;
    result
}

async fn request(client: &Client, method: &str, params: Value) -> anyhow::Result<Value> {
    match method {
        "tools/list" => all("tools", client.list_tools_stream()).await,
        "resources/list" => all("resources", client.list_resources_stream()).await,
        "resources/templates/list" => {
            all("resourceTemplates", client.list_resource_templates_stream()).await
        }
        "prompts/list" => all("prompts", client.list_prompts_stream()).await,
        "tools/call" => call::<CallTool>(client, params).await,
        "resources/read" => call::<ReadResource>(client, params).await,
        "prompts/get" => call::<GetPrompt>(client, params).await,
        "completion/complete" => call::<Complete>(client, params).await,
        "ping" => {
            client.ping().await?;
            Ok(json!({}))
        }
        other => unreachable!("{other} was checked by parse_args"),
    }
}

/// Every item of a paginated list, as `{"<key>": [...]}`.
async fn all<T: Serialize>(
    key: &str,
    items: impl Stream<Item = mcp_client::Result<T>>,
) -> anyhow::Result<Value> {
    let items: Vec<T> = items.try_collect().await?;
    Ok(json!({ key: items }))
}

/// Sends request `M` with `params` (checked against its type first).
async fn call<M: Request>(client: &Client, params: Value) -> anyhow::Result<Value> {
    let params: M::Params = serde_json::from_value(params)
        .with_context(|| format!("invalid --params for {}", M::METHOD))?;
    Ok(serde_json::to_value(client.request::<M>(params).await?)?)
}
