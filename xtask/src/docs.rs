//! `cargo xtask docs`: builds the documentation site into `target/docs-site/`.
//!
//! 1. The rustdoc of every library crate (`crates/*`), built twice with
//!    `RUSTDOCFLAGS=-D warnings`: with default features, then with all features (the copy the
//!    site links to, under `target/docs-site/api/`).
//! 2. The guide's sources, `docs/book/`, staged into `target/docs-book/` with two directives
//!    expanded (each alone on its line): `{{#include PATH}}` inserts a whole file (an example's
//!    `.rs`, a page of `docs/`), and `{{#section PATH Heading}}` the section of a Markdown
//!    file under `## Heading` (to the next heading of that level or higher), so that the
//!    guides of `docs/` and of the crates' `src/docs/*.md` are written once. Text from a
//!    crate's `src/docs/` is rustdoc Markdown: its bare code fences become `rust` fences and
//!    its intra-doc links (`crate::Tool::layer`) links into `api/`. Elsewhere a bare fence is
//!    `text`.
//! 3. Every ```` ```rust ```` block of the staged pages compiles and runs (`no_run`: compiles
//!    only; `compile_fail`: must not compile; `ignore` and anything else is refused): the pages become the doc comments of a generated crate,
//!    `target/docs-snippets/`, with path dependencies on the workspace's crates (all
//!    features) and the workspace's `Cargo.lock`, and `cargo test --doc` runs them, built in
//!    the workspace's target directory.
//! 4. The quick start's first program is built and run as a project of its own, outside the
//!    workspace, from the dependency lines the page shows (`docs/quickstart.rs`); the page's
//!    git lines and the README's install lines are checked against them.
//! 5. The pinned mdBook ([`MDBOOK_VERSION`], installed unoptimized into `.tools/mdbook/` on
//!    first use)
//!    builds the staged book into `target/docs-site/`; the rustdoc goes to `api/`.
//! 6. No line of a code block is wider than the column shows at a 1280 px window
//!    ([`site::CODE_COLUMNS`], from the width `docs/book/site.css` gives the column).
//! 7. Every link of the site's own pages (not the rustdoc's) to a local file, and its
//!    `#fragment`, is checked.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

mod quickstart;
mod site;
mod stage;

use crate::setup::Stamp;
use site::{check_code_columns, check_links, ensure_mdbook};
use stage::stage;

/// The mdBook release used (installed into `.tools/mdbook/` when missing).
pub(super) const MDBOOK_VERSION: &str = "0.5.4";
/// mdBook's features: search, without the `serve` and `watch` commands (a third of the build).
pub(super) const MDBOOK_FEATURES: &str = "search";

/// External crates the snippets may use (their versions resolve through the workspace's
/// `Cargo.lock`, copied next to the generated crate).
const SNIPPET_DEPS: &str = r#"anyhow = "1"
axum = { version = "0.8", default-features = false, features = ["http1", "json", "tokio"] }
futures = { version = "0.3", features = ["async-await"] }
http = "1"
jsonwebtoken = { version = "11.1", default-features = false, features = ["aws_lc_rs", "use_pem"] }
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["raw_value"] }
thiserror = "2"
tokio = { version = "1.54", features = ["full"] }
tower = { version = "0.5", features = ["filter", "limit", "timeout", "util"] }
tower-layer = "0.3"
tower-service = "0.3"
tracing = "0.1"
tracing-subscriber = { version = "0.3", features = ["env-filter", "fmt"] }
url = "2"
"#;

