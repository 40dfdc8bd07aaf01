//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) with its reference SDK,
//! `@olaservo/ext-skills` (pinned in `xtask/peers/package.json`):
//!
//! - our client (`mcp-client`, feature `skills`) loads every skill of the reference server
//!   (`tests/peers/ts_skills_server.mjs`, serving `tests/peers/skills/`) as a host does, over
//!   stdio and Streamable HTTP, in both eras: entries listed and got, each held, `SKILL.md`
//!   and every other file read and verified (text and a binary blob), the bytes those on
//!   disk, an unlisted file refused unsent, directories read;
//! - the reference client (`tests/peers/ts_skills_client.mjs`: `listSkills`, `getSkill`,
//!   `readSkill`, `readSkillResource`, `readDirectory`) loads and verifies every skill of our
//!   server, over stdio and Streamable HTTP, in both eras;
//! - our client against our server likewise.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use futures::TryStreamExt as _;
use mcp_client::skills::{HeldSkill, SkillError};
use mcp_client::{Client, EraChoice, Error};
use mcp_transport_stdio::ChildProcessTransport;
use mcp_types::Skill;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::client_support::Running;
use crate::http_support::{HttpServer, close, connect};
use crate::support::output_within;
use crate::support::peers::peers;
use crate::support::{bins, peers_dir, workspace_root};

/// The skills `ts_skills_server.mjs` serves: `tests/peers/skills/`.
fn fixture_dir() -> PathBuf {
    peers_dir().join("skills")
}

/// The skills `skills-server` serves here and `everything-server` compiles in:
/// `examples/skills/`.
fn examples_dir() -> PathBuf {
    workspace_root().join("examples").join("skills")
}

/// Every file under `tests/peers/skills/` by the URI the reference server gives it
/// (`skill://<path>`), with its bytes.
fn fixture_files() -> BTreeMap<String, Vec<u8>> {
    files_under(&fixture_dir())
}

