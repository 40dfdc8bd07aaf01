//! [`SkillError`]: why a skill, or one of its files, was refused.

/// Why a skill entry or a file read from it was refused (carried by
/// [`Error::Skill`](crate::Error::Skill)).
///
/// Each variant says what a host does next:
///
/// - **The content is not what the entry describes** ([`SizeMismatch`](Self::SizeMismatch),
///   [`DigestMismatch`](Self::DigestMismatch), [`FrontmatterMismatch`](Self::FrontmatterMismatch),
///   [`InvalidFrontmatter`](Self::InvalidFrontmatter), [`NotListed`](Self::NotListed)): corrupted, tampered with, or the skill changed since the
///   entry was fetched. The content is not returned and must not be used. To recover from
///   staleness, refresh the entry ([`HeldSkill::refresh`](super::HeldSkill::refresh), a
///   `skills/get`); the new entry's files differ, so any approval bound to the old one is
///   revoked. [`needs_refresh`](Self::needs_refresh) is true for these.
/// - **The entry cannot be loaded** ([`InvalidEntry`](Self::InvalidEntry),
///   [`NameMismatch`](Self::NameMismatch), [`TooManyFiles`](Self::TooManyFiles),
///   [`TooLarge`](Self::TooLarge), [`NoContents`](Self::NoContents)): refuse
///   the skill and tell the user why.
/// - **The skill is generated** ([`Dynamic`](Self::Dynamic)): its entry offers no digests, so
///   nothing can be verified; load it through the unverified path
///   ([`HeldSkill::read_unverified`](super::HeldSkill::read_unverified)) or decline it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The entry breaks the extension's rules, so it must not be loaded: `resources` missing
    /// or neither a list nor `"dynamic"`, the `SKILL.md` not listed, a file listed twice or
    /// outside the skill's directory, a malformed digest, a URI that is not a `SKILL.md`'s, a
    /// frontmatter without a string `name` and `description`.
    #[error("invalid entry for skill {uri}: {reason}")]
    InvalidEntry {
        /// The skill's URI.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The last `<skill-path>` segment of the skill's URI is not its `frontmatter.name`.
    #[error("skill {uri} is named {name:?} but its URI ends in {segment:?}")]
    NameMismatch {
        /// The skill's URI.
        uri: String,
        /// The entry's `frontmatter.name`.
        name: String,
        /// The URI's last `<skill-path>` segment.
        segment: String,
    },
    /// The entry lists more files than the client's limit
    /// ([`SkillLimits::max_files`](super::SkillLimits::max_files)).
    #[error("skill {uri} has {count} files, more than the limit of {limit}")]
    TooManyFiles {
        /// The skill's URI.
        uri: String,
        /// How many files the entry lists.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The entry's files add up to more bytes than the client's limit
    /// ([`SkillLimits::max_total_size`](super::SkillLimits::max_total_size)); for a
    /// `"dynamic"` skill, what was read so far did.
    #[error("skill {uri} has {size} bytes of files, more than the limit of {limit}")]
    TooLarge {
        /// The skill's URI.
        uri: String,
        /// The sum of the listed sizes (or, dynamic, of the bytes read including this read).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not listed in the held entry's `resources`: reading it would read a file
    /// the entry (and any approval bound to it) does not cover.
    #[error("{file} is not a file of skill {uri} as its entry lists them")]
    NotListed {
        /// The skill's URI.
        uri: String,
        /// The file asked for.
        file: String,
    },
    /// The file's length differs from the `size` its entry lists (checked before the digest).
    #[error("{file} has {actual} bytes, its entry says {expected}")]
    SizeMismatch {
        /// The file.
        file: String,
        /// The entry's `size`.
        expected: u64,
        /// The length read.
        actual: u64,
    },
    /// The file's SHA-256 digest differs from its entry's `digest`.
    #[error("{file} has digest {actual}, its entry says {expected}")]
    DigestMismatch {
        /// The file.
        file: String,
        /// The entry's `digest`.
        expected: String,
        /// The digest of the bytes read.
        actual: String,
    },
    /// The `SKILL.md`'s frontmatter differs from the entry's `frontmatter`.
    #[error("frontmatter of {uri} differs from its entry in {}", .fields.join(", "))]
    FrontmatterMismatch {
        /// The skill's URI.
        uri: String,
        /// The fields that differ (present on one side only, or unequal), sorted.
        fields: Vec<String>,
    },
    /// The `SKILL.md` read has no frontmatter the client can compare: not UTF-8, no
    /// `---`-delimited block at its start, not YAML, or not a mapping.
    #[error("cannot read the frontmatter of {uri}: {reason}")]
    InvalidFrontmatter {
        /// The skill's URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// The server's answer holds no readable contents for the file: none for its URI, or a
    /// `blob` that is not base64.
    #[error("no readable contents for {file}: {reason}")]
    NoContents {
        /// The file.
        file: String,
        /// What is missing.
        reason: String,
    },
    /// The skill's `resources` is `"dynamic"`: there is nothing to verify its files
    /// against. Read them with
    /// [`HeldSkill::read_unverified`](super::HeldSkill::read_unverified), or decline the
    /// skill.
    #[error("skill {uri} is dynamic: its files cannot be verified")]
    Dynamic {
        /// The skill's URI.
        uri: String,
    },
    /// [`HeldSkill::read_unverified`](super::HeldSkill::read_unverified) on a skill whose
    /// entry lists its files: those are always verified
    /// ([`HeldSkill::read`](super::HeldSkill::read)).
    #[error("skill {uri} lists its files: they are read verified")]
    NotDynamic {
        /// The skill's URI.
        uri: String,
    },
}

impl SkillError {
    /// Whether the content read is not what the held entry describes (size, digest or
    /// frontmatter mismatch, a frontmatter that cannot be read, a file the entry does not
    /// list): the skill may have changed
    /// since the entry was fetched, so refreshing the entry (`skills/get`) may help. The
    /// refreshed entry's files differ, which revokes any approval bound to the old ones.
    pub fn needs_refresh(&self) -> bool {
        matches!(
            self,
            SkillError::SizeMismatch { .. }
                | SkillError::DigestMismatch { .. }
                | SkillError::FrontmatterMismatch { .. }
                | SkillError::InvalidFrontmatter { .. }
                | SkillError::NotListed { .. }
        )
    }
}
