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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{setup, workspace_root};

/// The cargo-semver-checks release used (it reads the rustdoc JSON of toolchain 1.95,
/// format 57).
pub(crate) const SEMVER_CHECKS_VERSION: &str = "0.51.0";

const USAGE: &str = "usage: cargo xtask release --dry-run [--version X.Y.Z] [--baseline-rev REV]";

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
    let target_dir = cargo_metadata(&root)?["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata: no target_directory")?;

    // The committed state, in a scratch copy; the crates are those of HEAD.
    let head = git(&root, &["rev-parse", "HEAD"])?.trim().to_owned();
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"])?
        .trim()
        .is_empty();
    let scratch = target_dir.join("release-dry-run");
    let copy = export_head(&root, &scratch)?;
    let ws = Workspace::from_metadata(&cargo_metadata(&copy)?)?;

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

/// `git archive HEAD` extracted into `<scratch>/ws` (emptied first); the copy's path.
fn export_head(root: &Path, scratch: &Path) -> Result<PathBuf> {
    let copy = scratch.join("ws");
    if copy.exists() {
        std::fs::remove_dir_all(&copy)
            .with_context(|| format!("cannot remove {}", copy.display()))?;
    }
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

// ---------------------------------------------------------------------------------------------
// Versions

/// A release version, `X.Y.Z` (no pre-release or build metadata: the workspace uses none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    major: u64,
    minor: u64,
    patch: u64,
}

impl Version {
    fn next_patch(&self) -> Version {
        Version {
            patch: self.patch + 1,
            ..self.clone()
        }
    }
}

impl std::str::FromStr for Version {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Version> {
        let parts: Vec<&str> = s.split('.').collect();
        let number = |p: &str| -> Result<u64> {
            if p.is_empty()
                || !p.bytes().all(|b| b.is_ascii_digit())
                || (p.len() > 1 && p.starts_with('0'))
            {
                bail!("{s:?} is not a version X.Y.Z");
            }
            Ok(p.parse()?)
        };
        match parts[..] {
            [major, minor, patch] => Ok(Version {
                major: number(major)?,
                minor: number(minor)?,
                patch: number(patch)?,
            }),
            _ => bail!("{s:?} is not a version X.Y.Z"),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What `cargo semver-checks --release-type` is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReleaseType {
    Major,
    Minor,
    Patch,
}

impl ReleaseType {
    fn as_str(self) -> &'static str {
        match self {
            ReleaseType::Major => "major",
            ReleaseType::Minor => "minor",
            ReleaseType::Patch => "patch",
        }
    }
}

/// The kind of release going from `baseline` to `new`, by Cargo's rules: the left-most
/// non-zero component is the breaking one (0.y.z: a new y may break, a new z may add;
/// 0.0.z: every release may break).
fn release_type(baseline: &Version, new: &Version) -> Result<ReleaseType> {
    if new <= baseline {
        bail!("the new version {new} is not above the baseline's {baseline}");
    }
    Ok(if new.major != baseline.major {
        ReleaseType::Major
    } else if new.major == 0 {
        if new.minor != baseline.minor || new.minor == 0 {
            ReleaseType::Major
        } else {
            ReleaseType::Minor
        }
    } else if new.minor != baseline.minor {
        ReleaseType::Minor
    } else {
        ReleaseType::Patch
    })
}

/// The new version must not go back: above the last release, and not below the version in
/// the manifests (it may equal it only while that version was never released).
fn check_new_version(
    current: &Version,
    last_release: Option<&Version>,
    new: &Version,
) -> Result<()> {
    if let Some(last) = last_release
        && new <= last
    {
        bail!("--version {new} is not above the last release, {last}");
    }
    if new < current {
        bail!("--version {new} is below the workspace version {current}");
    }
    if new == current && last_release == Some(current) {
        bail!("{new} is already released");
    }
    Ok(())
}

/// `version` of `[workspace.package]` in the root manifest.
fn workspace_version(manifest: &str) -> Result<Version> {
    let mut section = String::new();
    for line in manifest.lines() {
        if let Some(name) = section_name(line) {
            section = name;
        } else if section == "workspace.package"
            && let Some(v) = plain_string_value(line, "version")
        {
            return v.parse();
        }
    }
    bail!("no `version` in [workspace.package] of the root Cargo.toml")
}

/// The name of a `[section]` or `[[array]]` header line.
fn section_name(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = t.strip_prefix("[[").and_then(|t| t.strip_suffix("]]"));
    let inner = inner.or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')));
    inner.map(|s| s.trim().to_owned())
}

/// The value of `key = "value"` on a line of its own.
fn plain_string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim().strip_prefix(key)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim();
    let rest = rest.split('#').next()?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}

/// One manifest line the bump changes (1-based line number).
#[derive(Debug, PartialEq, Eq)]
struct Edit {
    file: String,
    line: usize,
    before: String,
    after: String,
}

/// The bump of one manifest: `version` of `[workspace.package]`, and the `version` of every
/// dependency entry on one of `internal` (inline `name = { ..., version = "..." }` in any
/// dependency table, or a `[...dependencies.name]` table). Entries inheriting from the
/// workspace (`name.workspace = true`) carry no version and are left alone.
fn bump_manifest(
    text: &str,
    internal: &BTreeSet<String>,
    new: &Version,
) -> Vec<(usize, String, String)> {
    let mut edits = Vec::new();
    let mut section = String::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(name) = section_name(line) {
            section = name;
            continue;
        }
        let dep_table = section_is_dependency_table(&section);
        let in_dep_subtable = dep_subtable_crate(&section).is_some_and(|c| internal.contains(c));
        let after = if section == "workspace.package" || in_dep_subtable {
            plain_string_value(line, "version")
                .map(|old| line.replacen(&format!("\"{old}\""), &format!("\"{new}\""), 1))
        } else if dep_table {
            inline_dependency(line)
                .filter(|name| internal.contains(*name))
                .and_then(|_| replace_inline_version(line, new))
        } else {
            None
        };
        if let Some(after) = after
            && after != line
        {
            edits.push((i + 1, line.to_owned(), after));
        }
    }
    edits
}

