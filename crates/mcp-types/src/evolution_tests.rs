//! The semver policy (ARCHITECTURE.md, "Semver policy"), checked on the source: every protocol
//! struct with named fields and every enum a revision may extend is `#[non_exhaustive]`, so a
//! new spec field or variant is not a breaking change. The exceptions are listed with why.

use std::path::Path;

/// Types that stay exhaustive, each closed by something other than the MCP revisions.
const CLOSED: &[(&str, &str)] = &[
    ("RequestId", "JSON-RPC 2.0: a string or a number"),
    ("ProgressToken", "a string or a number, like a request id"),
    ("TypedRequest", "the JSON-RPC 2.0 request envelope"),
    (
        "TypedNotification",
        "the JSON-RPC 2.0 notification envelope",
    ),
    (
        "JsonRpcResultResponse",
        "the JSON-RPC 2.0 response envelope",
    ),
    ("JsonRpcErrorResponse", "the JSON-RPC 2.0 error envelope"),
    ("ElicitFormMode", "the single tag `form`"),
    ("ElicitUrlMode", "the single tag `url`"),
    (
        "ElicitAction",
        "accept, decline or cancel: what a user can do with a question",
    ),
    ("ElicitValue", "the JSON kinds a form value can have"),
    ("SchemaObjectType", "the single tag `object`"),
    ("SchemaStringType", "the single tag `string`"),
    ("SchemaBooleanType", "the single tag `boolean`"),
    ("SchemaArrayType", "the single tag `array`"),
    (
        "NumberSchemaType",
        "`number` or `integer`, JSON Schema's two",
    ),
    ("LoggingLevel", "the eight syslog severities (RFC 5424)"),
    (
        "MaybeInputRequired",
        "a result is either complete or asks for input",
    ),
    ("Era", "the two eras; a third would change every crate"),
];

/// Public structs with named fields and public enums with variants, with whether each is
/// `#[non_exhaustive]`.
fn declared_types(source: &str) -> Vec<(String, bool)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let (kind, rest) = if let Some(rest) = line.strip_prefix("pub struct ") {
            ("struct", rest)
        } else if let Some(rest) = line.strip_prefix("pub enum ") {
            ("enum", rest)
        } else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest[name.len()..].trim_start();
        let after = match after.strip_prefix('<') {
            Some(generics) => generics.split_once('>').map_or("", |(_, r)| r).trim_start(),
            None => after,
        };
        let fieldless = match kind {
            "struct" => after.starts_with('(') || after.starts_with(';'),
            _ => after.starts_with("{}"),
        };
        if fieldless {
            continue;
        }
        let marked = lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                l.starts_with("#[")
                    || l.starts_with("///")
                    || l.starts_with("    ")
                    || l.starts_with(")]")
            })
            .any(|l| l.contains("#[non_exhaustive]"));
        found.push((name, marked));
    }
    found
}

#[test]
fn every_extensible_protocol_type_is_non_exhaustive() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut seen = 0;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file.ends_with("_tests.rs") || file == "proptests.rs" || file == "test_util.rs" {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for (name, marked) in declared_types(&source) {
            seen += 1;
            let closed = CLOSED.iter().any(|(n, _)| *n == name);
            if marked == closed {
                problems.push(format!(
                    "{file}: {name} {}",
                    if closed {
                        "is listed as closed but is #[non_exhaustive]"
                    } else {
                        "is not #[non_exhaustive] (add it, or list it in CLOSED with why)"
                    }
                ));
            }
        }
    }
    assert!(
        seen > 100,
        "only {seen} types found: is the scan still right?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_reads_the_shapes_the_crate_uses() {
    let source = "/// Doc.\n#[derive(Debug)]\n#[non_exhaustive]\npub struct A {\n    pub x: u8,\n}\n\
                  #[derive(Debug)]\npub struct B<T> {\n    pub t: T,\n}\n\
                  pub struct C(pub String);\npub enum D {}\n#[non_exhaustive]\npub enum E {\n    X,\n}\n";
    assert_eq!(
        declared_types(source),
        vec![
            ("A".to_owned(), true),
            ("B".to_owned(), false),
            ("E".to_owned(), true)
        ]
    );
}
