//! Registration: every rule and limit refuses a skill with an error naming the file and the
//! rule.

use std::path::Path;

use super::*;
use crate::Error;

fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: A skill\n---\n# {name}\n")
}

/// The error of adding the skills under a directory laid out by `files`, with `limits`.
fn refusal(files: &[(&str, &str)], limits: SkillLimits) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write(dir.path(), path, content);
    }
    match Skills::new().limits(limits).dir(dir.path()) {
        Ok(skills) => panic!("accepted: {:?}", skills.entries()),
        Err(Error::Skill(e)) => e.to_string(),
        Err(other) => panic!("not a skill error: {other}"),
    }
}

#[test]
fn each_rule_is_named_with_its_file() {
    let ok = SkillLimits::default();
    let bad_name = skill_md("Bad_Name");
    for (files, expected) in [
        (
            vec![("pdf/SKILL.md", skill_md("other").as_str())],
            "pdf/SKILL.md: the skill name \"other\" must equal its directory's name \"pdf\"",
        ),
        (
            vec![("Bad_Name/SKILL.md", bad_name.as_str())],
            "may hold only lowercase letters, digits and hyphens",
        ),
        (
            vec![("a/SKILL.md", "# no frontmatter")],
            "a/SKILL.md: SKILL.md must begin",
        ),
        (
            vec![("a/SKILL.md", "---\nname: a\n---\n")],
            "no `description`",
        ),
    ] {
        let err = refusal(&files, ok);
        assert!(err.contains(expected), "{err}");
    }
}

#[test]
fn limits_refuse_what_exceeds_them() {
    let a = skill_md("a");
    let files = [
        ("a/SKILL.md", a.as_str()),
        ("a/x.md", "xx"),
        ("a/y.md", "yy"),
    ];
    let limits = SkillLimits {
        max_files: 2,
        ..SkillLimits::default()
    };
    assert!(
        refusal(&files, limits)
            .contains("skill skill://a/SKILL.md: 3 files, more than the limit of 2")
    );
    let limits = SkillLimits {
        max_skill_bytes: a.len() as u64 + 3,
        ..SkillLimits::default()
    };
    assert!(refusal(&files, limits).contains("more than the limit of"));
    let limits = SkillLimits {
        max_file_bytes: 10,
        ..SkillLimits::default()
    };
    assert!(refusal(&files, limits).contains("bytes, more than the limit of 10 per file"));
    let limits = SkillLimits {
        max_depth: 1,
        ..SkillLimits::default()
    };
    let deep = [("a/SKILL.md", a.as_str()), ("a/b/c.md", "c")];
    assert!(refusal(&deep, limits).contains("deeper than 1 directory levels"));
    let limits = SkillLimits {
        max_skills: 1,
        ..SkillLimits::default()
    };
    let b = skill_md("b");
    let two = [("a/SKILL.md", a.as_str()), ("b/SKILL.md", b.as_str())];
    assert!(refusal(&two, limits).contains("more than 1 skills"));
    let limits = SkillLimits {
        max_entries: 2,
        ..SkillLimits::default()
    };
    assert!(refusal(&files, limits).contains("more than 2 files and directories"));
}

#[test]
fn a_directory_that_is_a_skill_is_served_under_its_name() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("pdf-tools");
    write(&root, "SKILL.md", &skill_md("pdf-tools"));
    write(&root, "forms/SKILL.md", &skill_md("forms"));
    let skills = Skills::from_dir(&root).unwrap();
    let uris: Vec<String> = skills.entries().into_iter().map(|s| s.uri).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/forms/SKILL.md"
        ]
    );
}

#[test]
fn in_memory_skills_are_checked() {
    let refused = |skill: MemorySkill| match Skills::new().skill(skill) {
        Err(Error::Skill(e)) => e.to_string(),
        other => panic!("{other:?}"),
    };
    let md = skill_md("a");
    assert!(refused(MemorySkill::new("a").file("x.md", "x")).contains("no SKILL.md"));
    assert!(refused(MemorySkill::new("a/../b").file("SKILL.md", md.clone())).contains("`..`"));
    let escaping = MemorySkill::new("a")
        .file("SKILL.md", md.clone())
        .file("../x", "x");
    assert!(refused(escaping).contains("`..`"));
    let twice = MemorySkill::new("a")
        .file("SKILL.md", md.clone())
        .file("SKILL.md", md.clone());
    assert!(refused(twice).contains("would be served twice"));
    let mismatch = MemorySkill::new("x/b").file("SKILL.md", md.clone());
    assert!(refused(mismatch).contains("must equal its directory's name \"b\""));
    // The same skill twice in one set.
    let skills = Skills::new().skill(MemorySkill::new("a").file("SKILL.md", md.clone()));
    let again = skills
        .unwrap()
        .skill(MemorySkill::new("a").file("SKILL.md", md));
    assert!(matches!(
        again,
        Err(Error::Skill(SkillError::Duplicate { .. }))
    ));
    let dynamic = DynamicSkill::new("d", "name: e\ndescription: x", |_| async { String::new() });
    assert!(matches!(
        Skills::new().dynamic(dynamic),
        Err(Error::Skill(SkillError::NameMismatch { .. }))
    ));
}
