//! The Skills extension (feature `skills`): a real directory of skills served over the memory
//! pair, in both eras; what a request can never reach; changes on disk.

use std::path::Path;
use std::time::Duration;

use mcp_server::Server;
use mcp_server::skills::{DynamicSkill, MemorySkill, Skills};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};

const GIT: &str =
    "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\n# Git\n";
const REFUNDS: &str = "---\nname: refunds\ndescription: Process refund requests\nlicense: Apache-2.0\n\
                       metadata:\n  version: \"2.1\"\n---\n# Refunds\nSee `templates/`.\n";
const FORMS: &str = "---\nname: forms\ndescription: Fill refund forms\n---\n# Forms\n";
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0, 0xff, 1];

fn write(root: &Path, path: &str, content: impl AsRef<[u8]>) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// `git-workflow`, and `acme/billing/refunds` with subdirectories and a nested skill `forms`.
fn skills_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "git-workflow/SKILL.md", GIT);
    write(root, "acme/billing/refunds/SKILL.md", REFUNDS);
    write(
        root,
        "acme/billing/refunds/examples/email.md",
        "Dear customer,\n",
    );
    write(
        root,
        "acme/billing/refunds/templates/invoice.md",
        "# Invoice\n",
    );
    write(
        root,
        "acme/billing/refunds/templates/regional/eu.md",
        "# EU\n",
    );
    write(root, "acme/billing/refunds/logo.png", PNG);
    write(root, "acme/billing/refunds/forms/SKILL.md", FORMS);
    write(root, "acme/billing/refunds/.DS_Store", "hidden");
    write(root, "README.md", "not a skill's file\n");
    dir
}

