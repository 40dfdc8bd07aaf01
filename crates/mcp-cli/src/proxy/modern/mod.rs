//! 2026-07-28 requests: one [`Backend`] for the whole proxy, chosen at start by probing the
//! stdio server's era.
//!
//! The probe sends `server/discover` (with the revision's `_meta`) to a first process of the
//! server, within `--probe-timeout`: a result naming 2026-07-28 among its `supportedVersions`
//! makes the server one of that revision, and its requests are forwarded
//! ([`forward::Forward`]); anything else (an error such as -32601, no answer in time) makes it
//! a server of the handshake era only, which is bridged ([`bridge::Bridge`]).
//! `--server-era` skips the probe.
//!
//! Every stateless HTTP session (one per 2026-07-28 POST) runs a connection whose handler,
//! [`Front`], hands its one request to the backend.

pub(crate) mod bridge;
pub(crate) mod forward;
pub(crate) mod instances;
pub(crate) mod meta;
pub(crate) mod pending;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use mcp_jsonrpc::{Config, Connection, ErrorObject, Handler, Request, RequestContext};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::child::ChildCommand;
use super::parse_duration;

/// The proxy's own name and version, as the client it is to a bridged server.
pub(crate) fn client_info() -> Value {
    json!({"name": "mcp-proxy", "version": env!("CARGO_PKG_VERSION")})
}

/// Which era the stdio server speaks (`--server-era`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ServerEra {
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
    /// 2026-07-28: forward its requests.
    Modern,
    /// The handshake era only (2024-11-05 to 2025-11-25): bridge it.
    Legacy,
}

/// How 2026-07-28 clients are served.
#[derive(Debug, Clone, clap::Args)]
pub struct ModernArgs {
    /// The stdio server's protocol era, for 2026-07-28 clients: `auto` probes it with
    /// `server/discover`.
    #[arg(long, value_enum, default_value = "auto", value_name = "ERA")]
    pub server_era: ServerEra,

    /// How long the era probe waits for the server's answer to `server/discover`.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub probe_timeout: Duration,

    /// A bridged (handshake-era) server: the most processes serving 2026-07-28 clients at
    /// once. Each runs at most one call that may ask its client for input, so this is also
    /// the most calls waiting for input.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub max_children: u32,

    /// A bridged server: how long a call that asked its 2026-07-28 client for input waits
    /// for the retry carrying the answers; then it is cancelled.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub input_timeout: Duration,
}

/// What serves 2026-07-28 requests.
#[derive(Debug)]
pub(crate) enum Backend {
    /// A server of 2026-07-28: its requests are forwarded.
    Forward(forward::Forward),
    /// A server of the handshake era: bridged.
    Bridge(bridge::Bridge),
}

impl Backend {
    /// Starts the backend for `command`, probing its era as `args` say (`instances`: the
    /// deployment this proxy is one instance of, with `--redis`). Fails when the server
    /// cannot be started or answers neither `server/discover` nor `initialize`.
    pub(crate) async fn start(
        command: ChildCommand,
        args: &ModernArgs,
        instances: Option<instances::Instances>,
    ) -> anyhow::Result<Self> {
        let modern = match args.server_era {
            ServerEra::Modern => true,
            ServerEra::Legacy => false,
            ServerEra::Auto => {
                let forward = forward::Forward::new(command.clone());
                let probe = forward.probe(args.probe_timeout).await?;
                if probe {
                    tracing::info!("the stdio server speaks 2026-07-28: forwarding");
                    return Ok(Backend::Forward(forward));
                }
                forward.stop().await;
                false
            }
        };
        if modern {
            let forward = forward::Forward::new(command.clone());
            forward
                .child()
                .await
                .map_err(|e| anyhow::anyhow!("{}", e.message))?;
            return Ok(Backend::Forward(forward));
        }
        tracing::info!("the stdio server speaks the handshake era only: bridging");
        let bridge = bridge::Bridge::start(command.clone(), args, instances)
            .await
            .with_context(|| format!("cannot initialize `{}`", command.display()))?;
        Ok(Backend::Bridge(bridge))
    }

    /// The era the backend serves the stdio server in, for the start-up message.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Backend::Forward(_) => "2026-07-28 server: requests forwarded",
            Backend::Bridge(_) => {
                "handshake-era server: 2026-07-28 requests bridged (initialize, input-required)"
            }
        }
    }

    /// Serves one 2026-07-28 request.
    async fn serve(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        match self {
            Backend::Forward(forward) => forward.serve(request, ctx).await,
            Backend::Bridge(bridge) => bridge.serve(request, ctx).await,
        }
    }

    /// Ends the server processes.
    pub(crate) async fn stop(&self) {
        match self {
            Backend::Forward(forward) => forward.stop().await,
            Backend::Bridge(bridge) => bridge.stop().await,
        }
    }
}

/// The handler of a stateless HTTP session: its request goes to the backend.
#[derive(Debug, Clone)]
pub(crate) struct Front(pub(crate) Arc<Backend>);

impl Handler for Front {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        self.0.serve(request, ctx).await
    }
}

/// Serves one stateless HTTP session (one 2026-07-28 POST) with `backend`.
pub(crate) async fn serve_stateless<T: mcp_jsonrpc::Transport>(
    transport: T,
    backend: Arc<Backend>,
) {
    let (_peer, connection) = Connection::new(transport, Front(backend), Config::default());
    if let Err(e) = connection.run().await {
        tracing::debug!("2026-07-28 request ended: {e}");
    }
}

/// The error a client gets when the stdio server is gone or broke the protocol.
pub(crate) fn server_failed(e: &mcp_jsonrpc::Error) -> ErrorObject {
    match e {
        mcp_jsonrpc::Error::Rpc(obj) => obj.clone(),
        mcp_jsonrpc::Error::Closed { reason } => {
            ErrorObject::internal_error(format!("the stdio server is gone: {reason}"))
        }
        other => ErrorObject::internal_error(format!("the stdio server failed: {other}")),
    }
}
