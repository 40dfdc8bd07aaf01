//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), server side (feature
//! `skills`): serve [Agent Skills](https://agentskills.io/) (directories of files, minimally a
//! `SKILL.md` with YAML frontmatter) with [`ServerBuilder::skills`].
//!
//! Every file of every skill is a resource at `skill://<skill-path>/<file-path>`, listed in
//! `resources/list` and read with `resources/read` like any other (the server's
//! [resource filter](crate::ServerBuilder::resource_filter) applies): `SKILL.md` as
//! `text/markdown` with the frontmatter's `name` and `description`, other files with the MIME
//! type of their extension, as text when they are UTF-8 text and as a blob otherwise. The
//! server declares the `resources` capability and, from protocol 2025-11-25 on, the
//! extension (with `directoryRead` unless [`Skills::directory_read`] turned it off), and
//! answers:
//!
//! - `skills/list`: the entries ([`mcp_types::Skill`]: the frontmatter verbatim and every
//!   file with its SHA-256 digest and size, or `"dynamic"`), one
//!   page at a time ([`page_size`](crate::ServerBuilder::page_size),
//!   [`page_bytes`](crate::ServerBuilder::page_bytes)), a skill never split across pages;
//! - `skills/get`: one entry by the URI of its `SKILL.md`, -32602 for any other URI;
//! - `resources/directory/read`: the direct children of a skill's root or subdirectory (or of
//!   a prefix directory above skills), files with their resource metadata and directories
//!   with `inode/directory`, paginated; -32602 for a URI that is no such directory.
//!
//! On 2026-07-28 the list and get results carry the cache hints of
//! [`Skills::cache_hints`] (default [`CacheHints::NONE`]).
//!
//! # Sources
//!
//! - [`Skills::dir`] (or [`Skills::from_dir`]): every `SKILL.md` below a directory is a skill,
//!   served under its path relative to that directory (`acme/billing/refunds/SKILL.md` is
//!   `skill://acme/billing/refunds/SKILL.md`); nested skills are published flat, and an
//!   enclosing skill lists its nested skills' files among its own. A directory that is itself
//!   a skill is served under its own name. Entries whose name starts with `.` are not part
//!   of any skill, nor are names that are not UTF-8.
//! - [`Skills::skill`]: a skill of files the application gives ([`MemorySkill`]).
//! - [`Skills::dynamic`]: a skill whose `SKILL.md` is generated on each read
//!   ([`DynamicSkill`]), listed with `"resources": "dynamic"`.
//!
//! Each skill is checked when it is added, and the error ([`SkillError`]) names the file and
//! the rule it breaks: `SKILL.md` at the skill's root, beginning with YAML frontmatter holding
//! a `name` and a `description` (1 to 1024 characters); the name 1 to 64 lowercase letters,
//! digits and hyphens, no hyphen first, last or twice in a row, and equal to the skill
//! directory's name (the last segment of its path); the [`SkillLimits`].
//!
//! # Digests and changes
//!
//! A directory's files are hashed (SHA-256) once when they are added, and again only when
//! they change. Nothing runs in the background: when a request of the extension or a read of
//! a skill file comes and the last check is older than [`Skills::revalidate_every`] (2 s by
//! default), the directories are walked again and files whose size or modification time
//! changed are hashed again; [`Skills::reload`] does the same at once. Resources of skills
//! that appeared, changed or went away are added, replaced or removed (so clients get
//! `list_changed`, and subscribers of a changed file `resources/updated`).
//!
//! A read always serves bytes that match the entry `skills/get` returns at that moment:
//! the file is read again and hashed, and served if its digest and size are those of the
//! current entry; otherwise (it changed since the last check) the directory is scanned again
//! first and the read serves the new bytes, whose digest the new entry carries. A host
//! holding the old entry then sees the mismatch the extension tells it to resolve with
//! `skills/get`. Files are read with blocking calls on the task serving the request (the
//! crate starts no thread); the limits bound how much one read or scan does.
//!
//! # What is never served
//!
//! Only files found by walking a skills directory are served, at the URIs made from their
//! names: a requested URI is looked up as a whole, never turned into a path, so `..`
//! segments, percent-encoded separators (`%2F`, `%2e%2e`) or absolute paths in it find
//! nothing (-32602, or -32002 before 2026-07-28, as any unknown resource). Symbolic links
//! are neither followed nor served, whether they point inside the directory or out of it;
//! a read resolves the file's path and refuses it unless it is a regular file inside the
//! directory, so a link planted after the walk serves nothing either.
//!
//! ```
//! use mcp_server::Server;
//! use mcp_server::skills::{MemorySkill, Skills};
//!
//! # fn main() -> mcp_server::Result<()> {
//! let skills = Skills::new().skill(
//!     MemorySkill::new("acme/billing/refunds")
//!         .file(
//!             "SKILL.md",
//!             "---\nname: refunds\ndescription: Process refund requests\n---\n# Refunds\n",
//!         )
//!         .file("examples/email.md", "Dear customer, ..."),
//! )?;
//! let server = Server::builder().skills(skills).build();
//! # let _ = server;
//! # Ok(())
//! # }
//! ```

