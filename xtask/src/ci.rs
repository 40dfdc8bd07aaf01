//! `cargo xtask ci`: every check CI runs, in order, each step timed, within the disk a CI
//! machine has to give.
//!
//! A run on a clean clone once failed with the disk full while the tests built the `mcp`
//! binary, 8 minutes in. What keeps the target directory small:
//! - no incremental state (nothing in a clean clone reuses it);
//! - the lints and the narrower feature sets build into a directory of their own, removed
//!   once they pass (check-mode metadata and other feature sets, which no later step links);
//! - the binaries the tests start are built with the workspace's features, so that they link
//!   the libraries the test build made (see `tests/tests/e2e/support/bins.rs`);
//! - the test executables are removed once the tests and doctests have run;
//! - on a CI machine (`CI` set), the debug build is removed once the last step that runs its
//!   binaries (the soak) has passed, before the steps that build elsewhere;
//! - the release dry run removes its packages' build.
//!
//! Measured on a clean clone (`CI=true .ci/run`, `du -sm target` every 15 s): the target
//! directory peaked at 6.4 GB before these (during the release dry run), 3.1 GB with them
//! (from the tests to the soak); `fuzz/target` takes 0.7 GB more once the debug build is gone.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::{
    bench, cargo_target_dir, cargo_with_env, conformance, deps, docs, fuzz, release, remove_dir,
    setup, shared_spec_dir, soak, spec, workspace_root,
};

/// `cargo xtask ci`.
pub(crate) fn ci() -> Result<()> {
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
    let target = cargo_target_dir(&workspace_root())?;
    steps.time("fmt", || cargo_with_env(&["fmt", "--all", "--check"], &[]))?;
    let lint_dir = target.join("lint");
    let lint = [(
        "CARGO_TARGET_DIR".to_owned(),
        lint_dir.to_string_lossy().into_owned(),
    )];
    steps.time("clippy", || {
        cargo_with_env(
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ],
            &lint,
        )
    })?;
    steps.time("feature builds", || feature_builds(&lint))?;
    remove_dir(&lint_dir)?;
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
    remove_test_executables(&target.join("debug").join("deps"))?;
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
    steps.time("conformance", conformance::conformance)?;
    // Short runs of the long checks: a one-minute soak, each fuzz target for a few seconds,
    // every benchmark scenario once.
    steps.time("soak smoke", soak::smoke)?;
    // The steps below build elsewhere (the release's scratch copy, `fuzz/target`, the bench's
    // release profile); on a CI machine the debug build goes before them.
    if std::env::var_os("CI").is_some() {
        remove_dir(&target.join("debug"))?;
    }
    // What a release of HEAD would publish: the bump, the CHANGELOG cut, the semver check
    // against the last release, the names on crates.io, and every package built from its
    // tarball.
    steps.time("release dry run", || {
        release::release(&["--dry-run".to_owned()])?;
        // The packages' own build (3 GB) is not needed by any later step.
        release::remove_scratch()
    })?;
    steps.time("fuzz smoke", fuzz::smoke)?;
    steps.time("bench smoke", bench::smoke)?;
    Ok(())
}

/// The crates' feature sets other than `--all-features`, which every other step uses: the
/// defaults of `mcp-server` and `mcp-client` (no `jsonschema`) linted and tested, the
/// smallest builds (`mcp-server` without features, `mcp-transport-http` server-only and
/// client-only) linted. `env` names the target directory they build into.
fn feature_builds(env: &[(String, String)]) -> Result<()> {
    let defaults = ["-p", "mcp-rs-server", "-p", "mcp-rs-client"];
    let mut clippy = vec!["clippy", "--all-targets"];
    clippy.extend(defaults);
    clippy.extend(["--", "-D", "warnings"]);
    cargo_with_env(&clippy, env)?;
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
        cargo_with_env(&args, env)?;
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
    cargo_with_env(&test, env)
}

fn has_nextest() -> bool {
    Command::new("cargo")
        .args(["nextest", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Removes the test executables from `deps` (a profile's `deps/`): the files with no
/// extension and an execute bit. Cargo rebuilds one if asked to again; the libraries beside
/// them (`.rlib`, `.rmeta`, and the proc-macros' `.so`, which is executable too) stay for the
/// steps that build the binaries.
fn remove_test_executables(deps: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let entries = match std::fs::read_dir(deps) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", deps.display())),
    };
    let mut freed = 0u64;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", deps.display()))?;
        let path = entry.path();
        let meta = entry.metadata()?;
        if meta.is_file() && meta.permissions().mode() & 0o111 != 0 && path.extension().is_none() {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            freed += meta.len();
        }
    }
    eprintln!(
        "xtask ci: removed the test executables ({} MB)",
        freed / 1_000_000
    );
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
