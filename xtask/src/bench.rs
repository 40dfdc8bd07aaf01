//! `cargo xtask bench [--smoke] [--reps N] [--only SUBSTRING] [--seconds S] [--pin CPU]
//! [--no-cold-build]`: the benchmark harness of `bench/` (its own workspace, with rmcp as a
//! bench-only dependency). It builds the echo servers on our SDK and on rmcp, the raw floors
//! and the load generator in release mode into `target/bench`, runs every scenario
//! (`--only` picks those whose name contains the substring) for the floor, rmcp and ours,
//! `--reps` times (3 by default), and prints the markdown report, saved to
//! `target/bench-report.md`. A full run also times a cold release build of each minimal
//! stdio server; it fails only if a call failed (targets not met are reported, not failed).
//!
//! `--smoke` (CI's step): the harness's unit tests, then every scenario once and briefly;
//! fails if any call failed or any scenario produced no numbers, and judges no target (its
//! minimal servers are built with the harness, not on their own as a full run builds them).

use anyhow::{Context as _, Result, bail};

use crate::{run, workspace_root};

/// The smoke run of `cargo xtask ci`.
pub(crate) fn smoke() -> Result<()> {
    bench(&["--smoke".to_owned()])
}

pub(crate) fn bench(args: &[String]) -> Result<()> {
    let mut smoke = false;
    let mut forwarded = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--smoke" => {
                smoke = true;
                forwarded.push(arg.clone());
            }
            "--no-cold-build" => forwarded.push(arg.clone()),
            "--reps" | "--only" | "--seconds" | "--pin" => {
                let value = rest
                    .next()
                    .with_context(|| format!("{arg} needs a value"))?;
                forwarded.extend([arg.clone(), value.clone()]);
            }
            other => bail!(
                "unknown argument {other}; usage: cargo xtask bench [--smoke] [--reps N] \
                 [--only SUBSTRING] [--seconds S] [--pin CPU] [--no-cold-build]"
            ),
        }
    }
    let root = workspace_root();
    let manifest = root.join("bench").join("Cargo.toml");
    let target = root.join("target").join("bench");
    let manifest = manifest.to_string_lossy().into_owned();
    let target_dir = target.to_string_lossy().into_owned();
    let cargo = |command: &'static str, package: &'static str| -> Vec<String> {
        [
            command,
            "--release",
            "-p",
            package,
            "--manifest-path",
            &manifest,
            "--target-dir",
            &target_dir,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let mut build = cargo("build", "mcp-bench");
    if smoke {
        // The smoke run judges no number, so the minimal stdio servers are built with the
        // harness, on its dependencies' build (about two minutes less on 2 cores than the
        // separate builds below, whose binaries a full run measures).
        build.extend(["-p", "minimal-ours", "-p", "minimal-rmcp"].map(str::to_owned));
    }
    run_owned("cargo", &build)?;
    if smoke {
        // The harness's own unit tests (percentiles, /proc parsing, the report), in release
        // mode so that they share the build above; only the targets that have tests (the
        // servers' test builds would be four more binaries to compile for nothing).
        let mut test = cargo("test", "mcp-bench");
        test.extend(["--lib", "--bin", "loadgen"].map(str::to_owned));
        run_owned("cargo", &test)?;
    } else {
        // The minimal stdio servers (their spawn time is measured) each in a build of its
        // own, as their users build them: built together with the harness, cargo would unify
        // their dependencies' features with the echo servers' (tokio's multi-thread scheduler,
        // the HTTP stack's), and the binaries measured would not be the minimal ones.
        for package in ["minimal-ours", "minimal-rmcp"] {
            run_owned("cargo", &cargo("build", package))?;
        }
    }
    let bin_dir = target.join("release");
    let report = root.join("target").join("bench-report.md");
    let loadgen = bin_dir.join("loadgen");
    let mut loadgen_args = vec![
        "--manifest".to_owned(),
        manifest.clone(),
        "--bin-dir".to_owned(),
        bin_dir.to_string_lossy().into_owned(),
        "--out".to_owned(),
        report.to_string_lossy().into_owned(),
    ];
    loadgen_args.extend(forwarded);
    run_owned(&loadgen.to_string_lossy(), &loadgen_args)
}

fn run_owned(program: &str, args: &[String]) -> Result<()> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(program, &args)
}
