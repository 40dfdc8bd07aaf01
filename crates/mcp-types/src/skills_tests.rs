use super::*;
use crate::result::test_util::{decode_err, round_trip};
use crate::{CacheScope, ResultType, ServerCapabilities};

/// The spec's `skills/list` response (digests made well-formed: the spec elides them).
const LIST_RESPONSE: &str = r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete",
    "skills":[
      {"uri":"skill://git-workflow/SKILL.md",
       "frontmatter":{"name":"git-workflow",
         "description":"Follow this team's Git conventions for branching and commits"},
       "resources":[{"uri":"skill://git-workflow/SKILL.md",
         "digest":"sha256:a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4a1b2c3d4",
         "size":2314}]},
      {"uri":"skill://acme/billing/refunds/SKILL.md",
       "frontmatter":{"name":"refunds",
         "description":"Process customer refund requests per company policy",
         "license":"Apache-2.0"},
       "resources":[
         {"uri":"skill://acme/billing/refunds/SKILL.md",
          "digest":"sha256:b2c3d4e5b2c3d4e5b2c3d4e5b2c3d4e5b2c3d4e5b2c3d4e5b2c3d4e5b2c3d4e5",
          "size":3871},
         {"uri":"skill://acme/billing/refunds/examples/email.md",
          "digest":"sha256:c3d4e5f6c3d4e5f6c3d4e5f6c3d4e5f6c3d4e5f6c3d4e5f6c3d4e5f6c3d4e5f6",
          "size":962}]},
      {"uri":"skill://reports/daily/SKILL.md",
       "frontmatter":{"name":"daily",
         "description":"Assemble today's operational report from live data"},
       "resources":"dynamic"}],
    "ttlMs":300000,"cacheScope":"public"}}"#;

#[test]
fn the_list_example_round_trips() {
    let response: ListSkillsResultResponse = round_trip(LIST_RESPONSE);
    let result = response.result;
    assert_eq!(result.result_type, Some(ResultType::Complete));
    assert_eq!(result.ttl_ms, Some(300_000));
    assert_eq!(result.cache_scope, Some(CacheScope::Public));
    let [git, refunds, daily] = &result.skills[..] else {
        panic!("three skills: {:?}", result.skills);
    };
    assert_eq!(git.name(), Some("git-workflow"));
    assert_eq!(git.root_uri(), Some("skill://git-workflow"));
    assert_eq!(refunds.frontmatter["license"], "Apache-2.0");
    let files = refunds.resources.files().expect("a complete list");
    assert_eq!(files.len(), 2);
    assert_eq!(files[1].size, 962);
    assert!(files[1].sha256().is_some());
    assert_eq!(daily.resources, SkillResources::Dynamic);
    assert_eq!(
        daily.description(),
        Some("Assemble today's operational report from live data")
    );
    round_trip::<ListSkillsRequest>(
        r#"{"jsonrpc":"2.0","id":4,"method":"skills/list","params":{}}"#,
    );
    let next: ListSkillsRequest =
        round_trip(r#"{"jsonrpc":"2.0","id":5,"method":"skills/list","params":{"cursor":"c2"}}"#);
    assert_eq!(next.params.cursor.as_deref(), Some("c2"));
}

#[test]
fn the_get_example_round_trips() {
    let request: GetSkillRequest = round_trip(
        r#"{"jsonrpc":"2.0","id":5,"method":"skills/get",
            "params":{"uri":"skill://pdf-processing/SKILL.md"}}"#,
    );
    assert_eq!(request.params.uri, "skill://pdf-processing/SKILL.md");
    let response: GetSkillResultResponse = round_trip(
        r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete",
            "skill":{"uri":"skill://pdf-processing/SKILL.md",
              "frontmatter":{"name":"pdf-processing",
                "description":"Extract, fill, and assemble PDF documents",
                "metadata":{"version":"2.1.0"}},
              "resources":[
                {"uri":"skill://pdf-processing/SKILL.md",
                 "digest":"sha256:d5e6f7a8d5e6f7a8d5e6f7a8d5e6f7a8d5e6f7a8d5e6f7a8d5e6f7a8d5e6f7a8",
                 "size":5120},
                {"uri":"skill://pdf-processing/templates/regional/eu-invoice.md",
                 "digest":"sha256:c0d1e2f3c0d1e2f3c0d1e2f3c0d1e2f3c0d1e2f3c0d1e2f3c0d1e2f3c0d1e2f3",
                 "size":1472}]},
            "ttlMs":300000,"cacheScope":"public"}}"#,
    );
    let skill = response.result.skill;
    assert_eq!(skill.frontmatter["metadata"]["version"], "2.1.0");
    assert_eq!(skill.resources.files().map(<[_]>::len), Some(2));
    // Before 2026-07-28 the envelope fields are simply absent.
    let legacy: GetSkillResult = round_trip(
        r#"{"skill":{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},
            "resources":"dynamic"}}"#,
    );
    assert_eq!((legacy.ttl_ms, legacy.result_type), (None, None));
}

