//! `loadgen`: the neutral load generator of `cargo xtask bench`. It speaks raw JSON-RPC (no
//! SDK): requests pre-serialized around their id, its own correlation by id. It runs every
//! scenario against the floor, rmcp and ours, repeated, and writes the markdown report.
//!
//! ```text
//! loadgen [--smoke] [--reps N] [--only SUBSTRING] [--pin CPU] [--seconds S]
//!         [--bin-dir DIR] [--manifest bench/Cargo.toml] [--out FILE] [--no-cold-build]
//! ```
//!
//! The servers are `floor-stdio`, `floor-http`, `echo-rmcp` and `echo-ours` from `--bin-dir`
//! (default: beside this executable). The Redis scenarios (`--only redis`) start a
//! `redis-server` of their own (`$MCP_TEST_REDIS_SERVER`, else `redis-server` on `PATH`). `--manifest` is needed for the minimal servers' rows
//! (package count; cold build time unless `--smoke` or `--no-cold-build`). A smoke run fails
//! if any call failed or any cell has no number; a full run fails only if calls failed
//! (targets not met are reported, not failed).

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod http;
mod machine;
mod otel;
mod redis;
mod scenarios;
mod slices;
mod stdio;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use mcp_bench::report::{self, Results};

/// The options of a run.
pub(crate) struct Options {
    pub(crate) smoke: bool,
    pub(crate) reps: usize,
    pub(crate) only: Option<String>,
    pub(crate) pin: usize,
    /// The measured time of one point.
    pub(crate) duration: Duration,
    /// The warm-up before each point.
    pub(crate) warmup: Duration,
    pub(crate) bin_dir: PathBuf,
    pub(crate) manifest: Option<PathBuf>,
    pub(crate) out: Option<PathBuf>,
    pub(crate) cold_build: bool,
}

const USAGE: &str = "usage: loadgen [--smoke] [--reps N] [--only SUBSTRING] [--pin CPU] \
    [--seconds S] [--bin-dir DIR] [--manifest bench/Cargo.toml] [--out FILE] [--no-cold-build]";

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut args = args.into_iter();
    let exe = std::env::current_exe()?;
    let mut options = Options {
        smoke: false,
        reps: 0,
        only: None,
        pin: 0,
        duration: Duration::ZERO,
        warmup: Duration::ZERO,
        bin_dir: exe.parent().context("no executable directory")?.to_owned(),
        manifest: None,
        out: None,
        cold_build: true,
    };
    let mut seconds = None;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{arg} needs a value; {USAGE}"))
        };
        match arg.as_str() {
            "--smoke" => options.smoke = true,
            "--reps" => options.reps = value()?.parse().context("--reps needs a number")?,
            "--only" => options.only = Some(value()?),
            "--pin" => options.pin = value()?.parse().context("--pin needs a CPU number")?,
            "--seconds" => seconds = Some(value()?.parse::<f64>().context("--seconds")?),
            "--bin-dir" => options.bin_dir = value()?.into(),
            "--manifest" => options.manifest = Some(value()?.into()),
            "--out" => options.out = Some(value()?.into()),
            "--no-cold-build" => options.cold_build = false,
            other => bail!("unknown argument {other:?}; {USAGE}"),
        }
    }
    if options.reps == 0 {
        options.reps = if options.smoke { 1 } else { 3 };
    }
    let seconds = seconds.unwrap_or(if options.smoke { 0.3 } else { 3.0 });
    options.duration = Duration::from_secs_f64(seconds);
    options.warmup = Duration::from_secs_f64((seconds / 6.0).min(0.5));
    if options.smoke {
        options.cold_build = false;
    }
    Ok(options)
}

fn main() -> Result<()> {
    let options = parse(std::env::args().skip(1))?;
    let root = options
        .manifest
        .as_ref()
        .and_then(|m| m.parent().and_then(|p| p.parent()).map(ToOwned::to_owned))
        .unwrap_or_else(|| PathBuf::from("."));
    let header = machine::header(&root, options.reps, options.smoke);
    let mut results = Results::default();
    let runtime = tokio::runtime::Runtime::new()?;
    scenarios::run_all(&options, &runtime, &mut results)?;
    let report = report::markdown(&header, &results, &scenarios::TARGETS);
    println!("{report}");
    if let Some(out) = &options.out {
        std::fs::write(out, &report).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("loadgen: report saved to {}", out.display());
    }
    if !results.failures.is_empty() {
        bail!(
            "{} scenario run(s) failed; see the report",
            results.failures.len()
        );
    }
    let missing = results.missing();
    if options.smoke && !missing.is_empty() {
        bail!("no numbers for: {}", missing.join(", "));
    }
    if results.is_empty() {
        bail!("no scenario matched --only");
    }
    Ok(())
}
