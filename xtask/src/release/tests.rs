use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, UNIX_EPOCH};

use super::*;

fn v(s: &str) -> Version {
    s.parse().unwrap()
}

#[test]
fn versions_parse_strictly_and_bump_the_patch() {
    assert_eq!(v("0.1.0").next_patch(), v("0.1.1"));
    assert_eq!(v("1.9.19").next_patch().to_string(), "1.9.20");
    for bad in [
        "0.1",
        "0.1.0.0",
        "0.1.x",
        "01.1.0",
        "0.1.0-rc.1",
        "",
        "0..1",
    ] {
        assert!(bad.parse::<Version>().is_err(), "{bad:?} parsed");
    }
    assert!(v("0.10.0") > v("0.9.9"));
}

#[test]
fn release_types_follow_cargo_rules() {
    let rt = |a: &str, b: &str| release_type(&v(a), &v(b)).map(ReleaseType::as_str);
    // 0.y.z: y is the breaking component, z the additive one.
    assert_eq!(rt("0.1.0", "0.1.1").unwrap(), "minor");
    assert_eq!(rt("0.1.3", "0.2.0").unwrap(), "major");
    // 0.0.z: every release may break.
    assert_eq!(rt("0.0.1", "0.0.2").unwrap(), "major");
    assert_eq!(rt("0.9.0", "1.0.0").unwrap(), "major");
    assert_eq!(rt("1.2.3", "1.2.4").unwrap(), "patch");
    assert_eq!(rt("1.2.3", "1.3.0").unwrap(), "minor");
    assert_eq!(rt("1.2.3", "2.0.0").unwrap(), "major");
    // Not above the baseline: no release to check.
    assert!(rt("0.1.0", "0.1.0").is_err());
    assert!(rt("0.2.0", "0.1.9").is_err());
}

#[test]
fn the_new_version_never_goes_back() {
    // First release: the manifest's version may be released as is, or a higher one.
    check_new_version(&v("0.1.0"), None, &v("0.1.0")).unwrap();
    check_new_version(&v("0.1.0"), None, &v("0.1.1")).unwrap();
    assert!(check_new_version(&v("0.1.0"), None, &v("0.0.9")).is_err());
    // 0.1.0 released: above it only.
    assert!(check_new_version(&v("0.1.0"), Some(&v("0.1.0")), &v("0.1.0")).is_err());
    check_new_version(&v("0.1.0"), Some(&v("0.1.0")), &v("0.1.1")).unwrap();
    assert!(check_new_version(&v("0.2.0"), Some(&v("0.1.5")), &v("0.1.6")).is_err());
}

#[test]
fn the_baseline_is_explicit_then_tag_then_heading_commit_then_none() {
    let last = v("0.1.0");
    let rev = |b: Baseline| match b {
        Baseline::Rev { rev, .. } => rev,
        Baseline::FirstRelease => "first".to_owned(),
    };
    let choose = |e, l, t, c| choose_baseline(e, l, t, c).map(rev);
    assert_eq!(
        choose(Some("abc"), Some(&last), Some("v0.1.0"), Some("c1")).unwrap(),
        "abc"
    );
    assert_eq!(choose(Some("abc"), None, None, None).unwrap(), "abc");
    assert_eq!(
        choose(None, Some(&last), Some("v0.1.0"), Some("c1")).unwrap(),
        "v0.1.0"
    );
    assert_eq!(choose(None, Some(&last), None, Some("c1")).unwrap(), "c1");
    // No release anywhere: the first release, nothing to compare against.
    assert_eq!(choose(None, None, None, None).unwrap(), "first");
    // A release heading nobody committed: the baseline must be given.
    assert!(choose(None, Some(&last), None, None).is_err());
}

const CHANGELOG: &str = "# Changelog

Intro.

## [Unreleased]

### Added

- one
- two

### Fixed

- three

## [0.1.0] - 2026-01-02

### Added

- the start
";

