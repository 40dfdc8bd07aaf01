//! Matching URIs against RFC 6570 URI templates.
//!
//! RFC 6570 defines only expansion. The crates that can also *match* a URI against a template
//! either cover level 2 only (`uri-template-ex`, a 0.0.x release) or are AGPL
//! (`uri-template-system`). So the template is validated (all four levels) by `iri-string`,
//! a maintained RFC 6570 implementation, and matched here by hand: the template is split into
//! literals and expressions, and the URI is matched against them with backtracking, each
//! expression's candidate text parsed back into variables by the rules of its operator.
//!
//! Path-like expressions (`{v}`, `{+v}`, `{#v}`, `{.v}`, `{/v}`, `{;v}`) must match a
//! non-empty value; query expressions (`{?v}`, `{&v}`) may be absent, and so may each of
//! their variables. Values are percent-decoded. An exploded variable (`{/v*}`) takes the rest
//! of its expression's items, joined with `,`.

use std::collections::{BTreeMap, HashSet};

/// The longest URI, in bytes, matched against a template (RFC 9110 §4.1 recommends handling
/// URIs of at least 8000 octets). A longer one matches no template, so `resources/read` answers
/// that the resource is not found: matching takes time that grows faster than the length of
/// the URI, which the client chooses.
pub(crate) const MAX_URI_LEN: usize = 8000;

#[derive(Debug, Clone)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
    variables: Vec<String>,
}

#[derive(Debug, Clone)]
enum Part {
    Literal(String),
    Expr { op: Op, vars: Vec<VarSpec> },
}

#[derive(Debug, Clone)]
struct VarSpec {
    name: String,
    explode: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryCont,
            _ => return None,
        })
    }

    fn prefix(self) -> Option<char> {
        match self {
            Op::Simple | Op::Reserved => None,
            Op::Fragment => Some('#'),
            Op::Label => Some('.'),
            Op::Path => Some('/'),
            Op::PathParam => Some(';'),
            Op::Query => Some('?'),
            Op::QueryCont => Some('&'),
        }
    }

    fn separator(self) -> char {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ',',
            Op::Label => '.',
            Op::Path => '/',
            Op::PathParam => ';',
            Op::Query | Op::QueryCont => '&',
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }

    fn allows_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }

    fn optional(self) -> bool {
        matches!(self, Op::Query | Op::QueryCont)
    }
}

impl UriTemplate {
    /// Parses and validates `template`.
    pub(crate) fn parse(template: &str) -> Result<UriTemplate, String> {
        // Checked first because iri-string 0.7.14 panics (slicing inside a character) on a
        // `%` followed by a non-ASCII character within two bytes, e.g. `%eф` (found by the
        // `uri_template` fuzz target).
        let bytes = template.as_bytes();
        for (i, _) in template.match_indices('%') {
            if !bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            {
                return Err(format!("invalid percent-encoding at byte {i}"));
            }
        }
        let checked =
            iri_string::template::UriTemplateStr::new(template).map_err(|e| e.to_string())?;
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| "unclosed expression".to_owned())?
                + open;
            let mut body = &rest[open + 1..close];
            let op = match body.chars().next().and_then(Op::from_char) {
                Some(op) => {
                    body = &body[1..];
                    op
                }
                None => Op::Simple,
            };
            let mut vars = Vec::new();
            for spec in body.split(',') {
                let (spec, explode) = match spec.strip_suffix('*') {
                    Some(s) => (s, true),
                    None => (spec, false),
                };
                let name = match spec.split_once(':') {
                    Some((name, length)) => {
                        check_prefix(length)?;
                        name
                    }
                    None => spec,
                };
                vars.push(VarSpec {
                    name: name.to_owned(),
                    explode,
                });
            }
            parts.push(Part::Expr { op, vars });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        // Only now: iri-string 0.7.14 validates a prefix modifier of five digits or more
        // (`{x:88888}`), then panics reading it as a `u16` here (found by the same target),
        // which `check_prefix` refused above.
        let variables = checked.variables().map(|v| v.as_str().to_owned()).collect();
        Ok(UriTemplate { parts, variables })
    }

    /// The names of the template's variables, in order.
    pub(crate) fn variables(&self) -> &[String] {
        &self.variables
    }

    /// The variables if `uri` matches the template. A URI longer than [`MAX_URI_LEN`]
    /// matches no template.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut vars = BTreeMap::new();
        let mut failed = HashSet::new();
        match_parts(&self.parts, 0, uri, 0, &mut vars, &mut failed).then_some(vars)
    }
}

/// Not API (the fuzz target's entry point): parses `template` and, if it is valid, matches
/// `uri` against it.
#[doc(hidden)]
pub fn fuzz_uri_template(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    UriTemplate::parse(template).ok()?.matches(uri)
}