mod catalog;
mod error;
mod frontmatter;
mod methods;
mod paths;
mod scan;

#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use error::SkillError;

use crate::builder::ServerBuilder;
use crate::cache::CacheHints;
use crate::context::Context;
use crate::error::Result;
use crate::handler::BoxFuture;
use crate::server::Server;
use catalog::{Catalog, Config};

/// The bounds on what is served and on the work of walking a directory. The defaults are the
/// extension's per-skill limits (512 files, 16 MiB), which every host must accept; change
/// them with field assignment on [`SkillLimits::default`] before adding skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillLimits {
    /// Files per skill, `SKILL.md` included (default 512).
    pub max_files: usize,
    /// The total size of a skill's files in bytes (default 16 MiB).
    pub max_skill_bytes: u64,
    /// The size of one file in bytes (default 16 MiB: only the total binds). A read loads a
    /// whole file into memory.
    pub max_file_bytes: u64,
    /// Skills under one directory (default 1,024).
    pub max_skills: usize,
    /// Directory levels walked below the one given (default 16).
    pub max_depth: usize,
    /// Files and directories walked under the one given, skills or not (default 65,536).
    pub max_entries: usize,
}

impl Default for SkillLimits {
    fn default() -> Self {
        SkillLimits {
            max_files: mcp_types::MAX_SKILL_FILES,
            max_skill_bytes: mcp_types::MAX_SKILL_BYTES,
            max_file_bytes: mcp_types::MAX_SKILL_BYTES,
            max_skills: 1024,
            max_depth: 16,
            max_entries: 65_536,
        }
    }
}

/// The skills a server serves, from directories, memory or generators; give them to
/// [`ServerBuilder::skills`]. Cheap to clone: every clone is the same set, so one kept
/// after building can [`reload`](Self::reload).
#[derive(Clone)]
pub struct Skills {
    catalog: Arc<Catalog>,
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skills")
            .field("skills", &self.catalog.entries.snapshot().len())
            .field("config", &self.catalog.config())
            .finish()
    }
}

impl Default for Skills {
    fn default() -> Self {
        Skills::new()
    }
}

impl Skills {
    /// No skills yet, with the default [`SkillLimits`], `directoryRead` on, no cache hints
    /// and a revalidation interval of 2 s.
    pub fn new() -> Self {
        Skills {
            catalog: Arc::new(Catalog::new(Config {
                limits: SkillLimits::default(),
                directory_read: true,
                hints: CacheHints::NONE,
                revalidate_every: Duration::from_secs(2),
            })),
        }
    }

    /// The skills under `path` (see [`dir`](Self::dir)).
    ///
    /// # Errors
    ///
    /// As [`dir`](Self::dir).
    pub fn from_dir(path: impl AsRef<Path>) -> Result<Self> {
        Skills::new().dir(path)
    }

    /// The limits skills added after this call are checked against (and directories are
    /// walked within, now and when they are checked again).
    #[must_use]
    pub fn limits(self, limits: SkillLimits) -> Self {
        self.catalog.set_config(|c| c.limits = limits);
        self
    }

    /// Adds every skill under the directory `path`: each directory holding a `SKILL.md`
    /// (`path` itself included). All are checked now; the directory is checked for changes
    /// as the crate docs say.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`](crate::Error::Skill) when the directory cannot be read or walked
    /// within the limits, when a skill breaks a rule or a limit (naming the file and the
    /// rule), or when a file would be served at the URI of one already added.
    pub fn dir(self, path: impl AsRef<Path>) -> Result<Self> {
        self.catalog.add_dir(path.as_ref())?;
        Ok(self)
    }

    /// Adds a skill of files the application gives.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`](crate::Error::Skill) when the skill breaks a rule or a limit, or a
    /// file would be served at the URI of one already added.
    pub fn skill(self, skill: MemorySkill) -> Result<Self> {
        let snapshot = scan::scan_memory(skill, &self.catalog.config().limits)?;
        self.catalog.add_fixed(snapshot)?;
        Ok(self)
    }

    /// Adds a skill whose `SKILL.md` is generated on each read, listed as `"dynamic"`.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`](crate::Error::Skill) when its frontmatter or path breaks a rule, or
    /// its `SKILL.md` would be served at the URI of a file already added.
    pub fn dynamic(self, skill: DynamicSkill) -> Result<Self> {
        self.catalog.add_fixed(scan::scan_dynamic(skill)?)?;
        Ok(self)
    }

