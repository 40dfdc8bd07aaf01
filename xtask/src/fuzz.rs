//! `cargo xtask fuzz [--seconds N] [target...]`: runs the cargo-fuzz targets of `fuzz/`.
//!
//! - Installs the pinned `cargo-fuzz` ([`CARGO_FUZZ_VERSION`]) into `.tools/cargo-fuzz/` with
//!   `cargo install --locked` when missing or another version; runs it on the nightly toolchain
//!   (libFuzzer needs `-Z sanitizer`), installed with rustup when missing.
//! - Seeds each target's corpus, `fuzz/corpus/<target>/` (git-ignored), from the protocol's
//!   example messages (`../shared/spec/*/examples/**/*.json`, turned into SSE bodies for the
//!   `sse` target) and a few inputs written here; files already there are kept, so the corpus
//!   grows from run to run.
//! - Runs each target, one after the other in a single process (`-jobs` unset: one core), for
//!   N seconds (60 by default), with a per-input timeout, and fails on the first crash, leak,
//!   timeout or out-of-memory, naming the input that caused it (under `fuzz/artifacts/`).
//!   Prints the executions of each target.
//!
//! [`smoke`] is the short run (10 s per target) meant for `cargo xtask ci`, built without
//! optimizations (`cargo fuzz --dev`): on a 2-core machine the optimized build with the
//! sanitizer took 7.5 minutes for 60 seconds of fuzzing; unoptimized, the build is a fraction
//! of that, and it checks more (overflow checks and debug assertions are on).

use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::pinned::PinnedTool;

/// The cargo-fuzz release used (and installed when missing).
const CARGO_FUZZ_VERSION: &str = "0.13.1";

/// Every target of `fuzz/Cargo.toml`.
pub(crate) const TARGETS: &[&str] = &[
    "jsonrpc_message",
    "typed_messages",
    "sse",
    "uri_template",
    "www_authenticate",
    "jose_headers",
];

/// Seconds per input before libFuzzer calls it a hang (a failure): generous, for a loaded
/// 2-core machine with the sanitizer on.
const INPUT_TIMEOUT_SECS: u32 = 30;

/// `cargo xtask fuzz [--seconds N] [target...]`.
pub(crate) fn fuzz(args: &[String]) -> Result<()> {
    let mut seconds = 60;
    let mut targets = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let n = args.next().context("--seconds needs a number")?;
                seconds = n.parse().with_context(|| format!("--seconds {n}"))?;
            }
            t if TARGETS.contains(&t) => targets.push(t),
            other => bail!(
                "usage: cargo xtask fuzz [--seconds N] [target...]; unknown {other:?} (targets: {})",
                TARGETS.join(", ")
            ),
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    run(&targets, seconds, Profile::Release)
}

/// The CI smoke run: every target for 10 seconds.
pub(crate) fn smoke() -> Result<()> {
    run(TARGETS, 10, Profile::Dev)
}

/// How the targets are built.
#[derive(Clone, Copy)]
enum Profile {
    /// Optimized (cargo-fuzz's default): the most executions per second, for real runs.
    Release,
    /// Unoptimized, with overflow checks and debug assertions: a fast build, for the smoke run.
    Dev,
}

fn fuzz_dir() -> PathBuf {
    crate::workspace_root().join("fuzz")
}

fn run(targets: &[&str], seconds: u64, profile: Profile) -> Result<()> {
    ensure_cargo_fuzz()?;
    let mut summary = Vec::new();
    for target in targets {
        seed(target)?;
        let execs = run_target(target, seconds, profile)?;
        summary.push(format!("{target}: {execs} executions in {seconds} s"));
    }
    eprintln!("xtask fuzz: no crash");
    for line in summary {
        eprintln!("  {line}");
    }
    Ok(())
}

