//! [`HeldSkill`]: a skill loaded from one entry, which reads its files on demand and verifies
//! each against that entry; [`SkillKey`] and [`SkillFile`].

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use mcp_types::{JsonObject, ResourceContents, Skill, SkillResource, SkillResources};

use super::SkillError;
use super::limits::SkillLimits;
use super::verify;
use crate::client::Client;
use crate::error::{Error, Result};

/// The identity of a skill across servers: the host's own label for the server that serves
/// it, and the skill's URI.
///
/// Two servers may both serve `skill://refunds/SKILL.md`, and those are unrelated skills; the
/// extension requires hosts to key everything about a skill (registry, approvals, caches,
/// what the model reaches it by) on both halves, never on the URI alone, and to label
/// servers themselves rather than trust their self-reported `serverInfo.name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkillKey {
    /// The host's label for the server.
    pub server: String,
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

impl fmt::Display for SkillKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on {}", self.uri, self.server)
    }
}

/// A file of a skill, as read by a [`HeldSkill`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    uri: String,
    mime_type: Option<String>,
    bytes: Vec<u8>,
    verified: bool,
}

impl SkillFile {
    /// The file's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its MIME type, if the server gave one.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// Its raw bytes (a `text` content's UTF-8, a `blob`'s decoded base64): the bytes the
    /// entry's `size` and `digest` cover.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes as text, if they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }

    /// The raw bytes, taken.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Whether the file was checked against its entry (size and digest; for `SKILL.md` the
    /// frontmatter too). False only for the files of a `"dynamic"` skill, read through
    /// [`HeldSkill::read_unverified`].
    pub fn is_verified(&self) -> bool {
        self.verified
    }
}

/// A skill held from one entry (of `skills/list` or `skills/get`): the registry record of a
/// host and the entry its files are verified against.
///
/// Made by [`Client::hold_skill`], which checks the entry and the limits without fetching
/// anything: files are read only when asked for ([`load`](Self::load) for `SKILL.md`,
/// [`read`](Self::read) for the others), never ahead of need. Each read is checked against
/// the held entry: the URI must be one the entry lists ([`SkillError::NotListed`] otherwise,
/// nothing is sent), the length must be the listed `size` ([`SkillError::SizeMismatch`],
/// before any hashing), the SHA-256 the listed `digest` ([`SkillError::DigestMismatch`]), and
/// a `SKILL.md`'s YAML frontmatter must equal the entry's field by field
/// ([`SkillError::FrontmatterMismatch`]). Content that fails is not returned.
///
/// A `"dynamic"` skill lists no files, so nothing of it can be verified: [`read`](Self::read)
/// refuses it ([`SkillError::Dynamic`]), and [`read_unverified`](Self::read_unverified) reads
/// it knowingly (files within the skill's directory only, the `SKILL.md`'s frontmatter still
/// compared, at most [`SkillLimits::max_total_size`] bytes in all).
///
/// A cheap clone (the clones share the client and the count of dynamic bytes read).
///
/// Cancel safety: dropping a read's future cancels its `resources/read` on the server, and
/// nothing of it is kept.
///
/// ```
/// # async fn f(client: mcp_client::Client) -> mcp_client::Result<()> {
/// use futures::TryStreamExt as _;
///
/// // List the skills: this reads no file.
/// let entries: Vec<_> = client.list_skills_stream().try_collect().await?;
/// let mut registry = std::collections::BTreeMap::new();
/// for entry in entries {
///     let held = client.hold_skill("docs-server", entry)?;
///     registry.insert(held.key().clone(), held);
/// }
/// // Later, when the model loads a skill:
/// if let Some(skill) = registry.values().next() {
///     let instructions = skill.load().await?; // SKILL.md, verified
///     println!("{}", instructions.text().unwrap_or_default());
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct HeldSkill {
    client: Client,
    key: SkillKey,
    entry: Arc<Skill>,
    /// The skill's directory: `uri` without `/SKILL.md`.
    dir: Arc<str>,
    limits: SkillLimits,
    /// Bytes read through `read_unverified` (dynamic skills), shared by the clones.
    dynamic_bytes: Arc<AtomicU64>,
}

