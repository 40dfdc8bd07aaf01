//! Staging the book: the `{{#include}}`/`{{#section}}` directives, rustdoc Markdown turned into
//! mdBook Markdown, intra-doc links pointed at the copied rustdoc.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use super::{read, walk};
use anyhow::{Context, Result, bail};

/// Where a piece of Markdown comes from, which says how its fences and links read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavor<'a> {
    /// A page of the book or of `docs/`: a bare fence is text.
    Plain,
    /// A crate's `src/docs/*.md` (rustdoc Markdown), of this crate (`mcp_server`).
    Rustdoc(&'a str),
}

/// Copies `book` (its `book.toml`, `src/` and the files beside them, such as the site's
/// extra CSS) to `out`, expanding the directives of every page; returns the staged pages
/// (paths relative to `out/src`).
pub(super) fn stage(book: &Path, out: &Path, rustdoc: &Path) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(out.join("src"))?;
    let src = book.join("src");
    for file in walk(book)? {
        if file.starts_with(&src) {
            continue;
        }
        let dest = out.join(file.strip_prefix(book)?);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(&file, &dest).with_context(|| format!("cannot copy {}", file.display()))?;
    }
    let mut pages = Vec::new();
    for entry in walk(&src)? {
        let rel = entry.strip_prefix(&src)?.to_path_buf();
        let dest = out.join("src").join(&rel);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent)?;
        }
        if entry.extension().is_some_and(|e| e == "md") {
            let text = read(&entry)?;
            let dir = entry.parent().unwrap_or(&src);
            let staged =
                expand(&text, dir, rustdoc).with_context(|| format!("in {}", entry.display()))?;
            fs::write(&dest, staged)?;
            pages.push(rel);
        } else {
            fs::copy(&entry, &dest)?;
        }
    }
    pages.sort();
    Ok(pages)
}

/// Expands the directives of one page of the book.
pub(super) fn expand(text: &str, dir: &Path, rustdoc: &Path) -> Result<String> {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let directive = trimmed
            .strip_prefix("{{#")
            .and_then(|d| d.strip_suffix("}}"));
        let Some(directive) = directive else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let (name, rest) = directive.split_once(' ').unwrap_or((directive, ""));
        let (path, heading) = match name {
            "include" => (rest.trim(), None),
            "section" => {
                let (p, h) = rest
                    .trim()
                    .split_once(' ')
                    .with_context(|| format!("{trimmed}: needs a path and a heading"))?;
                (p, Some(h.trim()))
            }
            other => bail!("unknown directive {other:?} in {trimmed}"),
        };
        let file = dir.join(path);
        let content = read(&file)?;
        let md = file.extension().is_some_and(|e| e == "md");
        let content = match heading {
            Some(h) => section(&content, h)
                .with_context(|| format!("{}: no section \"## {h}\"", file.display()))?,
            None => content,
        };
        if md {
            let krate = rustdoc_crate(&file);
            let flavor = match &krate {
                Some(krate) => Flavor::Rustdoc(krate),
                None => Flavor::Plain,
            };
            let converted = markdown(&content, flavor, rustdoc)
                .with_context(|| format!("in {}", file.display()))?;
            out.push_str(&converted);
        } else {
            out.push_str(&content);
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    markdown(&out, Flavor::Plain, rustdoc)
}

/// `mcp_server` for `.../crates/mcp-server/src/docs/guide.md` or `.../crates/mcp-server/README.md`
/// (rustdoc Markdown: the crates include them in their docs); `None` elsewhere.
pub(super) fn rustdoc_crate(file: &Path) -> Option<String> {
    let text = file.to_str()?;
    let (_, after) = text.rsplit_once("/crates/")?;
    let (krate, rest) = after.split_once('/')?;
    (rest.starts_with("src/") || rest == "README.md").then(|| krate.replace('-', "_"))
}

/// The lines under the heading `heading` (of any level) up to the next heading of the same
/// level or higher, outside code fences.
pub(super) fn section(text: &str, heading: &str) -> Option<String> {
    let mut out = String::new();
    let mut level = None;
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        let hashes = line.len() - line.trim_start_matches('#').len();
        let this = (!fence && hashes > 0 && line[hashes..].starts_with(' ')).then_some(hashes);
        match (level, this) {
            (Some(l), Some(h)) if h <= l => break,
            (Some(_), _) => {
                out.push_str(line);
                out.push('\n');
            }
            (None, Some(h)) if line[h..].trim() == heading => level = Some(h),
            (None, _) => {}
        }
    }
    level.map(|_| out.trim_matches('\n').to_owned() + "\n")
}