/// `dependencies`, `dev-dependencies`, `build-dependencies`, `workspace.dependencies`,
/// `target.<cfg>.dependencies`, ...
fn section_is_dependency_table(section: &str) -> bool {
    section.ends_with("dependencies")
}

/// `X` of a `[dependencies.X]` (or `[workspace.dependencies.X]`, ...) table.
fn dep_subtable_crate(section: &str) -> Option<&str> {
    let (table, name) = section.rsplit_once('.')?;
    section_is_dependency_table(table).then(|| name.trim_matches('"'))
}

/// The key of a `name = { ... }` line.
fn inline_dependency(line: &str) -> Option<&str> {
    let (key, value) = line.split_once('=')?;
    value
        .trim_start()
        .starts_with('{')
        .then(|| key.trim().trim_matches('"'))
}

/// `line` with the value of its inline table's `version` key set to `new`.
fn replace_inline_version(line: &str, new: &Version) -> Option<String> {
    let mut from = 0;
    while let Some(found) = line[from..].find("version") {
        let at = from + found;
        from = at + "version".len();
        let before = line[..at].chars().next_back();
        if !matches!(before, Some('{' | ',' | ' ' | '\t')) {
            continue; // `rust-version`, `xversion`, ...
        }
        let rest = line[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(value) = rest.strip_prefix('"') else {
            continue;
        };
        let end = value.find('"')?;
        let start = line.len() - value.len();
        return Some(format!("{}{new}{}", &line[..start], &line[start + end..]));
    }
    None
}

/// Every line the bump would change, in the root manifest and in each member's, in the
/// scratch copy `copy` (the workspace `ws` describes).
fn version_edits(copy: &Path, ws: &Workspace, new: &Version) -> Result<Vec<Edit>> {
    let internal: BTreeSet<String> = ws.libraries.iter().map(|l| l.name.clone()).collect();
    let mut manifests = vec!["Cargo.toml".to_owned()];
    manifests.extend(ws.members.iter().map(|m| {
        m.manifest
            .strip_prefix(copy)
            .unwrap_or(&m.manifest)
            .display()
            .to_string()
    }));
    let mut edits = Vec::new();
    for file in manifests {
        let text = read(&copy.join(&file))?;
        for (line, before, after) in bump_manifest(&text, &internal, new) {
            edits.push(Edit {
                file: file.clone(),
                line,
                before: before.trim().to_owned(),
                after: after.trim().to_owned(),
            });
        }
    }
    let current = workspace_version(&read(&copy.join("Cargo.toml"))?)?;
    if current != *new
        && !edits
            .iter()
            .any(|e| e.file == "Cargo.toml" && e.before.starts_with("version"))
    {
        bail!("the bump found no `version` in [workspace.package]");
    }
    Ok(edits)
}

// ---------------------------------------------------------------------------------------------
// CHANGELOG

/// The version of the CHANGELOG's latest release heading (`## [X.Y.Z] - date`), if any.
fn last_release(changelog: &str) -> Result<Option<Version>> {
    for line in changelog.lines() {
        if let Some(name) = release_heading(line)
            && !name.eq_ignore_ascii_case("unreleased")
        {
            return name
                .parse()
                .map(Some)
                .with_context(|| format!("CHANGELOG heading {line:?}"));
        }
    }
    Ok(None)
}

/// `X` of a `## [X]...` line.
fn release_heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## [")?;
    rest.split_once(']').map(|(name, _)| name)
}

