//! The Skills extension (feature `skills`): entries listed and got without reading a file,
//! files read on demand and verified against the held entry (each failure its own error),
//! dynamic skills through the unverified path only, the per-skill limits, the capability
//! gates; in both eras.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use futures::TryStreamExt as _;
use mcp_client::skills::{SkillError, SkillLimits, sha256_digest};
use mcp_client::{Client, Error, ErrorObject, Side};
use mcp_types::Skill;
use serde_json::{Value, json};

use crate::support::{FakeServer, Harness, Seen, all_capabilities, discover_result};

const SKILL: &str = "skill://acme/billing/refunds/SKILL.md";
const EMAIL: &str = "skill://acme/billing/refunds/templates/email.md";
const STAMP: &str = "skill://acme/billing/refunds/assets/stamp.png";
const SKILL_MD: &str = "---\nname: refunds\ndescription: Process refunds\nmetadata:\n  version: \"2\"\n---\n\n# Refunds\n\nUse `templates/email.md`.\n";
const EMAIL_MD: &str = "Dear {customer},\nyour refund is on its way.\n";
const STAMP_BYTES: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\xfe";

/// A file as the server serves it: text, or bytes sent as a base64 blob.
#[derive(Clone)]
enum Served {
    Text(String),
    Blob(Vec<u8>),
}

impl Served {
    fn contents(&self, uri: &str) -> Value {
        match self {
            Served::Text(t) => json!({"uri": uri, "mimeType": "text/markdown", "text": t}),
            Served::Blob(b) => json!({
                "uri": uri,
                "mimeType": "image/png",
                "blob": base64::engine::general_purpose::STANDARD.encode(b)
            }),
        }
    }
}

/// A skill server: the entries it lists (and gets), and the files it serves.
#[derive(Clone)]
struct Skills {
    entries: Vec<Value>,
    files: HashMap<String, Served>,
    directory_read: bool,
    declared: bool,
}

/// The manifest line of a file with these bytes.
fn listed(uri: &str, bytes: &[u8]) -> Value {
    json!({"uri": uri, "digest": sha256_digest(bytes), "size": bytes.len()})
}

/// The refunds skill: SKILL.md, a text and a binary file, listed with their true digests.
fn refunds() -> Skills {
    let files = HashMap::from([
        (SKILL.to_owned(), Served::Text(SKILL_MD.to_owned())),
        (EMAIL.to_owned(), Served::Text(EMAIL_MD.to_owned())),
        (STAMP.to_owned(), Served::Blob(STAMP_BYTES.to_vec())),
    ]);
    let entry = json!({
        "uri": SKILL,
        "frontmatter": {"name": "refunds", "description": "Process refunds", "metadata": {"version": "2"}},
        "resources": [
            listed(SKILL, SKILL_MD.as_bytes()),
            listed(EMAIL, EMAIL_MD.as_bytes()),
            listed(STAMP, STAMP_BYTES),
        ]
    });
    Skills {
        entries: vec![entry],
        files,
        directory_read: false,
        declared: true,
    }
}

impl Skills {
    /// Serves `served` at `uri` without changing the entry.
    fn serve(mut self, uri: &str, served: Served) -> Self {
        self.files.insert(uri.to_owned(), served);
        self
    }

    /// Changes the first entry.
    fn entry(mut self, f: impl FnOnce(&mut Value)) -> Self {
        f(&mut self.entries[0]);
        self
    }

    fn capabilities(&self) -> Value {
        let mut caps = all_capabilities();
        if self.declared {
            let settings = if self.directory_read {
                json!({"directoryRead": true})
            } else {
                json!({})
            };
            caps["extensions"] = json!({"io.modelcontextprotocol/skills": settings});
        }
        caps
    }

