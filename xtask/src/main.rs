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
        "ci" => ci(),
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

fn has_nextest() -> bool {
    Command::new("cargo")
        .args(["nextest", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
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

/// The crates' feature sets other than `--all-features`, which every other step uses: the
/// defaults of `mcp-server` and `mcp-client` (no `jsonschema`) linted and tested, the
/// smallest builds (`mcp-server` without features, `mcp-transport-http` server-only and
/// client-only) linted, and the docs of the default features built without warnings.
fn feature_builds() -> Result<()> {
    let defaults = ["-p", "mcp-rs-server", "-p", "mcp-rs-client"];
    let mut clippy = vec!["clippy", "--all-targets"];
    clippy.extend(defaults);
    clippy.extend(["--", "-D", "warnings"]);
    run("cargo", &clippy)?;
    for args in [
        &["clippy", "-p", "mcp-rs-server", "--no-default-features"][..],
        &[
            "clippy",
            "-p",
            "mcp-rs-transport-http",
            "--no-default-features",
            "--features",
            "server",
        ],
        &[
            "clippy",
            "-p",
            "mcp-rs-transport-http",
            "--no-default-features",
            "--features",
            "client",
        ],
    ] {
        let mut args = args.to_vec();
        args.extend(["--", "-D", "warnings"]);
        run("cargo", &args)?;
    }
    let mut test = if has_nextest() {
        vec!["nextest", "run", "--no-fail-fast"]
    } else {
        vec!["test", "--no-fail-fast"]
    };
    test.extend(defaults);
    // The docs of the default features (no link to an item a feature hides) are the docs
    // site's first rustdoc pass, `-D warnings`, of every library crate; the other packages
    // have no features.
    run("cargo", &test)
}

/// The spec directory CI checks: `../shared/spec` beside the workspace.
fn shared_spec_dir() -> std::path::PathBuf {
    workspace_root().join("..").join("shared").join("spec")
}

fn ci() -> Result<()> {
    // A CI run builds every crate in several feature sets; incremental state for all of them
    // took 12 GB of a 23 GB target directory, and a CI machine's disk may have less to give (a
    // run failed with the linker out of space). Nothing in a clean clone reuses it.
    // The variable is set by running this step again with it, so that every cargo below
    // inherits it (the workspace forbids `unsafe`, which `set_var` needs).
    if std::env::var_os("CARGO_INCREMENTAL").is_none() {
        let status = Command::new(std::env::current_exe()?)
            .arg("ci")
            .env("CARGO_INCREMENTAL", "0")
            .status()?;
        if !status.success() {
            bail!("xtask ci failed ({status})");
        }
        return Ok(());
    }
    let mut steps = Steps::default();
    let outcome = ci_steps(&mut steps);
    steps.print_summary();
    outcome?;
    eprintln!("xtask ci: all steps passed");
    Ok(())
}

/// The steps of `ci`, each timed by `steps` so that a slow run says where the time went.
fn ci_steps(steps: &mut Steps) -> Result<()> {
    steps.time("fmt", || run("cargo", &["fmt", "--all", "--check"]))?;
    steps.time("clippy", || {
        run(
            "cargo",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    steps.time("feature builds", feature_builds)?;
    let tools = steps.time("setup", setup::setup)?;
    let env = setup::env_vars(&tools);
    steps.time("tests", || {
        if has_nextest() {
            cargo_with_env(
                &[
                    "nextest",
                    "run",
                    "--workspace",
                    "--all-features",
                    "--no-fail-fast",
                ],
                &env,
            )
        } else {
            cargo_with_env(
                &["test", "--workspace", "--all-features", "--no-fail-fast"],
                &env,
            )
        }
    })?;
    // nextest does not run doctests; the doc examples are tests too.
    steps.time("doctests", || {
        cargo_with_env(&["test", "--workspace", "--all-features", "--doc"], &env)
    })?;
    steps.time("rustdoc", || {
        let deny = [("RUSTDOCFLAGS".to_owned(), "-D warnings".to_owned())];
        cargo_with_env(
            &["doc", "--workspace", "--no-deps", "--all-features"],
            &deny,
        )
    })?;
    // The docs site: every snippet compiled and run, every link checked, the crates' rustdoc
    // with default features too.
    steps.time("docs site", || docs::docs(&[]))?;
    steps.time("dependency DAG", deps::check_deps)?;
    steps.time("spec check", || spec::spec_check(&shared_spec_dir()))?;
    // What a release of HEAD would publish: the bump, the CHANGELOG cut, the semver check
    // against the last release, the names on crates.io, and every package built from its
    // tarball.
    steps.time("release dry run", || {
        release::release(&["--dry-run".to_owned()])?;
        // The packages' own build (2 GB) is not needed by any later step.
        release::remove_scratch()
    })?;
    steps.time("conformance", conformance::conformance)?;
    // Short runs of the long checks: each fuzz target for a few seconds, a one-minute soak,
    // every benchmark scenario once.
    steps.time("fuzz smoke", fuzz::smoke)?;
    steps.time("soak smoke", soak::smoke)?;
    steps.time("bench smoke", bench::smoke)?;
    Ok(())
}

/// How long each step of `ci` took, printed at the end whether or not the run passed.
#[derive(Default)]
struct Steps {
    done: Vec<(&'static str, std::time::Duration, bool)>,
}

impl Steps {
    fn time<T>(&mut self, name: &'static str, step: impl FnOnce() -> Result<T>) -> Result<T> {
        eprintln!("xtask ci: step {name}");
        let started = std::time::Instant::now();
        let outcome = step();
        self.done.push((name, started.elapsed(), outcome.is_ok()));
        outcome
    }

    fn print_summary(&self) {
        let total: std::time::Duration = self.done.iter().map(|(_, took, _)| *took).sum();
        eprintln!("xtask ci: step times");
        for (name, took, passed) in &self.done {
            let mark = if *passed { "" } else { "  (failed)" };
            eprintln!("  {:>7.1} s  {name}{mark}", took.as_secs_f64());
        }
        eprintln!("  {:>7.1} s  in all", total.as_secs_f64());
    }
}
