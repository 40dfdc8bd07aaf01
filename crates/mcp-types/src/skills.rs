//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server publishes Agent
//! Skills (directories of files, minimally a `SKILL.md` with YAML frontmatter) as resources,
//! conventionally under `skill://<skill-path>/<file-path>`, and lists them with `skills/list`
//! ([`ListSkills`]) and `skills/get` ([`GetSkill`]); a server declaring `directoryRead` also
//! answers `resources/directory/read` ([`ReadResourceDirectory`]) with the direct children of a
//! directory resource (MIME type [`DIRECTORY_MIME_TYPE`]).
//!
//! A [`Skill`] entry carries the skill's frontmatter verbatim and its files
//! ([`SkillResources`]): a complete list of [`SkillResource`]s, each with its SHA-256 digest and
//! size, or `"dynamic"` for generated content. An entry whose `resources` is missing or anything
//! else does not decode.
//!
//! The extension is specified against 2026-07-28; these types serve every revision alike (a
//! server may offer the extension to a 2025-11-25 session too). `resultType`, `ttlMs` and
//! `cacheScope` are 2026-07-28 fields, absent before.
//!
//! ```
//! use mcp_types::{ListSkillsResult, SkillResources};
//!
//! let page: ListSkillsResult = serde_json::from_str(r#"{"skills":[
//!     {"uri":"skill://reports/daily/SKILL.md",
//!      "frontmatter":{"name":"daily","description":"Today's report"},
//!      "resources":"dynamic"}]}"#).unwrap();
//! assert_eq!(page.skills[0].name(), Some("daily"));
//! assert_eq!(page.skills[0].resources, SkillResources::Dynamic);
//! ```

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::{Cursor, JsonObject, Meta, PaginatedRequestParams, Request, Resource};

/// The id of the Skills extension, the key of its settings ([`SkillsSettings`]) under
/// `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The `_meta` key prefix the extension reserves on skill resources.
pub const SKILLS_META_PREFIX: &str = "io.modelcontextprotocol.skills/";

/// The MIME type of a directory resource (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files a host must accept in one skill (`SKILL.md` included).
pub const MAX_SKILL_FILES: usize = 512;

/// The largest total size of a skill's files a host must accept: 16 MiB.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The server's settings of the extension, the value under
/// `capabilities.extensions["io.modelcontextprotocol/skills"]`; an empty object declares the
/// extension without optional features.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillsSettings {
    /// The server answers `resources/directory/read` (absent means `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
    /// Settings this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SkillsSettings {
    /// Settings declaring `directoryRead` as given.
    pub fn with_directory_read(mut self, directory_read: bool) -> Self {
        self.directory_read = Some(directory_read);
        self
    }

    /// Whether `directoryRead` is `true`.
    pub fn directory_read(&self) -> bool {
        self.directory_read == Some(true)
    }
}

/// A file of a skill: its URI, the SHA-256 digest of its raw bytes and their length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillResource {
    /// The resource URI of the file.
    pub uri: String,
    /// `sha256:` followed by 64 lowercase hexadecimal digits ([`SkillResource::digest_of`]).
    pub digest: String,
    /// The length of the file's raw content in bytes (the bytes the digest covers).
    pub size: u64,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SkillResource {
    /// The entry of the file at `uri` whose raw bytes hash to `sha256` (the 32 bytes of the
    /// digest) and are `size` long.
    pub fn new(uri: impl Into<String>, sha256: &[u8; 32], size: u64) -> Self {
        SkillResource {
            uri: uri.into(),
            digest: Self::digest_of(sha256),
            size,
            extra: JsonObject::new(),
        }
    }

    /// The wire form of a SHA-256 digest: `sha256:<64 lowercase hex digits>`.
    pub fn digest_of(sha256: &[u8; 32]) -> String {
        use fmt::Write as _;
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for byte in sha256 {
            let _ = write!(out, "{byte:02x}");
        }
        out
    }

    /// The 32 bytes of [`digest`](Self::digest), if it has the required form
    /// (`sha256:` and 64 lowercase hexadecimal digits).
    pub fn sha256(&self) -> Option<[u8; 32]> {
        let hex = self.digest.strip_prefix("sha256:")?.as_bytes();
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = (lower_hex(pair[0])? << 4) | lower_hex(pair[1])?;
        }
        Some(out)
    }
}

fn lower_hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// A skill's files: the complete list, or `"dynamic"` when the content is generated and no
/// stable digests can be published. Any other value (and a missing one) fails to decode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file of the skill, each once, `SKILL.md` included.
    Complete(Vec<SkillResource>),
    /// The string `"dynamic"`: generated content, no manifest.
    Dynamic,
}

impl SkillResources {
    /// The files, unless the skill is dynamic.
    pub fn files(&self) -> Option<&[SkillResource]> {
        match self {
            SkillResources::Complete(files) => Some(files),
            SkillResources::Dynamic => None,
        }
    }
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Complete(files) => files.serialize(serializer),
            SkillResources::Dynamic => serializer.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = SkillResources;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"an array of skill resources or the string "dynamic""#)
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<SkillResources, E> {
                if value == "dynamic" {
                    Ok(SkillResources::Dynamic)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(value), &self))
                }
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<SkillResources, A::Error> {
                let files = Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(SkillResources::Complete(files))
            }
        }

        deserializer.deserialize_any(Visitor)
    }
}

