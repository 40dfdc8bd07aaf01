//! `SKILL.md` frontmatter: the YAML between the opening `---` line and the next `---` line,
//! read as a JSON object, and the Agent Skills rules for `name` and `description`.

use mcp_types::JsonObject;
use serde_json::Value;

/// The longest `description` the Agent Skills format allows, in characters.
const MAX_DESCRIPTION: usize = 1024;

/// The longest `name`, in characters.
const MAX_NAME: usize = 64;

/// The frontmatter of a `SKILL.md`'s text, verbatim as JSON, with its `name` and
/// `description` checked to be non-empty strings (the name's rules are [`name_rule_broken`]'s).
pub(crate) fn parse(text: &str) -> Result<JsonObject, String> {
    let yaml = split(text).ok_or_else(|| {
        "SKILL.md must begin with YAML frontmatter between two `---` lines".to_owned()
    })?;
    let value = yaml_to_json(yaml)?;
    let Value::Object(frontmatter) = value else {
        return Err("the frontmatter is not a YAML mapping".to_owned());
    };
    match frontmatter.get("name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        _ => return Err("the frontmatter has no `name` string".to_owned()),
    }
    match frontmatter.get("description") {
        Some(Value::String(d)) if d.trim().is_empty() => {
            return Err("the frontmatter's `description` is empty".to_owned());
        }
        Some(Value::String(d)) if d.chars().count() > MAX_DESCRIPTION => {
            return Err(format!(
                "the frontmatter's `description` is longer than {MAX_DESCRIPTION} characters"
            ));
        }
        Some(Value::String(_)) => {}
        _ => return Err("the frontmatter has no `description` string".to_owned()),
    }
    Ok(frontmatter)
}

/// The YAML of `text`'s frontmatter: after a first line `---` (a byte order mark before it
/// is skipped), up to the next line that is `---` (trailing blanks allowed).
fn split(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Some(&rest[..offset]);
        }
        offset += line.len();
    }
    None
}

/// YAML 1.2 (core schema booleans only, as JavaScript's `yaml` reads it, so a host parsing
/// the file compares equal) as JSON. serde-saphyr's budget bounds what one document may cost.
fn yaml_to_json(yaml: &str) -> Result<Value, String> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options::<Value>(yaml, options)
        .map_err(|e| format!("the frontmatter is not valid YAML: {e}"))
}

/// The Agent Skills rule `name` breaks, if any: 1 to 64 characters, lowercase ASCII letters,
/// digits and hyphens, no hyphen first, last or twice in a row.
pub(crate) fn name_rule_broken(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Some("must be 1 to 64 characters long");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("may hold only lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("must not start or end with a hyphen");
    }
    if name.contains("--") {
        return Some("must not hold two hyphens in a row");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_verbatim() {
        let text = "---\nname: pdf\ndescription: Fill PDFs\nlicense: MIT\nmetadata:\n  version: \"2.1\"\n  \
                    tags: [a, b]\nallowed-tools: Bash(git:*)\nflag: yes\nn: 3\n---\n# Body\n";
        let fm = parse(text).unwrap();
        assert_eq!(
            Value::Object(fm),
            serde_json::json!({"name": "pdf", "description": "Fill PDFs", "license": "MIT",
                "metadata": {"version": "2.1", "tags": ["a", "b"]},
                "allowed-tools": "Bash(git:*)", "flag": "yes", "n": 3})
        );
        // CRLF, a byte order mark and a closing line with trailing blanks.
        let crlf = "\u{feff}---\r\nname: a\r\ndescription: d\r\n--- \r\nbody";
        assert_eq!(parse(crlf).unwrap()["name"], "a");
    }

    #[test]
    fn bad_frontmatter_says_why() {
        for (text, why) in [
            ("# no frontmatter\n", "must begin with YAML frontmatter"),
            (
                "---\nname: a\ndescription: d\n",
                "must begin with YAML frontmatter",
            ),
            ("---\n- a\n---\n", "not a YAML mapping"),
            ("---\ndescription: d\n---\n", "no `name`"),
            ("---\nname: a\n---\n", "no `description`"),
            ("---\nname: a\ndescription: \"  \"\n---\n", "is empty"),
            ("---\nname: [a\ndescription: d\n---\n", "not valid YAML"),
            (
                "---\nname: a\nname: b\ndescription: d\n---\n",
                "not valid YAML",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(why), "{text:?}: {err}");
        }
        let long = format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025));
        assert!(parse(&long).unwrap_err().contains("longer than 1024"));
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "a1-b2", &"x".repeat(64)] {
            assert_eq!(name_rule_broken(good), None, "{good}");
        }
        for (bad, rule) in [
            ("", "1 to 64"),
            (&*"x".repeat(65), "1 to 64"),
            ("Pdf", "lowercase"),
            ("a_b", "lowercase"),
            ("a.b", "lowercase"),
            ("é", "lowercase"),
            ("-a", "start or end"),
            ("a-", "start or end"),
            ("a--b", "in a row"),
        ] {
            assert!(
                name_rule_broken(bad).is_some_and(|r| r.contains(rule)),
                "{bad}"
            );
        }
    }
}