impl fmt::Debug for HeldSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeldSkill")
            .field("key", &self.key)
            .field("dynamic", &self.is_dynamic())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Holds `entry`, a skill of the server the host labels `server`: checks the entry (its
    /// URI names a `SKILL.md` whose last `<skill-path>` segment is `frontmatter.name`, its
    /// files are listed once each, the `SKILL.md` among them, all within the skill's
    /// directory, with well-formed digests) and the client's
    /// [`SkillLimits`] from the entry alone. Nothing is sent.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`] with [`SkillError::InvalidEntry`], [`SkillError::NameMismatch`],
    /// [`SkillError::TooManyFiles`] or [`SkillError::TooLarge`]: the skill must not be loaded.
    pub fn hold_skill(&self, server: impl Into<String>, entry: Skill) -> Result<HeldSkill> {
        let limits = self.inner.defaults.skill_limits;
        let dir = check_entry(&entry, limits)?;
        Ok(HeldSkill {
            client: self.clone(),
            key: SkillKey {
                server: server.into(),
                uri: entry.uri.clone(),
            },
            dir: dir.into(),
            entry: Arc::new(entry),
            limits,
            dynamic_bytes: Arc::new(AtomicU64::new(0)),
        })
    }
}

/// Checks an entry (see [`Client::hold_skill`]); returns the skill's directory.
fn check_entry(entry: &Skill, limits: SkillLimits) -> Result<String, SkillError> {
    let uri = &entry.uri;
    let invalid = |reason: String| SkillError::InvalidEntry {
        uri: uri.clone(),
        reason,
    };
    let Some((dir, segment)) = verify::skill_dir(uri) else {
        return Err(invalid(
            "its URI is not `<scheme>://<skill-path>/SKILL.md`".to_owned(),
        ));
    };
    let frontmatter = frontmatter_of(entry);
    let name = match frontmatter.get("name") {
        Some(serde_json::Value::String(name)) => name,
        _ => return Err(invalid("its frontmatter has no string `name`".to_owned())),
    };
    if !matches!(
        frontmatter.get("description"),
        Some(serde_json::Value::String(_))
    ) {
        return Err(invalid(
            "its frontmatter has no string `description`".to_owned(),
        ));
    }
    if name != segment {
        return Err(SkillError::NameMismatch {
            uri: uri.clone(),
            name: name.clone(),
            segment: segment.to_owned(),
        });
    }
    let SkillResources::Complete(files) = &entry.resources else {
        return Ok(dir.to_owned());
    };
    let mut seen = std::collections::HashSet::with_capacity(files.len());
    let mut total: u64 = 0;
    for file in files {
        if !seen.insert(file.uri.as_str()) {
            return Err(invalid(format!("it lists {} twice", file.uri)));
        }
        if !verify::within_skill(uri, dir, &file.uri) {
            return Err(invalid(format!(
                "it lists {}, which is outside the skill's directory",
                file.uri
            )));
        }
        if file.sha256().is_none() {
            return Err(invalid(format!(
                "the digest of {} is not `sha256:` and 64 lowercase hex digits",
                file.uri
            )));
        }
        total = total.saturating_add(file.size);
    }
    if !seen.contains(uri.as_str()) {
        return Err(invalid("its files do not include its SKILL.md".to_owned()));
    }
    if files.len() > limits.max_files() {
        return Err(SkillError::TooManyFiles {
            uri: uri.clone(),
            count: files.len(),
            limit: limits.max_files(),
        });
    }
    if total > limits.max_total_size() {
        return Err(SkillError::TooLarge {
            uri: uri.clone(),
            size: total,
            limit: limits.max_total_size(),
        });
    }
    Ok(dir.to_owned())
}

/// The entry's frontmatter as a JSON object.
fn frontmatter_of(entry: &Skill) -> &JsonObject {
    &entry.frontmatter
}

impl HeldSkill {
    /// The skill's identity: the host's server label and the skill's URI.
    pub fn key(&self) -> &SkillKey {
        &self.key
    }

    /// The host's label for the server the skill is read from.
    pub fn server(&self) -> &str {
        &self.key.server
    }

    /// The URI of the skill's `SKILL.md`.
    pub fn uri(&self) -> &str {
        &self.entry.uri
    }

