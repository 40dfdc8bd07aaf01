//! `cargo xtask check-deps`: enforces the crate DAG of STYLE.md from `cargo metadata`.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde_json::Value;

mod otel;

/// Workspace crates each library crate may depend on (normal dependencies).
const ALLOWED_INTERNAL: &[(&str, &[&str])] = &[
    ("mcp-rs-error", &[]),
    ("mcp-rs-types", &["mcp-rs-error"]),
    ("mcp-rs-jsonrpc", &["mcp-rs-error"]),
    ("mcp-rs-transport-stdio", &["mcp-rs-jsonrpc"]),
    ("mcp-rs-transport-http", &["mcp-rs-jsonrpc", "mcp-rs-types"]),
    // Only behind its `transport-http` feature (see OPTIONAL_ONLY): `OAuthClient` as the
    // HTTP client transport's `AuthProvider`.
    ("mcp-rs-auth", &["mcp-rs-transport-http"]),
    // mcp-macros only behind the `macros` feature, mcp-otel only behind `otel` (see
    // OPTIONAL_ONLY).
    (
        "mcp-rs-server",
        &[
            "mcp-rs-types",
            "mcp-rs-jsonrpc",
            "mcp-rs-macros",
            "mcp-rs-otel",
        ],
    ),
    // A proc-macro crate: the code it generates names mcp-server, it never depends on it.
    ("mcp-rs-macros", &[]),
    (
        "mcp-rs-client",
        &["mcp-rs-types", "mcp-rs-jsonrpc", "mcp-rs-otel"],
    ),
    // The OpenTelemetry bridge implements mcp-jsonrpc's trace propagator; it is below the
    // server and the client, which reach it through their `otel` features.
    ("mcp-rs-otel", &["mcp-rs-jsonrpc"]),
    // The Redis stores implement the server's and the HTTP transport's extension points.
    (
        "mcp-rs-redis",
        &["mcp-rs-server", "mcp-rs-transport-http", "mcp-rs-types"],
    ),
];

/// External crates a library crate must not depend on (normal dependencies), with the reason.
const FORBIDDEN_EXTERNAL: &[(&str, &str, &str)] = &[
    (
        "mcp-rs-error",
        "tokio",
        "mcp-rs-error is the wire error alone: serde and serde_json",
    ),
    (
        "mcp-rs-types",
        "tokio",
        "mcp-rs-types does no IO and has no async code",
    ),
    (
        "mcp-rs-types",
        "futures",
        "mcp-rs-types does no IO and has no async code",
    ),
    (
        "mcp-rs-jsonrpc",
        "hyper",
        "mcp-rs-jsonrpc knows no concrete transport",
    ),
    (
        "mcp-rs-jsonrpc",
        "reqwest",
        "mcp-rs-jsonrpc knows no concrete transport",
    ),
    (
        "mcp-rs-jsonrpc",
        "axum",
        "mcp-rs-jsonrpc knows no concrete transport",
    ),
    (
        "mcp-rs-server",
        "axum",
        "mcp-rs-server names only the Transport trait",
    ),
    (
        "mcp-rs-server",
        "hyper",
        "mcp-rs-server names only the Transport trait",
    ),
    (
        "mcp-rs-server",
        "reqwest",
        "mcp-rs-server names only the Transport trait",
    ),
    (
        "mcp-rs-client",
        "axum",
        "mcp-rs-client names only the Transport trait",
    ),
    (
        "mcp-rs-client",
        "hyper",
        "mcp-rs-client names only the Transport trait",
    ),
    (
        "mcp-rs-client",
        "reqwest",
        "mcp-rs-client names only the Transport trait",
    ),
];

/// External crates a library crate may use only behind a feature (optional dependencies), with
/// the reason.
const OPTIONAL_ONLY: &[(&str, &str, &str)] = &[
    (
        "mcp-rs-auth",
        "mcp-rs-transport-http",
        "the transport glue is the `transport-http` feature of mcp-auth",
    ),
    (
        "mcp-rs-server",
        "jsonschema",
        "JSON Schema validation of raw tools is the `jsonschema` feature of mcp-server",
    ),
    (
        "mcp-rs-server",
        "mcp-rs-macros",
        "the attribute macros are the `macros` feature of mcp-server",
    ),
    (
        "mcp-rs-client",
        "jsonschema",
        "output schema validation is the `jsonschema` feature of mcp-client",
    ),
    (
        "mcp-rs-server",
        "mcp-rs-otel",
        "OpenTelemetry is the `otel` feature of mcp-server",
    ),
    (
        "mcp-rs-client",
        "mcp-rs-otel",
        "OpenTelemetry is the `otel` feature of mcp-client",
    ),
];

