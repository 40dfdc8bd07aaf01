//! Versions: parsing, the release type, the manifest bump.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use anyhow::{Result, bail};

use super::packages::Workspace;
use super::packages::read;

/// A release version, `X.Y.Z` (no pre-release or build metadata: the workspace uses none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub(super) major: u64,
    pub(super) minor: u64,
    pub(super) patch: u64,
}

impl Version {
    pub(super) fn next_patch(&self) -> Version {
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
pub(super) enum ReleaseType {
    Major,
    Minor,
    Patch,
}

impl ReleaseType {
    pub(super) fn as_str(self) -> &'static str {
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
pub(super) fn release_type(baseline: &Version, new: &Version) -> Result<ReleaseType> {
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
pub(super) fn check_new_version(
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
pub(super) fn workspace_version(manifest: &str) -> Result<Version> {
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
pub(super) fn section_name(line: &str) -> Option<String> {
    let t = line.trim();
    let inner = t.strip_prefix("[[").and_then(|t| t.strip_suffix("]]"));
    let inner = inner.or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')));
    inner.map(|s| s.trim().to_owned())
}

/// The value of `key = "value"` on a line of its own.
pub(super) fn plain_string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim().strip_prefix(key)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim();
    let rest = rest.split('#').next()?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}

/// One manifest line the bump changes (1-based line number).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Edit {
    pub(super) file: String,
    pub(super) line: usize,
    pub(super) before: String,
    pub(super) after: String,
}

/// The bump of one manifest: `version` of `[workspace.package]`, and the `version` of every
/// dependency entry on one of `internal` (inline `name = { ..., version = "..." }` in any
/// dependency table, or a `[...dependencies.name]` table). Entries inheriting from the
/// workspace (`name.workspace = true`) carry no version and are left alone.
pub(super) fn bump_manifest(
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
                .map(|key| inline_package(line).unwrap_or(key))
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
pub(super) fn section_is_dependency_table(section: &str) -> bool {
    section.ends_with("dependencies")
}

/// `X` of a `[dependencies.X]` (or `[workspace.dependencies.X]`, ...) table.
pub(super) fn dep_subtable_crate(section: &str) -> Option<&str> {
    let (table, name) = section.rsplit_once('.')?;
    section_is_dependency_table(table).then(|| name.trim_matches('"'))
}

/// The key of a `name = { ... }` line.
pub(super) fn inline_dependency(line: &str) -> Option<&str> {
    let (key, value) = line.split_once('=')?;
    value
        .trim_start()
        .starts_with('{')
        .then(|| key.trim().trim_matches('"'))
}

/// The `package = "..."` of an inline dependency table: the package a renamed key names.
pub(super) fn inline_package(line: &str) -> Option<&str> {
    let (_, value) = line.split_once('=')?;
    let at = value.find("package")?;
    let rest = value[at + "package".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start().strip_prefix('"')?;
    rest.split_once('"').map(|(name, _)| name)
}

/// `line` with the value of its inline table's `version` key set to `new`.
pub(super) fn replace_inline_version(line: &str, new: &Version) -> Option<String> {
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
pub(super) fn version_edits(copy: &Path, ws: &Workspace, new: &Version) -> Result<Vec<Edit>> {
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