/// Every file under `root` by its `skill://<path>` URI, with its bytes.
fn files_under(root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("reading tests/peers/skills") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let relative = path.strip_prefix(root).expect("under the root");
                let uri = format!("skill://{}", relative.to_string_lossy());
                out.insert(uri, std::fs::read(&path).expect("reading a fixture file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// What a host loaded: per skill URI, its files' bytes by URI.
type Loaded = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

/// Loads every skill `client` lists as a host does, asserting each step: `skills/get` gives
/// the listed entry back, the entry is held, `SKILL.md` and every other listed file read and
/// verified, a file the entry does not list refused without a request, each skill's root
/// directory read when the server declared `directoryRead` (its children match the entry).
async fn load_all(client: &Client, server: &str) -> Loaded {
    assert!(client.skills_extension().is_some(), "skills not declared");
    let entries: Vec<Skill> = client
        .list_skills_stream()
        .try_collect()
        .await
        .expect("skills/list");
    assert!(!entries.is_empty(), "no skills listed");
    let mut loaded = Loaded::new();
    for listed in entries {
        let got = client
            .get_skill(listed.uri.as_str())
            .await
            .expect("skills/get");
        assert_eq!(got.skill, listed, "skills/get differs from the listing");
        let held = client
            .hold_skill(server, listed)
            .unwrap_or_else(|e| panic!("holding a listed skill: {e}"));
        assert_eq!(held.key().server, server);
        let mut files = BTreeMap::new();
        if held.is_dynamic() {
            // Nothing to verify: refused by the verified path, read knowingly.
            match held.load().await {
                Err(Error::Skill(SkillError::Dynamic { uri })) => assert_eq!(uri, held.uri()),
                other => panic!("a dynamic skill's verified load gave {other:?}"),
            }
            let skill_md = held
                .load_unverified()
                .await
                .unwrap_or_else(|e| panic!("loading {} unverified: {e}", held.uri()));
            assert!(!skill_md.is_verified());
            files.insert(held.uri().to_owned(), skill_md.into_bytes());
            loaded.insert(held.uri().to_owned(), files);
            continue;
        }
        let skill_md = held
            .load()
            .await
            .unwrap_or_else(|e| panic!("loading {}: {e}", held.uri()));
        assert!(skill_md.is_verified());
        files.insert(held.uri().to_owned(), skill_md.into_bytes());
        for file in held.files().expect("a listed skill").to_vec() {
            if file.uri != held.uri() {
                let read = held
                    .read(&file.uri)
                    .await
                    .unwrap_or_else(|e| panic!("reading {}: {e}", file.uri));
                assert!(read.is_verified());
                files.insert(file.uri, read.into_bytes());
            }
        }
        assert_unlisted_refused(&held).await;
        if client.supports_directory_read() {
            let children: Vec<_> = client
                .read_resource_directory_stream(held.directory())
                .try_collect()
                .await
                .expect("resources/directory/read");
            for child in &children {
                let is_dir = child.mime_type.as_deref() == Some(mcp_types::DIRECTORY_MIME_TYPE);
                assert!(
                    is_dir || files.contains_key(&child.uri),
                    "{} is listed in the directory but not in the entry",
                    child.uri
                );
            }
            assert!(children.iter().any(|c| c.uri == held.uri()));
        }
        loaded.insert(held.uri().to_owned(), files);
    }
    loaded
}

async fn assert_unlisted_refused(held: &HeldSkill) {
    let unlisted = format!("{}/not-in-the-entry.md", held.directory());
    match held.read(&unlisted).await {
        Err(Error::Skill(SkillError::NotListed { file, .. })) => assert_eq!(file, unlisted),
        other => panic!("an unlisted read gave {other:?}"),
    }
}

/// What our client must load from `ts_skills_server.mjs`: the fixture's files, by skill.
fn assert_fixture(loaded: &Loaded) {
    assert_files(loaded, &fixture_files());
    assert_eq!(
        loaded.keys().collect::<Vec<_>>(),
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md"
        ]
    );
}

/// The files `loaded` read are exactly `on_disk`, byte for byte.
fn assert_files(loaded: &Loaded, on_disk: &BTreeMap<String, Vec<u8>>) {
    let read: BTreeMap<String, Vec<u8>> = loaded
        .values()
        .flatten()
        .map(|(u, b)| (u.clone(), b.clone()))
        .collect();
    assert_eq!(
        read.keys().collect::<Vec<_>>(),
        on_disk.keys().collect::<Vec<_>>()
    );
    assert_eq!(&read, on_disk, "the bytes read are the files' bytes");
}

/// The generated skill `everything-server` adds to `examples/skills/`.
const DAILY: &str = "skill://reports/daily/SKILL.md";

/// What our client must load from our servers: `examples/skills/`, byte for byte, and from
/// `everything-server` (`with_dynamic`) also the generated `reports/daily`, read unverified.
fn assert_examples(loaded: &Loaded, with_dynamic: bool) {
    let mut loaded = loaded.clone();
    let daily = loaded.remove(DAILY);
    assert_eq!(daily.is_some(), with_dynamic, "{DAILY}");
    if let Some(daily) = daily {
        let text = String::from_utf8(daily[DAILY].clone()).expect("UTF-8");
        assert!(text.starts_with("---\nname: daily\n"), "{text}");
        assert!(text.contains("# Daily report"), "{text}");
    }
    assert_files(&loaded, &files_under(&examples_dir()));
    assert_eq!(
        loaded.keys().collect::<Vec<_>>(),
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md"
        ]
    );
}

/// `skills-server examples/skills`, over stdio.
fn skills_server() -> mcp_transport_stdio::ChildProcessBuilder {
    ChildProcessTransport::builder(bins::skills_server())
        .arg(examples_dir())
        .env("RUST_LOG", "warn")
}

/// `everything-server --skills --http 127.0.0.1:0`.
async fn everything_http() -> HttpServer {
    HttpServer::everything_with(&["--skills"]).await
}

#[tokio::test]
async fn our_client_loads_our_skills_over_stdio() {
    for (era, version) in [
        (EraChoice::Legacy, "2025-11-25"),
        (EraChoice::Auto, "2026-07-28"),
        (EraChoice::Modern, "2026-07-28"),
    ] {
        let running = Running::start(skills_server(), Client::builder().era(era)).await;
        assert_eq!(
            running.client.protocol_version().as_str(),
            version,
            "{era:?}"
        );
        let loaded = load_all(&running.client, "skills-server").await;
        assert_examples(&loaded, false);
        running.close().await;
    }
}

#[tokio::test]
async fn our_client_loads_our_skills_over_http() {
    let server = everything_http().await;
    for (era, version) in [
        (EraChoice::Legacy, "2025-11-25"),
        (EraChoice::Auto, "2026-07-28"),
    ] {
        let (client, connection) = connect(&server.mcp_url(), Client::builder().era(era)).await;
        assert_eq!(client.protocol_version().as_str(), version, "{era:?}");
        let loaded = load_all(&client, "everything-server").await;
        assert_examples(&loaded, true);
        close(client, connection).await;
    }
}

#[tokio::test]
async fn the_reference_client_reads_our_server_over_stdio() {
    let loaded = our_view_over_stdio(skills_server()).await;
    let server = bins::skills_server().to_string_lossy().into_owned();
    let dir = examples_dir().to_string_lossy().into_owned();
    for (mode, version) in [
        ("legacy", "2025-11-25"),
        ("auto", "2026-07-28"),
        ("2026-07-28", "2026-07-28"),
    ] {
        let report = reference_client(
            &format!("ts_skills_client.mjs --mode {mode} (skills-server)"),
            &["--mode", mode, "--", &server, &dir],
            &String::new,
        )
        .await;
        assert_reference_report(&report, &loaded, version);
    }
}

#[tokio::test]
async fn the_reference_client_reads_our_server_over_http() {
    let server = everything_http().await;
    let (client, connection) = connect(&server.mcp_url(), Client::builder()).await;
    let loaded = load_all(&client, "everything-server").await;
    close(client, connection).await;
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let report = reference_client(
            &format!("ts_skills_client.mjs --mode {mode} (everything-server)"),
            &["--mode", mode, "--http", &server.mcp_url()],
            &|| server.stderr(),
        )
        .await;
        assert_reference_report(&report, &loaded, version);
        assert_eq!(report["server"]["directoryRead"], true);
    }
}