#[test]
fn the_directory_example_round_trips() {
    let request: ReadResourceDirectoryRequest = round_trip(
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/directory/read",
            "params":{"uri":"skill://pdf-processing/templates"}}"#,
    );
    assert_eq!(request.params.uri, "skill://pdf-processing/templates");
    let response: ReadResourceDirectoryResultResponse = round_trip(
        r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","resources":[
            {"uri":"skill://pdf-processing/templates/invoice.md","name":"invoice.md",
             "mimeType":"text/markdown"},
            {"uri":"skill://pdf-processing/templates/regional","name":"regional",
             "mimeType":"inode/directory"}],"nextCursor":"n"}}"#,
    );
    let children = response.result.resources;
    assert_eq!(children[1].mime_type.as_deref(), Some(DIRECTORY_MIME_TYPE));
    assert_eq!(response.result.next_cursor.as_deref(), Some("n"));
}

#[test]
fn an_entry_without_a_valid_resources_member_does_not_decode() {
    let fm = r#""uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"}"#;
    assert!(decode_err::<Skill>(&format!("{{{fm}}}")).contains("missing field `resources`"));
    for bad in [r#""static""#, "null", "{}", "42", r#""Dynamic""#] {
        let err = decode_err::<Skill>(&format!(r#"{{{fm},"resources":{bad}}}"#));
        assert!(err.contains("dynamic"), "{bad}: {err}");
    }
    // An entry of the array must have its three members.
    decode_err::<Skill>(&format!(
        r#"{{{fm},"resources":[{{"uri":"skill://a/SKILL.md"}}]}}"#
    ));
    let empty: Skill = round_trip(&format!(r#"{{{fm},"resources":[]}}"#));
    assert_eq!(empty.resources, SkillResources::Complete(Vec::new()));
}

#[test]
fn digests_have_the_wire_form() {
    let zero = SkillResource::new("skill://a/SKILL.md", &[0u8; 32], 0);
    assert_eq!(zero.digest, format!("sha256:{}", "0".repeat(64)));
    let mut bytes = [0u8; 32];
    bytes[0] = 0xab;
    bytes[31] = 0x0f;
    let file = SkillResource::new("u", &bytes, 3);
    assert!(file.digest.starts_with("sha256:ab00"));
    assert!(file.digest.ends_with("0f"));
    assert_eq!(file.sha256(), Some(bytes));
    for bad in [
        "sha256:AB",
        "sha1:00",
        &format!("sha256:{}", "A".repeat(64)),
    ] {
        let mut f = file.clone();
        f.digest = bad.to_owned();
        assert_eq!(f.sha256(), None, "{bad}");
    }
}

#[test]
fn the_capability_and_its_settings() {
    let caps: ServerCapabilities = round_trip(
        r#"{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}"#,
    );
    let settings = caps.extension(SKILLS_EXTENSION).expect("declared");
    let settings: SkillsSettings =
        serde_json::from_value(serde_json::Value::Object(settings.clone())).unwrap();
    assert!(settings.directory_read());
    let none: SkillsSettings = round_trip("{}");
    assert!(!none.directory_read());
    assert_eq!(
        serde_json::to_value(SkillsSettings::default().with_directory_read(true)).unwrap(),
        serde_json::json!({"directoryRead": true})
    );
    assert_eq!(<ListSkills as Request>::METHOD, "skills/list");
    assert_eq!(<GetSkill as Request>::METHOD, "skills/get");
    assert_eq!(
        <ReadResourceDirectory as Request>::METHOD,
        "resources/directory/read"
    );
}
