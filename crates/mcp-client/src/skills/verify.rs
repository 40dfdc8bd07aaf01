//! The checks of the Skills extension's "Integrity and Verification" that need no server: a
//! file's bytes against its entry (size first, then the SHA-256 digest), a `SKILL.md`'s YAML
//! frontmatter against the entry's field by field, and the URI arithmetic of skill paths.

use mcp_types::JsonObject;
use serde_json::Value;

/// `sha256:` followed by the 64 lowercase hexadecimal digits of the SHA-256 of `bytes`: the
/// form of a [`SkillResource`](mcp_types::SkillResource)'s `digest`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    mcp_types::SkillResource::digest_of(&hmac_sha256::Hash::hash(bytes))
}

/// The directory of a skill whose `SKILL.md` is at `uri` (`uri` without `/SKILL.md`), and the
/// skill's name as the URI says it (the directory's last segment); `None` unless `uri` has a
/// scheme, at least one `<skill-path>` segment and ends in `/SKILL.md`.
pub(crate) fn skill_dir(uri: &str) -> Option<(&str, &str)> {
    let dir = uri.strip_suffix("/SKILL.md")?;
    let (_, path) = dir.split_once("://")?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty()
        && !path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == ".."))
    .then_some((dir, name))
}

/// Whether `file` is the skill's `SKILL.md` (`skill_uri`) or a file inside its directory
/// (`dir`), with no empty, `.` or `..` segment on the way.
pub(crate) fn within_skill(skill_uri: &str, dir: &str, file: &str) -> bool {
    if file == skill_uri {
        return true;
    }
    file.strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| {
            !rest
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..")
        })
}

/// `reference` resolved against the skill directory `dir` as a relative filesystem path would
/// be (`templates/../notes.md` is `dir/notes.md`); `None` if it is absolute (has a scheme or
/// starts with `/`), empty, or climbs out of the directory.
pub(crate) fn resolve(dir: &str, reference: &str) -> Option<String> {
    if reference.is_empty() || reference.starts_with('/') || reference.contains("://") {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in reference.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("{dir}/{}", parts.join("/")))
}

/// The YAML frontmatter of a `SKILL.md` (`---` line, YAML, `---` line, at the very start after
/// an optional byte order mark), as a JSON object. The error says what is wrong.
pub(crate) fn frontmatter(bytes: &[u8]) -> Result<JsonObject, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("SKILL.md is not UTF-8: {e}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Err("SKILL.md does not begin with a `---` frontmatter line".to_owned());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("SKILL.md's frontmatter has no closing `---` line".to_owned());
    }
    // YAML 1.2's core schema, as the reference implementations read frontmatter: only `true`
    // and `false` are booleans (`yes`, `on`, `y` are strings). serde-saphyr bounds what a
    // document may cost (aliases, depth, nodes, scalar bytes); the text itself is bounded by
    // the message that brought it.
    let options = serde_saphyr::options! {
        strict_booleans: true,
        // Errors say where, not what: no copy of the server's text in them.
        with_snippet: false,
    };
    let value: Value = serde_saphyr::from_str_with_options(&yaml, options)
        .map_err(|e| format!("SKILL.md's frontmatter is not YAML JSON can hold: {e}"))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(format!(
            "SKILL.md's frontmatter is {}, not a mapping",
            kind(&other)
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// The fields whose values differ between the file's frontmatter and the entry's (present in
/// one only, or unequal), sorted. Numbers compare by value (`1` equals `1.0`), since YAML and
/// JSON may write the same number differently.
pub(crate) fn differing_fields(file: &JsonObject, entry: &JsonObject) -> Vec<String> {
    let mut fields: Vec<String> = file
        .keys()
        .chain(entry.keys())
        .filter(|key| match (file.get(*key), entry.get(*key)) {
            (Some(a), Some(b)) => !json_eq(a, b),
            _ => true,
        })
        .cloned()
        .collect();
    fields.sort();
    fields.dedup();
    fields
}

/// JSON equality with numbers compared by value.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(a), Some(b)) => a == b,
            _ => match (a.as_u64(), b.as_u64()) {
                (Some(a), Some(b)) => a == b,
                _ => a.as_f64() == b.as_f64(),
            },
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}
