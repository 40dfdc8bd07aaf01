//! [`SkillError`]: why a skill is not served.

/// Why a skill (or a whole directory of skills) is not served. Each names the file or the skill
/// and the rule of the Skills extension, the Agent Skills format or the
/// [`SkillLimits`](crate::skills::SkillLimits)
/// it breaks.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A `SKILL.md` has no valid YAML frontmatter with a `name` and a `description`.
    #[error("{file}: {reason}")]
    Frontmatter {
        /// The `SKILL.md` (a path, or the URI of an in-memory skill's).
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A skill's `name` breaks the Agent Skills naming rules.
    #[error("{file}: the skill name {name:?} {rule}")]
    Name {
        /// The `SKILL.md`.
        file: String,
        /// The name.
        name: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// A skill's `name` is not the name of its directory (the last segment of its path).
    #[error("{file}: the skill name {name:?} must equal its directory's name {directory:?}")]
    NameMismatch {
        /// The `SKILL.md`.
        file: String,
        /// The frontmatter's name.
        name: String,
        /// The directory's name.
        directory: String,
    },
    /// A skill has more files than [`SkillLimits::max_files`](crate::skills::SkillLimits::max_files).
    #[error("skill {skill}: {count} files, more than the limit of {limit}")]
    TooManyFiles {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// How many it has.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A skill's files add up to more than
    /// [`SkillLimits::max_skill_bytes`](crate::skills::SkillLimits::max_skill_bytes).
    #[error("skill {skill}: {size} bytes in all, more than the limit of {limit}")]
    TooLarge {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A file is larger than
    /// [`SkillLimits::max_file_bytes`](crate::skills::SkillLimits::max_file_bytes).
    #[error("{file}: {size} bytes, more than the limit of {limit} per file")]
    FileTooLarge {
        /// The file.
        file: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Walking a directory met more than
    /// [`SkillLimits::max_skills`](crate::skills::SkillLimits::max_skills) skills.
    #[error("{path}: more than {limit} skills")]
    TooManySkills {
        /// The directory given.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A directory lies deeper than
    /// [`SkillLimits::max_depth`](crate::skills::SkillLimits::max_depth) below the one given.
    #[error("{path}: deeper than {limit} directory levels")]
    TooDeep {
        /// The directory.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// Walking a directory met more than
    /// [`SkillLimits::max_entries`](crate::skills::SkillLimits::max_entries) files and
    /// directories.
    #[error("{path}: more than {limit} files and directories")]
    TooManyEntries {
        /// The directory given.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A path given for an in-memory skill or file is not a relative path of plain segments.
    #[error("{path:?}: {reason}")]
    InvalidPath {
        /// The path.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A skill has no `SKILL.md` at its root.
    #[error("{skill}: no SKILL.md at the skill's root")]
    MissingSkillMd {
        /// The skill's path.
        skill: String,
    },
    /// Two skills or files would be served at the same URI.
    #[error("{uri} would be served twice")]
    Duplicate {
        /// The URI.
        uri: String,
    },
    /// A file or directory could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl SkillError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        SkillError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
