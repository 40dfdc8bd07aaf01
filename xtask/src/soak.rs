//! `cargo xtask soak [--minutes M | --seconds S] [--sessions N] [--stdio N] [--release]`:
//! builds `everything-server` and the soak driver (`tests/examples/soak.rs`), runs the driver
//! against the server, and saves its markdown report to `target/soak-report.md`. It fails if
//! a call was lost or answered wrongly, or if the server's RSS or open files did not stay flat.
//!
//! Without `--release` both are debug builds (what CI's one-minute smoke uses, since the
//! tests built them already); a real soak uses `--release`.

use anyhow::{Context as _, Result, bail};

use crate::{run, workspace_root};

/// The smoke run of `cargo xtask ci`: one minute, the full 1,000 sessions.
pub(crate) fn smoke() -> Result<()> {
    soak(&["--minutes".to_owned(), "1".to_owned()])
}

pub(crate) fn soak(args: &[String]) -> Result<()> {
    let mut release = false;
    let mut forwarded = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--release" => release = true,
            "--minutes" | "--seconds" | "--sessions" | "--stdio" | "--sample-every" => {
                let value = rest
                    .next()
                    .with_context(|| format!("{arg} needs a value"))?;
                forwarded.extend([arg.clone(), value.clone()]);
            }
            other => bail!(
                "unknown argument {other}; usage: cargo xtask soak [--minutes M | --seconds S] \
                 [--sessions N] [--stdio N] [--sample-every S] [--release]"
            ),
        }
    }
    let profile = if release { "release" } else { "debug" };
    // The whole workspace's features, as the tests build it: a CI run links these from the
    // libraries it already has.
    let mut build = vec![
        "build",
        "--workspace",
        "--all-features",
        "--bin",
        "everything-server",
    ];
    let mut build_driver = vec![
        "build",
        "--workspace",
        "--all-features",
        "--example",
        "soak",
    ];
    if release {
        build.push("--release");
        build_driver.push("--release");
    }
    run("cargo", &build)?;
    run("cargo", &build_driver)?;
    let target = workspace_root().join("target").join(profile);
    let server = target.join("everything-server");
    let driver = target.join("examples").join("soak");
    let server = server.to_string_lossy().into_owned();
    let mut driver_args = vec!["--server", server.as_str()];
    driver_args.extend(forwarded.iter().map(String::as_str));
    eprintln!("$ {} {}", driver.display(), driver_args.join(" "));
    let output = std::process::Command::new(&driver)
        .args(&driver_args)
        .current_dir(workspace_root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("could not start {}", driver.display()))?;
    let report = String::from_utf8_lossy(&output.stdout);
    println!("{report}");
    let saved = workspace_root().join("target").join("soak-report.md");
    std::fs::write(&saved, report.as_bytes())
        .with_context(|| format!("writing {}", saved.display()))?;
    eprintln!("soak: report saved to {}", saved.display());
    if !output.status.success() {
        bail!("the soak failed ({}); see the report above", output.status);
    }
    Ok(())
}
