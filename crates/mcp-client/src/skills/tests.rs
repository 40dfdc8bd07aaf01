use serde_json::json;

use super::verify::{
    differing_fields, frontmatter, resolve, sha256_digest, skill_dir, within_skill,
};

fn object(value: serde_json::Value) -> mcp_types::JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn digests_are_sha256_in_lowercase_hex() {
    // FIPS 180-2's "abc" and the empty input.
    assert_eq!(
        sha256_digest(b"abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256_digest(b""),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn skill_paths_come_from_the_uri() {
    assert_eq!(
        skill_dir("skill://git-workflow/SKILL.md"),
        Some(("skill://git-workflow", "git-workflow"))
    );
    assert_eq!(
        skill_dir("skill://acme/billing/refunds/SKILL.md"),
        Some(("skill://acme/billing/refunds", "refunds"))
    );
    assert_eq!(
        skill_dir("github://owner/repo/skills/refunds/SKILL.md"),
        Some(("github://owner/repo/skills/refunds", "refunds"))
    );
    for bad in [
        "skill://SKILL.md",
        "skill:///SKILL.md",
        "skill://a//b/SKILL.md",
        "skill://a/../SKILL.md",
        "skill://a/skill.md",
        "refunds/SKILL.md",
        "skill://a/SKILL.md/x",
    ] {
        assert_eq!(skill_dir(bad), None, "{bad}");
    }
}

#[test]
fn files_must_lie_within_the_skill() {
    let (uri, dir) = ("skill://a/b/SKILL.md", "skill://a/b");
    assert!(within_skill(uri, dir, uri));
    assert!(within_skill(uri, dir, "skill://a/b/templates/x.md"));
    assert!(within_skill(uri, dir, "skill://a/b/nested/SKILL.md"));
    for outside in [
        "skill://a/bc/x.md",
        "skill://a/x.md",
        "skill://a/b",
        "skill://a/b/",
        "skill://a/b/../c/x.md",
        "skill://a/b/./x.md",
        "skill://a/b//x.md",
        "other://a/b/x.md",
    ] {
        assert!(!within_skill(uri, dir, outside), "{outside}");
    }
}

#[test]
fn relative_references_resolve_against_the_skill_root() {
    let dir = "skill://acme/billing/refunds";
    assert_eq!(
        resolve(dir, "references/GUIDE.md").as_deref(),
        Some("skill://acme/billing/refunds/references/GUIDE.md")
    );
    assert_eq!(
        resolve(dir, "./templates/../notes.md").as_deref(),
        Some("skill://acme/billing/refunds/notes.md")
    );
    for bad in [
        "",
        "/etc/passwd",
        "../x.md",
        "a/../../x.md",
        "skill://other/x.md",
        ".",
    ] {
        assert_eq!(resolve(dir, bad), None, "{bad:?}");
    }
}

#[test]
fn frontmatter_is_the_leading_yaml_block() {
    let md = b"---\nname: pdf\ndescription: Fill PDFs\nmetadata:\n  version: \"2.1\"\n  n: 3\n---\n\n# Body\n---\nnot: frontmatter\n";
    assert_eq!(
        frontmatter(md).unwrap(),
        object(
            json!({"name": "pdf", "description": "Fill PDFs", "metadata": {"version": "2.1", "n": 3}})
        )
    );
    // CRLF line ends and a byte order mark.
    let crlf = "\u{feff}---\r\nname: x\r\ndescription: y\r\n---\r\nbody";
    assert_eq!(
        frontmatter(crlf.as_bytes()).unwrap(),
        object(json!({"name": "x", "description": "y"}))
    );
    // YAML 1.2: `y`, `yes`, `on` are strings; numbers and nulls are typed.
    let typed = b"---\nname: x\ndescription: y\nflag: yes\nother: on\nt: true\nn: 1.5\nz: ~\n---\n";
    assert_eq!(
        frontmatter(typed).unwrap(),
        object(
            json!({"name": "x", "description": "y", "flag": "yes", "other": "on", "t": true, "n": 1.5, "z": null})
        )
    );
    for (bad, why) in [
        (&b"# no frontmatter\n"[..], "begin"),
        (b"---\nname: x\n", "closing"),
        (b"---\n- a\n- b\n---\n", "a sequence"),
        (b"---\n---\n", "empty"),
        (b"---\nname: [unclosed\n---\n", "not YAML"),
        (b"---\nname: a\nname: b\n---\n", "not YAML"),
        (b"---\nname: \xff\n---\n", "UTF-8"),
    ] {
        let e = frontmatter(bad).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn frontmatter_fields_compare_by_value() {
    let file = object(json!({"name": "x", "description": "y", "n": 1, "m": {"a": [1.0, "b"]}}));
    let same = object(json!({"description": "y", "name": "x", "n": 1.0, "m": {"a": [1, "b"]}}));
    assert!(differing_fields(&file, &same).is_empty());
    let other = object(json!({"name": "x", "description": "z", "m": {"a": [1]}, "license": "MIT"}));
    assert_eq!(
        differing_fields(&file, &other),
        ["description", "license", "m", "n"]
    );
    // A null is a value, not an absence.
    let null =
        object(json!({"name": "x", "description": "y", "n": 1, "m": {"a": [1, "b"]}, "k": null}));
    assert_eq!(differing_fields(&file, &null), ["k"]);
}