/// rustdoc's code block attributes: a fence whose info string has only these is Rust.
pub(super) const RUSTDOC_ATTRS: &[&str] = &[
    "no_run",
    "ignore",
    "should_panic",
    "compile_fail",
    "edition2018",
    "edition2021",
    "edition2024",
];

/// Normalizes fences (every opening fence gets a language) and, in rustdoc Markdown, turns
/// intra-doc links into links to `api/`.
pub(super) fn markdown(text: &str, flavor: Flavor<'_>, rustdoc: &Path) -> Result<String> {
    let mut out = String::new();
    let mut fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = &line[..line.len() - trimmed.len()];
            if fence {
                fence = false;
                out.push_str(line);
            } else {
                fence = true;
                let info = info.trim();
                let rust_attrs = info.split(',').all(|a| RUSTDOC_ATTRS.contains(&a.trim()));
                let info = match flavor {
                    Flavor::Rustdoc(_) if info.is_empty() => "rust".to_owned(),
                    Flavor::Rustdoc(_) if rust_attrs => format!("rust,{info}"),
                    Flavor::Plain if info.is_empty() => "text".to_owned(),
                    _ => info.to_owned(),
                };
                let _ = write!(out, "{indent}```{info}");
            }
        } else if let (Flavor::Rustdoc(krate), false) = (flavor, fence) {
            out.push_str(&intra_doc_links(line, krate, rustdoc)?);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    Ok(out)
}

/// Replaces `](crate::a::B::c)` and `](mcp_x::B)` by links into the rustdoc output.
pub(super) fn intra_doc_links(line: &str, krate: &str, rustdoc: &Path) -> Result<String> {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let (before, after) = rest.split_at(at + 2);
        out.push_str(before);
        let end = after.find(')').unwrap_or(after.len());
        let target = &after[..end];
        let path = target
            .strip_prefix("crate::")
            .map(|p| (krate, p))
            .or_else(|| {
                let (first, p) = target.split_once("::")?;
                first.starts_with("mcp_").then_some((first, p))
            });
        match path {
            Some((krate, path)) => out.push_str(&resolve(rustdoc, krate, path)?),
            None => out.push_str(target),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The rustdoc page (relative to the site's root, under `api/`) of `krate::path`.
pub(super) fn resolve(rustdoc: &Path, krate: &str, path: &str) -> Result<String> {
    const KINDS: &[&str] = &[
        "struct", "enum", "trait", "fn", "type", "macro", "constant", "union", "derive", "attr",
    ];
    const MEMBERS: &[&str] = &[
        "method",
        "variant",
        "tymethod",
        "structfield",
        "associatedconstant",
        "associatedtype",
    ];
    let mut dir = PathBuf::from(krate);
    let segments: Vec<&str> = path.split("::").collect();
    for (i, seg) in segments.iter().enumerate() {
        if rustdoc.join(&dir).join(seg).join("index.html").is_file() {
            dir.push(seg);
            continue;
        }
        let page = KINDS
            .iter()
            .map(|k| dir.join(format!("{k}.{seg}.html")))
            .find(|p| rustdoc.join(p).is_file());
        // A re-export of an item of a public module has its page in that module only: take
        // the one page of that name in the crate.
        let page = match page {
            Some(page) => page,
            None => find_page(rustdoc, krate, seg, KINDS)?
                .with_context(|| format!("intra-doc link {krate}::{path}: no page for {seg}"))?,
        };
        let url = format!("api/{}", page.display());
        return match &segments[i + 1..] {
            [] => Ok(url),
            [member] => {
                let html = read(&rustdoc.join(&page))?;
                let id = MEMBERS
                    .iter()
                    .map(|m| format!("{m}.{member}"))
                    .find(|id| html.contains(&format!("id=\"{id}\"")))
                    .with_context(|| format!("intra-doc link {krate}::{path}: no {member}"))?;
                Ok(format!("{url}#{id}"))
            }
            _ => bail!("intra-doc link {krate}::{path}: too deep"),
        };
    }
    Ok(format!("api/{}/index.html", dir.display()))
}

/// The page of item `name` anywhere in `krate`'s rustdoc, if there is exactly one.
pub(super) fn find_page(
    rustdoc: &Path,
    krate: &str,
    name: &str,
    kinds: &[&str],
) -> Result<Option<PathBuf>> {
    let names: Vec<String> = kinds.iter().map(|k| format!("{k}.{name}.html")).collect();
    let mut found = Vec::new();
    for file in walk(&rustdoc.join(krate))? {
        let file_name = file
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default();
        if names.iter().any(|n| n == file_name) {
            found.push(file.strip_prefix(rustdoc)?.to_path_buf());
        }
    }
    Ok((found.len() == 1).then(|| found.remove(0)))
}
