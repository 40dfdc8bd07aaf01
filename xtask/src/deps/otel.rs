//! The OpenTelemetry rules of `check-deps`: no OpenTelemetry crate in any library crate's
//! default feature set (it comes only with an `otel` feature), and one release train of the
//! OpenTelemetry crates in the lock file.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result};
use serde_json::Value;

/// The crate that bridges to OpenTelemetry: an OpenTelemetry crate itself, for this rule
/// (reaching it from a default feature set pulls the rest in).
const BRIDGE: &str = "mcp-rs-otel";

/// Whether `name` is an OpenTelemetry crate (or the workspace's bridge to them).
fn is_otel(name: &str) -> bool {
    name.starts_with("opentelemetry") || name == "tracing-opentelemetry" || name == BRIDGE
}

/// Library crates whose default features reach an OpenTelemetry crate, each as a sentence
/// naming the path. Every `mcp-rs-*` package is checked but the bridge itself.
pub(super) fn otel_in_default_features(meta: &Value) -> Result<Vec<String>> {
    let packages = meta["packages"]
        .as_array()
        .context("cargo metadata has no packages")?;
    let by_name: BTreeMap<&str, &Value> = packages
        .iter()
        .filter_map(|p| Some((p["name"].as_str()?, p)))
        .collect();
    let mut found = Vec::new();
    for (&name, _) in by_name.iter().filter(|(n, _)| n.starts_with("mcp-rs-")) {
        if name == BRIDGE {
            continue;
        }
        let mut seen = BTreeSet::new();
        let mut path = vec![name.to_owned()];
        if let Some(hit) = walk(
            &by_name,
            name,
            &["default".to_owned()],
            &mut path,
            &mut seen,
        ) {
            found.push(format!(
                "{name}: its default features pull in an OpenTelemetry crate ({hit}); \
                 OpenTelemetry comes only with an `otel` feature"
            ));
        }
    }
    Ok(found)
}

/// The normal dependencies of `package` that `features` enable (the required ones, and the
/// optional ones switched on), each as its package name, the features asked of it, and
/// whether its default features are on.
fn enabled_dependencies(
    package: &Value,
    features: &[String],
) -> Vec<(String, BTreeSet<String>, bool)> {
    let table = &package["features"];
    let deps: Vec<&Value> = package["dependencies"]
        .as_array()
        .map(|d| d.iter().filter(|d| d["kind"].is_null()).collect())
        .unwrap_or_default();
    // A dependency's name in this manifest: its rename, else its package name.
    let local = |d: &Value| -> String {
        d["rename"]
            .as_str()
            .or_else(|| d["name"].as_str())
            .unwrap_or("?")
            .to_owned()
    };
    let mut on: BTreeSet<String> = deps
        .iter()
        .filter(|d| !d["optional"].as_bool().unwrap_or(false))
        .map(|d| local(d))
        .collect();
    let mut asked: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut weak: Vec<(String, String)> = Vec::new();
    let mut queue: Vec<String> = features.to_vec();
    let mut done = BTreeSet::new();
    while let Some(feature) = queue.pop() {
        if !done.insert(feature.clone()) {
            continue;
        }
        let Some(entries) = table[feature.as_str()].as_array() else {
            // Not a feature of this package: an optional dependency's implicit feature.
            on.insert(feature);
            continue;
        };
        for entry in entries.iter().filter_map(Value::as_str) {
            if let Some(dep) = entry.strip_prefix("dep:") {
                on.insert(dep.to_owned());
            } else if let Some((dep, f)) = entry.split_once('/') {
                match dep.strip_suffix('?') {
                    Some(dep) => weak.push((dep.to_owned(), f.to_owned())),
                    None => {
                        on.insert(dep.to_owned());
                        asked
                            .entry(dep.to_owned())
                            .or_default()
                            .insert(f.to_owned());
                    }
                }
            } else {
                queue.push(entry.to_owned());
            }
        }
    }
    for (dep, f) in weak {
        if on.contains(&dep) {
            asked.entry(dep).or_default().insert(f);
        }
    }
    deps.iter()
        .filter(|d| on.contains(&local(d)))
        .map(|d| {
            let mut features = asked.remove(&local(d)).unwrap_or_default();
            features.extend(
                d["features"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned),
            );
            let defaults = d["uses_default_features"].as_bool().unwrap_or(true);
            (
                d["name"].as_str().unwrap_or("?").to_owned(),
                features,
                defaults,
            )
        })
        .collect()
}

