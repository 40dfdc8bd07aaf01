//! What the report says about the machine and build, and the minimal servers' package
//! counts and cold build times (both from cargo).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use mcp_bench::report::Header;

fn output(program: &str, args: &[&str], dir: &Path) -> String {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The header of a report measured from `root` (the workspace, for rustc and git).
pub(crate) fn header(root: &Path, reps: usize, smoke: bool) -> Header {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".to_owned(), |(_, name)| name.trim().to_owned());
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .map(|s| s.trim().to_owned())
            .unwrap_or_default()
    };
    let load = read("/proc/loadavg")
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let mut commit = output("git", &["rev-parse", "--short=12", "HEAD"], root);
    if !output(
        "git",
        &["status", "--porcelain", "--untracked-files=no"],
        root,
    )
    .is_empty()
    {
        commit.push_str(" (with uncommitted changes)");
    }
    Header {
        cpu,
        cores: std::thread::available_parallelism().map_or(0, usize::from),
        kernel: read("/proc/sys/kernel/osrelease"),
        rustc: output("rustc", &["-V"], root),
        date: output("date", &["-u", "+%Y-%m-%d %H:%M UTC"], root),
        commit,
        load,
        reps,
        smoke,
    }
}

/// The unique packages in `package`'s normal and build dependency tree on Linux x86-64
/// (the package itself included).
pub(crate) fn package_count(manifest: &Path, package: &str) -> Result<usize> {
    let manifest = manifest.to_string_lossy();
    let out = Command::new("cargo")
        .args([
            "tree",
            "--manifest-path",
            &manifest,
            "-p",
            package,
            "-e",
            "normal,build",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--prefix",
            "none",
        ])
        .output()
        .context("running cargo tree")?;
    if !out.status.success() {
        bail!(
            "cargo tree failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(count_packages(&String::from_utf8_lossy(&out.stdout)))
}

/// Counts the unique `name version` pairs of `cargo tree --prefix none` output.
pub(crate) fn count_packages(tree: &str) -> usize {
    tree.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .collect::<BTreeSet<_>>()
        .len()
}

/// The wall time of a release build of `package` into a fresh target directory under
/// `scratch`, in seconds (the registry fetched beforehand, so no download is timed).
pub(crate) fn cold_build_seconds(manifest: &Path, package: &str, scratch: &Path) -> Result<f64> {
    let manifest = manifest.to_string_lossy();
    let fetch = Command::new("cargo")
        .args(["fetch", "--manifest-path", &manifest])
        .status()?;
    if !fetch.success() {
        bail!("cargo fetch failed");
    }
    let dir = scratch.join(package);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    let start = Instant::now();
    let status = Command::new("cargo")
        .args([
            "build",
            "--release",
            "--offline",
            "--manifest-path",
            &manifest,
            "-p",
            package,
        ])
        .arg("--target-dir")
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()?;
    let seconds = start.elapsed().as_secs_f64();
    std::fs::remove_dir_all(&dir)?;
    if !status.success() {
        bail!("cargo build -p {package} failed");
    }
    Ok(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_unique_packages() {
        let tree = "minimal v0.0.0 (/x)\nserde v1.0.1\nserde_json v1.0.2\nserde v1.0.1 (*)\n\n";
        assert_eq!(count_packages(tree), 3);
    }
}