    /// The fake server: `skills/list` in pages of one entry, `skills/get`, `resources/read`
    /// and (with `directory_read`) `resources/directory/read` in pages of one child.
    fn server(self, modern: bool) -> FakeServer {
        let caps = self.capabilities();
        let server = if modern {
            let mut discover = discover_result();
            discover["capabilities"] = caps;
            FakeServer::modern().answer("server/discover", discover)
        } else {
            FakeServer::new().route("initialize", move |params, _| {
                let caps = caps.clone();
                async move {
                    Ok(json!({
                        "protocolVersion": params["protocolVersion"],
                        "capabilities": caps,
                        "serverInfo": {"name": "skills", "version": "1"}
                    }))
                }
            })
        };
        let this = Arc::new(self);
        let list = this.clone();
        let get = this.clone();
        let read = this.clone();
        server
            .route("skills/list", move |params, _| {
                let list = list.clone();
                async move {
                    let at: usize = params["cursor"].as_str().map_or(0, |c| c.parse().unwrap());
                    let mut page = json!({"skills": [list.entries[at].clone()]});
                    if at + 1 < list.entries.len() {
                        page["nextCursor"] = json!((at + 1).to_string());
                    }
                    Ok(page)
                }
            })
            .route("skills/get", move |params, _| {
                let get = get.clone();
                async move {
                    get.entries
                        .iter()
                        .find(|e| e["uri"] == params["uri"])
                        .map(|e| json!({"skill": e}))
                        .ok_or_else(|| ErrorObject::invalid_params("no such skill"))
                }
            })
            .route("resources/read", move |params, _| {
                let read = read.clone();
                async move {
                    let uri = params["uri"].as_str().unwrap_or_default();
                    read.files
                        .get(uri)
                        .map(|f| json!({"contents": [f.contents(uri)]}))
                        .ok_or_else(|| ErrorObject::invalid_params("no such resource"))
                }
            })
            .route("resources/directory/read", |params, _| async move {
                let page = match params["cursor"].as_str() {
                    None => json!({
                        "resources": [{"uri": EMAIL, "name": "email.md"}],
                        "nextCursor": "1"
                    }),
                    Some(_) => json!({"resources": [{
                        "uri": "skill://acme/billing/refunds/templates/regional",
                        "name": "regional",
                        "mimeType": "inode/directory"
                    }]}),
                };
                Ok(page)
            })
    }

    async fn connect(self) -> Harness {
        self.server(false).connect(Client::builder()).await
    }
}

/// The methods of the requests the server has seen so far (without waiting).
fn requests(h: &mut Harness) -> Vec<String> {
    let mut methods = Vec::new();
    while let Ok(seen) = h.server.seen.try_recv() {
        if let Seen::Request { method, .. } = seen {
            methods.push(method);
        }
    }
    methods
}

async fn entry(h: &Harness) -> Skill {
    h.client.get_skill(SKILL).await.expect("skills/get").skill
}

fn skill_error(result: Result<impl std::fmt::Debug, Error>) -> SkillError {
    match result {
        Err(Error::Skill(e)) => e,
        other => panic!("expected a skill error, got {other:?}"),
    }
}

#[tokio::test]
async fn listing_getting_and_holding_read_no_file() {
    let mut skills = refunds();
    let mut second = skills.entries[0].clone();
    second["uri"] = json!("skill://git-workflow/SKILL.md");
    second["frontmatter"]["name"] = json!("git-workflow");
    second["resources"] = json!("dynamic");
    skills.entries.push(second);
    let mut h = skills.connect().await;
    let entries: Vec<Skill> = h.client.list_skills_stream().try_collect().await.unwrap();
    assert_eq!(entries.len(), 2, "both pages");
    let got = entry(&h).await;
    assert_eq!(got, entries[0]);
    let held: Vec<_> = entries
        .into_iter()
        .map(|e| h.client.hold_skill("docs", e).unwrap())
        .collect();
    assert_eq!(held[0].key().server, "docs");
    assert_eq!(held[0].key().uri, SKILL);
    assert_eq!(held[0].name(), "refunds");
    assert_eq!(held[0].description(), "Process refunds");
    assert_eq!(held[0].directory(), "skill://acme/billing/refunds");
    assert!(held[1].is_dynamic());
    assert_eq!(
        requests(&mut h),
        ["skills/list", "skills/list", "skills/get"],
        "nothing is read on connect, list, get or hold"
    );

    // Loading reads SKILL.md, and only it; a file is read when asked for.
    let skill = held[0].load().await.unwrap();
    assert_eq!(requests(&mut h), ["resources/read"]);
    assert_eq!(skill.text(), Some(SKILL_MD));
    assert!(skill.is_verified());
    assert_eq!(skill.mime_type(), Some("text/markdown"));
    let email = held[0].read(EMAIL).await.unwrap();
    assert_eq!(email.bytes(), EMAIL_MD.as_bytes());
    let stamp = held[0].read(STAMP).await.unwrap();
    assert_eq!(
        stamp.bytes(),
        STAMP_BYTES,
        "a blob is verified as its decoded bytes"
    );
    assert_eq!(stamp.text(), None);
    assert_eq!(requests(&mut h), ["resources/read", "resources/read"]);
}

