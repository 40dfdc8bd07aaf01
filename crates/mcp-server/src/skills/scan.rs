//! Skills into snapshots: walking a directory (bounded, hidden entries and symbolic links
//! skipped), and checking and hashing each skill found; in-memory and generated skills.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use mcp_types::{JsonObject, SKILL_MD, SkillResource, SkillResources};

use super::catalog::{FileSnap, Origin};
use super::error::SkillError;
use super::paths::{mime_of, read_inside, segments, sha256, uri_of};
use super::{DynamicSkill, MemorySkill, SkillLimits, frontmatter};

/// What a file's metadata says about its content: a change in either means it may have
/// changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
}

impl Fingerprint {
    fn of(meta: &std::fs::Metadata) -> Self {
        Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// A regular file met while walking: its path below the root, as segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Walked {
    rel: Vec<String>,
    path: PathBuf,
    fingerprint: Fingerprint,
}

/// What a walk of a directory found: its files, in order, and the directories holding a
/// `SKILL.md` (the root itself as no segment).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Walk {
    files: Vec<Walked>,
    skills: Vec<Vec<String>>,
}

/// The skills of one source: their entries, and every file of them by URI.
#[derive(Default)]
pub(crate) struct Snapshot {
    pub(crate) skills: Vec<mcp_types::Skill>,
    pub(crate) files: BTreeMap<String, Arc<FileSnap>>,
}