/// Depth-first through the workspace packages `features` of `name` enable; the first
/// OpenTelemetry crate reached, as `a -> b -> opentelemetry`.
fn walk(
    packages: &BTreeMap<&str, &Value>,
    name: &str,
    features: &[String],
    path: &mut Vec<String>,
    seen: &mut BTreeSet<(String, Vec<String>)>,
) -> Option<String> {
    if !seen.insert((name.to_owned(), features.to_vec())) {
        return None;
    }
    let package = packages.get(name)?;
    for (dep, mut asked, defaults) in enabled_dependencies(package, features) {
        if is_otel(&dep) {
            return Some(format!("{} -> {dep}", path.join(" -> ")));
        }
        if packages.contains_key(dep.as_str()) {
            if defaults {
                asked.insert("default".to_owned());
            }
            path.push(dep.clone());
            let asked: Vec<String> = asked.into_iter().collect();
            if let Some(hit) = walk(packages, &dep, &asked, path, seen) {
                return Some(hit);
            }
            path.pop();
        }
    }
    None
}

/// The OpenTelemetry crates of one release train: the `opentelemetry*` crates share a minor
/// version (`opentelemetry-otlp` of 0.33 exports the `opentelemetry_sdk` 0.33 data).
const TRAIN: &[&str] = &[
    "opentelemetry",
    "opentelemetry_sdk",
    "opentelemetry-otlp",
    "opentelemetry-proto",
    "opentelemetry-http",
];

/// What is wrong with the OpenTelemetry crates of `Cargo.lock` (its text): a crate in two
/// versions (two `opentelemetry` APIs would not see each other's context), or the
/// `opentelemetry*` crates on more than one minor version.
pub(super) fn otel_versions(lock: &str) -> Vec<String> {
    let mut versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut name: Option<String> = None;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"').to_owned());
        } else if let Some(v) = line.strip_prefix("version = ")
            && let Some(n) = name.take()
            && is_otel(&n)
            && n != BRIDGE
        {
            versions
                .entry(n)
                .or_default()
                .insert(v.trim_matches('"').to_owned());
        }
    }
    let mut found = Vec::new();
    for (crate_name, vs) in &versions {
        if vs.len() > 1 {
            found.push(format!(
                "Cargo.lock holds {crate_name} in {} versions ({}): one OpenTelemetry API per \
                 build, or contexts do not cross",
                vs.len(),
                vs.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let minors: BTreeMap<String, Vec<&str>> = versions
        .iter()
        .filter(|(n, _)| TRAIN.contains(&n.as_str()))
        .flat_map(|(n, vs)| vs.iter().map(move |v| (n.as_str(), v)))
        .fold(BTreeMap::new(), |mut acc, (n, v)| {
            let minor = v.rsplit_once('.').map_or(v.as_str(), |(m, _)| m);
            acc.entry(minor.to_owned()).or_insert_with(Vec::new).push(n);
            acc
        });
    if minors.len() > 1 {
        let described: Vec<String> = minors
            .iter()
            .map(|(m, ns)| format!("{m}: {}", ns.join(", ")))
            .collect();
        found.push(format!(
            "the OpenTelemetry crates are on more than one release ({}): they must match",
            described.join("; ")
        ));
    }
    found
}

#[cfg(test)]
mod tests;