#[test]
fn the_changelog_cut_keeps_everything_under_a_new_heading() {
    assert_eq!(last_release(CHANGELOG).unwrap(), Some(v("0.1.0")));
    let cut = cut_changelog(CHANGELOG, &v("0.1.1"), "2026-11-24").unwrap();
    assert_eq!(
        cut.text,
        CHANGELOG.replace(
            "## [Unreleased]\n",
            "## [Unreleased]\n\n## [0.1.1] - 2026-11-24\n"
        )
    );
    assert_eq!(cut.section_lines, 9);
    assert_eq!(
        cut.subsections,
        [("Added".to_owned(), 2), ("Fixed".to_owned(), 1)]
    );
    assert_eq!(last_release(&cut.text).unwrap(), Some(v("0.1.1")));
}

#[test]
fn the_changelog_cut_refuses_empty_duplicate_or_missing_sections() {
    let empty = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n## [0.1.0] - 2026-01-02\n\n- x\n";
    assert!(cut_changelog(empty, &v("0.1.1"), "d").is_err());
    assert!(cut_changelog(CHANGELOG, &v("0.1.0"), "d").is_err());
    assert!(cut_changelog("# Changelog\n\n- x\n", &v("0.1.1"), "d").is_err());
    // Before any release there is no previous one.
    let first = "# Changelog\n\n## [Unreleased]\n\n- x\n";
    assert_eq!(last_release(first).unwrap(), None);
    assert_eq!(
        cut_changelog(first, &v("0.1.0"), "d")
            .unwrap()
            .section_lines,
        2
    );
    assert!(last_release("## [next] - soon\n").is_err());
}

