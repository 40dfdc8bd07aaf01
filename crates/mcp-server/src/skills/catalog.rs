//! The skills being served: each source's snapshot, the union of their files, what the
//! server has registered as resources, and keeping all of it current (revalidation on
//! access, [`Catalog::reload`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use base64::Engine as _;
use mcp_types::{
    BlobResourceContents, ErrorCode, ReadResourceResult, ResourceContents, TextResourceContents,
};
use serde_json::value::RawValue;

use super::error::SkillError;
use super::paths::{Refused, read_inside, sha256};
use super::scan::{Fingerprint, Snapshot, Walk, scan_dir, walk};
use super::{BodyFn, SkillLimits};
use crate::cache::CacheHints;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::registry::{Entry, Registry};
use crate::resource::Resource;
use crate::server::Server;

/// How many times a read looks again when the file changed under it.
const READ_ATTEMPTS: usize = 3;

/// One file of a skill, as last scanned.
pub(crate) struct FileSnap {
    pub(crate) uri: String,
    /// The file's name (the URI's last segment, not encoded).
    pub(crate) name: String,
    pub(crate) mime: String,
    /// Served as text (else as a blob).
    pub(crate) text: bool,
    /// `None` for generated content.
    pub(crate) size: Option<u64>,
    pub(crate) sha256: [u8; 32],
    pub(crate) origin: Origin,
    /// For a skill's `SKILL.md`: the skill's name and description.
    pub(crate) skill_md: Option<(String, String)>,
}

/// Where a file's bytes come from.
pub(crate) enum Origin {
    /// A file of a skills directory, read again (and checked against the digest) on each read.
    Disk {
        root: Arc<Path>,
        path: PathBuf,
        fingerprint: Fingerprint,
    },
    /// Bytes the application gave.
    Memory(Arc<[u8]>),
    /// A generated `SKILL.md`: the frontmatter, then the body the application makes per read.
    Generated { head: Arc<str>, body: BodyFn },
}

impl FileSnap {
    /// Whether `other` describes the same resource (definition and content).
    fn same_as(&self, other: &FileSnap) -> bool {
        self.sha256 == other.sha256
            && self.size == other.size
            && self.mime == other.mime
            && self.skill_md == other.skill_md
    }

    /// The `resources/list` definition.
    pub(crate) fn definition(&self) -> mcp_types::Resource {
        let (name, description) = match &self.skill_md {
            Some((name, description)) => (name.clone(), Some(description.clone())),
            None => (self.name.clone(), None),
        };
        let mut def = mcp_types::Resource::new(self.uri.clone(), name);
        def.description = description;
        def.mime_type = Some(self.mime.clone());
        def.size = self.size;
        def
    }
}

/// A skills directory or skills given in memory.
enum Source {
    Dir {
        root: Arc<Path>,
        walk: Walk,
        snapshot: Snapshot,
    },
    Fixed(Snapshot),
}

impl Source {
    fn snapshot(&self) -> &Snapshot {
        match self {
            Source::Dir { snapshot, .. } | Source::Fixed(snapshot) => snapshot,
        }
    }
}

/// The settings of [`Skills`](super::Skills).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config {
    pub(crate) limits: SkillLimits,
    pub(crate) directory_read: bool,
    pub(crate) hints: CacheHints,
    pub(crate) revalidate_every: Duration,
}

struct State {
    config: Config,
    sources: Vec<Source>,
    /// Every file of every skill, by URI (the first source's where two share one).
    files: BTreeMap<String, Arc<FileSnap>>,
    /// The files the server has as resources.
    registered: HashMap<String, Arc<FileSnap>>,
    last_check: Option<Instant>,
}

/// A skill's entry, as `skills/list` pages and `skills/get` finds them.
pub(crate) struct SkillEntry(pub(crate) mcp_types::Skill);

impl Entry for SkillEntry {
    fn key(&self) -> &str {
        &self.0.uri
    }

    fn definition(&self) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.0)
    }
}

/// The skills a server serves.
pub(crate) struct Catalog {
    state: Mutex<State>,
    pub(crate) entries: Registry<SkillEntry>,
}

