use serde_json::json;

use super::*;

/// Metadata of packages given as (name, features table, dependencies).
fn meta(packages: &[(&str, Value, Value)]) -> Value {
    json!({"packages": packages.iter().map(|(name, features, deps)| {
        json!({"name": name, "features": features, "dependencies": deps})
    }).collect::<Vec<_>>()})
}

fn dep(name: &str, optional: bool) -> Value {
    json!({"name": name, "kind": null, "optional": optional, "features": [],
           "uses_default_features": true, "rename": null})
}

/// The workspace as intended: the bridge behind `otel` features, nothing by default.
fn intended() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "mcp-rs-server",
            json!({"default": ["schemars"], "schemars": ["dep:schemars"],
                   "otel": ["dep:mcp-otel", "mcp-jsonrpc/x"]}),
            json!([
                dep("mcp-rs-jsonrpc", false),
                dep("schemars", true),
                {"name": "mcp-rs-otel", "rename": "mcp-otel", "kind": null, "optional": true,
                 "features": [], "uses_default_features": true},
                {"name": "opentelemetry", "kind": "dev", "optional": false, "features": [],
                 "uses_default_features": true, "rename": null},
            ]),
        ),
        (
            "mcp-rs-client",
            json!({"otel": ["dep:mcp-rs-otel"]}),
            json!([dep("mcp-rs-jsonrpc", false), dep("mcp-rs-otel", true)]),
        ),
        (
            "mcp-rs-jsonrpc",
            json!({"x": []}),
            json!([dep("tokio", false)]),
        ),
        (
            "mcp-rs-otel",
            json!({}),
            json!([dep("mcp-rs-jsonrpc", false), dep("opentelemetry", false)]),
        ),
    ]
}

#[test]
fn the_bridge_behind_features_passes() {
    assert_eq!(
        otel_in_default_features(&meta(&intended())).unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn a_default_feature_reaching_opentelemetry_is_named_with_its_path() {
    let mut packages = intended();
    packages[0].1["default"] = json!(["schemars", "otel"]);
    // Through a workspace crate's feature, and a weak feature that does not switch it on.
    packages[1].1 = json!({"default": ["mcp-rs-jsonrpc/telemetry", "mcp-rs-otel?/x"],
                           "otel": ["dep:mcp-rs-otel"]});
    packages[2].1 = json!({"telemetry": ["dep:opentelemetry_sdk"]});
    packages[2].2 = json!([dep("tokio", false), dep("opentelemetry_sdk", true)]);
    let v = otel_in_default_features(&meta(&packages)).unwrap();
    assert_eq!(
        v,
        vec![
            "mcp-rs-client: its default features pull in an OpenTelemetry crate \
             (mcp-rs-client -> mcp-rs-jsonrpc -> opentelemetry_sdk); OpenTelemetry comes only \
             with an `otel` feature"
                .to_owned(),
            "mcp-rs-server: its default features pull in an OpenTelemetry crate \
             (mcp-rs-server -> mcp-rs-otel); OpenTelemetry comes only with an `otel` feature"
                .to_owned(),
        ]
    );
}

#[test]
fn a_required_dependency_and_a_dependencys_default_features_count() {
    let mut packages = intended();
    packages[1].2 = json!([
        dep("mcp-rs-jsonrpc", false),
        dep("tracing-opentelemetry", false)
    ]);
    packages[2].1 = json!({"default": ["dep:opentelemetry"]});
    packages[2].2 = json!([dep("opentelemetry", true)]);
    let v = otel_in_default_features(&meta(&packages)).unwrap();
    assert_eq!(v.len(), 3, "{v:?}");
    assert!(
        v[0].contains("(mcp-rs-client -> mcp-rs-jsonrpc -> opentelemetry)"),
        "{v:?}"
    );
    assert!(v[1].contains("(mcp-rs-jsonrpc -> opentelemetry)"), "{v:?}");
    assert!(
        v[2].contains("(mcp-rs-server -> mcp-rs-jsonrpc -> opentelemetry)"),
        "{v:?}"
    );

    // Without the dependency's default features the path is gone for the server.
    packages[0].2[0]["uses_default_features"] = json!(false);
    let v = otel_in_default_features(&meta(&packages)).unwrap();
    assert!(!v.iter().any(|s| s.starts_with("mcp-rs-server")), "{v:?}");
}

const LOCK: &str = r#"
[[package]]
name = "opentelemetry"
version = "0.33.1"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "opentelemetry-otlp"
version = "0.33.1"

[[package]]
name = "opentelemetry_sdk"
version = "0.33.2"

[[package]]
name = "tracing-opentelemetry"
version = "0.34.0"
dependencies = [
 "opentelemetry",
]

[[package]]
name = "mcp-rs-otel"
version = "0.1.0"
"#;

#[test]
fn one_release_of_the_opentelemetry_crates_passes() {
    assert_eq!(otel_versions(LOCK), Vec::<String>::new());
}

#[test]
fn two_versions_or_two_releases_are_named() {
    let lock = format!(
        "{LOCK}\n[[package]]\nname = \"opentelemetry\"\nversion = \"0.32.0\"\n\n\
         [[package]]\nname = \"opentelemetry-proto\"\nversion = \"0.34.0\"\n"
    );
    assert_eq!(
        otel_versions(&lock),
        vec![
            "Cargo.lock holds opentelemetry in 2 versions (0.32.0, 0.33.1): one OpenTelemetry \
             API per build, or contexts do not cross"
                .to_owned(),
            "the OpenTelemetry crates are on more than one release (0.32: opentelemetry; 0.33: \
             opentelemetry, opentelemetry-otlp, opentelemetry_sdk; 0.34: opentelemetry-proto): \
             they must match"
                .to_owned(),
        ]
    );
}