#[tokio::test]
async fn a_longer_file_is_a_size_mismatch() {
    let tampered = format!("{SKILL_MD}extra bytes the entry did not account for\n");
    let h = refunds()
        .serve(SKILL, Served::Text(tampered.clone()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    let e = skill_error(held.load().await);
    assert_eq!(
        e,
        SkillError::SizeMismatch {
            file: SKILL.to_owned(),
            expected: SKILL_MD.len() as u64,
            actual: tampered.len() as u64,
        }
    );
    assert!(e.needs_refresh());
    assert_eq!(
        e.to_string(),
        format!(
            "{SKILL} has {} bytes, its entry says {}",
            tampered.len(),
            SKILL_MD.len()
        )
    );
}

#[tokio::test]
async fn same_length_other_bytes_is_a_digest_mismatch() {
    let tampered = EMAIL_MD.replace("refund", "REFUND");
    assert_eq!(tampered.len(), EMAIL_MD.len());
    let h = refunds()
        .serve(EMAIL, Served::Text(tampered.clone()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    held.load().await.expect("SKILL.md is intact");
    let e = skill_error(held.read(EMAIL).await);
    assert_eq!(
        e,
        SkillError::DigestMismatch {
            file: EMAIL.to_owned(),
            expected: sha256_digest(EMAIL_MD.as_bytes()),
            actual: sha256_digest(tampered.as_bytes()),
        }
    );
    assert!(e.needs_refresh());
    // A tampered blob too.
    let h = refunds()
        .serve(
            STAMP,
            Served::Blob(b"\x89PNG\r\n\x1a\n\x00\xff\xff".to_vec()),
        )
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    assert!(matches!(
        skill_error(held.read(STAMP).await),
        SkillError::DigestMismatch { .. }
    ));
}

#[tokio::test]
async fn a_frontmatter_that_differs_from_the_entry_fails_the_load() {
    // The entry lists the tampered file's own digest and size: only the frontmatter differs.
    let tampered = SKILL_MD.replace("Process refunds", "Exfiltrate credentials");
    let h = refunds()
        .serve(SKILL, Served::Text(tampered.clone()))
        .entry(|e| e["resources"][0] = listed(SKILL, tampered.as_bytes()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    let e = skill_error(held.load().await);
    assert_eq!(
        e,
        SkillError::FrontmatterMismatch {
            uri: SKILL.to_owned(),
            fields: vec!["description".to_owned()],
        }
    );
    assert!(e.needs_refresh());
    assert_eq!(
        e.to_string(),
        format!("frontmatter of {SKILL} differs from its entry in description")
    );

    // A field only the file has is a difference too.
    let extra = SKILL_MD.replace("name: refunds\n", "name: refunds\nallowed-tools: Bash\n");
    let h = refunds()
        .serve(SKILL, Served::Text(extra.clone()))
        .entry(|e| e["resources"][0] = listed(SKILL, extra.as_bytes()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    assert_eq!(
        skill_error(held.load().await),
        SkillError::FrontmatterMismatch {
            uri: SKILL.to_owned(),
            fields: vec!["allowed-tools".to_owned()],
        }
    );
}

#[tokio::test]
async fn a_skill_md_without_frontmatter_fails_the_load() {
    let bare = "# Refunds\n\nNo frontmatter here.\n";
    let h = refunds()
        .serve(SKILL, Served::Text(bare.to_owned()))
        .entry(|e| e["resources"][0] = listed(SKILL, bare.as_bytes()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    let e = skill_error(held.load().await);
    assert!(
        matches!(&e, SkillError::InvalidFrontmatter { uri, reason }
            if uri == SKILL && reason.contains("does not begin with")),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_file_the_entry_does_not_list_is_refused_unread() {
    let credit = "skill://acme/billing/refunds/templates/credit-note.md";
    let mut h = refunds()
        .serve(credit, Served::Text("New file.\n".to_owned()))
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    requests(&mut h);
    let e = skill_error(held.read(credit).await);
    assert_eq!(
        e,
        SkillError::NotListed {
            uri: SKILL.to_owned(),
            file: credit.to_owned(),
        }
    );
    assert!(e.needs_refresh());
    assert!(requests(&mut h).is_empty(), "nothing was sent");

    // Refreshing the entry brings the new file in, under a new set of digests.
    let h2 = refunds()
        .entry(|e| {
            e["resources"]
                .as_array_mut()
                .unwrap()
                .push(listed(credit, b"New file.\n"));
        })
        .serve(credit, Served::Text("New file.\n".to_owned()))
        .connect()
        .await;
    let fresh = h2.client.hold_skill("docs", entry(&h2).await).unwrap();
    assert!(!held.same_files(fresh.entry()));
    assert!(held.same_files(held.entry()));
    let refreshed = held.refresh().await.unwrap();
    assert!(
        refreshed.same_files(held.entry()),
        "the server did not change"
    );
    assert_eq!(
        fresh.read(credit).await.unwrap().text(),
        Some("New file.\n")
    );
}

#[tokio::test]
async fn entries_that_break_the_rules_cannot_be_held() {
    let h = refunds().connect().await;
    let good = entry(&h).await;
    let hold = |change: &dyn Fn(&mut Value)| {
        let mut value = serde_json::to_value(&good).unwrap();
        change(&mut value);
        let entry: Skill = serde_json::from_value(value).unwrap();
        skill_error(h.client.hold_skill("docs", entry))
    };
    assert_eq!(
        hold(&|e| e["frontmatter"]["name"] = json!("refund")),
        SkillError::NameMismatch {
            uri: SKILL.to_owned(),
            name: "refund".to_owned(),
            segment: "refunds".to_owned(),
        }
    );
    let invalid = |change: &dyn Fn(&mut Value), why: &str| match hold(change) {
        SkillError::InvalidEntry { uri, reason } => {
            assert!(reason.contains(why), "{reason:?} should say {why:?}");
            uri
        }
        other => panic!("expected InvalidEntry ({why}), got {other:?}"),
    };
    invalid(
        &|e| {
            e["resources"].as_array_mut().unwrap().remove(0);
        },
        "do not include its SKILL.md",
    );
    invalid(
        &|e| {
            let first = e["resources"][1].clone();
            e["resources"].as_array_mut().unwrap().push(first);
        },
        "twice",
    );
    invalid(
        &|e| e["resources"][1]["uri"] = json!("skill://acme/billing/other/x.md"),
        "outside",
    );
    invalid(
        &|e| e["resources"][1]["uri"] = json!("skill://acme/billing/refunds/../x.md"),
        "outside",
    );
    invalid(
        &|e| e["resources"][1]["digest"] = json!("sha256:ABC"),
        "digest",
    );
    invalid(
        &|e| {
            e["frontmatter"]
                .as_object_mut()
                .unwrap()
                .remove("description");
        },
        "description",
    );
    let uri = invalid(
        &|e| e["uri"] = json!("skill://acme/billing/refunds/README.md"),
        "SKILL.md",
    );
    assert_eq!(uri, "skill://acme/billing/refunds/README.md");
}

/// An entry listing `count` files of `size` bytes each (SKILL.md one of them).
fn big_entry(count: usize, size: u64) -> Value {
    let mut files = vec![json!({"uri": SKILL, "digest": sha256_digest(b""), "size": size})];
    for i in 1..count {
        files.push(json!({
            "uri": format!("skill://acme/billing/refunds/f/{i}.md"),
            "digest": sha256_digest(b""),
            "size": size
        }));
    }
    json!({
        "uri": SKILL,
        "frontmatter": {"name": "refunds", "description": "Process refunds"},
        "resources": files
    })
}

#[tokio::test]
async fn the_limits_are_checked_from_the_entry_and_can_be_raised() {
    let mut h = refunds().connect().await;
    let at_limits: Skill = serde_json::from_value(big_entry(512, 32 * 1024)).unwrap();
    h.client
        .hold_skill("docs", at_limits)
        .expect("512 files and 16 MiB are what every host must accept");
    let too_many: Skill = serde_json::from_value(big_entry(513, 1)).unwrap();
    assert_eq!(
        skill_error(h.client.hold_skill("docs", too_many.clone())),
        SkillError::TooManyFiles {
            uri: SKILL.to_owned(),
            count: 513,
            limit: 512,
        }
    );
    let too_large: Skill = serde_json::from_value(big_entry(2, 8 * 1024 * 1024 + 1)).unwrap();
    assert_eq!(
        skill_error(h.client.hold_skill("docs", too_large.clone())),
        SkillError::TooLarge {
            uri: SKILL.to_owned(),
            size: 16 * 1024 * 1024 + 2,
            limit: 16 * 1024 * 1024,
        }
    );
    assert!(requests(&mut h).iter().all(|m| m != "resources/read"));

    let limits = SkillLimits::new()
        .with_max_files(1024)
        .with_max_total_size(32 * 1024 * 1024);
    assert_eq!(limits.max_files(), 1024);
    let h = refunds()
        .server(false)
        .connect(Client::builder().skill_limits(limits))
        .await;
    h.client.hold_skill("docs", too_many).unwrap();
    h.client.hold_skill("docs", too_large).unwrap();
    let h = refunds()
        .server(false)
        .connect(Client::builder().skill_limits(SkillLimits::new().with_max_files(2)))
        .await;
    assert!(matches!(
        skill_error(h.client.hold_skill("docs", entry(&h).await)),
        SkillError::TooManyFiles {
            count: 3,
            limit: 2,
            ..
        }
    ));
}

#[tokio::test]
async fn a_dynamic_skill_is_read_only_unverified() {
    let mut h = refunds()
        .entry(|e| e["resources"] = json!("dynamic"))
        .server(false)
        .connect(Client::builder().skill_limits(
            SkillLimits::new().with_max_total_size((SKILL_MD.len() + EMAIL_MD.len()) as u64),
        ))
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    assert!(held.is_dynamic());
    assert_eq!(held.files(), None);
    requests(&mut h);
    assert_eq!(
        skill_error(held.load().await),
        SkillError::Dynamic {
            uri: SKILL.to_owned()
        }
    );
    assert_eq!(
        skill_error(held.read(EMAIL).await),
        SkillError::Dynamic {
            uri: SKILL.to_owned()
        }
    );
    assert!(requests(&mut h).is_empty(), "nothing was sent");

    let skill = held.load_unverified().await.unwrap();
    assert!(!skill.is_verified());
    assert_eq!(skill.text(), Some(SKILL_MD));
    // Outside the skill: refused, unsent.
    assert!(matches!(
        skill_error(
            held.read_unverified("skill://acme/billing/other/SKILL.md")
                .await
        ),
        SkillError::NotListed { .. }
    ));
    assert_eq!(requests(&mut h), ["resources/read"]);
    held.read_unverified(EMAIL).await.unwrap();
    // The total size bounds what is fetched: the limit is reached.
    assert_eq!(
        skill_error(held.read_unverified(STAMP).await),
        SkillError::TooLarge {
            uri: SKILL.to_owned(),
            size: (SKILL_MD.len() + EMAIL_MD.len() + STAMP_BYTES.len()) as u64,
            limit: (SKILL_MD.len() + EMAIL_MD.len()) as u64,
        }
    );

    // The frontmatter is still compared.
    let h = refunds()
        .entry(|e| e["resources"] = json!("dynamic"))
        .serve(
            SKILL,
            Served::Text(SKILL_MD.replace("name: refunds\n", "name: other\n")),
        )
        .connect()
        .await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    assert_eq!(
        skill_error(held.load_unverified().await),
        SkillError::FrontmatterMismatch {
            uri: SKILL.to_owned(),
            fields: vec!["name".to_owned()],
        }
    );

    // A listed skill is never read unverified.
    let h = refunds().connect().await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    assert_eq!(
        skill_error(held.read_unverified(EMAIL).await),
        SkillError::NotDynamic {
            uri: SKILL.to_owned()
        }
    );
}

#[tokio::test]
async fn relative_references_resolve_in_the_skill() {
    let h = refunds().connect().await;
    let held = h.client.hold_skill("docs", entry(&h).await).unwrap();
    let email = held.resolve("templates/email.md").unwrap();
    assert_eq!(email, EMAIL);
    assert_eq!(held.read(&email).await.unwrap().text(), Some(EMAIL_MD));
    assert_eq!(held.resolve("../other/SKILL.md"), None);
}

#[tokio::test]
async fn nothing_is_sent_to_a_server_that_did_not_declare_the_extension() {
    let mut skills = refunds();
    skills.declared = false;
    let mut h = skills.connect().await;
    assert!(h.client.skills_extension().is_none());
    for e in [
        h.client.list_skills(None).await.unwrap_err(),
        h.client.get_skill(SKILL).await.unwrap_err(),
        h.client
            .read_resource_directory("skill://acme/billing/refunds")
            .await
            .unwrap_err(),
    ] {
        assert!(
            matches!(e, Error::CapabilityNotDeclared { side: Side::Server, capability }
                if capability.starts_with("extensions.io.modelcontextprotocol/skills")),
            "{e:?}"
        );
    }
    assert!(requests(&mut h).is_empty());
}

#[tokio::test]
async fn directories_are_read_only_when_declared() {
    let mut h = refunds().connect().await;
    assert!(!h.client.supports_directory_read());
    assert!(matches!(
        h.client.read_resource_directory("skill://acme/billing/refunds/templates").await,
        Err(Error::CapabilityNotDeclared { capability, .. })
            if capability == "extensions.io.modelcontextprotocol/skills.directoryRead"
    ));
    assert!(requests(&mut h).is_empty());

    let mut skills = refunds();
    skills.directory_read = true;
    let h = skills.connect().await;
    assert!(h.client.supports_directory_read());
    let children: Vec<_> = h
        .client
        .read_resource_directory_stream("skill://acme/billing/refunds/templates")
        .try_collect()
        .await
        .unwrap();
    let uris: Vec<_> = children.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [EMAIL, "skill://acme/billing/refunds/templates/regional"],
        "both pages"
    );
    assert_eq!(children[1].mime_type.as_deref(), Some("inode/directory"));
}

#[tokio::test]
async fn skills_load_the_same_on_2026_07_28() {
    let mut h = refunds()
        .server(true)
        .connect_modern(Client::builder())
        .await;
    assert_eq!(h.client.protocol_version().as_str(), "2026-07-28");
    let entries: Vec<Skill> = h.client.list_skills_stream().try_collect().await.unwrap();
    let held = h
        .client
        .hold_skill("docs", entries.into_iter().next().unwrap())
        .unwrap();
    held.load().await.unwrap();
    held.read(STAMP).await.unwrap();
    let seen: Vec<Seen> = std::iter::from_fn(|| h.server.seen.try_recv().ok()).collect();
    let list = seen.iter().find(|s| s.method() == "skills/list").unwrap();
    assert_eq!(
        list.params()["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28",
        "an extension request carries the revision's _meta"
    );
}

#[tokio::test]
async fn the_client_declares_the_extension_when_asked() {
    let h = refunds().server(false).connect(Client::builder()).await;
    assert!(
        h.init_params["capabilities"]["extensions"]
            .get("io.modelcontextprotocol/skills")
            .is_none()
    );
    let h = refunds()
        .server(false)
        .connect(Client::builder().skills(true))
        .await;
    assert_eq!(
        h.init_params["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({})
    );
}
