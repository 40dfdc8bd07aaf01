//! `everything-client`: the MCP conformance suite's client contract, built on `mcp-client`
//! and the Streamable HTTP client transport. Every scenario, authorization included, goes
//! through `Client`: nothing is hand-built.
//!
//! Run with:
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call cargo run -p examples --bin everything-client -- http://127.0.0.1:3000/mcp
//! npx @modelcontextprotocol/conformance client --command "target/debug/everything-client" --scenario tools_call
//! ```
//!
//! The server URL is the last argument; `MCP_CONFORMANCE_SCENARIO` picks the behaviour (see
//! [`scenarios`]). The era follows `MCP_CONFORMANCE_PROTOCOL_VERSION`: 2026-07-28 speaks
//! only that revision, a handshake revision only `initialize` at that version, and without
//! the variable the client probes (`EraChoice::Auto`). The client declares sampling,
//! elicitation (form, with `applyDefaults`) and roots, answering them in either era: the
//! server's requests in the handshake era, the input requests of `input_required` results on
//! 2026-07-28.
//!
//! An unknown or missing scenario prints the usage and exits 1. Logs go to stderr
//! (`RUST_LOG` filters them).

mod auth;
mod scenarios;

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use mcp_client::{Client, ClientBuilder, EraChoice, ErrorObject, RequestContext};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Implementation, ProtocolVersion, Root, SamplingContent, SamplingMessageContentBlock,
    TextContent,
};
use serde_json::Value;
use tracing_subscriber::EnvFilter;

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
    let known = scenarios::is_known(&scenario);
    let (Some(url), true) = (url, known) else {
        bail!(
            "unknown scenario {scenario:?}\nusage: MCP_CONFORMANCE_SCENARIO=<scenario> \
             everything-client <server-url>\nscenarios: {}, auth/*",
            scenarios::NAMES.join(", ")
        );
    };
    tracing::info!(%scenario, %url, "starting");
    let mut transport = StreamableHttpClientTransport::builder(url.as_str());
    if scenario.starts_with("auth/") {
        transport = transport.auth(auth::provider(&scenario, &url)?);
    }
    let transport = transport
        .build()
        .with_context(|| format!("bad server url {url:?}"))?;
    let (client, connection) = builder()?
        .connect(transport)
        .await
        .context("connecting failed")?;
    let connection = tokio::spawn(connection);
    tracing::info!(server = ?client.server_info(), version = %client.protocol_version(), "connected");
    let outcome = scenarios::run(&scenario, &client).await;
    client.close();
    match connection.await {
        Ok(Err(e)) if !e.is_closed() => tracing::warn!("connection ended with {e}"),
        Err(e) => tracing::warn!("connection task failed: {e}"),
        _ => {}
    }
    outcome
}

/// The client every scenario uses: its info, the era the suite asks for, and handlers for
/// everything a server may ask.
fn builder() -> anyhow::Result<ClientBuilder> {
    let mut builder = Client::builder()
        .client_info(Implementation::new(
            "mcp-rust-sdk-everything-client",
            env!("CARGO_PKG_VERSION"),
        ))
        .sampling(sample)
        .elicitation(elicit)
        .elicitation_apply_defaults(true)
        .roots(vec![Root::new("file:///tmp")]);
    if let Ok(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        let version = ProtocolVersion::known(&version)
            .with_context(|| format!("unknown protocol version {version:?}"))?;
        let era = match version.era() {
            mcp_types::Era::Stateless => EraChoice::Modern,
            mcp_types::Era::Stateful => EraChoice::Legacy,
        };
        builder = builder.era(era).protocol_version(version);
    }
    Ok(builder)
}

/// The scenario's context (`MCP_CONFORMANCE_CONTEXT`), or `null`.
fn context() -> anyhow::Result<Value> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(s) => serde_json::from_str(&s).context("MCP_CONFORMANCE_CONTEXT is not JSON"),
        Err(_) => Ok(Value::Null),
    }
}

/// Answers sampling with a fixed text.
async fn sample(
    _params: CreateMessageRequestParams,
    _cx: RequestContext,
) -> Result<CreateMessageResult, ErrorObject> {
    Ok(CreateMessageResult::new(
        "everything-client",
        SamplingContent::Single(SamplingMessageContentBlock::Text(TextContent::new(
            "This is a test response from the Rust client",
        ))),
    ))
}

/// Accepts every form elicitation: a `confirmed` boolean is confirmed, anything else is left
/// to the schema's defaults (which the library fills in, as `applyDefaults` is declared).
/// URL elicitations are declined.
async fn elicit(
    params: ElicitRequestParams,
    _cx: RequestContext,
) -> Result<ElicitResult, ErrorObject> {
    Ok(match params {
        ElicitRequestParams::Form(form) => {
            tracing::info!(message = %form.message, "elicitation: accepting");
            let mut content = mcp_types::JsonObject::new();
            let asks_confirmation = form.requested_schema.properties.contains_key("confirmed");
            if asks_confirmation {
                content.insert("confirmed".to_owned(), Value::Bool(true));
            }
            ElicitResult::accept(Some(
                serde_json::from_value(Value::Object(content)).map_err(|e| {
                    ErrorObject::internal_error(format!("an elicitation answer: {e}"))
                })?,
            ))
        }
        // URL mode, and any mode this client does not know.
        _ => ElicitResult::decline(),
    })
}