fn match_parts(
    parts: &[Part],
    i: usize,
    s: &str,
    pos: usize,
    vars: &mut BTreeMap<String, String>,
    failed: &mut HashSet<(usize, usize)>,
) -> bool {
    let Some(part) = parts.get(i) else {
        return pos == s.len();
    };
    // Whether `parts[i..]` match `s[pos..]` does not depend on the variables bound before
    // (each expression binds its own), so a failure is remembered and never tried again:
    // without this, templates with several expressions took exponential time.
    if failed.contains(&(i, pos)) {
        return false;
    }
    let rest = &s[pos..];
    let matched = match part {
        Part::Literal(lit) => {
            rest.starts_with(lit.as_str())
                && match_parts(parts, i + 1, s, pos + lit.len(), vars, failed)
        }
        Part::Expr { op, vars: specs } => {
            // An expansion never holds whitespace, so it ends at the first one at the latest;
            // it must reach the end of the URI if it is the last part, and be followed by the
            // next literal if there is one. Only those ends are tried.
            let limit = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let last = i + 1 == parts.len();
            let next_literal = match parts.get(i + 1) {
                Some(Part::Literal(lit)) => Some(lit.as_str()),
                _ => None,
            };
            // Longest candidate first: greedy, like a regex `.*` with backtracking.
            let mut ends = rest[..limit]
                .char_indices()
                .map(|(j, _)| j)
                .chain(std::iter::once(limit))
                .rev()
                .filter(|&end| match (last, next_literal) {
                    (true, _) => end == rest.len(),
                    (false, Some(lit)) => rest[end..].starts_with(lit),
                    (false, None) => true,
                });
            ends.any(|end| {
                let mut bound = BTreeMap::new();
                if !parse_expansion(*op, specs, &rest[..end], &mut bound) {
                    return false;
                }
                let before = vars.clone();
                vars.extend(bound);
                if match_parts(parts, i + 1, s, pos + end, vars, failed) {
                    return true;
                }
                *vars = before;
                false
            })
        }
    };
    if !matched {
        failed.insert((i, pos));
    }
    matched
}

/// A prefix modifier's length: RFC 6570's 1 to 9999.
fn check_prefix(length: &str) -> Result<(), String> {
    if (1..=4).contains(&length.len())
        && length.bytes().all(|b| b.is_ascii_digit())
        && !length.starts_with('0')
    {
        Ok(())
    } else {
        Err(format!("invalid prefix modifier :{length} (1 to 9999)"))
    }
}

/// Parses `text` as the expansion of one expression, binding its variables.
fn parse_expansion(
    op: Op,
    specs: &[VarSpec],
    text: &str,
    out: &mut BTreeMap<String, String>,
) -> bool {
    if text.is_empty() {
        return op.optional();
    }
    let body = match op.prefix() {
        Some(p) => match text.strip_prefix(p) {
            Some(b) => b,
            None => return false,
        },
        None => text,
    };
    let valid = |v: &str| {
        v.chars().all(|c| {
            !c.is_whitespace()
                && (op.allows_reserved() || !is_reserved(c))
                && c != op.separator()
                && !(op.named() && c == '=')
        }) || (op.allows_reserved() && specs.len() == 1 && !v.contains(char::is_whitespace))
    };
    let items: Vec<&str> = if !op.named() && specs.len() == 1 && op.allows_reserved() {
        vec![body]
    } else {
        body.split(op.separator()).collect()
    };
    if op.named() {
        for item in items {
            let (name, value) = item.split_once('=').unwrap_or((item, ""));
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                return false;
            };
            if !valid(value) || out.contains_key(&spec.name) {
                return false;
            }
            out.insert(spec.name.clone(), decode(value));
        }
        return true;
    }
    let mut items = items.into_iter();
    for spec in specs {
        let value = if spec.explode {
            let rest: Vec<&str> = items.by_ref().collect();
            if rest.is_empty() {
                return false;
            }
            rest.iter().map(|v| decode(v)).collect::<Vec<_>>().join(",")
        } else {
            match items.next() {
                Some(v) => decode(v),
                None => return false,
            }
        };
        out.insert(spec.name.clone(), value);
    }
    items.next().is_none() && body_valid(op, specs, body, &valid)
}

fn body_valid(op: Op, specs: &[VarSpec], body: &str, valid: &dyn Fn(&str) -> bool) -> bool {
    if op.allows_reserved() && specs.len() == 1 {
        return !body.is_empty() && valid(body);
    }
    body.split(op.separator())
        .all(|v| !v.is_empty() && valid(v))
}