fn ts_skills_server() -> mcp_transport_stdio::ChildProcessBuilder {
    ChildProcessTransport::builder(&peers().node).arg(peers_dir().join("ts_skills_server.mjs"))
}

#[tokio::test]
async fn our_client_loads_the_reference_servers_skills_over_stdio() {
    for (era, version) in [
        (EraChoice::Legacy, "2025-11-25"),
        (EraChoice::Auto, "2026-07-28"),
        (EraChoice::Modern, "2026-07-28"),
    ] {
        let running = Running::start(ts_skills_server(), Client::builder().era(era)).await;
        assert_eq!(
            running.client.protocol_version().as_str(),
            version,
            "{era:?}"
        );
        assert!(running.client.supports_directory_read());
        let loaded = load_all(&running.client, "ts-reference").await;
        assert_fixture(&loaded);
        running.close().await;
    }
}

#[tokio::test]
async fn our_client_loads_the_reference_servers_skills_over_http() {
    let mut command = Command::new(&peers().node);
    command
        .arg(peers_dir().join("ts_skills_server.mjs"))
        .arg("--http");
    let server = HttpServer::announced("ts_skills_server.mjs", command).await;
    for (era, version) in [
        (EraChoice::Legacy, "2025-11-25"),
        (EraChoice::Auto, "2026-07-28"),
    ] {
        let (client, connection) = connect(&server.mcp_url(), Client::builder().era(era)).await;
        assert_eq!(client.protocol_version().as_str(), version, "{era:?}");
        let loaded = load_all(&client, "ts-reference").await;
        assert_fixture(&loaded);
        close(client, connection).await;
    }
}

