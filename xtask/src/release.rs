//! `cargo xtask release --dry-run [--version X.Y.Z] [--baseline-rev REV]`: what a release
//! would do, checked and shown, with nothing written in the working tree or published.
//!
//! The release is made from the last commit: `HEAD` is exported (`git archive`) into a scratch
//! copy, `target/release-dry-run/ws`, where the bump is applied and the packages are made.
//!
//! 1. **Version.** `--version`, or the next patch of `[workspace.package] version`; the
//!    library crates share it. Shown: every manifest line the bump would change (the workspace
//!    version, and the `version = "..."` of each entry naming a library crate, in the root's
//!    `[workspace.dependencies]` and in member manifests that do not inherit it).
//! 2. **CHANGELOG.** `## [Unreleased]` cut as `## [X.Y.Z] - <today, UTC>` under a new empty
//!    `## [Unreleased]`, printed, not written. An empty section, or a version the CHANGELOG
//!    already has, is a failure.
//! 3. **Semver check** with the pinned `cargo-semver-checks` ([`SEMVER_CHECKS_VERSION`],
//!    installed into `.tools/cargo-semver-checks/` on first use) against the previous release:
//!    [`choose_baseline`] picks the git revision. Crates.io is not consulted: a release is a
//!    CHANGELOG heading and, once tagged, a `vX.Y.Z` tag. The release type passed to the tool
//!    follows from the baseline's version and the new one by Cargo's rules
//!    ([`release_type`]). With no release in the CHANGELOG and no `--baseline-rev`, this is
//!    the first release: the check is skipped, and the output says so.
//! 4. **Names.** Each crate's name is looked up on crates.io (`cargo info`): a name held by
//!    a crate of another repository cannot be published, and is a failure.
//! 5. **Packages.** One `cargo package -p <each library crate>` in the scratch copy, at the
//!    new version: since cargo 1.90 the packages of one invocation are made together, and a
//!    crate depending on unpublished workspace crates is verified against their fresh
//!    `.crate` files (a local overlay registry), so every crate is built from its tarball
//!    (no `--no-verify`). Then each `.crate` is checked (its README, a license, description,
//!    repository, keywords and categories crates.io accepts) and listed, in publishing order
//!    (the normal-dependency DAG, [`publish_order`]).
//!
//! Without `--dry-run` the command refuses: publishing is done by hand, after the bump and
//! the CHANGELOG cut are committed and tagged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};

use crate::workspace_root;

/// The cargo-semver-checks release used (it reads the rustdoc JSON of toolchain 1.95,
/// format 57).
pub(crate) const SEMVER_CHECKS_VERSION: &str = "0.51.0";

const USAGE: &str = "usage: cargo xtask release --dry-run [--version X.Y.Z] [--baseline-rev REV]";
/// The dry run's scratch directory under the target directory.
const SCRATCH: &str = "release-dry-run";

/// The command line of `release`.
#[derive(Debug, Default)]
struct Args {
    dry_run: bool,
    version: Option<Version>,
    baseline_rev: Option<String>,
}

fn parse_args(args: &[String]) -> Result<Args> {
    let mut parsed = Args::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dry-run" => parsed.dry_run = true,
            "--version" => {
                let v = args.next().context("--version needs X.Y.Z")?;
                parsed.version = Some(v.parse()?);
            }
            "--baseline-rev" => {
                let rev = args.next().context("--baseline-rev needs a git revision")?;
                parsed.baseline_rev = Some(rev.clone());
            }
            other => bail!("{USAGE}; unknown argument {other:?}"),
        }
    }
    Ok(parsed)
}

