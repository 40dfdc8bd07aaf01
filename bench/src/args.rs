//! The command line every bench server takes:
//!
//! ```text
//! <server> --stdio [--tools N]
//! <server> --http 127.0.0.1:0 [--stateful | --stateless] [--tools N] [--redis URL]
//! ```
//!
//! With `--http`, the server prints the address it bound (`127.0.0.1:PORT`) as the first
//! line of its stdout, then serves `POST /mcp` (any path for the floor). `--tools N` adds the
//! tools `tool_0` .. `tool_{N-1}`, each with a small object schema (for `tools/list`).
//! `--redis URL` (with `--http`; `echo-ours` only) keeps every store of the deployment in
//! that Redis (`mcp-redis`), the instance's URL in the session directory being its bound
//! address. `--otel` (`echo-ours` only) sets up `mcp_server::otel::init()` first: every
//! request a span and a histogram record, exported with OTLP over HTTP to
//! `OTEL_EXPORTER_OTLP_ENDPOINT`.

use anyhow::{Context as _, Result, bail};

/// Where a bench server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// MCP on stdin/stdout.
    Stdio,
    /// Streamable HTTP on this address; stateful sessions or none.
    Http { addr: String, stateful: bool },
}

/// A bench server's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerArgs {
    pub mode: Mode,
    /// How many extra `tool_<i>` tools to register.
    pub tools: usize,
    /// `--redis`: the Redis URL holding the stores (HTTP only).
    pub redis: Option<String>,
    /// `--otel`: export spans and metrics with OpenTelemetry.
    pub otel: bool,
}

/// The usage line of the bench servers.
pub const USAGE: &str = "usage: <server> (--stdio | --http 127.0.0.1:0 [--stateful | \
    --stateless] [--redis URL]) [--tools N] [--otel]";

impl ServerArgs {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self> {
        let mut args = args.into_iter();
        let mut stdio = false;
        let mut http = None;
        let mut stateful = true;
        let mut tools = 0;
        let mut redis = None;
        let mut otel = false;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--stdio" => stdio = true,
                "--http" => http = Some(args.next().context("--http needs an address")?),
                "--stateful" => stateful = true,
                "--stateless" => stateful = false,
                "--redis" => redis = Some(args.next().context("--redis needs a URL")?),
                "--otel" => otel = true,
                "--tools" => {
                    tools = args
                        .next()
                        .context("--tools needs a number")?
                        .parse()
                        .context("--tools needs a number")?;
                }
                other => bail!("unknown argument {other:?}; {USAGE}"),
            }
        }
        let mode = match (stdio, http) {
            (true, None) => Mode::Stdio,
            (false, Some(addr)) => Mode::Http { addr, stateful },
            _ => bail!("give exactly one of --stdio and --http; {USAGE}"),
        };
        if redis.is_some() && mode == Mode::Stdio {
            bail!("--redis needs --http; {USAGE}");
        }
        Ok(Self {
            mode,
            tools,
            redis,
            otel,
        })
    }
}

/// The most bytes a `blob` call may ask for (64 MiB), so that a typo cannot exhaust memory.
pub const MAX_BLOB: usize = 64 << 20;

/// The text of a `blob(bytes)` result: `bytes` ASCII letters (at most [`MAX_BLOB`]).
pub fn blob_text(bytes: usize) -> String {
    "x".repeat(bytes.min(MAX_BLOB))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ServerArgs> {
        ServerArgs::parse(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn modes() {
        assert_eq!(
            parse(&["--stdio", "--tools", "3"]).unwrap(),
            ServerArgs {
                mode: Mode::Stdio,
                tools: 3,
                redis: None,
                otel: false,
            }
        );
        assert!(parse(&["--otel", "--stdio"]).unwrap().otel);
        assert_eq!(
            parse(&["--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1/"])
                .unwrap()
                .redis
                .as_deref(),
            Some("redis://127.0.0.1:1/")
        );
        assert!(parse(&["--stdio", "--redis", "redis://127.0.0.1:1/"]).is_err());
        assert_eq!(
            parse(&["--http", "127.0.0.1:0", "--stateless"])
                .unwrap()
                .mode,
            Mode::Http {
                addr: "127.0.0.1:0".to_owned(),
                stateful: false
            }
        );
        assert!(parse(&[]).is_err());
        assert!(parse(&["--stdio", "--http", "x"]).is_err());
        assert!(parse(&["--tools", "many", "--stdio"]).is_err());
        assert_eq!(blob_text(3), "xxx");
        assert_eq!(blob_text(usize::MAX).len(), MAX_BLOB);
    }
}