impl Catalog {
    pub(crate) fn new(config: Config) -> Self {
        Catalog {
            state: Mutex::new(State {
                config,
                sources: Vec::new(),
                files: BTreeMap::new(),
                registered: HashMap::new(),
                last_check: None,
            }),
            entries: Registry::new(Vec::new()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding it; a poisoned lock still holds consistent data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn config(&self) -> Config {
        self.state().config
    }

    pub(crate) fn set_config(&self, f: impl FnOnce(&mut Config)) {
        f(&mut self.state().config);
    }

    /// Adds the skills under `path`: every one must pass.
    pub(crate) fn add_dir(&self, path: &Path) -> Result<(), SkillError> {
        let root: Arc<Path> = path
            .canonicalize()
            .map_err(|e| SkillError::io(path, e))?
            .into();
        let mut state = self.state();
        let limits = state.config.limits;
        let walk = walk(&root, &limits)?;
        let (snapshot, mut errors) = scan_dir(&root, &walk, &limits, &BTreeMap::new());
        if !errors.is_empty() {
            return Err(errors.swap_remove(0));
        }
        state.add(Source::Dir {
            root,
            walk,
            snapshot,
        })?;
        self.rebuild(&mut state);
        Ok(())
    }

    /// Adds skills given in memory.
    pub(crate) fn add_fixed(&self, snapshot: Snapshot) -> Result<(), SkillError> {
        let mut state = self.state();
        state.add(Source::Fixed(snapshot))?;
        self.rebuild(&mut state);
        Ok(())
    }

    /// The resources of every file, for the server being built; they count as registered.
    pub(crate) fn register_all(self: &Arc<Self>) -> Vec<Resource> {
        let mut state = self.state();
        let files: Vec<Arc<FileSnap>> = state.files.values().cloned().collect();
        state.registered = files.iter().map(|f| (f.uri.clone(), f.clone())).collect();
        files.iter().map(|f| self.resource(f)).collect()
    }

    /// The resource serving `file`.
    fn resource(self: &Arc<Self>, file: &FileSnap) -> Resource {
        let catalog = self.clone();
        let uri = file.uri.clone();
        let def = file.definition();
        let mut resource = Resource::new(file.uri.clone(), def.name, move |cx: Context| {
            let catalog = catalog.clone();
            let uri = uri.clone();
            async move { catalog.read(&uri, &cx).await }
        });
        if let Some(description) = def.description {
            resource = resource.description(description);
        }
        if let Some(size) = def.size {
            resource = resource.size(size);
        }
        resource.mime_type(file.mime.clone())
    }

    /// The file at `uri`, as last scanned.
    pub(crate) fn file(&self, uri: &str) -> Option<Arc<FileSnap>> {
        self.state().files.get(uri).cloned()
    }

    /// The files whose URIs start with `prefix`, in order.
    pub(crate) fn files_under(&self, prefix: &str) -> Vec<Arc<FileSnap>> {
        self.state()
            .files
            .range(prefix.to_owned()..)
            .take_while(|(uri, _)| uri.starts_with(prefix))
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// Checks the skills directories for changes if the last check is older than the
    /// configured interval (file metadata first; a changed directory is scanned again).
    pub(crate) fn revalidate_if_due(self: &Arc<Self>, server: &Server) {
        let mut state = self.state();
        let now = Instant::now();
        let every = state.config.revalidate_every;
        if state
            .last_check
            .is_some_and(|t| now.duration_since(t) < every)
        {
            return;
        }
        state.last_check = Some(now);
        for error in self.rescan(&mut state, false) {
            tracing::warn!(error = %error, "a skill is not served");
        }
        self.sync(&mut state, server);
    }

    /// Scans every skills directory again and updates the server's resources; returns the
    /// first problem found (what passed is served all the same).
    pub(crate) fn reload(self: &Arc<Self>, server: &Server) -> Result<(), SkillError> {
        let mut state = self.state();
        state.last_check = Some(Instant::now());
        let errors = self.rescan(&mut state, true);
        self.sync(&mut state, server);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Scans the directories whose walk changed (all with `force`); returns what failed.
    fn rescan(&self, state: &mut State, force: bool) -> Vec<SkillError> {
        let limits = state.config.limits;
        let mut errors = Vec::new();
        let mut changed = false;
        for source in &mut state.sources {
            let Source::Dir {
                root,
                walk: last_walk,
                snapshot,
            } = source
            else {
                continue;
            };
            let fresh = match walk(root, &limits) {
                Ok(fresh) => fresh,
                Err(e) => {
                    // The directory cannot be served as it is now: nothing of it is.
                    errors.push(e);
                    changed |= !snapshot.skills.is_empty();
                    *last_walk = Walk::default();
                    *snapshot = Snapshot::default();
                    continue;
                }
            };
            if !force && fresh == *last_walk {
                continue;
            }
            let (next, failed) = scan_dir(root, &fresh, &limits, &snapshot.files);
            errors.extend(failed);
            *last_walk = fresh;
            *snapshot = next;
            changed = true;
        }
        if changed {
            self.rebuild(state);
        }
        errors
    }

    /// The union of the sources' files and the entries, after a change.
    fn rebuild(&self, state: &mut State) {
        let mut files = BTreeMap::new();
        let mut skills: Vec<&mcp_types::Skill> = Vec::new();
        for source in &state.sources {
            let snapshot = source.snapshot();
            for (uri, file) in &snapshot.files {
                files.entry(uri.clone()).or_insert_with(|| file.clone());
            }
            for skill in &snapshot.skills {
                if !skills.iter().any(|s| s.uri == skill.uri) {
                    skills.push(skill);
                }
            }
        }
        for old in self.entries.snapshot() {
            if !skills.iter().any(|s| s.uri == old.0.uri) {
                self.entries.remove(&old.0.uri);
            }
        }
        for skill in skills {
            if self.entries.get(&skill.uri).is_none_or(|e| e.0 != *skill) {
                self.entries.insert(SkillEntry(skill.clone()));
            }
        }
        state.files = files;
    }

    /// Brings the server's resources in line with the files: removed, added, replaced (and
    /// subscribers told of new content).
    fn sync(self: &Arc<Self>, state: &mut State, server: &Server) {
        let gone: Vec<String> = state
            .registered
            .keys()
            .filter(|uri| !state.files.contains_key(*uri))
            .cloned()
            .collect();
        for uri in gone {
            state.registered.remove(&uri);
            server.remove_resource(&uri);
        }
        for (uri, file) in &state.files {
            let previous = state.registered.get(uri);
            if previous.is_some_and(|p| Arc::ptr_eq(p, file) || p.same_as(file)) {
                continue;
            }
            let updated = previous.is_some_and(|p| p.sha256 != file.sha256);
            server.add_resource(self.resource(file));
            if updated {
                server.notify_resource_updated(uri);
            }
            state.registered.insert(uri.clone(), file.clone());
        }
    }

    /// Reads the file at `uri`: bytes whose digest and size are those of the file's current
    /// entry. A file that changed since it was scanned has its directory scanned again first.
    pub(crate) async fn read(
        self: &Arc<Self>,
        uri: &str,
        cx: &Context,
    ) -> Result<ReadResourceResult> {
        let server = cx.server();
        self.revalidate_if_due(&server);
        let limit = self.config().limits.max_file_bytes;
        for _ in 0..READ_ATTEMPTS {
            let file = self
                .file(uri)
                .ok_or_else(|| Error::resource_not_found(uri))?;
            let bytes = match &file.origin {
                Origin::Memory(bytes) => return Ok(contents(&file, bytes.to_vec())),
                Origin::Generated { head, body } => {
                    let text = format!("{head}{}", body(cx.clone()).await);
                    return Ok(contents(&file, text.into_bytes()));
                }
                Origin::Disk { root, path, .. } => read_inside(root, path, limit),
            };
            match bytes {
                Ok(bytes)
                    if Some(bytes.len() as u64) == file.size && sha256(&bytes) == file.sha256 =>
                {
                    return Ok(contents(&file, bytes));
                }
                Ok(_) | Err(Refused::Outside | Refused::TooLarge(_) | Refused::Io(_)) => {
                    // Changed, gone or refused since the scan: scan again (this file hashed
                    // whatever its metadata says), look again.
                    let mut state = self.state();
                    state.forget(uri);
                    for error in self.rescan(&mut state, true) {
                        tracing::warn!(error = %error, "a skill is not served");
                    }
                    self.sync(&mut state, &server);
                }
            }
        }
        Err(Error::rpc(
            ErrorCode::INTERNAL_ERROR,
            format!("{uri} kept changing while it was read"),
        ))
    }
}

impl State {
    /// Drops what the directories' snapshots know of `uri`, so that it is hashed again.
    fn forget(&mut self, uri: &str) {
        for source in &mut self.sources {
            if let Source::Dir { snapshot, .. } = source {
                snapshot.files.remove(uri);
            }
        }
    }

    /// Adds a source whose skills and files are all new.
    fn add(&mut self, source: Source) -> Result<(), SkillError> {
        let snapshot = source.snapshot();
        if let Some(uri) = snapshot
            .files
            .keys()
            .find(|uri| self.files.contains_key(*uri))
        {
            return Err(SkillError::Duplicate { uri: uri.clone() });
        }
        self.sources.push(source);
        Ok(())
    }
}

/// A read's result: the file's bytes as text or as a blob.
fn contents(file: &FileSnap, bytes: Vec<u8>) -> ReadResourceResult {
    let content: ResourceContents = match String::from_utf8(bytes) {
        Ok(text) if file.text => {
            let mut c = TextResourceContents::new(file.uri.clone(), text);
            c.mime_type = Some(file.mime.clone());
            c.into()
        }
        Ok(text) => blob(file, text.as_bytes()),
        Err(e) => blob(file, e.as_bytes()),
    };
    ReadResourceResult::new(vec![content])
}

fn blob(file: &FileSnap, bytes: &[u8]) -> ResourceContents {
    let mut c = BlobResourceContents::new(
        file.uri.clone(),
        base64::engine::general_purpose::STANDARD.encode(bytes),
    );
    c.mime_type = Some(file.mime.clone());
    c.into()
}
