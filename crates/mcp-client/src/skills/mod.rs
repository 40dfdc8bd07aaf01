//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), client side: list and
//! get skill entries, hold one ([`HeldSkill`]) and read its files on demand, each verified
//! against the held entry (feature `skills`).
//!
//! A host builds its skill registry from entries alone: [`Client::list_skills_stream`] (or a
//! page with [`Client::list_skills`]) and, for a skill named by URI (in the server's
//! instructions, in another skill, by the user), [`Client::get_skill`]. Neither reads a file.
//! [`Client::hold_skill`] checks an entry (its URI, name, files and the [`SkillLimits`]) and
//! keys it by the host's label for the server and the skill's URI ([`SkillKey`]), the identity
//! the extension requires. Files are read when the skill is loaded ([`HeldSkill::load`]) or a
//! file of it is asked for ([`HeldSkill::read`]), and every read is verified: listed in the
//! entry, size, digest, and for `SKILL.md` the frontmatter field by field. A failure is an
//! [`Error::Skill`] naming what did not match ([`SkillError`]); the
//! content is not returned. A `"dynamic"` skill can only be read through
//! [`HeldSkill::read_unverified`].
//!
//! [`Client::read_resource_directory`] lists a directory resource's children
//! (`resources/directory/read`), only when the server declared `directoryRead`. A listing is
//! a live observation: it never extends what a held entry lets the host read.
//!
//! Digests prove that an entry and the content agree, not that either is trustworthy: the
//! same server sends both. Skill content is untrusted model input.

pub(crate) mod error;
mod held;
pub(crate) mod limits;
mod verify;

use futures::Stream;
use mcp_types::{
    Cursor, GetSkill, GetSkillRequestParams, GetSkillResult, ListSkills, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectory, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, Request as _, Resource, SKILLS_EXTENSION, Skill, SkillsSettings,
};

pub use error::SkillError;
pub use held::{HeldSkill, SkillFile, SkillKey};
pub use limits::SkillLimits;
pub use verify::sha256_digest;

use crate::calls::Page;
use crate::client::Client;
use crate::error::{Error, Result, Side};

impl Page for ListSkillsResult {
    type Item = Skill;
    fn into_parts(self) -> (Vec<Skill>, Option<Cursor>) {
        (self.skills, self.next_cursor)
    }
}

impl Page for ReadResourceDirectoryResult {
    type Item = Resource;
    fn into_parts(self) -> (Vec<Resource>, Option<Cursor>) {
        (self.resources, self.next_cursor)
    }
}

/// The capability path named by [`Error::CapabilityNotDeclared`] when the server did not
/// declare the extension.
const SKILLS_CAPABILITY: &str = "extensions.io.modelcontextprotocol/skills";
/// The same for its `directoryRead` setting.
const DIRECTORY_READ_CAPABILITY: &str = "extensions.io.modelcontextprotocol/skills.directoryRead";

impl Client {
    /// The server's settings of the Skills extension, if it declared the extension (an empty
    /// object declares it without optional features; settings that do not decode count as
    /// none).
    pub fn skills_extension(&self) -> Option<SkillsSettings> {
        let settings = self.server_capabilities().extension(SKILLS_EXTENSION)?;
        Some(
            serde_json::from_value(serde_json::Value::Object(settings.clone())).unwrap_or_default(),
        )
    }

    /// Whether the server declared the Skills extension with `directoryRead: true`, the only
    /// case in which [`read_resource_directory`](Self::read_resource_directory) may be
    /// called.
    pub fn supports_directory_read(&self) -> bool {
        self.skills_extension()
            .is_some_and(|settings| settings.directory_read())
    }

    fn require_skills(&self) -> Result<()> {
        if self.skills_extension().is_none() {
            return Err(Error::CapabilityNotDeclared {
                side: Side::Server,
                capability: SKILLS_CAPABILITY,
            });
        }
        Ok(())
    }

    /// One page of `skills/list`: complete entries (URI, frontmatter, files with digests),
    /// and no file is read. The listing may be empty or partial; a skill missing from it may
    /// still be served ([`get_skill`](Self::get_skill)).
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotDeclared`] if the server did not declare the extension (nothing
    /// is sent); [`Error::Decode`] if an entry's `resources` is missing or neither a list
    /// nor `"dynamic"` (such an entry must not be loaded); as for
    /// [`request`](Self::request).
    pub async fn list_skills(&self, cursor: Option<Cursor>) -> Result<ListSkillsResult> {
        self.require_skills()?;
        let params = match cursor {
            Some(c) => PaginatedRequestParams::at(c),
            None => PaginatedRequestParams::default(),
        };
        self.request::<ListSkills>(params).await
    }

    /// Every skill entry, following `nextCursor` to the end (see
    /// [`list_skills`](Self::list_skills)).
    ///
    /// Ends with [`Error::TooManyPages`] after
    /// [`ClientBuilder::max_list_pages`](crate::ClientBuilder::max_list_pages) pages (default
    /// 100) if the server still offers another, and with [`Error::Protocol`] if it hands out
    /// a cursor twice.
    pub fn list_skills_stream(&self) -> impl Stream<Item = Result<Skill>> + Send + '_ {
        self.paginate(ListSkills::METHOD, |client, cursor| {
            client.list_skills(cursor)
        })
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`), listed or not. No
    /// file is read. A host confirms a URI it was handed this way (never by its scheme), and
    /// refreshes a stale entry.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotDeclared`] if the server did not declare the extension (nothing
    /// is sent); [`Error::Rpc`] with -32602 if the server serves no skill at `uri`; as for
    /// [`request`](Self::request).
    pub async fn get_skill(&self, uri: impl Into<GetSkillRequestParams>) -> Result<GetSkillResult> {
        self.require_skills()?;
        self.request::<GetSkill>(uri.into()).await
    }

    /// One page of a directory resource's direct children (`resources/directory/read`):
    /// files with their resource metadata, subdirectories with `mimeType: inode/directory`.
    ///
    /// # Errors
    ///
    /// [`Error::CapabilityNotDeclared`] unless the server declared the Skills extension with
    /// `directoryRead: true` (nothing is sent); [`Error::Rpc`] with -32602 if `uri` is no
    /// directory; as for [`request`](Self::request).
    pub async fn read_resource_directory(
        &self,
        params: impl Into<ReadResourceDirectoryRequestParams>,
    ) -> Result<ReadResourceDirectoryResult> {
        if !self.supports_directory_read() {
            return Err(Error::CapabilityNotDeclared {
                side: Side::Server,
                capability: DIRECTORY_READ_CAPABILITY,
            });
        }
        self.request::<ReadResourceDirectory>(params.into()).await
    }

    /// Every direct child of the directory resource at `uri`, following `nextCursor` to the
    /// end (see [`read_resource_directory`](Self::read_resource_directory); bounded like
    /// [`list_skills_stream`](Self::list_skills_stream)).
    pub fn read_resource_directory_stream<'a>(
        &'a self,
        uri: &'a str,
    ) -> impl Stream<Item = Result<Resource>> + Send + 'a {
        self.paginate(ReadResourceDirectory::METHOD, move |client, cursor| {
            let mut params = ReadResourceDirectoryRequestParams::new(uri);
            params.cursor = cursor;
            client.read_resource_directory(params)
        })
    }
}

#[cfg(test)]
mod tests;
