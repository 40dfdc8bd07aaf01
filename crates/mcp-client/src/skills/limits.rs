//! [`SkillLimits`]: what a host accepts of a skill's entry (kept apart from the client, which
//! the client's options name).

/// The per-skill limits a host checks from a skill's entry before loading it.
///
/// The defaults are the extension's: every conforming host must accept skills of up to 512
/// files and 16 MiB (16,777,216 bytes) in all, and may accept larger ones. A lower bound
/// refuses skills that every conforming host loads; a higher one lets larger skills in. For a
/// `"dynamic"` skill, whose entry lists nothing, the total size bounds what the unverified
/// reads fetch. Set with
/// [`ClientBuilder::skill_limits`](crate::ClientBuilder::skill_limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillLimits {
    max_files: usize,
    max_total_size: u64,
}

impl SkillLimits {
    /// The extension's limit on the files of one skill, `SKILL.md` included: 512.
    pub const MAX_FILES: usize = mcp_types::MAX_SKILL_FILES;
    /// The extension's limit on the sum of a skill's file sizes: 16 MiB.
    pub const MAX_TOTAL_SIZE: u64 = mcp_types::MAX_SKILL_BYTES;

    /// The extension's limits ([`MAX_FILES`](Self::MAX_FILES),
    /// [`MAX_TOTAL_SIZE`](Self::MAX_TOTAL_SIZE)).
    pub const fn new() -> Self {
        SkillLimits {
            max_files: Self::MAX_FILES,
            max_total_size: Self::MAX_TOTAL_SIZE,
        }
    }

    /// Sets the most files an entry may list.
    #[must_use]
    pub const fn with_max_files(mut self, max: usize) -> Self {
        self.max_files = max;
        self
    }

    /// Sets the most bytes an entry's files may add up to.
    #[must_use]
    pub const fn with_max_total_size(mut self, max: u64) -> Self {
        self.max_total_size = max;
        self
    }

    /// The most files an entry may list.
    pub const fn max_files(&self) -> usize {
        self.max_files
    }

    /// The most bytes an entry's files may add up to.
    pub const fn max_total_size(&self) -> u64 {
        self.max_total_size
    }
}

impl Default for SkillLimits {
    fn default() -> Self {
        SkillLimits::new()
    }
}