/// tokio features that mean real IO, forbidden where a crate must stay transport-free.
const IO_TOKIO_FEATURES: &[&str] = &["net", "process", "fs", "io-std", "full"];
const TOKIO_NO_IO: &[&str] = &["mcp-rs-jsonrpc", "mcp-rs-server", "mcp-rs-client"];

pub(crate) fn check_deps() -> Result<()> {
    let root = crate::workspace_root();
    let meta = crate::cargo_metadata(&root)?;
    let mut violations = violations(&meta)?;
    violations.extend(otel::otel_in_default_features(&meta)?);
    let lock =
        std::fs::read_to_string(root.join("Cargo.lock")).context("could not read Cargo.lock")?;
    violations.extend(otel::otel_versions(&lock));
    if violations.is_empty() {
        eprintln!("check-deps: the crate DAG holds");
        Ok(())
    } else {
        for v in &violations {
            eprintln!("check-deps: {v}");
        }
        bail!(
            "{} dependency edge(s) break the crate DAG",
            violations.len()
        )
    }
}

/// Every edge of the workspace that breaks the DAG, as a sentence naming the edge.
fn violations(meta: &Value) -> Result<Vec<String>> {
    let packages = meta["packages"]
        .as_array()
        .context("cargo metadata has no packages")?;
    let members: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    // Binary crates (the `mcp` command line): programs, not dependencies.
    let binaries: Vec<&str> = packages
        .iter()
        .filter(|p| is_binary_crate(p))
        .filter_map(|p| p["name"].as_str())
        .filter(|n| *n != "xtask")
        .collect();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED_INTERNAL.iter().copied().collect();
    let mut found = Vec::new();
    for pkg in packages {
        let name = pkg["name"].as_str().unwrap_or("?");
        let deps = pkg["dependencies"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for dep in deps {
            let dep_name = dep["name"].as_str().unwrap_or("?");
            let normal = dep["kind"].is_null();
            if dep_name == "xtask" {
                found.push(format!("{name} -> xtask: nothing may depend on xtask"));
                continue;
            }
            if binaries.contains(&dep_name) {
                found.push(format!(
                    "{name} -> {dep_name}: {dep_name} is a binary crate (no library); nothing \
                     may depend on it"
                ));
                continue;
            }
            if !normal {
                continue;
            }
            if let Some(ok) = allowed.get(name)
                && members.contains(&dep_name)
                && !ok.contains(&dep_name)
            {
                found.push(format!(
                    "{name} -> {dep_name}: {name} may depend only on [{}] in the workspace",
                    ok.join(", ")
                ));
            }
            for (krate, bad, why) in FORBIDDEN_EXTERNAL {
                if *krate == name && *bad == dep_name {
                    found.push(format!("{name} -> {dep_name}: {why}"));
                }
            }
            let optional = dep["optional"].as_bool().unwrap_or(false);
            for (krate, gated, why) in OPTIONAL_ONLY {
                if *krate == name && *gated == dep_name && !optional {
                    found.push(format!("{name} -> {dep_name} is not optional: {why}"));
                }
            }
            if dep_name == "tokio" && TOKIO_NO_IO.contains(&name) {
                let features = dep["features"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                for f in features.iter().filter_map(Value::as_str) {
                    if IO_TOKIO_FEATURES.contains(&f) {
                        found.push(format!(
                            "{name} -> tokio (feature {f:?}): {name} does no IO of its own"
                        ));
                    }
                }
            }
        }
    }
    Ok(found)
}

/// Whether a package of `cargo metadata` is a binary crate: it lists targets, and none is a
/// library (`lib`, `rlib`, `proc-macro`, ...).
pub(crate) fn is_binary_crate(pkg: &Value) -> bool {
    let Some(targets) = pkg["targets"].as_array().filter(|t| !t.is_empty()) else {
        return false;
    };
    let not_library = ["bin", "test", "bench", "example", "custom-build"];
    !targets.iter().any(|target| {
        target["kind"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|kind| !not_library.contains(&kind))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(edges: &[(&str, &str, Option<&str>)]) -> Value {
        let mut pkgs: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
        for name in [
            "mcp-rs-types",
            "mcp-rs-jsonrpc",
            "mcp-rs-server",
            "mcp-rs-client",
            "xtask",
        ] {
            pkgs.entry(name).or_default();
        }
        for (from, to, kind) in edges {
            pkgs.entry(from)
                .or_default()
                .push(json!({"name": to, "kind": kind, "features": []}));
        }
        json!({"packages": pkgs.into_iter().map(|(n, d)| json!({"name": n, "dependencies": d})).collect::<Vec<_>>()})
    }

    #[test]
    fn the_intended_dag_passes() {
        let m = meta(&[
            ("mcp-rs-server", "mcp-rs-types", None),
            ("mcp-rs-server", "mcp-rs-jsonrpc", None),
            ("mcp-rs-client", "mcp-rs-jsonrpc", None),
            ("mcp-rs-types", "serde", None),
            ("mcp-rs-server", "mcp-rs-client", Some("dev")),
        ]);
        assert_eq!(violations(&m).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn an_edge_between_siblings_is_named() {
        let m = meta(&[
            ("mcp-rs-types", "mcp-rs-jsonrpc", None),
            ("mcp-rs-server", "mcp-rs-client", None),
        ]);
        let v = violations(&m).unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v[0].starts_with("mcp-rs-server -> mcp-rs-client"), "{v:?}");
        assert!(v[1].starts_with("mcp-rs-types -> mcp-rs-jsonrpc"), "{v:?}");
    }

    #[test]
    fn forbidden_external_and_tokio_io_are_named() {
        let mut m = meta(&[
            ("mcp-rs-types", "tokio", None),
            ("mcp-rs-client", "reqwest", None),
        ]);
        m["packages"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "mcp-rs-jsonrpc-x", "dependencies": []}));
        let pkgs = m["packages"].as_array_mut().unwrap();
        let jsonrpc = pkgs
            .iter_mut()
            .find(|p| p["name"] == "mcp-rs-jsonrpc")
            .unwrap();
        jsonrpc["dependencies"] =
            json!([{"name": "tokio", "kind": null, "features": ["sync", "net"]}]);
        let v = violations(&m).unwrap();
        assert!(
            v.iter().any(|s| s.starts_with("mcp-rs-types -> tokio")),
            "{v:?}"
        );
        assert!(
            v.iter().any(|s| s.starts_with("mcp-rs-client -> reqwest")),
            "{v:?}"
        );
        assert!(
            v.iter()
                .any(|s| s.contains("mcp-rs-jsonrpc -> tokio (feature \"net\")")),
            "{v:?}"
        );
    }

    #[test]
    fn a_feature_gated_dependency_must_stay_optional() {
        let mut m = meta(&[]);
        let pkgs = m["packages"].as_array_mut().unwrap();
        let server = pkgs
            .iter_mut()
            .find(|p| p["name"] == "mcp-rs-server")
            .unwrap();
        server["dependencies"] = json!([
            {"name": "jsonschema", "kind": null, "features": [], "optional": false}
        ]);
        let client = pkgs
            .iter_mut()
            .find(|p| p["name"] == "mcp-rs-client")
            .unwrap();
        client["dependencies"] = json!([
            {"name": "jsonschema", "kind": null, "features": [], "optional": true}
        ]);
        let v = violations(&m).unwrap();
        assert_eq!(
            v,
            vec![
                "mcp-rs-server -> jsonschema is not optional: JSON Schema validation of raw tools \
                 is the `jsonschema` feature of mcp-server"
                    .to_string()
            ]
        );
    }

    #[test]
    fn binary_crates_are_told_apart_and_nothing_depends_on_them() {
        let lib = json!({"targets": [{"kind": ["lib"]}, {"kind": ["test"]}]});
        let proc_macro = json!({"targets": [{"kind": ["proc-macro"]}]});
        let bin = json!({"targets": [{"kind": ["bin"]}, {"kind": ["custom-build"]}]});
        assert!(!is_binary_crate(&lib));
        assert!(!is_binary_crate(&proc_macro));
        assert!(is_binary_crate(&bin));
        assert!(!is_binary_crate(&json!({"name": "no targets listed"})));

        let mut m = meta(&[("mcp-rs-client", "mcp-rs-cli", Some("dev"))]);
        m["packages"].as_array_mut().unwrap().push(
            json!({"name": "mcp-rs-cli", "dependencies": [], "targets": [{"kind": ["bin"]}]}),
        );
        assert_eq!(
            violations(&m).unwrap(),
            vec![
                "mcp-rs-client -> mcp-rs-cli: mcp-rs-cli is a binary crate (no library); \
                 nothing may depend on it"
                    .to_string()
            ]
        );
    }

    #[test]
    fn depending_on_xtask_is_refused_in_any_kind() {
        let m = meta(&[("mcp-rs-server", "xtask", Some("dev"))]);
        let v = violations(&m).unwrap();
        assert_eq!(
            v,
            vec!["mcp-rs-server -> xtask: nothing may depend on xtask".to_string()]
        );
    }
}
