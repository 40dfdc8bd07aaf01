//! Project automation, run as `cargo xtask <command>`.
//!
//! - `bench [--smoke] [--reps N] [--only SUBSTRING]`: the benchmark harness of `bench/`: our
//!   SDK against rmcp and the raw floors on stdio and Streamable HTTP; prints the markdown
//!   report and saves it to `target/bench-report.md`.
//! - `ci`: everything CI checks, in order (this is the README's test command).
//! - `check-deps`: the crate dependency DAG of STYLE.md, read from `cargo metadata`.
//! - `conformance`: the official MCP conformance suite against `everything-server --http`
//!   and with `everything-client`, in a private network namespace; and the server legs again
//!   through HAProxy in front of two `everything-server --redis` instances.
//! - `docs`: the docs site (pinned mdBook) with every crate's rustdoc, into
//!   `target/docs-site/`; every Rust snippet compiled and run, every local link checked.
//! - `fuzz [--seconds N] [target...]`: runs the cargo-fuzz targets of `fuzz/` (nightly), N
//!   seconds each (60 by default), seeding their corpora from the spec's examples.
//! - `soak [--minutes M | --seconds S] [--sessions N] [--stdio N] [--release]`: many clients
//!   against `everything-server` under mixed load (`tests/examples/soak.rs`); fails if a call
//!   was lost or the server's memory or open files grew.
//! - `release --dry-run [--version X.Y.Z] [--baseline-rev REV]`: the version
//!   bump, the CHANGELOG cut, the semver check and `cargo package` of every library crate,
//!   shown and checked, nothing written (`release.rs`).
//! - `setup`: installs the pinned peers the tests drive (Node 22, npm packages, Python `mcp`)
//!   into `.tools/`, and `redis-server` and `haproxy` from Debian's packages (version checked).
//! - `spec-check <dir>`: checks `mcp-types` against the protocol's schema files and examples.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod ci;
mod conformance;
mod debian;
mod deps;
mod docs;
mod fuzz;
mod lb;
mod pinned;
mod release;
mod samples;
mod setup;
mod soak;
mod spec;

use std::process::Command;

use anyhow::{Context, Result, bail};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("help");
    match cmd {
        "bench" => bench::bench(&args[1..]),
        "ci" => ci::ci(),
        "check-deps" => deps::check_deps(),
        "docs" => docs::docs(&args[1..]),
        "conformance" => conformance::conformance(),
        "fuzz" => fuzz::fuzz(&args[1..]),
        // Internal: `conformance` re-executes itself inside `unshare -n` with this.
        "conformance-netns" => conformance::in_netns(&args[1..]),
        "release" => release::release(&args[1..]),
        "setup" => setup::setup().map(|_| ()),
        "soak" => soak::soak(&args[1..]),
        "spec-check" => {
            let dir = args
                .get(1)
                .context("usage: cargo xtask spec-check <spec-dir>")?;
            spec::spec_check(std::path::Path::new(dir))
        }
        _ => {
            eprintln!(
                "usage: cargo xtask <bench [--smoke] [--reps N] [--only S]|ci|check-deps|conformance|docs|fuzz [--seconds N] [target...]|release --dry-run [--version X.Y.Z] [--baseline-rev REV]|setup|soak [--minutes M]|spec-check <dir>>"
            );
            if cmd == "help" {
                Ok(())
            } else {
                bail!("unknown command {cmd:?}")
            }
        }
    }
}

/// The root of the workspace (the parent of `xtask/`).
pub(crate) fn workspace_root() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.parent().unwrap_or(dir).to_path_buf()
}

/// `cargo metadata --no-deps` of the workspace at `dir`, as JSON.
pub(crate) fn cargo_metadata(dir: &std::path::Path) -> Result<serde_json::Value> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(dir)
        .output()
        .context("could not run cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout).context("cargo metadata printed invalid JSON")
}

/// The cargo target directory of the workspace at `dir` (honours `CARGO_TARGET_DIR`).
pub(crate) fn cargo_target_dir(dir: &std::path::Path) -> Result<std::path::PathBuf> {
    cargo_metadata(dir)?["target_directory"]
        .as_str()
        .map(std::path::PathBuf::from)
        .context("cargo metadata has no target_directory")
}

/// Runs a command in the workspace root, echoing it, and fails if it fails.
pub(crate) fn run(program: &str, args: &[&str]) -> Result<()> {
    eprintln!("$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("could not start {program}"))?;
    if !status.success() {
        bail!("`{program} {}` failed with {status}", args.join(" "));
    }
    Ok(())
}

/// Runs `cargo <args>` in the workspace root with extra environment variables.
pub(crate) fn cargo_with_env(args: &[&str], env: &[(String, String)]) -> Result<()> {
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new("cargo")
        .args(args)
        .envs(env.iter().cloned())
        .current_dir(workspace_root())
        .status()?;
    if !status.success() {
        bail!("`cargo {}` failed with {status}", args.join(" "));
    }
    Ok(())
}

/// The spec directory CI checks: `../shared/spec` beside the workspace.
pub(crate) fn shared_spec_dir() -> std::path::PathBuf {
    workspace_root().join("..").join("shared").join("spec")
}

/// Removes `dir` and everything in it, if it exists.
pub(crate) fn remove_dir(dir: &std::path::Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    Ok(())
}