/// `cargo xtask release ...`.
pub(crate) fn release(args: &[String]) -> Result<()> {
    let args = parse_args(args)?;
    if !args.dry_run {
        bail!(
            "{USAGE}\nonly the dry run exists: publish by hand once the bump and the CHANGELOG cut \
             are committed and tagged"
        );
    }
    let started = Instant::now();
    let root = workspace_root();
    let target_dir = crate::cargo_target_dir(&root)?;

    // The committed state, in a scratch copy; the crates are those of HEAD.
    let head = git(&root, &["rev-parse", "HEAD"])?.trim().to_owned();
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"])?
        .trim()
        .is_empty();
    let scratch = target_dir.join(SCRATCH);
    let copy = export_head(&root, &scratch)?;
    let ws = Workspace::from_metadata(&crate::cargo_metadata(&copy)?)?;

    // 1. The version.
    let current = workspace_version(&read(&copy.join("Cargo.toml"))?)?;
    let new = args.version.clone().unwrap_or_else(|| current.next_patch());
    let changelog_text = read(&copy.join("CHANGELOG.md"))?;
    let last_release = last_release(&changelog_text)?;
    check_new_version(&current, last_release.as_ref(), &new)?;
    println!(
        "== release {new} (dry run) of HEAD {}",
        &head[..12.min(head.len())]
    );
    if dirty {
        println!("(uncommitted changes in the working tree are not part of it)");
    }
    println!();
    println!(
        "version: {current} -> {new}{}",
        if args.version.is_some() {
            ""
        } else {
            " (the next patch)"
        }
    );
    match &last_release {
        Some(v) => println!("previous release (CHANGELOG): {v}"),
        None => println!("previous release (CHANGELOG): none"),
    }
    let edits = version_edits(&copy, &ws, &new)?;
    println!(
        "would change {} line(s) (applied in the scratch copy only):",
        edits.len()
    );
    for e in &edits {
        println!("  {}:{}: {}  ->  {}", e.file, e.line, e.before, e.after);
    }
    apply_edits(&copy, &edits)?;

    // 2. The CHANGELOG.
    let today = utc_date(SystemTime::now());
    let cut = cut_changelog(&changelog_text, &new, &today)?;
    println!();
    println!(
        "CHANGELOG.md (not written): `## [Unreleased]` becomes `## [{new}] - {today}` \
         ({} lines{}), under a new empty `## [Unreleased]`:",
        cut.section_lines,
        summary(&cut.subsections)
    );
    let heading = cut
        .text
        .lines()
        .skip_while(|l| !release_heading(l).is_some_and(|n| n.eq_ignore_ascii_case("unreleased")))
        .take(3);
    for line in heading {
        println!("  | {line}");
    }

    let mut problems: Vec<String> = ws
        .libraries
        .iter()
        .filter(|l| l.version != current.to_string())
        .map(|l| {
            format!(
                "{}: version {} is not the workspace's {current}",
                l.name, l.version
            )
        })
        .collect();

    // 3. The semver check.
    println!();
    let step = Instant::now();
    let baseline = resolve_baseline(&root, args.baseline_rev.as_deref(), last_release.as_ref())?;
    match semver_check(&root, &ws, &baseline, &new) {
        Ok(semver) => println!("semver: {semver} ({:.1?})", step.elapsed()),
        Err(e) => {
            println!("semver: FAILED: {e:#}");
            problems.push(format!("semver: {e:#}"));
        }
    }

    // 4. The names on crates.io.
    println!();
    let step = Instant::now();
    for l in &ws.libraries {
        match crates_io_name(&l.name, l.repository.as_deref()) {
            Ok(NameOnCratesIo::Free) => println!("crates.io: {} is free", l.name),
            Ok(NameOnCratesIo::Ours { latest }) => {
                println!("crates.io: {} is ours (latest {latest})", l.name);
            }
            Ok(NameOnCratesIo::Taken { latest, repository }) => {
                let m = format!(
                    "{}: the name is taken on crates.io by {repository} (latest {latest}): rename \
                     the crate to publish it",
                    l.name
                );
                println!("crates.io: {m}");
                problems.push(m);
            }
            Err(e) => problems.push(format!("{}: {e:#}", l.name)),
        }
    }
    println!("crates.io: names looked up ({:.1?})", step.elapsed());

    // 5. The packages.
    println!();
    if let Err(cycle) = packaging_order(&ws.libraries) {
        problems.push(cycle.to_string());
        // The manifest checks, on the files of the copy (the packages would carry them).
        for l in &ws.libraries {
            let dir = copy.join(&l.rel_manifest);
            let dir = dir.parent().unwrap_or(&copy);
            let files: Vec<(String, u64)> = [l.readme.clone(), l.license_file.clone()]
                .into_iter()
                .flatten()
                .filter(|f| dir.join(f).is_file())
                .map(|f| (f, 0))
                .collect();
            let (found, _) = check_package(l, &files);
            problems.extend(found.iter().map(|m| format!("{}: {m}", l.name)));
        }
        bail!(
            "release dry run: {} problem(s), packaging not attempted:\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    let step = Instant::now();
    let packages = package(&copy, &scratch.join("target"), &ws, &new)?;
    println!(
        "packages of {new} (cargo package, each verified; {:.1?}), in publishing order:",
        step.elapsed()
    );
    print_packages(&packages);
    for p in &packages {
        problems.extend(p.problems.iter().map(|m| format!("{}: {m}", p.name)));
        for w in &p.warnings {
            println!("warning: {}: {w}", p.name);
        }
    }
    println!();
    println!(
        "would publish, in order: {}",
        packages
            .iter()
            .map(|p| format!("{} {new}", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("({:.1?} in all)", started.elapsed());
    if !problems.is_empty() {
        bail!(
            "release dry run: {} problem(s):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    println!("release dry run: ok");
    Ok(())
}

/// Removes the dry run's scratch copy and the packages built in it (the next dry run starts from
/// an empty copy anyway).
pub(crate) fn remove_scratch() -> Result<()> {
    crate::remove_dir(&crate::cargo_target_dir(&workspace_root())?.join(SCRATCH))
}

/// `git archive HEAD` extracted into `<scratch>/ws` (emptied first); the copy's path.
fn export_head(root: &Path, scratch: &Path) -> Result<PathBuf> {
    let copy = scratch.join("ws");
    crate::remove_dir(&copy)?;
    std::fs::create_dir_all(&copy).with_context(|| format!("cannot create {}", copy.display()))?;
    let tarball = scratch.join("head.tar");
    let tarball_arg = tarball.display().to_string();
    git(
        root,
        &["archive", "--format=tar", "-o", &tarball_arg, "HEAD"],
    )?;
    let status = Command::new("tar")
        .arg("-xf")
        .arg(&tarball)
        .arg("-C")
        .arg(&copy)
        .status()
        .context("could not run tar")?;
    if !status.success() {
        bail!("tar -xf {} failed: {status}", tarball.display());
    }
    Ok(copy)
}

/// Writes `edits` into the manifests of the scratch copy `copy`.
fn apply_edits(copy: &Path, edits: &[Edit]) -> Result<()> {
    let mut by_file: BTreeMap<&str, Vec<&Edit>> = BTreeMap::new();
    for e in edits {
        by_file.entry(e.file.as_str()).or_default().push(e);
    }
    for (file, edits) in by_file {
        let path = copy.join(file);
        let text = read(&path)?;
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        for e in edits {
            let line = lines
                .get_mut(e.line - 1)
                .with_context(|| format!("{file} has no line {}", e.line))?;
            *line = line.replacen(&e.before, &e.after, 1);
        }
        let mut out = lines.join("\n");
        out.push('\n');
        std::fs::write(&path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// A crate name on crates.io.
#[derive(Debug, PartialEq, Eq)]
enum NameOnCratesIo {
    Free,
    /// Published from this repository: the previous releases.
    Ours {
        latest: String,
    },
    /// Published from another repository.
    Taken {
        latest: String,
        repository: String,
    },
}

/// Looks `name` up on crates.io with `cargo info` (run outside the workspace, so that it
/// does not describe the local package).
fn crates_io_name(name: &str, our_repository: Option<&str>) -> Result<NameOnCratesIo> {
    let out = Command::new("cargo")
        .args(["info", "--registry", "crates-io", name])
        .current_dir(std::env::temp_dir())
        .output()
        .context("could not run cargo info")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if stderr.contains("could not find") {
            return Ok(NameOnCratesIo::Free);
        }
        bail!("cargo info {name} failed: {}", stderr.trim());
    }
    Ok(classify_name(&stdout, our_repository))
}

/// What `cargo info`'s output says about the name's owner.
fn classify_name(info: &str, our_repository: Option<&str>) -> NameOnCratesIo {
    let field = |key: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_owned())
            .unwrap_or_default()
    };
    let latest = field("version:");
    let repository = field("repository:");
    let norm = |r: &str| {
        r.trim()
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .to_ascii_lowercase()
    };
    if our_repository.is_some_and(|ours| !repository.is_empty() && norm(ours) == norm(&repository))
    {
        NameOnCratesIo::Ours { latest }
    } else {
        NameOnCratesIo::Taken { latest, repository }
    }
}

mod baseline;
mod changelog;
mod packages;
mod version;

use baseline::*;
use changelog::*;
use packages::*;
use version::*;

#[cfg(test)]
mod tests;
