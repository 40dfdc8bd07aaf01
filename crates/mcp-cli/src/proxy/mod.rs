//! `mcp proxy`: a stdio server served over Streamable HTTP, to clients of both protocol eras
//! (`mcp proxy --listen ADDR -- CMD ARGS...`), or a remote Streamable HTTP server offered on
//! stdio (`mcp proxy --url URL`).
//!
//! # Serving a stdio server over HTTP
//!
//! The HTTP side is `mcp-transport-http`'s `StreamableHttpService` with its defaults (the
//! `Host`/`Origin` checks, body and session limits), optionally behind `mcp-auth`'s
//! `BearerAuthLayer` and with `mcp-redis` for several instances. Its session factory gets
//! two kinds of session:
//!
//! - **Handshake-era sessions** (`initialize`, `Mcp-Session-Id`; and the 2024-11-05 HTTP+SSE
//!   transport with `--legacy-sse`): each runs one child process, and JSON-RPC messages are
//!   relayed verbatim between the session's transport and the child's stdio ([`session`],
//!   [`relay`]). Ending the session ends the child; the child exiting ends the session.
//! - **2026-07-28 requests** (no session, the version and capabilities in each request's
//!   `_meta`): served by one [`modern::Backend`] for the whole proxy, which probes at start
//!   which era the stdio server speaks (`server/discover`, then `initialize`). A server of
//!   2026-07-28 gets the requests forwarded on one shared child ([`modern::forward`]); a
//!   server of the handshake era only is bridged ([`modern::bridge`]): the proxy initializes
//!   it itself and translates each request, turning the server's requests to the client
//!   (`elicitation/create`, `sampling/createMessage`, `roots/list`) made during a
//!   `tools/call`, `prompts/get` or `resources/read` into an input-required result, and the
//!   client's retry back into the answers the still-running call waits for.
//!
//! # Offering a remote server on stdio
//!
//! `--url` relays verbatim between this process's stdio and `mcp-transport-http`'s client
//! transport ([`remote`]), in whichever era the host speaks: the client transport tells the
//! eras apart per request.
//!
//! # Limits
//!
//! Every table and queue is bounded; nothing a client or the stdio server sends grows memory
//! past these:
//!
//! - HTTP: `--max-sessions` handshake-era sessions (100; each runs a process),
//!   `--max-sessions-per-client` (20), `--idle-timeout` (30 min), `--max-body-size` (4 MiB),
//!   `--max-connections` (512), and the other defaults of `StreamableHttpService`.
//! - Relays ([`relay`]): [`relay::QUEUE`] messages each way (16), as many again for the
//!   answers to a side's invalid frames.
//! - Bridged servers ([`modern::bridge`]): `--max-children` processes (8), so at most that
//!   many calls waiting for input, each for `--input-timeout` (5 min); 64 events queued per
//!   call (progress and log messages past it are dropped), 256 resources per subscription.
//! - Forwarded servers ([`modern::forward`]): 256 notifications queued per subscription
//!   stream, 64 log messages per request (past them, dropped).
//! - The tools whose `x-mcp-header` parameters are remembered: [`headers::MAX_TOOLS`]
//!   (4096), found in at most 64 listing pages; the `tools/list` requests watched on
//!   `--url`: 64; a session snapshot (`--redis`): 1024 resource subscriptions.

mod child;
mod headers;
mod http;
mod modern;
mod relay;
mod remote;
mod session;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;

/// Arguments of `mcp proxy`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Serve a stdio server over Streamable HTTP, or a remote server on stdio",
    long_about = "Serve a stdio server over Streamable HTTP to clients of both protocol eras \
                  (`mcp proxy --listen 127.0.0.1:8000 -- CMD ARGS...`): each handshake-era \
                  session gets its own server process, and 2026-07-28 clients reach the \
                  server whichever era it speaks (a handshake-era server is bridged: its \
                  requests to the client become input-required results). Or offer a remote \
                  Streamable HTTP server on stdio to a host that only spawns programs \
                  (`mcp proxy --url URL`).\n\n\
                  Once bound, `listening on http://ADDR/mcp` is printed on stderr."
)]
pub struct ProxyArgs {
    /// Address to listen on: `HOST:PORT`, `:PORT` or a bare `PORT` (on 127.0.0.1). The
    /// endpoint is `http://ADDR/mcp`.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:8000",
        conflicts_with = "url"
    )]
    pub listen: String,

    /// Offer the Streamable HTTP server at URL on stdio instead.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,

    /// The stdio server to run: one process per handshake-era session, and one (or up to
    /// `--max-children`, for a bridged server) for 2026-07-28 clients.
    #[arg(last = true, value_name = "CMD ARGS", required_unless_present = "url")]
    pub command: Vec<String>,

    /// Working directory of the stdio server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// An environment variable for the stdio server (repeatable); it inherits the proxy's
    /// environment otherwise.
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    #[command(flatten)]
    pub http: http::HttpArgs,

    #[command(flatten)]
    pub modern: modern::ModernArgs,

    /// A header sent with every request to `--url` (repeatable), as `NAME: VALUE`.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
}

/// `KEY=VALUE`.
fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got {s:?}")),
    }
}

/// `NAME: VALUE` (or `NAME=VALUE`).
fn parse_header(s: &str) -> Result<(String, String), String> {
    let split = s.split_once(':').or_else(|| s.split_once('='));
    match split {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("expected `NAME: VALUE`, got {s:?}")),
    }
}

/// A duration: `30s`, `5m`, `1h30m`, or a bare number of seconds.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    if let Ok(secs) = s.trim().parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    humantime::parse_duration(s.trim()).map_err(|e| format!("invalid duration {s:?}: {e}"))
}

/// Runs `mcp proxy` until interrupted (serving HTTP), or until the host closes stdin
/// (`--url`).
pub async fn run(args: ProxyArgs) -> anyhow::Result<()> {
    if let Some(url) = &args.url {
        return remote::run(url, &args.headers).await;
    }
    let Some((program, program_args)) = args.command.split_first() else {
        bail!(
            "mcp proxy needs the stdio server to run after `--` (mcp proxy --listen ADDR -- CMD \
             ARGS...), or --url URL"
        );
    };
    let command = child::ChildCommand {
        program: program.clone(),
        args: program_args.to_vec(),
        cwd: args.cwd.clone(),
        env: args.env.clone(),
    };
    http::serve(&args.listen, &args.http, &args.modern, command).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        assert_eq!(parse_env("A=b=c"), Ok(("A".to_owned(), "b=c".to_owned())));
        assert!(parse_env("=x").is_err());
        assert!(parse_env("novalue").is_err());
        assert_eq!(
            parse_header("Authorization: Bearer x"),
            Ok(("Authorization".to_owned(), "Bearer x".to_owned()))
        );
        assert!(parse_header(": x").is_err());
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert!(parse_duration("soon").is_err());
    }
}
