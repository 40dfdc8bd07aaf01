//! `everything-client`: the MCP conformance suite's client contract, built on `mcp-client`
//! and the Streamable HTTP client transport.
//!
//! Run with:
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call cargo run -p examples --bin everything-client -- http://127.0.0.1:3000/mcp
//! npx @modelcontextprotocol/conformance client --command "target/debug/everything-client" --scenario tools_call
//! ```
//!
//! The server URL is the last argument; `MCP_CONFORMANCE_SCENARIO` picks the behaviour:
//!
//! - `initialize`: the handshake, then a tool listing, then a clean close.
//! - `tools_call` (also `tools-call`): lists the tools and calls the first with `{a: 2, b: 3}`.
//! - `sse-retry`: calls `test_reconnection`, whose SSE stream the server closes before the
//!   result, so the transport resumes it with GET and `Last-Event-ID` after `retry`.
//! - `elicitation-sep1034-client-defaults` (also `elicitation-defaults`): declares
//!   `elicitation.form.applyDefaults` and accepts every form with no content, so the client
//!   library fills in the schema's defaults; then calls `test_client_elicitation_defaults`.
//! - `auth/*` (every authorization scenario, see [`auth`]): an mcp-auth `OAuthClient` plugged
//!   into the transport's auth hook (authorization code through a headless user agent, or
//!   client credentials with the secret or private key of `MCP_CONFORMANCE_CONTEXT`), then
//!   initialize (or, on the 2026-07-28 wire, stateless requests), `tools/list` and a call of
//!   the first tool.
//!
//! An unknown or missing scenario prints the usage and exits 1. Logs go to stderr
//! (`RUST_LOG` filters them).

mod auth;

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use mcp_client::{Client, ErrorObject, RequestContext};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_types::{CallToolRequestParams, ElicitRequestParams, ElicitResult, Implementation};
use serde_json::json;
use tracing_subscriber::EnvFilter;

/// The scenarios this client implements, as the suite names them.
const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "tools-call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
    "elicitation-defaults",
];

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
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let url = std::env::args().skip(1).last();
    let known = SCENARIOS.contains(&scenario.as_str()) || scenario.starts_with("auth/");
    let (Some(url), true) = (url, known) else {
        bail!(
            "unknown scenario {scenario:?}\nusage: MCP_CONFORMANCE_SCENARIO=<scenario> \
             everything-client <server-url>\nscenarios: {}, auth/*",
            SCENARIOS.join(", ")
        );
    };
    tracing::info!(%scenario, %url, "starting");
    if scenario.starts_with("auth/") {
        return auth::run(&scenario, &url).await;
    }
    let transport = StreamableHttpClientTransport::new(url.as_str())
        .with_context(|| format!("bad server url {url:?}"))?;
    let mut builder = Client::builder().client_info(client_info());
    if scenario.starts_with("elicitation") {
        builder = builder
            .elicitation(accept_empty)
            .elicitation_apply_defaults(true);
    }
    let (client, connection) = builder
        .connect(transport)
        .await
        .context("initialize failed")?;
    let connection = tokio::spawn(connection);
    tracing::info!(server = ?client.server_info(), version = %client.protocol_version(), "initialized");

    let outcome = match scenario.as_str() {
        "initialize" => client.list_tools(None).await.map(drop).map_err(Into::into),
        "tools_call" | "tools-call" => call_first_tool(&client).await,
        "sse-retry" => call(&client, "test_reconnection").await,
        _ => call(&client, "test_client_elicitation_defaults").await,
    };
    client.close();
    join(connection).await;
    outcome
}

/// This client's name and version.
fn client_info() -> Implementation {
    Implementation::new("mcp-rust-sdk-everything-client", env!("CARGO_PKG_VERSION"))
}

/// Waits for the connection task, logging how it ended unless it was the clean close.
async fn join(connection: tokio::task::JoinHandle<Result<(), mcp_client::Error>>) {
    match connection.await {
        Ok(Err(e)) if !e.is_closed() => tracing::warn!("connection ended with {e}"),
        Err(e) => tracing::warn!("connection task failed: {e}"),
        _ => {}
    }
}

/// Lists the tools and calls the first one with `{a: 2, b: 3}` (the suite's `add_numbers`).
async fn call_first_tool(client: &Client) -> anyhow::Result<()> {
    let tools = client.list_tools(None).await.context("tools/list failed")?;
    let tool = tools.tools.first().context("the server lists no tools")?;
    let arguments = json!({"a": 2, "b": 3});
    let serde_json::Value::Object(arguments) = arguments else {
        unreachable!("a JSON object literal")
    };
    let result = client
        .call_tool(CallToolRequestParams::with_arguments(&tool.name, arguments))
        .await
        .with_context(|| format!("tools/call {} failed", tool.name))?;
    tracing::info!(content = ?result.content, "tool result");
    Ok(())
}

/// Calls tool `name` without arguments and logs its result.
async fn call(client: &Client, name: &str) -> anyhow::Result<()> {
    let result = client
        .call_tool(CallToolRequestParams::new(name))
        .await
        .with_context(|| format!("tools/call {name} failed"))?;
    tracing::info!(content = ?result.content, is_error = ?result.is_error, "tool result");
    if result.is_error == Some(true) {
        bail!("tool {name} returned isError: {:?}", result.content);
    }
    Ok(())
}

/// Accepts every form elicitation without content (the library applies the defaults), and
/// declines URL elicitations.
async fn accept_empty(
    params: ElicitRequestParams,
    _cx: RequestContext,
) -> Result<ElicitResult, ErrorObject> {
    Ok(match params {
        ElicitRequestParams::Form(form) => {
            tracing::info!(message = %form.message, "elicitation: accepting with defaults");
            ElicitResult::accept(Some(Default::default()))
        }
        ElicitRequestParams::Url(_) => ElicitResult::decline(),
    })
}