/// `cargo xtask docs`.
pub(crate) fn docs(args: &[String]) -> Result<()> {
    if let Some(arg) = args.first() {
        bail!("usage: cargo xtask docs; unknown argument {arg:?}");
    }
    let started = Instant::now();
    let root = crate::workspace_root();
    let target = root.join("target");
    let crates = library_crates(&root)?;

    // Problems that do not stop the build (so that one run shows them all); any fails it.
    let mut problems = Vec::new();
    let step = Instant::now();
    rustdoc(&root, &crates, &mut problems)?;
    eprintln!(
        "docs: rustdoc of {} crates ({:.1?})",
        crates.len(),
        step.elapsed()
    );

    let step = Instant::now();
    let staged = target.join("docs-book");
    let _ = fs::remove_dir_all(&staged);
    let pages = stage(&root.join("docs/book"), &staged, &target.join("doc"))?;
    eprintln!(
        "docs: staged {} pages ({:.1?})",
        pages.len(),
        step.elapsed()
    );

    match check_code_columns(&staged, &pages) {
        Ok(()) => eprintln!(
            "docs: every code line fits {} columns (a 1280 px window)",
            site::CODE_COLUMNS
        ),
        Err(e) => problems.push(format!("{e:#}")),
    }

    let step = Instant::now();
    match test_snippets(&root, &staged, &pages, &crates) {
        Ok(n) => eprintln!(
            "docs: {n} Rust snippets compiled and run ({:.1?})",
            step.elapsed()
        ),
        Err(e) => problems.push(format!("{e:#}")),
    }

    let step = Instant::now();
    match quickstart::check(&root, &staged) {
        Ok(()) => eprintln!(
            "docs: {} built as a project of its own and run ({:.1?})",
            quickstart::PAGE,
            step.elapsed()
        ),
        Err(e) => problems.push(format!("{e:#}")),
    }

    let step = Instant::now();
    let mdbook = ensure_mdbook()?;
    let site = target.join("docs-site");
    let _ = fs::remove_dir_all(&site);
    let status = Command::new(&mdbook)
        .arg("build")
        .arg(&staged)
        .arg("--dest-dir")
        .arg(&site)
        .status()
        .with_context(|| format!("could not start {}", mdbook.display()))?;
    if !status.success() {
        bail!("mdbook build failed with {status}");
    }
    copy_dir(&target.join("doc"), &site.join("api"))?;
    eprintln!("docs: mdbook build and api/ copy ({:.1?})", step.elapsed());

    match check_links(&site) {
        Ok(links) => eprintln!("docs: {links} local links checked"),
        Err(e) => problems.push(format!("{e:#}")),
    }
    eprintln!(
        "docs: the site is {} ({:.1?})",
        site.join("index.html").display(),
        started.elapsed()
    );
    if !problems.is_empty() {
        bail!("xtask docs failed:\n- {}", problems.join("\n- "));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// rustdoc

/// A library crate of `crates/`: its package name and its features (other than `default`).
#[derive(Debug)]
struct Library {
    name: String,
    dir: PathBuf,
    features: Vec<String>,
}

/// The packages of `crates/` that have a library (a binary crate such as `mcp-rs-cli`, the
/// `mcp` command line, has no API to document and nothing a snippet could import).
fn library_crates(root: &Path) -> Result<Vec<Library>> {
    let meta = crate::cargo_metadata(root)?;
    let crates_dir = root.join("crates");
    let mut libs = Vec::new();
    for pkg in meta["packages"].as_array().context("no packages")? {
        let manifest = PathBuf::from(pkg["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest.parent().unwrap_or(Path::new("")).to_path_buf();
        if dir.parent() != Some(crates_dir.as_path()) || crate::deps::is_binary_crate(pkg) {
            continue;
        }
        let features = pkg["features"]
            .as_object()
            .map(|f| f.keys().filter(|k| *k != "default").cloned().collect())
            .unwrap_or_default();
        libs.push(Library {
            name: pkg["name"].as_str().unwrap_or_default().to_owned(),
            dir,
            features,
        });
    }
    libs.sort_by(|a, b| a.name.cmp(&b.name));
    if libs.is_empty() {
        bail!(
            "cargo metadata lists no crate under {}",
            crates_dir.display()
        );
    }
    Ok(libs)
}

/// `cargo doc --no-deps` of every library, `-D warnings`, default features then all features
/// (the one the site gets). A failure with default features is recorded in `problems`.
///
/// The two passes write the same `target/doc/`, so cargo redoes both on every run; the
/// default-features pass is skipped when it passed on exactly these sources (a stamp of the
/// crates' files, `Cargo.toml` and `Cargo.lock`), which makes a run on an unchanged tree fast.
fn rustdoc(root: &Path, crates: &[Library], problems: &mut Vec<String>) -> Result<()> {
    let deny = [("RUSTDOCFLAGS".to_owned(), "-D warnings".to_owned())];
    let mut args = vec!["doc", "--no-deps"];
    for lib in crates {
        args.extend(["-p", lib.name.as_str()]);
    }
    let mut inputs = vec![
        fs::read(root.join("Cargo.toml"))?,
        fs::read(root.join("Cargo.lock"))?,
    ];
    for lib in crates {
        let mut files = walk(&lib.dir)?;
        files.retain(|f| !f.components().any(|c| c.as_os_str() == "target"));
        files.sort();
        for file in files {
            inputs.push(file.display().to_string().into_bytes());
            inputs.push(fs::read(&file)?);
        }
    }
    let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let stamp = Stamp::new(&root.join("target"), &inputs).named("docs-default-features.stamp");
    if stamp.matches() {
        eprintln!("docs: rustdoc with default features passed on these sources already");
    } else {
        stamp.clear();
        match crate::cargo_with_env(&args, &deny) {
            Ok(()) => stamp.write()?,
            Err(e) => problems.push(format!(
                "rustdoc with default features: {e:#} (its errors are above)"
            )),
        }
    }
    args.push("--all-features");
    crate::cargo_with_env(&args, &deny)
}

// ---------------------------------------------------------------------------------------------
// Snippets

/// The Rust blocks of the staged pages, compiled and run as the doctests of a generated crate;
/// returns how many there are.
fn test_snippets(
    root: &Path,
    staged: &Path,
    pages: &[PathBuf],
    crates: &[Library],
) -> Result<usize> {
    let mut count = 0;
    let mut problems = Vec::new();
    for page in pages {
        let text = read(&staged.join("src").join(page))?;
        let mut fence = false;
        for (n, line) in text.lines().enumerate() {
            let Some(info) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            if fence {
                fence = false;
                continue;
            }
            fence = true;
            let attrs: Vec<&str> = info.split(',').map(str::trim).collect();
            if attrs.first() != Some(&"rust") {
                continue;
            }
            count += 1;
            for attr in &attrs[1..] {
                if !["no_run", "compile_fail", "edition2024"].contains(attr) {
                    problems.push(format!(
                        "{}:{}: ```{info}: only `no_run` or `compile_fail` may qualify a Rust block",
                        page.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        bail!("snippets the site cannot check:\n{}", problems.join("\n"));
    }

    let dir = root.join("target/docs-snippets");
    fs::create_dir_all(dir.join("src"))?;
    let mut manifest = String::from(
        "# Generated by `cargo xtask docs`: the site's Rust snippets as doctests.\n\
         [package]\nname = \"docs-snippets\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n[profile.dev]\ndebug = false\n\n[dependencies]\n",
    );
    for lib in crates {
        let features: Vec<String> = lib.features.iter().map(|f| format!("{f:?}")).collect();
        let _ = writeln!(
            manifest,
            "{} = {{ path = {:?}, features = [{}] }}",
            lib.name,
            lib.dir.display().to_string(),
            features.join(", ")
        );
    }
    manifest.push_str(SNIPPET_DEPS);
    write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
    // The workspace's versions of every shared dependency (cargo adds what is missing),
    // copied again whenever the workspace's lock file changed.
    let lock = fs::read(root.join("Cargo.lock")).context("cannot read Cargo.lock")?;
    let lock_stamp = Stamp::new(&dir, &[&lock]).named("workspace-lock.stamp");
    if !lock_stamp.matches() || !dir.join("Cargo.lock").exists() {
        fs::write(dir.join("Cargo.lock"), &lock)?;
        lock_stamp.write()?;
    }
    let mut lib =
        String::from("//! The docs site's Rust snippets (generated by `cargo xtask docs`).\n");
    let mut modules = BTreeMap::new();
    for page in pages.iter().filter(|p| !p.ends_with("SUMMARY.md")) {
        let name = page
            .with_extension("")
            .display()
            .to_string()
            .replace(['/', '-', '.'], "_");
        modules.insert(name, staged.join("src").join(page));
    }
    for (name, path) in modules {
        let _ = writeln!(
            lib,
            "#[doc = include_str!({:?})]\npub mod {name} {{}}",
            path.display().to_string()
        );
    }
    write_if_changed(&dir.join("src/lib.rs"), &lib)?;
    // Built in the workspace's target directory: the dependencies the workspace's own builds
    // compiled with the same features are reused (in CI, after the tests: 143 s -> 58 s).
    let status = Command::new("cargo")
        .args(["test", "--doc", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target"))
        .current_dir(root)
        .status()
        .context("could not start cargo test")?;
    if !status.success() {
        bail!(
            "a snippet of the site does not compile or fails (`cargo test --doc` of {}): {status}",
            dir.display()
        );
    }
    Ok(count)
}

// ---------------------------------------------------------------------------------------------
// Files

pub(super) fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Every file under `dir`, recursively.
pub(super) fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    Ok(files)
}

/// Copies the directory `from` to `to` (which is replaced).
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let _ = fs::remove_dir_all(to);
    for file in walk(from)? {
        let dest = to.join(file.strip_prefix(from)?);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(&file, &dest).with_context(|| format!("cannot copy {}", file.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::stage::{Flavor, markdown, rustdoc_crate, section};
    use super::*;

    #[test]
    fn section_stops_at_the_next_heading_outside_fences() {
        let md = "# T\n\n## A\n\ntext\n\n```\n# hidden\n## not a heading\n```\n\n### A1\n\na1\n## B\n\nb\n";
        assert_eq!(
            section(md, "A").unwrap(),
            "text\n\n```\n# hidden\n## not a heading\n```\n\n### A1\n\na1\n"
        );
        assert_eq!(section(md, "A1").unwrap(), "a1\n");
        assert_eq!(section(md, "B").unwrap(), "b\n");
        assert!(section(md, "C").is_none());
    }

    #[test]
    fn fences_get_a_language() {
        let md = "```\nlet x = 1;\n```\n```no_run\nx\n```\n```toml\n[a]\n```\n";
        let dir = Path::new("/nonexistent");
        assert_eq!(
            markdown(md, Flavor::Rustdoc("mcp_server"), dir).unwrap(),
            "```rust\nlet x = 1;\n```\n```rust,no_run\nx\n```\n```toml\n[a]\n```\n"
        );
        assert_eq!(
            markdown("```\nsh\n```\n", Flavor::Plain, dir).unwrap(),
            "```text\nsh\n```\n"
        );
    }

    #[test]
    fn code_lines_wider_than_the_column_are_found_but_not_hidden_ones() {
        let dir = std::env::temp_dir().join(format!("xtask-code-columns-{}", std::process::id()));
        fs::create_dir_all(dir.join("src")).unwrap();
        let wide = "x".repeat(site::CODE_COLUMNS + 1);
        let fits = "x".repeat(site::CODE_COLUMNS);
        let page = format!(
            "{wide}\n```rust\n{fits}\n# {wide}\n```\n```text\n{fits}\n```\n```sh\n# {wide}\n```\n"
        );
        fs::write(dir.join("src/page.md"), page).unwrap();
        let result = check_code_columns(&dir, &[PathBuf::from("page.md")]);
        let _ = fs::remove_dir_all(&dir);
        let message = format!("{:#}", result.unwrap_err());
        // Only the shell block's line: prose is not code, and `# ` hides a line of Rust only.
        assert!(message.ends_with("page.md:10: 109 columns"), "{message}");
    }

    #[test]
    fn rustdoc_crate_of_a_path() {
        let p = Path::new("/w/docs/book/src/../../../crates/mcp-server/src/docs/guide.md");
        assert_eq!(rustdoc_crate(p).as_deref(), Some("mcp_server"));
        assert_eq!(rustdoc_crate(Path::new("/w/docs/security.md")), None);
    }
}