/// The entry of one skill, as `skills/list` and `skills/get` return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Skill {
    /// The resource URI of the skill's `SKILL.md`; its last path segment before `SKILL.md`
    /// is the skill's name.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter as a JSON object, verbatim: `name` and `description`
    /// and every other field the author wrote.
    pub frontmatter: JsonObject,
    /// The skill's files, or `"dynamic"`. Required: an entry without it does not decode.
    pub resources: SkillResources,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Skill {
    /// The entry of the skill at `uri` (its `SKILL.md`) with `frontmatter` and `resources`.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject, resources: SkillResources) -> Self {
        Skill {
            uri: uri.into(),
            frontmatter,
            resources,
            extra: JsonObject::new(),
        }
    }

    /// `frontmatter.name`, if it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name")?.as_str()
    }

    /// `frontmatter.description`, if it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description")?.as_str()
    }

    /// The skill's root directory: [`uri`](Self::uri) without its `/SKILL.md`, if it ends so.
    pub fn root_uri(&self) -> Option<&str> {
        self.uri.strip_suffix("/SKILL.md")
    }
}

/// The result of `skills/list`: a page of skill entries (an entry is never split across
/// pages). `resultType`, `ttlMs` and `cacheScope`: 2026-07-28.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// The skills on this page.
    pub skills: Vec<Skill>,
    /// Present when there are more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// How long the client may cache this result, in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<crate::CacheScope>,
    /// `"complete"` on 2026-07-28; absent on earlier revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ListSkillsResult {
    /// A single page holding `skills`.
    pub fn new(skills: Vec<Skill>) -> Self {
        ListSkillsResult {
            skills,
            ..Default::default()
        }
    }
}

/// The params of `skills/get`: the URI of a skill's `SKILL.md`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetSkillRequestParams {
    /// The params asking for the skill whose `SKILL.md` is at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        GetSkillRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

from_required_string!(
    GetSkillRequestParams,
    "The params asking for the skill whose `SKILL.md` is at that URI."
);

/// The result of `skills/get`: one entry, no cursor. `resultType`, `ttlMs` and `cacheScope`:
/// 2026-07-28.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: Skill,
    /// How long the client may treat the entry as current, in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<crate::CacheScope>,
    /// `"complete"` on 2026-07-28; absent on earlier revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetSkillResult {
    /// The result carrying `skill`.
    pub fn new(skill: Skill) -> Self {
        GetSkillResult {
            skill,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The params of `resources/directory/read`: a directory resource's URI and where to continue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceDirectoryRequestParams {
    /// The URI of the directory resource (no trailing slash).
    pub uri: String,
    /// Where to continue: the `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata attached to the request.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ReadResourceDirectoryRequestParams {
    /// The params reading the first page of the directory at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceDirectoryRequestParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

from_required_string!(
    ReadResourceDirectoryRequestParams,
    "The params reading the first page of the directory at that URI."
);

/// The result of `resources/directory/read`: the directory's direct children on this page,
/// files with their resource metadata and subdirectories with [`DIRECTORY_MIME_TYPE`].
/// `resultType`: 2026-07-28.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceDirectoryResult {
    /// The children on this page.
    pub resources: Vec<Resource>,
    /// Present when there are more pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// `"complete"` on 2026-07-28; absent on earlier revisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<crate::ResultType>,
    /// Metadata attached to the result.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ReadResourceDirectoryResult {
    /// A single page holding `resources`.
    pub fn new(resources: Vec<Resource>) -> Self {
        ReadResourceDirectoryResult {
            resources,
            ..Default::default()
        }
    }
}

/// `skills/list`: the skills the server serves, a page at a time.
#[derive(Debug)]
pub enum ListSkills {}

impl Request for ListSkills {
    const METHOD: &'static str = "skills/list";
    type Params = PaginatedRequestParams;
    type Result = ListSkillsResult;
}

/// `skills/get`: the entry of one skill, named by the URI of its `SKILL.md`; -32602 when the
/// server serves no skill there.
#[derive(Debug)]
pub enum GetSkill {}

impl Request for GetSkill {
    const METHOD: &'static str = "skills/get";
    type Params = GetSkillRequestParams;
    type Result = GetSkillResult;
}

/// `resources/directory/read`: the direct children of a directory resource, a page at a time;
/// -32602 when the URI is not a directory. Only for a server declaring `directoryRead`.
#[derive(Debug)]
pub enum ReadResourceDirectory {}

impl Request for ReadResourceDirectory {
    const METHOD: &'static str = "resources/directory/read";
    type Params = ReadResourceDirectoryRequestParams;
    type Result = ReadResourceDirectoryResult;
}

/// A whole `skills/list` request.
pub type ListSkillsRequest = crate::TypedRequest<ListSkills>;
/// A whole `skills/get` request.
pub type GetSkillRequest = crate::TypedRequest<GetSkill>;
/// A whole `resources/directory/read` request.
pub type ReadResourceDirectoryRequest = crate::TypedRequest<ReadResourceDirectory>;
/// A whole response to `skills/list`.
pub type ListSkillsResultResponse = crate::JsonRpcResultResponse<ListSkillsResult>;
/// A whole response to `skills/get`.
pub type GetSkillResultResponse = crate::JsonRpcResultResponse<GetSkillResult>;
/// A whole response to `resources/directory/read`.
pub type ReadResourceDirectoryResultResponse =
    crate::JsonRpcResultResponse<ReadResourceDirectoryResult>;

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
