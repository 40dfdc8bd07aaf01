//! The workspace, its library crates (and its binary crate, `mcp`), their publishing order,
//! and their packages.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::version::Version;

/// A library crate (a member that may be published).
#[derive(Debug, Clone)]
pub(super) struct Library {
    pub(super) name: String,
    pub(super) version: String,
    /// Its manifest, relative to the workspace root (`crates/<name>/Cargo.toml`).
    pub(super) rel_manifest: String,
    /// Normal and build dependencies on other library crates.
    pub(super) internal_deps: BTreeSet<String>,
    /// Dev-dependencies on other library crates that carry a version (kept in the package,
    /// so packaging needs them first; path-only ones are dropped from the package).
    pub(super) versioned_dev_deps: BTreeSet<String>,
    pub(super) description: Option<String>,
    pub(super) repository: Option<String>,
    pub(super) license: Option<String>,
    pub(super) license_file: Option<String>,
    pub(super) readme: Option<String>,
    pub(super) keywords: Vec<String>,
    pub(super) categories: Vec<String>,
    /// A binary crate (the `mcp` command line): published and installed with `cargo
    /// install`, but it has no API, so the semver check passes it by.
    pub(super) binary: bool,
}

#[derive(Debug)]
pub(super) struct Member {
    pub(super) name: String,
    pub(super) manifest: PathBuf,
    publish: bool,
}

#[derive(Debug)]
pub(super) struct Workspace {
    pub(super) members: Vec<Member>,
    /// In publishing order.
    pub(super) libraries: Vec<Library>,
}

impl Workspace {
    pub(super) fn from_metadata(meta: &Value) -> Result<Workspace> {
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
                binary: crate::deps::is_binary_crate(p),
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
    pub(super) fn check_publish_flags(&self, root: &Path) -> Result<()> {
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
pub(super) fn publish_order(deps: &BTreeMap<String, BTreeSet<String>>) -> Result<Vec<String>> {
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
pub(super) fn packaging_order(libraries: &[Library]) -> Result<Vec<String>> {
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

/// One packaged crate.
#[derive(Debug)]
pub(super) struct Packaged {
    pub(super) name: String,
    pub(super) version: String,
    /// The `.crate` file's size.
    pub(super) compressed: u64,
    /// The files in it, with their sizes.
    pub(super) files: Vec<(String, u64)>,
    pub(super) problems: Vec<String>,
    pub(super) warnings: Vec<String>,
}

/// Makes the verification build our crates from this run's packages. Cargo takes a
/// registry's crate at a given version as immutable, and the overlay of fresh `.crate` files
/// is a registry: it unpacks each into `$CARGO_HOME/registry/src/-<hash>/<name>-<version>/`
/// and never again, and reuses what it compiled of it. So a second dry run at the same
/// version, after a change to one crate's API that another uses, verified against the first
/// run's build and failed. Removed first: those unpacked sources (the overlay's directories
/// are the ones named `-<hash>`: a registry with no host; crates.io's are
/// `index.crates.io-<hash>`) and our crates' fingerprints in `target`, which makes cargo
/// build them again.
fn forget_earlier_builds(ws: &Workspace, target: &Path, new: &Version) -> Result<()> {
    let remove = |dir: &Path| -> Result<()> {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))
    };
    let home = match std::env::var_os("CARGO_HOME") {
        Some(home) => Some(PathBuf::from(home)),
        None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")),
    };
    if let Some(home) = home
        && let Ok(registries) = std::fs::read_dir(home.join("registry").join("src"))
    {
        for registry in registries.flatten() {
            if !registry.file_name().to_string_lossy().starts_with('-') {
                continue;
            }
            for l in &ws.libraries {
                let unpacked = registry.path().join(format!("{}-{new}", l.name));
                if unpacked.is_dir() {
                    remove(&unpacked)?;
                }
            }
        }
    }
    if let Ok(fingerprints) = std::fs::read_dir(target.join("debug").join(".fingerprint")) {
        for fingerprint in fingerprints.flatten() {
            let name = fingerprint.file_name().to_string_lossy().into_owned();
            // `<package name>-<hash>`.
            let ours = ws.libraries.iter().any(|l| {
                name.strip_prefix(&l.name)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|hash| hash.bytes().all(|b| b.is_ascii_hexdigit()))
            });
            if ours {
                remove(&fingerprint.path())?;
            }
        }
    }
    Ok(())
}

/// `cargo package` of every library crate in the scratch copy `copy` (its own target
/// directory, kept between runs), then each `.crate` checked and listed.
pub(super) fn package(
    copy: &Path,
    target: &Path,
    ws: &Workspace,
    new: &Version,
) -> Result<Vec<Packaged>> {
    forget_earlier_builds(ws, target, new)?;
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
pub(super) fn crate_files(file: &Path, prefix: &str) -> Result<Vec<(String, u64)>> {
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
pub(super) fn parse_tar_listing(listing: &str, prefix: &str) -> Vec<(String, u64)> {
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
pub(super) fn check_package(l: &Library, files: &[(String, u64)]) -> (Vec<String>, Vec<String>) {
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
pub(super) fn keyword_problems(keywords: &[String]) -> Vec<String> {
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

pub(super) fn print_packages(packages: &[Packaged]) {
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

pub(super) fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

pub(super) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}