#[test]
fn the_bump_changes_the_workspace_version_and_internal_dependency_versions() {
    let manifest = r#"[workspace]
members = ["crates/*"]

[workspace.package]
version = "0.1.0"
rust-version = "1.95"

[workspace.dependencies]
mcp-types = { path = "crates/mcp-types", version = "0.1.0" }
mcp-server = { path = "crates/mcp-server",version="0.1.0", default-features = false }
mcp-renamed = { package = "mcp-rs-renamed", path = "crates/mcp-renamed", version = "0.1.0" }
testkit = { path = "testkit" }
serde = { version = "1", features = ["derive"] }
tokio = "1.54"

[dependencies]
mcp-types.workspace = true
mcp-jsonrpc = { path = "../mcp-jsonrpc", version = "0.1.0", optional = true }

[dependencies.mcp-client]
path = "../mcp-client"
version = "0.1.0"

[dev-dependencies.serde_json]
version = "1"

[package]
version = "9.9.9"
"#;
    let internal: BTreeSet<String> = [
        "mcp-types",
        "mcp-server",
        "mcp-jsonrpc",
        "mcp-client",
        "mcp-rs-renamed",
    ]
    .map(str::to_owned)
    .into();
    let edits = bump_manifest(manifest, &internal, &v("0.2.0"));
    let lines: Vec<(usize, &str)> = edits.iter().map(|(n, _, a)| (*n, a.as_str())).collect();
    assert_eq!(
        lines,
        [
            (5, r#"version = "0.2.0""#),
            (
                9,
                r#"mcp-types = { path = "crates/mcp-types", version = "0.2.0" }"#
            ),
            (
                10,
                r#"mcp-server = { path = "crates/mcp-server",version="0.2.0", default-features = false }"#
            ),
            (
                11,
                r#"mcp-renamed = { package = "mcp-rs-renamed", path = "crates/mcp-renamed", version = "0.2.0" }"#
            ),
            (
                18,
                r#"mcp-jsonrpc = { path = "../mcp-jsonrpc", version = "0.2.0", optional = true }"#
            ),
            (22, r#"version = "0.2.0""#),
        ]
    );
    assert_eq!(workspace_version(manifest).unwrap(), v("0.1.0"));
    // Bumping to the version already there changes nothing.
    let same: BTreeSet<String> = BTreeSet::new();
    let none = bump_manifest(
        "[workspace.package]\nversion = \"0.1.0\"\n",
        &same,
        &v("0.1.0"),
    );
    assert!(none.is_empty());
}

#[test]
fn rust_version_is_not_a_version() {
    let line = r#"x = { rust-version = "1.95", path = "p", version = "0.1.0" }"#;
    assert_eq!(
        replace_inline_version(line, &v("0.3.0")).unwrap(),
        r#"x = { rust-version = "1.95", path = "p", version = "0.3.0" }"#
    );
    assert_eq!(
        replace_inline_version(r#"x = { path = "p" }"#, &v("0.3.0")),
        None
    );
}

#[test]
fn crates_are_published_after_their_dependencies() {
    let deps = |edges: &[(&str, &[&str])]| -> BTreeMap<String, BTreeSet<String>> {
        edges
            .iter()
            .map(|(c, ds)| (c.to_string(), ds.iter().map(|d| d.to_string()).collect()))
            .collect()
    };
    let order = publish_order(&deps(&[
        (
            "mcp-redis",
            &["mcp-server", "mcp-transport-http", "mcp-types"],
        ),
        ("mcp-server", &["mcp-types", "mcp-jsonrpc"]),
        ("mcp-client", &["mcp-types", "mcp-jsonrpc"]),
        ("mcp-transport-http", &["mcp-jsonrpc", "mcp-types"]),
        ("mcp-auth", &["mcp-transport-http"]),
        ("mcp-types", &["mcp-error"]),
        ("mcp-jsonrpc", &["mcp-error"]),
        ("mcp-error", &[]),
    ]))
    .unwrap();
    assert_eq!(
        order,
        [
            "mcp-error",
            "mcp-jsonrpc",
            "mcp-types",
            "mcp-client",
            "mcp-server",
            "mcp-transport-http",
            "mcp-auth",
            "mcp-redis",
        ]
    );
    assert!(publish_order(&deps(&[("a", &["b"]), ("b", &["a"]), ("c", &[])])).is_err());
}

#[test]
fn dates_are_utc_civil_dates() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(-1), (1969, 12, 31));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(
        utc_date(UNIX_EPOCH + Duration::from_secs(1_795_996_800)),
        "2026-11-30"
    );
    assert_eq!(
        utc_date(UNIX_EPOCH + Duration::from_secs(1_795_996_799)),
        "2026-11-29"
    );
}

#[test]
fn packages_need_metadata_and_valid_keywords() {
    let lib = Library {
        name: "mcp-x".to_owned(),
        version: "0.1.0".to_owned(),
        rel_manifest: "crates/mcp-x/Cargo.toml".to_owned(),
        internal_deps: BTreeSet::new(),
        versioned_dev_deps: BTreeSet::new(),
        description: Some("d".to_owned()),
        repository: Some("https://example.com".to_owned()),
        license: Some("MIT OR Apache-2.0".to_owned()),
        license_file: None,
        readme: Some("README.md".to_owned()),
        keywords: vec!["mcp".to_owned()],
        categories: vec!["network-programming".to_owned()],
        binary: false,
    };
    let files = |names: &[&str]| -> Vec<(String, u64)> {
        names.iter().map(|n| (n.to_string(), 1)).collect()
    };
    let (problems, warnings) =
        check_package(&lib, &files(&["Cargo.toml", "README.md", "src/lib.rs"]));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(warnings.len(), 1, "no license text: {warnings:?}");
    let (problems, _) = check_package(&lib, &files(&["Cargo.toml", "src/lib.rs"]));
    assert_eq!(problems, ["the package lacks its readme README.md"]);
    let bare = Library {
        description: None,
        repository: Some(" ".to_owned()),
        license: None,
        readme: None,
        keywords: vec!["model-context-protocol".to_owned(), "9p".to_owned()],
        categories: Vec::new(),
        ..lib
    };
    let (problems, _) = check_package(&bare, &files(&["LICENSE-MIT"]));
    assert_eq!(
        problems,
        [
            "no `readme` in the manifest",
            "no `license` or `license-file`",
            "no `description`",
            "no `repository`",
            "keyword \"model-context-protocol\" is not valid on crates.io",
            "keyword \"9p\" is not valid on crates.io",
            "no `categories`",
        ]
    );
}

#[test]
fn tar_listings_give_paths_and_sizes() {
    let listing = "\
-rw-r--r-- 0/0             111 2006-07-24 01:21 mcp-x-0.1.0/.cargo_vcs_info.json
drwxr-xr-x 0/0               0 2006-07-24 01:21 mcp-x-0.1.0/src/
-rw-r--r-- 0/0            2048 2006-07-24 01:21 mcp-x-0.1.0/src/a file.rs
";
    assert_eq!(
        parse_tar_listing(listing, "mcp-x-0.1.0/"),
        [
            (".cargo_vcs_info.json".to_owned(), 111),
            ("src/a file.rs".to_owned(), 2048)
        ]
    );
}

#[test]
fn arguments_parse() {
    let args = |a: &[&str]| parse_args(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let a = args(&[
        "--dry-run",
        "--version",
        "0.2.0",
        "--baseline-rev",
        "HEAD~3",
    ])
    .unwrap();
    assert!(a.dry_run);
    assert_eq!(a.version, Some(v("0.2.0")));
    assert_eq!(a.baseline_rev.as_deref(), Some("HEAD~3"));
    assert!(args(&["--version"]).is_err());
    assert!(args(&["--version", "2"]).is_err());
    assert!(args(&["--publish"]).is_err());
}

#[test]
fn a_name_on_crates_io_is_ours_only_from_our_repository() {
    let info = "mcp-types #mcp\nBindings\nversion: 0.1.1\nlicense: MIT\n\
                repository: https://github.com/iqlusioninc/mcp-types\n";
    assert_eq!(
        classify_name(info, Some("https://github.com/mcp-rs/mcp")),
        NameOnCratesIo::Taken {
            latest: "0.1.1".to_owned(),
            repository: "https://github.com/iqlusioninc/mcp-types".to_owned()
        }
    );
    let ours = info.replace("iqlusioninc/mcp-types", "MCP-rs/mcp.git");
    assert_eq!(
        classify_name(&ours, Some("https://github.com/mcp-rs/mcp/")),
        NameOnCratesIo::Ours {
            latest: "0.1.1".to_owned()
        }
    );
    // No repository to compare: not known to be ours.
    let bare = "x\nversion: 1.0.0\n";
    assert!(matches!(
        classify_name(bare, Some("https://github.com/mcp-rs/mcp")),
        NameOnCratesIo::Taken { .. }
    ));
}

#[test]
fn a_cycle_through_versioned_dev_dependencies_cannot_be_packaged() {
    let lib = |name: &str, deps: &[&str], dev: &[&str]| Library {
        name: name.to_owned(),
        version: "0.1.0".to_owned(),
        rel_manifest: String::new(),
        internal_deps: deps.iter().map(|d| d.to_string()).collect(),
        versioned_dev_deps: dev.iter().map(|d| d.to_string()).collect(),
        description: None,
        repository: None,
        license: None,
        license_file: None,
        readme: None,
        keywords: Vec::new(),
        categories: Vec::new(),
        binary: false,
    };
    // mcp-server and mcp-client test each other: one side must be path-only.
    let both = [
        lib("mcp-types", &[], &[]),
        lib("mcp-server", &["mcp-types"], &["mcp-client"]),
        lib("mcp-client", &["mcp-types"], &["mcp-server"]),
    ];
    let err = packaging_order(&both).unwrap_err().to_string();
    assert!(
        err.contains("mcp-server -> mcp-client, mcp-client -> mcp-server"),
        "{err}"
    );
    let one = [
        lib("mcp-types", &[], &[]),
        lib("mcp-server", &["mcp-types"], &[]),
        lib("mcp-client", &["mcp-types"], &["mcp-server"]),
    ];
    assert_eq!(
        packaging_order(&one).unwrap(),
        ["mcp-types", "mcp-server", "mcp-client"]
    );
}

#[test]
fn a_binary_crate_is_packaged_after_its_dependencies_and_marked_binary() {
    let meta = serde_json::json!({"workspace_root": "/w", "packages": [
        {"name": "mcp-rs-cli", "version": "0.1.0", "manifest_path": "/w/crates/mcp-cli/Cargo.toml",
         "publish": null, "targets": [{"kind": ["bin"]}], "dependencies": [
            {"name": "mcp-rs-types", "kind": null, "path": "/w/crates/mcp-types", "req": "^0.1.0"}]},
        {"name": "mcp-rs-types", "version": "0.1.0", "manifest_path": "/w/crates/mcp-types/Cargo.toml",
         "publish": null, "targets": [{"kind": ["lib"]}], "dependencies": []},
    ]});
    let ws = Workspace::from_metadata(&meta).unwrap();
    let order: Vec<(&str, bool)> = ws
        .libraries
        .iter()
        .map(|l| (l.name.as_str(), l.binary))
        .collect();
    assert_eq!(order, [("mcp-rs-types", false), ("mcp-rs-cli", true)]);
}