    /// The entry the skill is held from.
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The skill's name (`frontmatter.name`, also the URI's last `<skill-path>` segment).
    /// Names are labels, not identities: two skills may share one (see [`key`](Self::key)).
    pub fn name(&self) -> &str {
        self.frontmatter_str("name")
    }

    /// The skill's description (`frontmatter.description`).
    pub fn description(&self) -> &str {
        self.frontmatter_str("description")
    }

    fn frontmatter_str(&self, field: &str) -> &str {
        frontmatter_of(&self.entry)
            .get(field)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    }

    /// The skill's directory: its `SKILL.md`'s URI without `/SKILL.md`.
    pub fn directory(&self) -> &str {
        &self.dir
    }

    /// Whether the entry's `resources` is `"dynamic"` (nothing can be verified).
    pub fn is_dynamic(&self) -> bool {
        matches!(self.entry.resources, SkillResources::Dynamic)
    }

    /// The files the entry lists (`None` for a dynamic skill).
    pub fn files(&self) -> Option<&[SkillResource]> {
        match &self.entry.resources {
            SkillResources::Complete(files) => Some(files),
            _ => None,
        }
    }

    /// A relative reference in the skill (`references/GUIDE.md`) resolved against the
    /// skill's directory, as a filesystem path would be; `None` if it is absolute or climbs
    /// out of the directory. Whether the file may be read is [`read`](Self::read)'s to say.
    pub fn resolve(&self, reference: &str) -> Option<String> {
        verify::resolve(&self.dir, reference)
    }

    /// Whether `entry` (a later `skills/list` or `skills/get` answer for this skill) lists
    /// exactly the held entry's files: the same URIs with the same digests. An approval the
    /// host bound to the held entry carries over only if so; a dynamic skill never matches.
    pub fn same_files(&self, entry: &Skill) -> bool {
        let (SkillResources::Complete(held), SkillResources::Complete(other)) =
            (&self.entry.resources, &entry.resources)
        else {
            return false;
        };
        let set = |files: &[SkillResource]| -> std::collections::BTreeSet<(String, String)> {
            files
                .iter()
                .map(|f| (f.uri.clone(), f.digest.clone()))
                .collect()
        };
        entry.uri == self.entry.uri && held.len() == other.len() && set(held) == set(other)
    }

    /// Fetches the skill's current entry (`skills/get`) and holds that instead, under the
    /// same server label and limits: the way to recover from a stale entry.
    ///
    /// # Errors
    ///
    /// As for [`Client::get_skill`] and [`Client::hold_skill`].
    pub async fn refresh(&self) -> Result<HeldSkill> {
        let entry = self.client.get_skill(self.uri()).await?.skill;
        if entry.uri != self.entry.uri {
            return Err(SkillError::InvalidEntry {
                uri: self.entry.uri.clone(),
                reason: format!("skills/get answered with the entry of {}", entry.uri),
            }
            .into());
        }
        self.client.hold_skill(self.key.server.clone(), entry)
    }

    /// Loads the skill: reads its `SKILL.md` and verifies it against the entry (size, digest,
    /// frontmatter field by field). Equivalent to `read(self.uri())`.
    ///
    /// # Errors
    ///
    /// As for [`read`](Self::read).
    pub async fn load(&self) -> Result<SkillFile> {
        self.read(&self.entry.uri).await
    }

    /// Reads a file the entry lists (`resources/read`) and verifies it: its length against
    /// the listed `size`, then its SHA-256 against the listed `digest`, and for the
    /// `SKILL.md` its frontmatter against the entry's.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`]: [`SkillError::NotListed`] (nothing is sent),
    /// [`SkillError::Dynamic`] (nothing is sent), [`SkillError::SizeMismatch`],
    /// [`SkillError::DigestMismatch`], [`SkillError::FrontmatterMismatch`],
    /// [`SkillError::InvalidFrontmatter`], [`SkillError::NoContents`]; and the errors of
    /// [`Client::read_resource`].
    pub async fn read(&self, uri: &str) -> Result<SkillFile> {
        let SkillResources::Complete(files) = &self.entry.resources else {
            return Err(SkillError::Dynamic {
                uri: self.entry.uri.clone(),
            }
            .into());
        };
        let Some(listed) = files.iter().find(|f| f.uri == uri) else {
            return Err(SkillError::NotListed {
                uri: self.entry.uri.clone(),
                file: uri.to_owned(),
            }
            .into());
        };
        let file = self.fetch(uri).await?;
        let actual = file.bytes.len() as u64;
        if actual != listed.size {
            return Err(SkillError::SizeMismatch {
                file: uri.to_owned(),
                expected: listed.size,
                actual,
            }
            .into());
        }
        let digest = verify::sha256_digest(&file.bytes);
        if digest != listed.digest {
            return Err(SkillError::DigestMismatch {
                file: uri.to_owned(),
                expected: listed.digest.clone(),
                actual: digest,
            }
            .into());
        }
        if uri == self.entry.uri {
            self.check_frontmatter(&file.bytes)?;
        }
        Ok(SkillFile {
            verified: true,
            ..file
        })
    }

    /// Loads a dynamic skill without verification: reads its `SKILL.md` and compares its
    /// frontmatter with the entry's (the one check a dynamic skill allows). Equivalent to
    /// `read_unverified(self.uri())`.
    ///
    /// # Errors
    ///
    /// As for [`read_unverified`](Self::read_unverified).
    pub async fn load_unverified(&self) -> Result<SkillFile> {
        self.read_unverified(&self.entry.uri).await
    }

    /// Reads a file of a `"dynamic"` skill (its `SKILL.md` or a file within its directory),
    /// which nothing can verify: the host takes the content on the server's word. The
    /// `SKILL.md`'s frontmatter is still compared with the entry's, and the bytes read this
    /// way add up against [`SkillLimits::max_total_size`]; past it the read fails and its
    /// content is dropped.
    ///
    /// # Errors
    ///
    /// [`Error::Skill`]: [`SkillError::NotDynamic`] for a skill whose entry lists its files
    /// (read those with [`read`](Self::read)), [`SkillError::NotListed`] for a URI outside
    /// the skill's directory (nothing is sent for either), [`SkillError::TooLarge`],
    /// [`SkillError::FrontmatterMismatch`], [`SkillError::InvalidFrontmatter`],
    /// [`SkillError::NoContents`]; and the errors of [`Client::read_resource`].
    pub async fn read_unverified(&self, uri: &str) -> Result<SkillFile> {
        if !self.is_dynamic() {
            return Err(SkillError::NotDynamic {
                uri: self.entry.uri.clone(),
            }
            .into());
        }
        if !verify::within_skill(&self.entry.uri, &self.dir, uri) {
            return Err(SkillError::NotListed {
                uri: self.entry.uri.clone(),
                file: uri.to_owned(),
            }
            .into());
        }
        let file = self.fetch(uri).await?;
        let read = file.bytes.len() as u64;
        let before = self.dynamic_bytes.fetch_add(read, Ordering::Relaxed);
        let total = before.saturating_add(read);
        if total > self.limits.max_total_size() {
            return Err(SkillError::TooLarge {
                uri: self.entry.uri.clone(),
                size: total,
                limit: self.limits.max_total_size(),
            }
            .into());
        }
        if uri == self.entry.uri {
            self.check_frontmatter(&file.bytes)?;
        }
        Ok(file)
    }

    /// The file's contents from `resources/read`: the contents for `uri` (or the only ones),
    /// as raw bytes. Not yet verified.
    async fn fetch(&self, uri: &str) -> Result<SkillFile> {
        let result = self.client.read_resource(uri).await?;
        let no_contents = |reason: &str| -> Error {
            SkillError::NoContents {
                file: uri.to_owned(),
                reason: reason.to_owned(),
            }
            .into()
        };
        let mut contents = result.contents;
        let index = match contents.iter().position(|c| c.uri() == uri) {
            Some(i) => i,
            None if contents.len() == 1 => 0,
            None => {
                return Err(no_contents(&format!(
                    "the answer holds {} contents, none for this URI",
                    contents.len()
                )));
            }
        };
        let (mime_type, bytes) = match contents.swap_remove(index) {
            ResourceContents::Text(text) => (text.mime_type, text.text.into_bytes()),
            ResourceContents::Blob(blob) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob.blob.as_bytes())
                    .map_err(|e| no_contents(&format!("its blob is not base64: {e}")))?;
                (blob.mime_type, bytes)
            }
            _ => return Err(no_contents("its contents are neither text nor a blob")),
        };
        Ok(SkillFile {
            uri: uri.to_owned(),
            mime_type,
            bytes,
            verified: false,
        })
    }

    /// The `SKILL.md`'s frontmatter against the entry's, field by field.
    fn check_frontmatter(&self, bytes: &[u8]) -> Result<(), SkillError> {
        let file = verify::frontmatter(bytes).map_err(|reason| SkillError::InvalidFrontmatter {
            uri: self.entry.uri.clone(),
            reason,
        })?;
        let fields = verify::differing_fields(&file, frontmatter_of(&self.entry));
        if fields.is_empty() {
            Ok(())
        } else {
            Err(SkillError::FrontmatterMismatch {
                uri: self.entry.uri.clone(),
                fields,
            })
        }
    }
}