fn is_reserved(c: char) -> bool {
    ":/?#[]@!$&'()*+,;=".contains(c)
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t)
            .unwrap()
            .matches(uri)
            .map(|v| v.into_iter().collect())
    }

    fn kv(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn simple_and_reserved() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/123/data"),
            kv(&[("id", "123")])
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            m("file:///{+path}", "file:///a/b/c.txt"),
            kv(&[("path", "a/b/c.txt")])
        );
        assert_eq!(m("users://{id}", "users://a%20b"), kv(&[("id", "a b")]));
        assert_eq!(m("x://{a},{b}", "x://1,2"), kv(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x://{a}-{b}", "x://1-2"), kv(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x://{a}", "y://1"), None);
    }

    #[test]
    fn operators() {
        assert_eq!(m("x://h{/seg*}", "x://h/a/b"), kv(&[("seg", "a,b")]));
        assert_eq!(m("x://h{/a,b}", "x://h/1/2"), kv(&[("a", "1"), ("b", "2")]));
        assert_eq!(m("x://h/f{.ext}", "x://h/f.json"), kv(&[("ext", "json")]));
        assert_eq!(m("x://h{#frag}", "x://h#a/b"), kv(&[("frag", "a/b")]));
        assert_eq!(m("x://h{;v}", "x://h;v=1"), kv(&[("v", "1")]));
        assert_eq!(
            m("x://s{?q,lang}", "x://s?q=rust&lang=en"),
            kv(&[("lang", "en"), ("q", "rust")])
        );
        assert_eq!(m("x://s{?q,lang}", "x://s?lang=en"), kv(&[("lang", "en")]));
        assert_eq!(m("x://s{?q,lang}", "x://s"), kv(&[]));
        assert_eq!(m("x://s{?q}", "x://s?other=1"), None);
        assert_eq!(
            m("x://s{?q}{&p}", "x://s?q=1&p=2"),
            kv(&[("p", "2"), ("q", "1")])
        );
    }

    /// Matches in a thread; false if it takes longer than a generous guard (the matcher took
    /// exponential time in the number of expressions, and quadratic time in the length of
    /// the URI for one, before it remembered failures and bounded the ends it tries).
    fn finishes(template: &'static str, uri: String) -> bool {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let t = UriTemplate::parse(template).unwrap();
            let _ = tx.send(t.matches(&uri).is_some());
        });
        rx.recv_timeout(std::time::Duration::from_secs(60)).is_ok()
    }

    #[test]
    fn hostile_uris_do_not_take_forever() {
        // Four expressions without literals between them, and a URI none can end.
        assert!(finishes(
            "x://{a}{b}{c}{d}",
            format!("x://{}!", "a".repeat(150))
        ));
        // One expression, a URI of the longest length matched that fails at its very end.
        let long = format!("users://{}/profile ", "a".repeat(MAX_URI_LEN - 20));
        assert!(finishes("users://{id}/profile", long));
        let slashes = format!("file:///{}", "a/".repeat(MAX_URI_LEN / 2 - 10));
        assert!(finishes("file:///{+path}/{name}.txt", slashes));
    }

    #[test]
    fn uris_longer_than_the_limit_match_nothing() {
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        let path = "a".repeat(MAX_URI_LEN - "file:///".len());
        assert_eq!(
            t.matches(&format!("file:///{path}")),
            Some(BTreeMap::from([("path".to_owned(), path.clone())]))
        );
        assert_eq!(t.matches(&format!("file:///{path}a")), None);
    }

    #[test]
    fn invalid_templates_are_refused() {
        assert!(UriTemplate::parse("x://{unclosed").is_err());
        assert!(UriTemplate::parse("x://{a b}").is_err());
        // Found by fuzzing: iri-string panicked on these instead of refusing them.
        for t in ["us/s%e\u{444}r:d}", "x://%\u{444}", "x://%", "x://%4"] {
            assert!(UriTemplate::parse(t).is_err(), "{t}");
        }
        // A prefix modifier is 1 to 9999 (iri-string accepted `:88888`, then panicked).
        for t in [
            "{/0h}{h8888:88888}",
            "x://{a:0}",
            "x://{a:}",
            "x://{a:01}",
            "x://{a,b:1x}",
        ] {
            assert!(UriTemplate::parse(t).is_err(), "{t}");
        }
        for t in ["x://{a:1}", "x://{a:9999}{?b,c:30}"] {
            assert!(UriTemplate::parse(t).is_ok(), "{t}");
        }
        assert!(UriTemplate::parse("x://a%20b/{c}").is_ok());
        let t = UriTemplate::parse("x://{a}/{+b}{?c}").unwrap();
        assert_eq!(t.variables(), ["a", "b", "c"]);
    }
}
