//! The pinned mdBook, the width of the code blocks, and the check of every local link and
//! anchor of the built site.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::{MDBOOK_FEATURES, MDBOOK_VERSION, read, walk};
use crate::pinned::PinnedTool;

/// The pinned mdBook, installed into `.tools/mdbook/` when missing.
pub(super) fn ensure_mdbook() -> Result<PathBuf> {
    PinnedTool {
        krate: "mdbook",
        version: MDBOOK_VERSION,
        features: Some(MDBOOK_FEATURES),
        binary: "mdbook",
        version_args: &["--version"],
        unoptimized: true,
    }
    .ensure()
}

// ---------------------------------------------------------------------------------------------
// Code width

/// The columns a code block shows unclipped in a 1280 px wide window with the sidebar open:
/// with `docs/book/site.css` the column is 917 px there (mdBook 0.5.4's layout: a 300 px
/// sidebar, paddings and a scrollbar take the rest), and a column of code is 8.4 px (the Source
/// Code Pro mdBook ships, at 14 px) with 2 x 10 px of padding: (917 - 20) / 8.4 = 106.
/// Measured in headless Chromium; a new mdBook (or a new width) means measuring again.
pub(super) const CODE_COLUMNS: usize = 106;

/// Every line a code block of the staged pages displays that is longer than
/// [`CODE_COLUMNS`] (the lines mdBook hides in a Rust block, `# ...`, are not shown).
pub(super) fn check_code_columns(staged: &Path, pages: &[PathBuf]) -> Result<()> {
    let mut long = Vec::new();
    for page in pages {
        let text = read(&staged.join("src").join(page))?;
        let mut fence: Option<bool> = None; // Some(is Rust) inside a block
        for (n, line) in text.lines().enumerate() {
            if let Some(info) = line.trim_start().strip_prefix("```") {
                fence = match fence {
                    Some(_) => None,
                    None => Some(info.trim().split(',').next() == Some("rust")),
                };
                continue;
            }
            let Some(rust) = fence else { continue };
            let trimmed = line.trim_start();
            if rust && (trimmed == "#" || trimmed.starts_with("# ")) {
                continue;
            }
            let columns: usize = line.chars().map(|c| if c == '\t' { 8 } else { 1 }).sum();
            if columns > CODE_COLUMNS {
                long.push(format!("{}:{}: {columns} columns", page.display(), n + 1));
            }
        }
    }
    if !long.is_empty() {
        bail!(
            "code lines wider than the {CODE_COLUMNS} columns a 1280 px window shows \
             (docs/book/site.css):\n{}",
            long.join("\n")
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Links

/// Checks every local `href`/`src` of the site's pages (not those of `api/`): the file exists,
/// and so does the `#fragment`'s id in it. Returns how many were checked.
pub(super) fn check_links(site: &Path) -> Result<usize> {
    let mut count = 0;
    let mut broken = Vec::new();
    let mut cache: BTreeMap<PathBuf, String> = BTreeMap::new();
    for page in walk(site)? {
        let rel = page.strip_prefix(site)?;
        // 404.html is served at the site's root whatever the URL, and print.html repeats
        // every page with its links rewritten: the pages themselves are checked.
        let derived = ["404.html", "print.html"]
            .iter()
            .any(|d| rel == Path::new(d));
        if derived || rel.starts_with("api") || page.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = read(&page)?;
        for link in attr_values(&html, &["href=\"", "src=\""]) {
            if link.contains("://")
                || link.starts_with("mailto:")
                || link.starts_with("javascript:")
            {
                continue;
            }
            count += 1;
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let path = path.split('?').next().unwrap_or_default();
            let mut file = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap_or(site).join(path)
            };
            if file.is_dir() {
                file = file.join("index.html");
            }
            if !file.is_file() {
                broken.push(format!("{}: {link} (no such file)", rel.display()));
                continue;
            }
            if fragment.is_empty() || file.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let target = match cache.get(&file) {
                Some(t) => t,
                None => {
                    let t = read(&file)?;
                    cache.entry(file.clone()).or_insert(t)
                }
            };
            if !target.contains(&format!("id=\"{fragment}\"")) {
                broken.push(format!("{}: {link} (no id {fragment:?})", rel.display()));
            }
        }
    }
    if !broken.is_empty() {
        bail!("broken links in the site:\n{}", broken.join("\n"));
    }
    Ok(count)
}

/// The values of the attributes starting with one of `prefixes` (`href="`), HTML entities
/// for `&` decoded.
pub(super) fn attr_values(html: &str, prefixes: &[&str]) -> Vec<String> {
    let mut values = Vec::new();
    for prefix in prefixes {
        let mut rest = html;
        while let Some(at) = rest.find(prefix) {
            let after = &rest[at + prefix.len()..];
            let end = after.find('"').unwrap_or(after.len());
            values.push(after[..end].replace("&amp;", "&"));
            rest = &after[end..];
        }
    }
    values
}