/// The CHANGELOG with its `## [Unreleased]` section cut as a release.
#[derive(Debug)]
struct Cut {
    /// The new text of CHANGELOG.md.
    text: String,
    /// The released section's lines (without the heading, trailing blank lines dropped).
    section_lines: usize,
    /// Its `### ...` subsections and the entries (`- ` lines) of each.
    subsections: Vec<(String, usize)>,
}

fn cut_changelog(changelog: &str, new: &Version, date: &str) -> Result<Cut> {
    let lines: Vec<&str> = changelog.lines().collect();
    let start = lines
        .iter()
        .position(|l| release_heading(l).is_some_and(|n| n.eq_ignore_ascii_case("unreleased")))
        .context("CHANGELOG.md has no `## [Unreleased]` section")?;
    if lines
        .iter()
        .any(|l| release_heading(l) == Some(new.to_string().as_str()))
    {
        bail!("CHANGELOG.md already has a section for {new}");
    }
    let end = lines[start + 1..]
        .iter()
        .position(|l| release_heading(l).is_some() || l.starts_with("[Unreleased]:"))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut body = &lines[start + 1..end];
    while let [rest @ .., last] = body
        && last.trim().is_empty()
    {
        body = rest;
    }
    let mut subsections: Vec<(String, usize)> = Vec::new();
    let mut entries = 0;
    for line in body {
        if let Some(title) = line.strip_prefix("### ") {
            subsections.push((title.trim().to_owned(), 0));
        } else if line.starts_with("- ") {
            entries += 1;
            if let Some(last) = subsections.last_mut() {
                last.1 += 1;
            }
        }
    }
    if entries == 0 {
        bail!("CHANGELOG.md: `## [Unreleased]` has no entries: nothing to release");
    }
    let mut text = String::new();
    for line in &lines[..start] {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("{}\n\n## [{new}] - {date}\n", lines[start]));
    for line in &lines[start + 1..] {
        text.push_str(line);
        text.push('\n');
    }
    Ok(Cut {
        text,
        section_lines: body.len(),
        subsections,
    })
}

