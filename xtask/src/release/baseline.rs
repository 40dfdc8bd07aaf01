//! The semver baseline and the `cargo-semver-checks` run.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::SEMVER_CHECKS_VERSION;
use super::packages::{Library, Workspace};
use super::version::{Version, release_type, workspace_version};
use crate::pinned::PinnedTool;

/// What the semver check compares against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Baseline {
    /// A git revision, and why it was chosen.
    Rev { rev: String, why: String },
    /// Nothing was released: no check.
    FirstRelease,
}

/// The baseline, from what is known: `explicit` (`--baseline-rev`) wins; else the last
/// release of the CHANGELOG, at its tag (`tag`: `vX.Y.Z` or `X.Y.Z`, if one exists) or else
/// at `heading_commit` (the last commit that touched its heading); else it is the first
/// release.
pub(super) fn choose_baseline(
    explicit: Option<&str>,
    last_release: Option<&Version>,
    tag: Option<&str>,
    heading_commit: Option<&str>,
) -> Result<Baseline> {
    if let Some(rev) = explicit {
        return Ok(Baseline::Rev {
            rev: rev.to_owned(),
            why: "--baseline-rev".to_owned(),
        });
    }
    let Some(last) = last_release else {
        return Ok(Baseline::FirstRelease);
    };
    if let Some(tag) = tag {
        return Ok(Baseline::Rev {
            rev: tag.to_owned(),
            why: format!("the tag of release {last}"),
        });
    }
    match heading_commit {
        Some(commit) => Ok(Baseline::Rev {
            rev: commit.to_owned(),
            why: format!("the last commit touching the CHANGELOG heading of {last} (no tag)"),
        }),
        None => bail!(
            "CHANGELOG.md names release {last}, but no tag v{last} exists and no commit touched its \
             heading (uncommitted?): give --baseline-rev"
        ),
    }
}

pub(super) fn resolve_baseline(
    root: &Path,
    explicit: Option<&str>,
    last: Option<&Version>,
) -> Result<Baseline> {
    let (tag, commit) = match last {
        Some(v) if explicit.is_none() => {
            let tag = [format!("v{v}"), v.to_string()].into_iter().find(|t| {
                git(
                    root,
                    &[
                        "rev-parse",
                        "-q",
                        "--verify",
                        &format!("refs/tags/{t}^{{commit}}"),
                    ],
                )
                .is_ok()
            });
            let heading = format!("## [{v}]");
            let commit = git(
                root,
                &[
                    "log",
                    "-1",
                    "--format=%H",
                    "-S",
                    &heading,
                    "--",
                    "CHANGELOG.md",
                ],
            )?;
            let commit = Some(commit.trim().to_owned()).filter(|c| !c.is_empty());
            (tag, commit)
        }
        _ => (None, None),
    };
    choose_baseline(explicit, last, tag.as_deref(), commit.as_deref())
}

/// `git <args>` in `root`: its stdout, or an error with its stderr.
pub(super) fn git(root: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .context("could not run git")?;
    if !out.status.success() {
        bail!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs the semver check; a line saying what was checked.
pub(super) fn semver_check(
    root: &Path,
    ws: &Workspace,
    baseline: &Baseline,
    new: &Version,
) -> Result<String> {
    let (rev, why) = match baseline {
        Baseline::FirstRelease => {
            return Ok(
                "first release: no baseline (no release in CHANGELOG.md, no --baseline-rev); check skipped"
                    .to_owned(),
            );
        }
        Baseline::Rev { rev, why } => (rev, why),
    };
    let commit = git(
        root,
        &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
    )
    .with_context(|| format!("baseline revision {rev:?}"))?;
    let commit = commit.trim();
    let base_manifest = git(root, &["show", &format!("{commit}:Cargo.toml")])?;
    let base_version = workspace_version(&base_manifest)
        .with_context(|| format!("the root Cargo.toml at {rev}"))?;
    let kind = release_type(&base_version, new).with_context(|| {
        format!("baseline {rev} is at {base_version}: choose a higher --version")
    })?;
    // A binary crate has no API for cargo-semver-checks to compare (it refuses a package
    // without a library): its command line is its interface, kept by its own tests.
    let (binaries, libraries): (Vec<&Library>, Vec<&Library>) =
        ws.libraries.iter().partition(|l| l.binary);
    if !binaries.is_empty() {
        let names: Vec<&str> = binaries.iter().map(|l| l.name.as_str()).collect();
        println!(
            "semver: binary crates, no library API to check: {}",
            names.join(", ")
        );
    }
    let (present, added): (Vec<&Library>, Vec<&Library>) = libraries.into_iter().partition(|l| {
        git(
            root,
            &["cat-file", "-e", &format!("{commit}:{}", l.rel_manifest)],
        )
        .is_ok()
    });
    println!(
        "semver: the working tree against {rev} ({why}; {}), version {base_version} -> {new}: a {} release",
        &commit[..12.min(commit.len())],
        kind.as_str()
    );
    if !added.is_empty() {
        let names: Vec<&str> = added.iter().map(|l| l.name.as_str()).collect();
        println!(
            "semver: new since the baseline, not checked: {}",
            names.join(", ")
        );
    }
    if present.is_empty() {
        return Ok("no crate existed at the baseline; nothing to check".to_owned());
    }
    let tool = ensure_semver_checks()?;
    let mut args = vec![
        "semver-checks".to_owned(),
        "check-release".to_owned(),
        "--baseline-rev".to_owned(),
        commit.to_owned(),
        "--release-type".to_owned(),
        kind.as_str().to_owned(),
    ];
    for l in &present {
        args.extend(["-p".to_owned(), l.name.clone()]);
    }
    eprintln!("$ {} {}", tool.display(), args.join(" "));
    let status = Command::new(&tool)
        .args(&args)
        .current_dir(root)
        .status()
        .with_context(|| format!("could not start {}", tool.display()))?;
    if !status.success() {
        bail!(
            "cargo-semver-checks found problems for a {} release (or failed): {status}",
            kind.as_str()
        );
    }
    Ok(format!(
        "{} crate(s) pass as a {} release against {rev}",
        present.len(),
        kind.as_str()
    ))
}

/// The pinned cargo-semver-checks, installed into `.tools/cargo-semver-checks/` when missing.
pub(super) fn ensure_semver_checks() -> Result<PathBuf> {
    PinnedTool {
        krate: "cargo-semver-checks",
        version: SEMVER_CHECKS_VERSION,
        features: None,
        binary: "cargo-semver-checks",
        version_args: &["semver-checks", "--version"],
        // It compares whole crates' rustdoc JSON: worth optimizing.
        unoptimized: false,
    }
    .ensure()
}