    /// Whether to declare `directoryRead` and serve `resources/directory/read` (default
    /// `true`). Fixed when the server is built.
    #[must_use]
    pub fn directory_read(self, enabled: bool) -> Self {
        self.catalog.set_config(|c| c.directory_read = enabled);
        self
    }

    /// The cache hints of 2026-07-28 `skills/list` and `skills/get` results (default
    /// [`CacheHints::NONE`]). Reads of skill files use the server's
    /// [`Cacheable::ResourceReads`](crate::Cacheable::ResourceReads).
    #[must_use]
    pub fn cache_hints(self, hints: CacheHints) -> Self {
        self.catalog.set_config(|c| c.hints = hints);
        self
    }

    /// How long the directories' last check stays good (default 2 s): a request of the
    /// extension or a read of a skill file after that walks them again for changes.
    /// `Duration::ZERO` checks on every such request.
    #[must_use]
    pub fn revalidate_every(self, interval: Duration) -> Self {
        self.catalog.set_config(|c| c.revalidate_every = interval);
        self
    }

    /// Scans every skills directory again now and brings `server` (the one built with these
    /// skills) up to date: skills that appeared are served, changed files get new digests,
    /// skills that went away or now break a rule are no longer served.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`](crate::Error::Skill) naming the first problem found; the skills that
    /// passed are served all the same.
    pub fn reload(&self, server: &Server) -> Result<()> {
        Ok(self.catalog.reload(server)?)
    }

    /// The entries served now, in order, as `skills/list` gives them.
    pub fn entries(&self) -> Vec<mcp_types::Skill> {
        self.catalog
            .entries
            .snapshot()
            .iter()
            .map(|e| e.0.clone())
            .collect()
    }
}

impl ServerBuilder {
    /// Serves `skills` with the Skills extension (feature `skills`; see
    /// [`crate::skills`]): their files as resources, `skills/list`, `skills/get` and
    /// `resources/directory/read`, and the extension and the `resources` capability declared.
    ///
    /// ```
    /// use mcp_server::Server;
    /// use mcp_server::skills::{DynamicSkill, Skills};
    ///
    /// # fn main() -> mcp_server::Result<()> {
    /// let daily = DynamicSkill::new(
    ///     "reports/daily",
    ///     "name: daily\ndescription: Assemble today's report from live data",
    ///     |_cx| async { "# Daily report\n\nToday: all systems nominal.\n".to_owned() },
    /// );
    /// let server = Server::builder().skills(Skills::new().dynamic(daily)?).build();
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn skills(self, skills: Skills) -> Self {
        let resources = skills.catalog.register_all();
        let extension = methods::SkillsExtension {
            directory_read: skills.catalog.config().directory_read,
            catalog: skills.catalog,
        };
        self.extension(Arc::new(extension), resources)
    }
}

/// A skill of files the application gives: its path (`acme/billing/refunds`; the last
/// segment is its name) and files by path relative to the skill's root, `SKILL.md` among
/// them.
#[derive(Clone)]
pub struct MemorySkill {
    path: String,
    files: Vec<(String, Vec<u8>)>,
}

impl fmt::Debug for MemorySkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemorySkill")
            .field("path", &self.path)
            .field(
                "files",
                &self.files.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl MemorySkill {
    /// A skill at `path`, without files yet.
    pub fn new(path: impl Into<String>) -> Self {
        MemorySkill {
            path: path.into(),
            files: Vec::new(),
        }
    }

    /// Adds a file at `path` (`SKILL.md`, `references/GUIDE.md`) with `content`.
    #[must_use]
    pub fn file(mut self, path: impl Into<String>, content: impl Into<Vec<u8>>) -> Self {
        self.files.push((path.into(), content.into()));
        self
    }
}

/// Makes a dynamic skill's body.
type BodyFn = Arc<dyn Fn(Context) -> BoxFuture<String> + Send + Sync>;

/// A skill whose `SKILL.md` is generated on each read: its path, its frontmatter (YAML,
/// fixed, so that the entry's frontmatter is the file's) and a function making the body that
/// follows it. Listed with `"resources": "dynamic"`: it has no digests to publish.
#[derive(Clone)]
pub struct DynamicSkill {
    path: String,
    frontmatter: String,
    body: BodyFn,
}

impl fmt::Debug for DynamicSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicSkill")
            .field("path", &self.path)
            .field("frontmatter", &self.frontmatter)
            .finish_non_exhaustive()
    }
}

impl DynamicSkill {
    /// A skill at `path` whose `SKILL.md` is `frontmatter` (YAML, without the `---` lines)
    /// followed by what `body` makes for the request reading it.
    pub fn new<F, Fut>(path: impl Into<String>, frontmatter: impl Into<String>, body: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = String> + Send + 'static,
    {
        DynamicSkill {
            path: path.into(),
            frontmatter: frontmatter.into(),
            body: Arc::new(move |cx| Box::pin(body(cx))),
        }
    }
}