fn summary(subsections: &[(String, usize)]) -> String {
    if subsections.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = subsections
        .iter()
        .map(|(title, n)| format!("{title} {n}"))
        .collect();
    format!("; entries: {}", parts.join(", "))
}

/// `YYYY-MM-DD` of `now`, in UTC.
fn utc_date(now: SystemTime) -> String {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

// ---------------------------------------------------------------------------------------------
// The semver baseline

/// What the semver check compares against.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Baseline {
    /// A git revision, and why it was chosen.
    Rev { rev: String, why: String },
    /// Nothing was released: no check.
    FirstRelease,
}

/// The baseline, from what is known: `explicit` (`--baseline-rev`) wins; else the last
/// release of the CHANGELOG, at its tag (`tag`: `vX.Y.Z` or `X.Y.Z`, if one exists) or else
/// at `heading_commit` (the last commit that touched its heading); else it is the first
/// release.
fn choose_baseline(
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

fn resolve_baseline(
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
fn git(root: &Path, args: &[&str]) -> Result<String> {
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
fn semver_check(root: &Path, ws: &Workspace, baseline: &Baseline, new: &Version) -> Result<String> {
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
    let (present, added): (Vec<&Library>, Vec<&Library>) = ws.libraries.iter().partition(|l| {
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

/// The pinned cargo-semver-checks, installed into `.tools/cargo-semver-checks` when missing
/// or at another version.
fn ensure_semver_checks() -> Result<PathBuf> {
    let root = setup::tools_dir().join("cargo-semver-checks");
    let bin = root.join("bin").join("cargo-semver-checks");
    let version = |bin: &Path| {
        Command::new(bin)
            .args(["semver-checks", "--version"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let has_pin = |out: String| out.split_whitespace().any(|w| w == SEMVER_CHECKS_VERSION);
    if has_pin(version(&bin)) {
        return Ok(bin);
    }
    let root_arg = root.display().to_string();
    crate::run(
        "cargo",
        &[
            "install",
            "--locked",
            "--force",
            "--version",
            SEMVER_CHECKS_VERSION,
            "--root",
            &root_arg,
            "cargo-semver-checks",
        ],
    )?;
    let got = version(&bin);
    if !has_pin(got.clone()) {
        bail!(
            "{} reports {:?} after installing {SEMVER_CHECKS_VERSION}",
            bin.display(),
            got.trim()
        );
    }
    Ok(bin)
}

// ---------------------------------------------------------------------------------------------
// The workspace and its packages

/// A library crate (a member that may be published).
#[derive(Debug, Clone)]
struct Library {
    name: String,
    version: String,
    /// Its manifest, relative to the workspace root (`crates/<name>/Cargo.toml`).
    rel_manifest: String,
    /// Normal and build dependencies on other library crates.
    internal_deps: BTreeSet<String>,
    /// Dev-dependencies on other library crates that carry a version (kept in the package,
    /// so packaging needs them first; path-only ones are dropped from the package).
    versioned_dev_deps: BTreeSet<String>,
    description: Option<String>,
    repository: Option<String>,
    license: Option<String>,
    license_file: Option<String>,
    readme: Option<String>,
    keywords: Vec<String>,
    categories: Vec<String>,
}

#[derive(Debug)]
struct Member {
    name: String,
    manifest: PathBuf,
    publish: bool,
}

#[derive(Debug)]
struct Workspace {
    members: Vec<Member>,
    /// In publishing order.
    libraries: Vec<Library>,
}

impl Workspace {
    fn from_metadata(meta: &Value) -> Result<Workspace> {
        let root = PathBuf::from(
            meta["workspace_root"]
                .as_str()
                .context("no workspace_root")?,
        );
        let packages = meta["packages"].as_array().context("no packages")?;
        let mut members = Vec::new();
        let mut libraries = Vec::new();
        for p in packages {
            let s = |key: &str| p[key].as_str().map(str::to_owned);
            let list = |key: &str| -> Vec<String> {
                p[key]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let name = s("name").context("a package without a name")?;
            let manifest = PathBuf::from(s("manifest_path").context("no manifest_path")?);
            // `publish: []` is `publish = false`; null is "any registry".
            let publish = !p["publish"].as_array().is_some_and(Vec::is_empty);
            members.push(Member {
                name: name.clone(),
                manifest: manifest.clone(),
                publish,
            });
            if !publish {
                continue;
            }
            let rel_manifest = manifest
                .strip_prefix(&root)
                .unwrap_or(&manifest)
                .display()
                .to_string();
            let internal_deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].as_str() != Some("dev") && d["path"].is_string())
                .filter_map(|d| d["name"].as_str().map(str::to_owned))
                .collect();
            let versioned_dev_deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| {
                    d["kind"].as_str() == Some("dev")
                        && d["path"].is_string()
                        && d["req"].as_str().is_some_and(|r| r != "*")
                })
                .filter_map(|d| d["name"].as_str().map(str::to_owned))
                .collect();
            libraries.push(Library {
                name,
                version: s("version").unwrap_or_default(),
                rel_manifest,
                internal_deps,
                versioned_dev_deps,
                description: s("description"),
                repository: s("repository"),
                license: s("license"),
                license_file: s("license_file"),
                readme: s("readme"),
                keywords: list("keywords"),
                categories: list("categories"),
            });
        }
        let names: BTreeSet<String> = libraries.iter().map(|l| l.name.clone()).collect();
        for l in &mut libraries {
            l.internal_deps.retain(|d| names.contains(d));
            l.versioned_dev_deps
                .retain(|d| names.contains(d) && *d != l.name);
        }
        let order = publish_order(
            &libraries
                .iter()
                .map(|l| (l.name.clone(), l.internal_deps.clone()))
                .collect(),
        )?;
        libraries.sort_by_key(|l| order.iter().position(|n| *n == l.name));
        let ws = Workspace { members, libraries };
        ws.check_publish_flags(&root)?;
        Ok(ws)
    }

    /// Library crates live in `crates/` and are publishable; everything else is
    /// `publish = false`.
    fn check_publish_flags(&self, root: &Path) -> Result<()> {
        let crates = root.join("crates");
        let wrong: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.manifest.starts_with(&crates) != m.publish)
            .map(|m| {
                if m.publish {
                    format!(
                        "{} is outside crates/ but publishable: add `publish = false`",
                        m.name
                    )
                } else {
                    format!("{} is in crates/ but `publish = false`", m.name)
                }
            })
            .collect();
        if !wrong.is_empty() {
            bail!("{}", wrong.join("\n"));
        }
        Ok(())
    }
}

/// The crates in an order where each comes after its dependencies (Kahn's algorithm, the
/// alphabetically first ready crate next, so the order is stable). Fails on a cycle.
fn publish_order(deps: &BTreeMap<String, BTreeSet<String>>) -> Result<Vec<String>> {
    let mut order: Vec<String> = Vec::new();
    let mut left: BTreeMap<&String, &BTreeSet<String>> = deps.iter().collect();
    while !left.is_empty() {
        let ready = left
            .iter()
            .find(|(_, ds)| {
                ds.iter()
                    .all(|d| order.contains(d) || !deps.contains_key(d))
            })
            .map(|(name, _)| (*name).clone());
        let Some(ready) = ready else {
            let names: Vec<&str> = left.keys().map(|n| n.as_str()).collect();
            bail!(
                "the library crates' dependencies have a cycle among: {}",
                names.join(", ")
            );
        };
        left.remove(&ready);
        order.push(ready);
    }
    Ok(order)
}

/// The order `cargo package` needs: each crate after its normal dependencies and after the
/// dev-dependencies its package keeps (those with a version). A cycle through such a
/// dev-dependency (`a` dev-depends on `b` with a version, `b` depends on `a`) cannot be
/// packaged: it fails, naming the dev-dependencies to make path-only.
fn packaging_order(libraries: &[Library]) -> Result<Vec<String>> {
    let deps: BTreeMap<String, BTreeSet<String>> = libraries
        .iter()
        .map(|l| {
            let all = l
                .internal_deps
                .union(&l.versioned_dev_deps)
                .cloned()
                .collect();
            (l.name.clone(), all)
        })
        .collect();
    publish_order(&deps).map_err(|_| {
        // The versioned dev-dependencies on a cycle: `b` reaches back to `a`.
        let reaches = |from: &str, to: &str| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.to_owned()];
            while let Some(c) = todo.pop() {
                if c == to {
                    return true;
                }
                if seen.insert(c.clone()) {
                    todo.extend(deps.get(&c).into_iter().flatten().cloned());
                }
            }
            false
        };
        let dev: Vec<String> = libraries
            .iter()
            .flat_map(|l| {
                l.versioned_dev_deps
                    .iter()
                    .filter(|d| reaches(d, &l.name))
                    .map(move |d| format!("{} -> {d}", l.name))
            })
            .collect();
        anyhow::anyhow!(
            "dev-dependencies with a version make a cycle ({}): a package keeps them, so each \
             crate needs the other packaged first; make them path-only \
             (`x = {{ path = \"../x\" }}`: dropped from the published package)",
            dev.join(", ")
        )
    })
}

fn cargo_metadata(root: &Path) -> Result<Value> {
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
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

/// One packaged crate.
#[derive(Debug)]
struct Packaged {
    name: String,
    version: String,
    /// The `.crate` file's size.
    compressed: u64,
    /// The files in it, with their sizes.
    files: Vec<(String, u64)>,
    problems: Vec<String>,
    warnings: Vec<String>,
}

/// `cargo package` of every library crate in the scratch copy `copy` (its own target
/// directory, kept between runs), then each `.crate` checked and listed.
fn package(copy: &Path, target: &Path, ws: &Workspace, new: &Version) -> Result<Vec<Packaged>> {
    let mut args = vec!["package".to_owned()];
    for l in &ws.libraries {
        args.extend(["-p".to_owned(), l.name.clone()]);
    }
    eprintln!("$ (cd {} && cargo {})", copy.display(), args.join(" "));
    let mut child = Command::new("cargo")
        .args(&args)
        .env("CARGO_TARGET_DIR", target)
        .current_dir(copy)
        .stderr(Stdio::piped())
        .spawn()
        .context("could not start cargo package")?;
    // Compile lines are counted, not shown; the rest (packaging, verifying, errors) is.
    let mut compiled = 0;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let line = line?;
            if line.trim_start().starts_with("Compiling ") {
                compiled += 1;
            } else {
                eprintln!("{line}");
            }
        }
    }
    let status = child.wait()?;
    eprintln!("(cargo package compiled {compiled} crates to verify the packages)");
    if !status.success() {
        bail!("`cargo {}` failed with {status}", args.join(" "));
    }
    ws.libraries
        .iter()
        .map(|l| {
            let stem = format!("{}-{new}", l.name);
            let file = target.join("package").join(format!("{stem}.crate"));
            let compressed = std::fs::metadata(&file)
                .with_context(|| format!("{} is missing", file.display()))?
                .len();
            let files = crate_files(&file, &format!("{stem}/"))?;
            let (problems, warnings) = check_package(l, &files);
            Ok(Packaged {
                name: l.name.clone(),
                version: new.to_string(),
                compressed,
                files,
                problems,
                warnings,
            })
        })
        .collect()
}

/// The files of a `.crate` (a gzipped tar), relative to its `prefix`, with their sizes.
fn crate_files(file: &Path, prefix: &str) -> Result<Vec<(String, u64)>> {
    let out = Command::new("tar")
        .arg("-tzvf")
        .arg(file)
        .output()
        .context("could not run tar")?;
    if !out.status.success() {
        bail!(
            "tar -tzvf {} failed: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(parse_tar_listing(
        &String::from_utf8_lossy(&out.stdout),
        prefix,
    ))
}

/// `tar -tzv` lines (`-rw-r--r-- 0/0  1234 1970-01-01 00:00 name-1.0.0/src/lib.rs`) as
/// (path under `prefix`, size); directories skipped.
fn parse_tar_listing(listing: &str, prefix: &str) -> Vec<(String, u64)> {
    listing
        .lines()
        .filter(|l| !l.starts_with('d'))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let size = fields.get(2)?.parse().ok()?;
            let path = fields.get(5..)?.join(" ");
            Some((path.strip_prefix(prefix).unwrap_or(&path).to_owned(), size))
        })
        .collect()
}

/// What crates.io needs or refuses, and what the workspace promises every crate has.
fn check_package(l: &Library, files: &[(String, u64)]) -> (Vec<String>, Vec<String>) {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let has = |name: &str| files.iter().any(|(f, _)| f == name);
    let empty = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    match &l.readme {
        None => problems.push("no `readme` in the manifest".to_owned()),
        Some(readme) if !has(readme) => {
            problems.push(format!("the package lacks its readme {readme}"))
        }
        Some(_) => {}
    }
    if empty(&l.license) && empty(&l.license_file) {
        problems.push("no `license` or `license-file`".to_owned());
    }
    if let Some(f) = &l.license_file
        && !has(f)
    {
        problems.push(format!("the package lacks its license file {f}"));
    }
    if !files
        .iter()
        .any(|(f, _)| f.to_ascii_uppercase().starts_with("LICENSE"))
    {
        warnings.push(format!(
            "no LICENSE file in the package (only the SPDX expression {:?})",
            l.license.as_deref().unwrap_or_default()
        ));
    }
    if empty(&l.description) {
        problems.push("no `description`".to_owned());
    }
    if empty(&l.repository) {
        problems.push("no `repository`".to_owned());
    }
    problems.extend(keyword_problems(&l.keywords));
    if l.categories.is_empty() {
        problems.push("no `categories`".to_owned());
    } else if l.categories.len() > 5 {
        problems.push(format!(
            "{} categories (crates.io takes 5)",
            l.categories.len()
        ));
    }
    (problems, warnings)
}

/// crates.io's rules: at most 5 keywords, each at most 20 characters of ASCII letters,
/// digits, `_`, `-` or `+`, starting with a letter.
fn keyword_problems(keywords: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    if keywords.is_empty() {
        problems.push("no `keywords`".to_owned());
    }
    if keywords.len() > 5 {
        problems.push(format!("{} keywords (crates.io takes 5)", keywords.len()));
    }
    for k in keywords {
        let valid = k.len() <= 20
            && k.starts_with(|c: char| c.is_ascii_alphabetic())
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'));
        if !valid {
            problems.push(format!("keyword {k:?} is not valid on crates.io"));
        }
    }
    problems
}

fn print_packages(packages: &[Packaged]) {
    println!(
        "  {:<3} {:<22} {:<8} {:>5} {:>11} {:>10}",
        "#", "crate", "version", "files", "unpacked", ".crate"
    );
    for (i, p) in packages.iter().enumerate() {
        let unpacked: u64 = p.files.iter().map(|(_, s)| s).sum();
        println!(
            "  {:<3} {:<22} {:<8} {:>5} {:>11} {:>10}",
            i + 1,
            p.name,
            p.version,
            p.files.len(),
            kib(unpacked),
            kib(p.compressed)
        );
    }
    for p in packages {
        let names: Vec<&str> = p.files.iter().map(|(f, _)| f.as_str()).collect();
        println!("  {} files: {}", p.name, names.join(" "));
    }
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

#[cfg(test)]
mod tests;