/// Runs `ts_skills_client.mjs <args>` and returns its JSON report, asserting that it
/// reported no error and exited 0.
async fn reference_client(what: &str, args: &[&str], server_log: &dyn Fn() -> String) -> Value {
    let mut cmd = Command::new(&peers().node);
    cmd.arg(peers_dir().join("ts_skills_client.mjs"))
        .args(["--timeout", "20"])
        .args(args);
    let output = output_within(what, Duration::from_secs(90), cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON report ({e}); status {}\nstderr:\n{stderr}\nserver:\n{}",
            output.status,
            server_log()
        )
    });
    assert_eq!(
        report["errors"],
        json!([]),
        "{what} stderr:\n{stderr}\nserver:\n{}",
        server_log()
    );
    assert!(output.status.success(), "{what}: status {}", output.status);
    report
}

/// The reference client's report against a server our client loaded as `loaded`: the same
/// skills, every file read (and verified by it), -32602 for an unknown skill.
fn assert_reference_report(report: &Value, loaded: &Loaded, version: &str) {
    assert_eq!(report["server"]["protocolVersion"], version);
    assert_eq!(report["server"]["skills"], true);
    assert_eq!(report["unknownSkill"]["code"], -32602);
    let skills = report["skills"].as_array().expect("skills");
    let uris: Vec<&str> = skills.iter().filter_map(|s| s["uri"].as_str()).collect();
    assert_eq!(uris, loaded.keys().map(String::as_str).collect::<Vec<_>>());
    for skill in skills {
        let ours = &loaded[skill["uri"].as_str().unwrap_or_default()];
        if skill["dynamic"] == true {
            // Generated anew for each read: only which files, not their bytes, compare.
            assert_eq!(skill["files"].as_array().map(Vec::len), Some(ours.len()));
            continue;
        }
        let mut theirs: Vec<(&str, u64)> = skill["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| {
                (
                    f["uri"].as_str().unwrap_or_default(),
                    f["size"].as_u64().unwrap_or_default(),
                )
            })
            .collect();
        theirs.sort_unstable();
        let ours: Vec<(&str, u64)> = ours
            .iter()
            .map(|(u, b)| (u.as_str(), b.len() as u64))
            .collect();
        assert_eq!(theirs, ours, "{}", skill["uri"]);
    }
}

#[tokio::test]
async fn the_reference_client_reads_the_reference_server() {
    // The pair the other tests stand in for, run here so that a change of the pinned package
    // shows as its own failure.
    let server = ts_skills_server_command();
    let loaded = our_view_over_stdio(ts_skills_server()).await;
    for mode in ["legacy", "auto"] {
        let mut args = vec!["--mode", mode, "--"];
        args.extend(server.iter().map(String::as_str));
        let report = reference_client(
            "ts_skills_client.mjs (reference server)",
            &args,
            &String::new,
        )
        .await;
        let version = if mode == "legacy" {
            "2025-11-25"
        } else {
            "2026-07-28"
        };
        assert_reference_report(&report, &loaded, version);
    }
}

/// `node ts_skills_server.mjs` as a command line.
fn ts_skills_server_command() -> Vec<String> {
    vec![
        peers().node.to_string_lossy().into_owned(),
        peers_dir()
            .join("ts_skills_server.mjs")
            .to_string_lossy()
            .into_owned(),
    ]
}

/// What our client loads from a stdio server.
async fn our_view_over_stdio(command: mcp_transport_stdio::ChildProcessBuilder) -> Loaded {
    let running = Running::start(command, Client::builder()).await;
    let loaded = load_all(&running.client, "ours").await;
    running.close().await;
    loaded
}