fn digest(bytes: impl AsRef<[u8]>) -> String {
    let hash = hmac_sha256::Hash::hash(bytes.as_ref());
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn files(entry: &Value) -> Vec<(String, String, u64)> {
    entry["resources"]
        .as_array()
        .expect("a complete list")
        .iter()
        .map(|r| {
            let uri = r["uri"].as_str().unwrap().to_owned();
            (
                uri,
                r["digest"].as_str().unwrap().to_owned(),
                r["size"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A client in `era`: a 2025-11-25 session, or 2026-07-28 requests.
enum Era {
    Legacy,
    Modern,
}

struct Peer {
    client: Client,
    era: Era,
}

impl Peer {
    async fn open(server: &Server, era: Era) -> Peer {
        let client = match era {
            Era::Legacy => Client::connect(server, "2025-11-25", json!({})).await.0,
            Era::Modern => Client::connect_raw(server),
        };
        Peer { client, era }
    }

    async fn call(&self, method: &'static str, params: Value) -> Result<Value, mcp_jsonrpc::Error> {
        match self.era {
            Era::Legacy => self.client.raw(method, params).await,
            Era::Modern => self.client.modern(method, params, json!({})).await,
        }
    }

    async fn ok(&self, method: &'static str, params: Value) -> Value {
        match self.call(method, params.clone()).await {
            Ok(v) => v,
            Err(e) => panic!("{method} {params}: {e}"),
        }
    }

    async fn code(&self, method: &'static str, params: Value) -> i32 {
        match self.call(method, params.clone()).await {
            Ok(v) => panic!("{method} {params} succeeded: {v}"),
            Err(e) => rpc_error(e).code.0,
        }
    }

    /// The code of "resource not found" in this era.
    fn not_found(&self) -> i32 {
        match self.era {
            Era::Legacy => -32002,
            Era::Modern => -32602,
        }
    }

    async fn capabilities(&self, server: &Server) -> Value {
        match self.era {
            Era::Legacy => {
                let caps = server.capabilities_for(&"2025-11-25".into());
                serde_json::to_value(caps).unwrap()
            }
            Era::Modern => self.ok("server/discover", json!({})).await["capabilities"].clone(),
        }
    }
}

async fn a_directory_is_served(era: Era) {
    let dir = skills_dir();
    let skills = Skills::from_dir(dir.path()).unwrap();
    let server = Server::builder().page_size(2).skills(skills).build();
    let peer = Peer::open(&server, era).await;
    let modern = matches!(peer.era, Era::Modern);

    let caps = peer.capabilities(&server).await;
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(caps["resources"].is_object(), "{caps}");

    // skills/list, two a page, each entry whole.
    let mut entries = Vec::new();
    let mut cursor = None;
    loop {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let page = peer.ok("skills/list", params).await;
        assert_eq!(page["resultType"].is_string(), modern, "{page}");
        assert_eq!(page["ttlMs"].is_u64(), modern, "{page}");
        assert_eq!(page["cacheScope"].is_string(), modern, "{page}");
        entries.extend(page["skills"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://acme/billing/refunds/forms/SKILL.md",
            "skill://git-workflow/SKILL.md",
        ]
    );
    let refunds = &entries[0];
    assert_eq!(
        refunds["frontmatter"],
        json!({"name": "refunds", "description": "Process refund requests",
            "license": "Apache-2.0", "metadata": {"version": "2.1"}})
    );
    // Every file, the nested skill's included, hidden ones not; digests of the raw bytes.
    let root = "skill://acme/billing/refunds";
    assert_eq!(
        files(refunds),
        [
            (
                format!("{root}/SKILL.md"),
                digest(REFUNDS),
                REFUNDS.len() as u64
            ),
            (
                format!("{root}/examples/email.md"),
                digest("Dear customer,\n"),
                15
            ),
            (
                format!("{root}/forms/SKILL.md"),
                digest(FORMS),
                FORMS.len() as u64
            ),
            (format!("{root}/logo.png"), digest(PNG), PNG.len() as u64),
            (
                format!("{root}/templates/invoice.md"),
                digest("# Invoice\n"),
                10
            ),
            (
                format!("{root}/templates/regional/eu.md"),
                digest("# EU\n"),
                5
            ),
        ]
    );
    assert_eq!(files(&entries[1]).len(), 1);

    // skills/get: the same entry; -32602 for anything but a served skill's SKILL.md.
    let got = peer
        .ok("skills/get", json!({"uri": format!("{root}/SKILL.md")}))
        .await;
    assert_eq!(got["skill"], *refunds);
    assert!(got.get("nextCursor").is_none());
    assert_eq!(got["ttlMs"].is_u64(), modern, "{got}");
    for uri in [
        "skill://acme/billing/chargebacks/SKILL.md",
        "skill://acme/billing/refunds/templates/invoice.md",
        "skill://acme/billing/refunds",
    ] {
        assert_eq!(
            peer.code("skills/get", json!({"uri": uri})).await,
            -32602,
            "{uri}"
        );
    }
    assert_eq!(peer.code("skills/get", json!({})).await, -32602);

    // resources/list has every file; SKILL.md with the frontmatter's name and description.
    let listed = all_resources(&peer).await;
    let skill_md = listed
        .iter()
        .find(|r| r["uri"] == format!("{root}/SKILL.md"))
        .expect("SKILL.md listed");
    assert_eq!(skill_md["name"], "refunds");
    assert_eq!(skill_md["description"], "Process refund requests");
    assert_eq!(skill_md["mimeType"], "text/markdown");
    assert_eq!(listed.len(), 7, "{listed:?}");

    // resources/read: text as text, a PNG as a blob; bytes as the entry says.
    let read = peer
        .ok("resources/read", json!({"uri": format!("{root}/SKILL.md")}))
        .await;
    assert_eq!(read["contents"][0]["text"], REFUNDS);
    assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
    let png = peer
        .ok("resources/read", json!({"uri": format!("{root}/logo.png")}))
        .await;
    assert_eq!(png["contents"][0]["mimeType"], "image/png");
    use base64::Engine as _;
    let blob = png["contents"][0]["blob"].as_str().unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap(),
        PNG
    );
    assert_eq!(
        peer.code(
            "resources/read",
            json!({"uri": "skill://acme/billing/refunds/.DS_Store"})
        )
        .await,
        peer.not_found()
    );

    // resources/directory/read: direct children, directories as inode/directory, paginated.
    let children = all_children(&peer, root).await;
    assert_eq!(
        children,
        [
            (format!("{root}/SKILL.md"), "text/markdown".to_owned()),
            (format!("{root}/examples"), "inode/directory".to_owned()),
            (format!("{root}/forms"), "inode/directory".to_owned()),
            (format!("{root}/logo.png"), "image/png".to_owned()),
            (format!("{root}/templates"), "inode/directory".to_owned()),
        ]
    );
    let page = peer
        .ok("resources/directory/read", json!({"uri": root}))
        .await;
    assert_eq!(page["resources"][0]["name"], "refunds");
    assert_eq!(page["resources"][1]["name"], "examples");
    assert_eq!(page["resultType"].is_string(), modern);
    assert_eq!(
        all_children(&peer, &format!("{root}/templates")).await,
        [
            (
                format!("{root}/templates/invoice.md"),
                "text/markdown".to_owned()
            ),
            (
                format!("{root}/templates/regional"),
                "inode/directory".to_owned()
            ),
        ]
    );
    // A prefix above the skills is a directory too.
    assert_eq!(
        all_children(&peer, "skill://acme").await,
        [(
            "skill://acme/billing".to_owned(),
            "inode/directory".to_owned()
        )]
    );
    for uri in [
        format!("{root}/SKILL.md"),
        format!("{root}/nothing"),
        format!("{root}/"),
        "skill://".to_owned(),
        "skill:/".to_owned(),
        "skill://acme/billing/refunds/templates/invoice.md".to_owned(),
    ] {
        let code = peer
            .code("resources/directory/read", json!({"uri": uri}))
            .await;
        assert_eq!(code, -32602, "{uri}");
    }
    let bad_cursor = json!({"uri": root, "cursor": "nope"});
    assert_eq!(
        peer.code("resources/directory/read", bad_cursor).await,
        -32602
    );
}

async fn all_resources(peer: &Peer) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let page = peer.ok("resources/list", params).await;
        out.extend(page["resources"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return out,
        }
    }
}

async fn all_children(peer: &Peer, uri: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut params = json!({"uri": uri});
        if let Some(c) = cursor {
            params["cursor"] = json!(c);
        }
        let page = peer.ok("resources/directory/read", params).await;
        for r in page["resources"].as_array().unwrap() {
            let uri = r["uri"].as_str().unwrap().to_owned();
            out.push((uri, r["mimeType"].as_str().unwrap().to_owned()));
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return out,
        }
    }
}

#[tokio::test]
async fn a_directory_of_skills_is_served_to_a_session() {
    a_directory_is_served(Era::Legacy).await;
}

#[tokio::test]
async fn a_directory_of_skills_is_served_on_2026_07_28() {
    a_directory_is_served(Era::Modern).await;
}

#[tokio::test]
async fn cache_hints_apply_to_list_and_get() {
    let dir = skills_dir();
    let hints = mcp_server::CacheHints::public(Duration::from_secs(300));
    let skills = Skills::from_dir(dir.path()).unwrap().cache_hints(hints);
    let server = Server::builder().skills(skills).build();
    let peer = Peer::open(&server, Era::Modern).await;
    let list = peer.ok("skills/list", json!({})).await;
    assert_eq!(
        (list["ttlMs"].clone(), list["cacheScope"].clone()),
        (json!(300000), json!("public"))
    );
    let get = peer
        .ok(
            "skills/get",
            json!({"uri": "skill://git-workflow/SKILL.md"}),
        )
        .await;
    assert_eq!(
        (get["ttlMs"].clone(), get["cacheScope"].clone()),
        (json!(300000), json!("public"))
    );
    assert_eq!(get["resultType"], "complete");
    assert!(
        get["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
        "{get}"
    );
}

/// Nothing outside the directory is reachable, whatever the request says.
#[cfg(unix)]
#[tokio::test]
async fn no_request_reaches_a_file_outside_the_skill_directory() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("skills");
    write(base.path(), "secret.txt", "the secret");
    write(&root, "a/SKILL.md", "---\nname: a\ndescription: d\n---\n");
    write(&root, "a/inside.md", "inside");
    std::os::unix::fs::symlink(base.path().join("secret.txt"), root.join("a/link.txt")).unwrap();
    std::os::unix::fs::symlink(base.path(), root.join("a/linkdir")).unwrap();
    // A link to a file inside the skill is not served either.
    std::os::unix::fs::symlink(root.join("a/inside.md"), root.join("a/alias.md")).unwrap();
    // A link to a skill outside is not walked.
    write(
        base.path(),
        "elsewhere/b/SKILL.md",
        "---\nname: b\ndescription: d\n---\n",
    );
    std::os::unix::fs::symlink(base.path().join("elsewhere/b"), root.join("b")).unwrap();

    let skills = Skills::from_dir(&root)
        .unwrap()
        .revalidate_every(Duration::ZERO);
    let entries = skills.entries();
    let server = Server::builder().skills(skills).build();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let served: Vec<_> = entries[0]
        .resources
        .files()
        .unwrap()
        .iter()
        .map(|f| f.uri.clone())
        .collect();
    assert_eq!(served, ["skill://a/SKILL.md", "skill://a/inside.md"]);

    for era in [Era::Legacy, Era::Modern] {
        let peer = Peer::open(&server, era).await;
        let secret = base.path().join("secret.txt");
        for uri in [
            "skill://a/../secret.txt".to_owned(),
            "skill://a/../../secret.txt".to_owned(),
            "skill://a/%2e%2e/%2e%2e/secret.txt".to_owned(),
            "skill://a/%2E%2E%2F%2E%2E%2Fsecret.txt".to_owned(),
            "skill://a%2F..%2F..%2Fsecret.txt".to_owned(),
            "skill://a/link.txt".to_owned(),
            "skill://a/alias.md".to_owned(),
            "skill://a/linkdir/secret.txt".to_owned(),
            "skill://b/SKILL.md".to_owned(),
            format!("file://{}", secret.display()),
            format!("skill://{}", secret.display()),
            format!("skill://a/{}", secret.display()),
            format!(
                "skill://a/%2F{}",
                secret.display().to_string().trim_start_matches('/')
            ),
        ] {
            let code = peer.code("resources/read", json!({"uri": uri})).await;
            assert_eq!(code, peer.not_found(), "{uri}");
            let code = peer.code("skills/get", json!({"uri": uri})).await;
            assert_eq!(code, -32602, "{uri}");
        }
        for uri in [
            "skill://a/..",
            "skill://a/%2e%2e",
            "skill://a/linkdir",
            "skill://a/./",
        ] {
            let code = peer
                .code("resources/directory/read", json!({"uri": uri}))
                .await;
            assert_eq!(code, -32602, "{uri}");
        }
        let listed = all_children(&peer, "skill://a").await;
        assert_eq!(listed.len(), 2, "{listed:?}");
    }

    // A file swapped for a link after the walk serves nothing.
    let peer = Peer::open(&server, Era::Legacy).await;
    std::fs::remove_file(root.join("a/inside.md")).unwrap();
    std::os::unix::fs::symlink(base.path().join("secret.txt"), root.join("a/inside.md")).unwrap();
    let code = peer
        .code("resources/read", json!({"uri": "skill://a/inside.md"}))
        .await;
    assert_eq!(code, -32002);
    let entry = peer
        .ok("skills/get", json!({"uri": "skill://a/SKILL.md"}))
        .await;
    assert_eq!(files(&entry["skill"]).len(), 1);
}

#[tokio::test]
async fn changes_on_disk_are_served_with_their_new_digests() {
    let dir = skills_dir();
    let root = dir.path();
    let skills = Skills::from_dir(root)
        .unwrap()
        .revalidate_every(Duration::from_secs(3600));
    let server = Server::builder().skills(skills.clone()).build();
    let (mut client, _) = Client::connect(&server, "2025-11-25", json!({})).await;
    let peer = Peer {
        client: Client::connect(&server, "2025-11-25", json!({})).await.0,
        era: Era::Legacy,
    };
    let uri = "skill://acme/billing/refunds/examples/email.md";
    client
        .raw("resources/subscribe", json!({"uri": uri}))
        .await
        .unwrap();

    // Within the interval nothing is walked, but a read checks its bytes: a changed file is
    // served with the entry that now describes it.
    write(
        root,
        "acme/billing/refunds/examples/email.md",
        "Dear customer, hello.\n",
    );
    let read = peer.ok("resources/read", json!({"uri": uri})).await;
    assert_eq!(read["contents"][0]["text"], "Dear customer, hello.\n");
    let entry = peer
        .ok(
            "skills/get",
            json!({"uri": "skill://acme/billing/refunds/SKILL.md"}),
        )
        .await;
    let email = files(&entry["skill"])
        .into_iter()
        .find(|f| f.0 == uri)
        .unwrap();
    assert_eq!(email.1, digest("Dear customer, hello.\n"));
    assert_eq!(email.2, 22);
    let updated = client
        .notification_named("notifications/resources/updated")
        .await;
    assert_eq!(updated["uri"], uri);

    // A new skill, a removed one: after a reload (or the interval) they are (no longer) served.
    write(
        root,
        "new-skill/SKILL.md",
        "---\nname: new-skill\ndescription: New\n---\n",
    );
    std::fs::remove_dir_all(root.join("git-workflow")).unwrap();
    skills.reload(&server).unwrap();
    let list = peer.ok("skills/list", json!({})).await;
    let uris: Vec<&str> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"skill://new-skill/SKILL.md"), "{uris:?}");
    assert!(!uris.contains(&"skill://git-workflow/SKILL.md"), "{uris:?}");
    let gone = peer
        .code(
            "resources/read",
            json!({"uri": "skill://git-workflow/SKILL.md"}),
        )
        .await;
    assert_eq!(gone, -32002);
    peer.ok(
        "resources/read",
        json!({"uri": "skill://new-skill/SKILL.md"}),
    )
    .await;
    client
        .notification_named("notifications/resources/list_changed")
        .await;

    // A skill that now breaks a rule is reported by the reload and no longer served.
    write(
        root,
        "new-skill/SKILL.md",
        "---\nname: other\ndescription: New\n---\n",
    );
    let err = skills.reload(&server).unwrap_err().to_string();
    assert_eq!(err, "skill not served");
    let code = peer
        .code("skills/get", json!({"uri": "skill://new-skill/SKILL.md"}))
        .await;
    assert_eq!(code, -32602);
}

#[tokio::test]
async fn revalidation_on_access_finds_new_skills() {
    let dir = skills_dir();
    let skills = Skills::from_dir(dir.path())
        .unwrap()
        .revalidate_every(Duration::ZERO);
    let server = Server::builder().skills(skills).build();
    let peer = Peer::open(&server, Era::Modern).await;
    write(
        dir.path(),
        "late/SKILL.md",
        "---\nname: late\ndescription: Late\n---\n",
    );
    let got = peer
        .ok("skills/get", json!({"uri": "skill://late/SKILL.md"}))
        .await;
    assert_eq!(got["skill"]["frontmatter"]["name"], "late");
    let listed = all_resources(&peer).await;
    assert!(listed.iter().any(|r| r["uri"] == "skill://late/SKILL.md"));
}

#[tokio::test]
async fn in_memory_and_generated_skills() {
    let skills = Skills::new()
        .skill(
            MemorySkill::new("team/style")
                .file(
                    "SKILL.md",
                    "---\nname: style\ndescription: House style\n---\n# Style\n",
                )
                .file("data/words.json", "[\"ok\"]"),
        )
        .unwrap()
        .dynamic(DynamicSkill::new(
            "reports/daily",
            "name: daily\ndescription: Today's report\n",
            |_cx| async { "# Daily\nAll good.\n".to_owned() },
        ))
        .unwrap();
    let server = Server::builder().skills(skills).build();
    let peer = Peer::open(&server, Era::Modern).await;
    let list = peer.ok("skills/list", json!({})).await;
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(skills[0]["uri"], "skill://team/style/SKILL.md");
    assert_eq!(files(&skills[0])[1].1, digest("[\"ok\"]"));
    assert_eq!(skills[1]["resources"], "dynamic");
    assert_eq!(
        skills[1]["frontmatter"],
        json!({"name": "daily", "description": "Today's report"})
    );
    let read = peer
        .ok(
            "resources/read",
            json!({"uri": "skill://reports/daily/SKILL.md"}),
        )
        .await;
    assert_eq!(
        read["contents"][0]["text"],
        "---\nname: daily\ndescription: Today's report\n---\n# Daily\nAll good.\n"
    );
    let json_file = peer
        .ok(
            "resources/read",
            json!({"uri": "skill://team/style/data/words.json"}),
        )
        .await;
    assert_eq!(json_file["contents"][0]["mimeType"], "application/json");
    assert_eq!(
        all_children(&peer, "skill://reports/daily").await,
        [(
            "skill://reports/daily/SKILL.md".to_owned(),
            "text/markdown".to_owned()
        )]
    );
}

#[tokio::test]
async fn without_directory_read_the_method_is_unknown() {
    let dir = skills_dir();
    let skills = Skills::from_dir(dir.path()).unwrap().directory_read(false);
    let server = Server::builder().skills(skills).build();
    let peer = Peer::open(&server, Era::Modern).await;
    let caps = peer.capabilities(&server).await;
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({})
    );
    let params = json!({"uri": "skill://git-workflow"});
    assert_eq!(peer.code("resources/directory/read", params).await, -32601);
}

#[tokio::test]
async fn before_2025_11_25_skill_files_are_plain_resources() {
    let dir = skills_dir();
    let server = Server::builder()
        .skills(Skills::from_dir(dir.path()).unwrap())
        .build();
    let (client, init) = Client::connect(&server, "2025-06-18", json!({})).await;
    assert!(init.capabilities.extensions.is_none());
    let err = rpc_error(client.raw("skills/list", json!({})).await.unwrap_err());
    assert_eq!(err.code.0, -32601);
    let read = client
        .raw(
            "resources/read",
            json!({"uri": "skill://git-workflow/SKILL.md"}),
        )
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], GIT);
}