/// The pinned cargo-fuzz.
const CARGO_FUZZ: PinnedTool = PinnedTool {
    krate: "cargo-fuzz",
    version: CARGO_FUZZ_VERSION,
    features: None,
    binary: "cargo-fuzz",
    version_args: &["--version"],
    unoptimized: true,
};

/// `cargo +nightly fuzz`, finding the pinned `cargo-fuzz` in `.tools/cargo-fuzz/bin` first.
fn cargo_fuzz() -> Command {
    let mut cmd = Command::new("cargo");
    let mut path = vec![CARGO_FUZZ.root().join("bin")];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    if let Ok(path) = std::env::join_paths(path) {
        cmd.env("PATH", path);
    }
    cmd.args(["+nightly", "fuzz"]).current_dir(fuzz_dir());
    cmd
}

fn ensure_cargo_fuzz() -> Result<()> {
    let nightly = Command::new("cargo")
        .args(["+nightly", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !nightly {
        crate::run(
            "rustup",
            &["toolchain", "install", "nightly", "--profile", "minimal"],
        )?;
    }
    CARGO_FUZZ.ensure().map(drop)
}

/// Runs one target; the number of inputs it executed.
fn run_target(target: &str, seconds: u64, profile: Profile) -> Result<u64> {
    let corpus = Path::new("corpus").join(target);
    let mut args = vec!["run".to_owned()];
    if let Profile::Dev = profile {
        args.push("--dev".to_owned());
    }
    args.extend([
        target.to_owned(),
        corpus.display().to_string(),
        "--".to_owned(),
        format!("-max_total_time={seconds}"),
        format!("-timeout={INPUT_TIMEOUT_SECS}"),
        "-rss_limit_mb=2048".to_owned(),
        "-print_final_stats=1".to_owned(),
    ]);
    eprintln!("$ (cd fuzz && cargo +nightly fuzz {})", args.join(" "));
    let started = Instant::now();
    let mut child = cargo_fuzz()
        .args(&args)
        .stderr(Stdio::piped())
        .spawn()
        .context("could not start cargo fuzz")?;
    let mut execs = None;
    let mut tail = std::collections::VecDeque::new();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let line = line?;
            // The build's progress and libFuzzer's periodic lines ("#N pulse/NEW/REDUCE") are
            // summarised; the rest (start-up, crash reports, final stats) is shown.
            // So is the dictionary libFuzzer prints at the end (`"..." # Uses: N`).
            let periodic = (line.starts_with('#') && !line.contains("DONE"))
                || (line.starts_with('"') && line.contains("# Uses:"));
            if !periodic && !line.trim_start().starts_with("Compiling") {
                eprintln!("{line}");
            }
            if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
                execs = n.trim().parse().ok();
            }
            tail.push_back(line);
            if tail.len() > 20 {
                tail.pop_front();
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        for line in tail {
            eprintln!("| {line}");
        }
        bail!(
            "fuzz target {target} failed ({status}) after {:?}; the input is under fuzz/artifacts/{target}/",
            started.elapsed()
        );
    }
    execs.with_context(|| format!("fuzz target {target} printed no execution count"))
}

/// Writes the seed inputs of `target` into its corpus directory (keeping what is there).
fn seed(target: &str) -> Result<()> {
    let dir = fuzz_dir().join("corpus").join(target);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    match target {
        "jsonrpc_message" | "typed_messages" => {
            for (name, json) in spec_examples()? {
                seeds.push((name, json));
            }
        }
        "sse" => {
            for (name, json) in spec_examples()? {
                let Ok(value) = serde_json::from_slice::<serde_json::Value>(&json) else {
                    continue;
                };
                // A chunk-size byte, then a priming event and the message event.
                let body = format!("\x07id: 0\ndata:\n\nevent: message\nid: 1\ndata: {value}\n\n");
                seeds.push((name, body.into_bytes()));
            }
            seeds.push((
                "multiline".into(),
                b"\x03: comment\r\nretry: 10\r\ndata: {\"jsonrpc\":\r\ndata: \"2.0\",\"method\":\"ping\",\"id\":1}\r\n\r\n".to_vec(),
            ));
        }
        "uri_template" => {
            for (i, pair) in [
                "test://template/{id}/data\ntest://template/123/data",
                "file:///{+path}\nfile:///a/b/c.txt",
                "x://h{/seg*}\nx://h/a/b",
                "x://s{?q,lang}\nx://s?q=rust&lang=en",
                "x://h{#frag}\nx://h#a/b",
                "x://h{;v}\nx://h;v=1",
                "x://h/f{.ext}\nx://h/f.json",
                "x://{a},{b}\nx://1,2",
                "users://{id}\nusers://a%20b",
                "x://{a:3}/{b}\nx://abc/d",
                // Made iri-string panic once (a prefix modifier over 9999).
                "{/0h}{h8888:88888}\nx://h/f",
            ]
            .into_iter()
            .enumerate()
            {
                seeds.push((format!("seed-{i}"), pair.as_bytes().to_vec()));
            }
        }
        "www_authenticate" => {
            for (i, value) in [
                r#"Bearer resource_metadata="https://h/.well-known/x", scope="a b""#,
                r#"bearer error=insufficient_scope, scope="a \"b\"", error_description="x, y""#,
                r#"Basic realm="x", Bearer scope="s", DPoP algs="ES256""#,
                r#"DPoP error="use_dpop_nonce", resource_metadata="https://h/m""#,
                r#"Basic abc==, Bearer scope="s""#,
            ]
            .into_iter()
            .enumerate()
            {
                seeds.push((format!("seed-{i}"), value.as_bytes().to_vec()));
            }
        }
        "jose_headers" => {
            // A JWT access token header, one with `crit`, and a DPoP proof (bad signatures).
            for (i, value) in [
                "Bearer eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.e30.c2ln",
                "DPoP eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.e30.c2ln\nBearer x",
                "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwiY3JpdCI6WyJiNjQiXX0.e30.c2ln",
                "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwiY3J2IjoiUC0yNTYiLCJ4IjoiZjgzT0ozRDJ4RjFCZzh2dWI5dExlMWdITXpWNzZlOFR1czl1UEh2UlZFVSIsInkiOiJ4X0ZFelJ1OW0zNkhMTl90dWU2NTlMTnBYVzZwQ3lTdGlrWWpLSVdJNWEwIn19.eyJqdGkiOiJhIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vbWNwLmV4YW1wbGUuY29tL21jcCIsImlhdCI6MCwiYXRoIjoieCJ9.c2ln",
            ]
            .into_iter()
            .enumerate()
            {
                seeds.push((format!("seed-{i}"), value.as_bytes().to_vec()));
            }
        }
        other => bail!("no seeds for fuzz target {other}"),
    }
    for (name, bytes) in seeds {
        let path = dir.join(name);
        if !path.exists() {
            fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Every example JSON file of the protocol revisions in `../shared/spec/`, named
/// `<revision>-<type>-<file>`. None if that directory is missing.
fn spec_examples() -> Result<Vec<(String, Vec<u8>)>> {
    let spec = crate::shared_spec_dir();
    let mut out = Vec::new();
    let Ok(revisions) = fs::read_dir(&spec) else {
        eprintln!(
            "note: {} not found; the corpus starts without the spec's examples",
            spec.display()
        );
        return Ok(out);
    };
    for revision in revisions {
        let revision = revision?.path();
        let examples = revision.join("examples");
        if !examples.is_dir() {
            continue;
        }
        let rev = file_name(&revision);
        let mut stack = vec![examples];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let parent = path.parent().map(file_name).unwrap_or_default();
                    let name = format!("{rev}-{parent}-{}", file_name(&path));
                    out.push((name, fs::read(&path)?));
                }
            }
        }
    }
    Ok(out)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