/// Walks `root` (canonical): files and skill directories, names sorted, entries whose name
/// starts with `.` and symbolic links skipped (never followed), within the limits.
pub(crate) fn walk(root: &Path, limits: &SkillLimits) -> Result<Walk, SkillError> {
    let mut walk = Walk::default();
    let mut stack = vec![(root.to_path_buf(), Vec::<String>::new())];
    let mut entries_seen = 0usize;
    while let Some((dir, rel)) = stack.pop() {
        let mut entries = std::fs::read_dir(&dir)
            .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
            .map_err(|e| SkillError::io(&dir, e))?;
        entries.sort_by_key(std::fs::DirEntry::file_name);
        let mut subdirs = Vec::new();
        for entry in entries {
            entries_seen += 1;
            if entries_seen > limits.max_entries {
                return Err(SkillError::TooManyEntries {
                    path: root.display().to_string(),
                    limit: limits.max_entries,
                });
            }
            // A name that is not UTF-8 cannot be a URI segment: not served.
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            // `DirEntry::file_type` does not follow symbolic links.
            let kind = entry.file_type().map_err(|e| SkillError::io(&path, e))?;
            let mut child = rel.clone();
            child.push(name);
            if kind.is_dir() {
                if child.len() > limits.max_depth {
                    return Err(SkillError::TooDeep {
                        path: path.display().to_string(),
                        limit: limits.max_depth,
                    });
                }
                subdirs.push((path, child));
            } else if kind.is_file() {
                let meta = entry.metadata().map_err(|e| SkillError::io(&path, e))?;
                if child.last().is_some_and(|n| n == SKILL_MD) {
                    walk.skills.push(rel.clone());
                    if walk.skills.len() > limits.max_skills {
                        return Err(SkillError::TooManySkills {
                            path: root.display().to_string(),
                            limit: limits.max_skills,
                        });
                    }
                }
                walk.files.push(Walked {
                    rel: child,
                    path,
                    fingerprint: Fingerprint::of(&meta),
                });
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    Ok(walk)
}

/// The skills `walk` found under `root`, checked and hashed. A file whose path and
/// fingerprint are those of a file in `previous` keeps its digest (`SKILL.md`s are read
/// again: their frontmatter is needed). A skill that breaks a rule is left out and its error
/// returned with the others.
pub(crate) fn scan_dir(
    root: &Arc<Path>,
    walk: &Walk,
    limits: &SkillLimits,
    previous: &BTreeMap<String, Arc<FileSnap>>,
) -> (Snapshot, Vec<SkillError>) {
    // A root that is itself a skill is served under its own name.
    let prefix: Vec<String> = if walk.skills.iter().any(Vec::is_empty) {
        root.file_name()
            .and_then(|n| n.to_str())
            .map(|n| vec![n.to_owned()])
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut snapshot = Snapshot::default();
    let mut errors = Vec::new();
    for dir in &walk.skills {
        let mut skill_path = prefix.clone();
        skill_path.extend(dir.iter().cloned());
        if skill_path.is_empty() {
            continue;
        }
        let files: Vec<&Walked> = walk
            .files
            .iter()
            .filter(|f| f.rel.starts_with(dir))
            .collect();
        match scan_skill(
            root,
            &prefix,
            &skill_path,
            &files,
            limits,
            previous,
            &snapshot,
        ) {
            Ok((entry, snaps)) => {
                snapshot
                    .files
                    .extend(snaps.into_iter().map(|f| (f.uri.clone(), f)));
                snapshot.skills.push(entry);
            }
            Err(e) => errors.push(e),
        }
    }
    (snapshot, errors)
}

/// One skill of a directory: its files checked against the limits and hashed, its
/// `SKILL.md`'s frontmatter read and its name checked.
fn scan_skill(
    root: &Arc<Path>,
    prefix: &[String],
    skill_path: &[String],
    files: &[&Walked],
    limits: &SkillLimits,
    previous: &BTreeMap<String, Arc<FileSnap>>,
    done: &Snapshot,
) -> Result<(mcp_types::Skill, Vec<Arc<FileSnap>>), SkillError> {
    let skill_uri = uri_of(&[skill_path, &[SKILL_MD.to_owned()]].concat());
    check_counts(
        &skill_uri,
        files.len(),
        files.iter().map(|f| f.fingerprint.len),
        limits,
    )?;
    let mut snaps = Vec::with_capacity(files.len());
    let mut frontmatter = None;
    for file in files {
        let uri = uri_of(&[prefix, &file.rel[..]].concat());
        let is_skill_md = uri == skill_uri;
        if file.fingerprint.len > limits.max_file_bytes {
            return Err(SkillError::FileTooLarge {
                file: file.path.display().to_string(),
                size: file.fingerprint.len,
                limit: limits.max_file_bytes,
            });
        }
        let unchanged = |snap: &&Arc<FileSnap>| {
            matches!(&snap.origin, Origin::Disk { path, fingerprint, .. }
                if *path == file.path && *fingerprint == file.fingerprint)
        };
        // A file of a nested skill already hashed in this scan, or unchanged since the last.
        let known = done.files.get(&uri).or_else(|| previous.get(&uri));
        if let Some(snap) = known.filter(unchanged).filter(|_| !is_skill_md) {
            snaps.push(snap.clone());
            continue;
        }
        let bytes =
            read_inside(root, &file.path, limits.max_file_bytes).map_err(
                |refused| match refused {
                    super::paths::Refused::TooLarge(size) => SkillError::FileTooLarge {
                        file: file.path.display().to_string(),
                        size,
                        limit: limits.max_file_bytes,
                    },
                    super::paths::Refused::Io(e) => SkillError::io(&file.path, e),
                    super::paths::Refused::Outside => SkillError::io(
                        &file.path,
                        std::io::Error::other("not a regular file inside the skills directory"),
                    ),
                },
            )?;
        let name = file.rel.last().cloned().unwrap_or_default();
        let mut meta = None;
        if is_skill_md {
            let fm = read_frontmatter(&file.path.display().to_string(), &bytes, skill_path)?;
            meta = Some(skill_md_meta(&fm));
            frontmatter = Some(fm);
        } else if name == SKILL_MD {
            // A nested skill's SKILL.md: its own name and description, if it has them.
            meta = std::str::from_utf8(&bytes)
                .ok()
                .and_then(|t| frontmatter::parse(t).ok())
                .map(|fm| skill_md_meta(&fm));
        }
        let (mime, text) = mime_of(&name, Some(&bytes));
        snaps.push(Arc::new(FileSnap {
            uri,
            name,
            mime,
            text,
            size: Some(bytes.len() as u64),
            sha256: sha256(&bytes),
            origin: Origin::Disk {
                root: root.clone(),
                path: file.path.clone(),
                fingerprint: file.fingerprint,
            },
            skill_md: meta,
        }));
    }
    let Some(frontmatter) = frontmatter else {
        return Err(SkillError::MissingSkillMd {
            skill: skill_path.join("/"),
        });
    };
    // `SKILL.md` first, then by URI.
    snaps.sort_by(|a, b| (a.uri != skill_uri, &a.uri).cmp(&(b.uri != skill_uri, &b.uri)));
    let total: u64 = snaps.iter().filter_map(|s| s.size).sum();
    check_counts(&skill_uri, snaps.len(), [total], limits)?;
    let entry = mcp_types::Skill::new(
        skill_uri,
        frontmatter,
        SkillResources::Complete(snaps.iter().map(|s| s.entry()).collect()),
    );
    Ok((entry, snaps))
}

/// The file count and the total size against the limits.
fn check_counts(
    skill: &str,
    count: usize,
    sizes: impl IntoIterator<Item = u64>,
    limits: &SkillLimits,
) -> Result<(), SkillError> {
    if count > limits.max_files {
        return Err(SkillError::TooManyFiles {
            skill: skill.to_owned(),
            count,
            limit: limits.max_files,
        });
    }
    let size = sizes.into_iter().fold(0u64, u64::saturating_add);
    if size > limits.max_skill_bytes {
        return Err(SkillError::TooLarge {
            skill: skill.to_owned(),
            size,
            limit: limits.max_skill_bytes,
        });
    }
    Ok(())
}

/// The frontmatter of the `SKILL.md` `file` of the skill at `skill_path`, its name checked
/// against the rules and the path's last segment.
fn read_frontmatter(
    file: &str,
    bytes: &[u8],
    skill_path: &[String],
) -> Result<JsonObject, SkillError> {
    let text = std::str::from_utf8(bytes).map_err(|_| SkillError::Frontmatter {
        file: file.to_owned(),
        reason: "SKILL.md is not UTF-8 text".to_owned(),
    })?;
    let fm = frontmatter::parse(text).map_err(|reason| SkillError::Frontmatter {
        file: file.to_owned(),
        reason,
    })?;
    check_name(file, &fm, skill_path)?;
    Ok(fm)
}

fn check_name(file: &str, fm: &JsonObject, skill_path: &[String]) -> Result<(), SkillError> {
    let name = fm.get("name").and_then(|n| n.as_str()).unwrap_or_default();
    if let Some(rule) = frontmatter::name_rule_broken(name) {
        return Err(SkillError::Name {
            file: file.to_owned(),
            name: name.to_owned(),
            rule,
        });
    }
    let directory = skill_path.last().map(String::as_str).unwrap_or_default();
    if name != directory {
        return Err(SkillError::NameMismatch {
            file: file.to_owned(),
            name: name.to_owned(),
            directory: directory.to_owned(),
        });
    }
    Ok(())
}

/// A `SKILL.md` resource's name and description, from its frontmatter.
fn skill_md_meta(fm: &JsonObject) -> (String, String) {
    let field = |k: &str| {
        fm.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    (field("name"), field("description"))
}

/// An in-memory skill, checked and hashed.
pub(crate) fn scan_memory(
    skill: MemorySkill,
    limits: &SkillLimits,
) -> Result<Snapshot, SkillError> {
    let skill_path = segments(&skill.path).map_err(|reason| SkillError::InvalidPath {
        path: skill.path.clone(),
        reason,
    })?;
    let skill_uri = uri_of(&[&skill_path[..], &[SKILL_MD.to_owned()]].concat());
    check_counts(
        &skill_uri,
        skill.files.len(),
        skill.files.iter().map(|(_, b)| b.len() as u64),
        limits,
    )?;
    let mut snapshot = Snapshot::default();
    let mut frontmatter = None;
    let mut order = Vec::with_capacity(skill.files.len());
    for (path, bytes) in skill.files {
        let rel = segments(&path).map_err(|reason| SkillError::InvalidPath {
            path: path.clone(),
            reason,
        })?;
        let uri = uri_of(&[&skill_path[..], &rel[..]].concat());
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(SkillError::FileTooLarge {
                file: uri,
                size: bytes.len() as u64,
                limit: limits.max_file_bytes,
            });
        }
        let name = rel.last().cloned().unwrap_or_default();
        let mut meta = None;
        if uri == skill_uri {
            let fm = read_frontmatter(&uri, &bytes, &skill_path)?;
            meta = Some(skill_md_meta(&fm));
            frontmatter = Some(fm);
        }
        let (mime, text) = mime_of(&name, Some(&bytes));
        let snap = Arc::new(FileSnap {
            uri: uri.clone(),
            name,
            mime,
            text,
            size: Some(bytes.len() as u64),
            sha256: sha256(&bytes),
            origin: Origin::Memory(bytes.into()),
            skill_md: meta,
        });
        if snapshot.files.insert(uri.clone(), snap.clone()).is_some() {
            return Err(SkillError::Duplicate { uri });
        }
        order.push(snap);
    }
    let frontmatter = frontmatter.ok_or_else(|| SkillError::MissingSkillMd {
        skill: skill.path.clone(),
    })?;
    order.sort_by(|a, b| (a.uri != skill_uri, &a.uri).cmp(&(b.uri != skill_uri, &b.uri)));
    let files = order.iter().map(|s| s.entry()).collect();
    snapshot.skills.push(mcp_types::Skill::new(
        skill_uri,
        frontmatter,
        SkillResources::Complete(files),
    ));
    Ok(snapshot)
}

/// A generated skill: its frontmatter checked, its `SKILL.md` the one file, `"dynamic"`.
pub(crate) fn scan_dynamic(skill: DynamicSkill) -> Result<Snapshot, SkillError> {
    let skill_path = segments(&skill.path).map_err(|reason| SkillError::InvalidPath {
        path: skill.path.clone(),
        reason,
    })?;
    let skill_uri = uri_of(&[&skill_path[..], &[SKILL_MD.to_owned()]].concat());
    let yaml = skill.frontmatter.trim_end_matches(['\n', '\r']);
    let text = format!("---\n{yaml}\n---\n");
    let fm = read_frontmatter(&skill_uri, text.as_bytes(), &skill_path)?;
    let snap = Arc::new(FileSnap {
        uri: skill_uri.clone(),
        name: SKILL_MD.to_owned(),
        mime: "text/markdown".to_owned(),
        text: true,
        size: None,
        sha256: [0; 32],
        origin: Origin::Generated {
            head: text.into(),
            body: skill.body,
        },
        skill_md: Some(skill_md_meta(&fm)),
    });
    let mut snapshot = Snapshot::default();
    snapshot.files.insert(skill_uri.clone(), snap);
    snapshot.skills.push(mcp_types::Skill::new(
        skill_uri,
        fm,
        SkillResources::Dynamic,
    ));
    Ok(snapshot)
}

impl FileSnap {
    /// The file's entry in its skill's `resources`.
    pub(crate) fn entry(&self) -> SkillResource {
        SkillResource::new(self.uri.clone(), &self.sha256, self.size.unwrap_or(0))
    }
}
