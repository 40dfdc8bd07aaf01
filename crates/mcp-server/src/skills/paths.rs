//! From files to resources: URIs of path segments, MIME types, and reading a file without
//! leaving its skill directory.

use std::io::Read as _;
use std::path::Path;

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// The URI scheme skills are served under.
pub(crate) const SCHEME: &str = "skill://";

/// What is encoded in a path segment: everything but RFC 3986's unreserved characters,
/// sub-delims, `:` and `@` (a `pchar`). `%` itself is encoded, so a file named `%2F` can never
/// read as a separator.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The first segment is the URI's authority, a `reg-name`: no `:` or `@` either.
const AUTHORITY: &AsciiSet = &SEGMENT.add(b':').add(b'@');

/// The `skill://` URI of a path given as segments (the first one is the authority).
pub(crate) fn uri_of<S: AsRef<str>>(segments: &[S]) -> String {
    let mut uri = String::from(SCHEME);
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 {
            uri.push('/');
        }
        let set = if i == 0 { AUTHORITY } else { SEGMENT };
        uri.extend(utf8_percent_encode(segment.as_ref(), set));
    }
    uri
}

/// A URI segment's text, decoded (for a resource's `name`).
pub(crate) fn decoded(segment: &str) -> String {
    percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

/// The segments of a relative path an application gives (`a/b/c.md`): plain names only, no
/// empty segment, `.` or `..`, no backslash.
pub(crate) fn segments(path: &str) -> Result<Vec<String>, &'static str> {
    if path.is_empty() {
        return Err("the path is empty");
    }
    path.split('/')
        .map(|s| match s {
            "" => Err("the path has an empty segment (a leading, trailing or double `/`)"),
            "." | ".." => Err("the path has a `.` or `..` segment"),
            s if s.contains('\\') => Err("the path has a backslash"),
            s if s.chars().any(char::is_control) => Err("the path has a control character"),
            s => Ok(s.to_owned()),
        })
        .collect()
}

/// The MIME type of a file named `name`, and whether it may be served as text (if its
/// bytes are UTF-8). `SKILL.md` is `text/markdown`; an unknown extension is `text/plain` for
/// UTF-8 content and `application/octet-stream` otherwise.
pub(crate) fn mime_of(name: &str, bytes: Option<&[u8]>) -> (String, bool) {
    let utf8 = bytes.is_none_or(|b| std::str::from_utf8(b).is_ok());
    if name == mcp_types::SKILL_MD {
        return ("text/markdown".to_owned(), utf8);
    }
    match mime_guess::from_path(name).first_raw() {
        Some(mime) => (mime.to_owned(), utf8 && textual(mime)),
        None if utf8 => ("text/plain".to_owned(), true),
        None => ("application/octet-stream".to_owned(), false),
    }
}

/// MIME types whose content is text.
fn textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-sh"
                | "application/x-csh"
                | "application/sql"
                | "application/graphql"
        )
}

/// Why a file is not read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// It is a symbolic link, not a regular file, or resolves outside `root`.
    Outside,
    /// It is larger than the limit.
    TooLarge(u64),
    /// Reading failed.
    Io(std::io::Error),
}

/// The bytes of `path`, a regular file inside `root` (canonical), at most `limit` of them.
/// Symbolic links are refused, the file's and its directories' (the path is resolved and
/// must stay inside `root`), so a link planted after the walk serves nothing.
pub(crate) fn read_inside(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, Refused> {
    let meta = std::fs::symlink_metadata(path).map_err(Refused::Io)?;
    if !meta.file_type().is_file() {
        return Err(Refused::Outside);
    }
    let real = path.canonicalize().map_err(Refused::Io)?;
    if !real.starts_with(root) {
        return Err(Refused::Outside);
    }
    if meta.len() > limit {
        return Err(Refused::TooLarge(meta.len()));
    }
    let file = std::fs::File::open(&real).map_err(Refused::Io)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // One byte past the limit tells a file that grew since its metadata was read.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    hmac_sha256::Hash::hash(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_what_is_not_a_plain_segment() {
        assert_eq!(
            uri_of(&["acme", "billing", "SKILL.md"]),
            "skill://acme/billing/SKILL.md"
        );
        assert_eq!(uri_of(&["a", "my file.md"]), "skill://a/my%20file.md");
        assert_eq!(uri_of(&["a", "%2F", "x?#"]), "skill://a/%252F/x%3F%23");
        assert_eq!(uri_of(&["a:b@c", "d:e@f"]), "skill://a%3Ab%40c/d:e@f");
        assert_eq!(decoded("my%20file.md"), "my file.md");
    }

    #[test]
    fn paths_are_plain_segments() {
        assert_eq!(segments("a/b/c.md").unwrap(), ["a", "b", "c.md"]);
        for bad in ["", "/a", "a/", "a//b", "a/../b", "./a", "a\\b", "a/\u{0}"] {
            assert!(segments(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn mime_types_by_extension() {
        assert_eq!(
            mime_of("SKILL.md", Some(b"# x")),
            ("text/markdown".to_owned(), true)
        );
        assert_eq!(mime_of("FORMS.md", None).0, "text/markdown");
        assert_eq!(
            mime_of("data.json", Some(b"{}")),
            ("application/json".to_owned(), true)
        );
        assert!(!mime_of("logo.png", Some(&[0x89, b'P'])).1);
        assert_eq!(
            mime_of("Makefile", Some(b"all:")),
            ("text/plain".to_owned(), true)
        );
        assert_eq!(
            mime_of("blob", Some(&[0xff, 0xfe])),
            ("application/octet-stream".to_owned(), false)
        );
        // A text type whose bytes are not UTF-8 goes as a blob.
        assert_eq!(
            mime_of("notes.txt", Some(&[0xff])),
            ("text/plain".to_owned(), false)
        );
    }
}
