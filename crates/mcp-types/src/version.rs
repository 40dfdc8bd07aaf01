//! Protocol revisions: [`ProtocolVersion`], negotiation and the two protocol [`Era`]s.

use std::cmp::Ordering;
use std::convert::Infallible;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `_meta` key carrying the protocol version of a single request (2026-07-28).
///
/// On HTTP it must match the `MCP-Protocol-Version` header.
pub const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// A revision of the Model Context Protocol, named by its release date.
///
/// The five known revisions have their own variants; any other string a peer sends is kept in
/// [`ProtocolVersion::Unknown`], so it can be logged, echoed in an
/// `UnsupportedProtocolVersionError` and negotiated away from.
///
/// Equality, hashing and ordering all go by the date string, so versions order by date (the
/// `YYYY-MM-DD` form sorts lexically) and `Unknown("2025-06-18".into())` equals
/// [`ProtocolVersion::V2025_06_18`]. Parsing never produces `Unknown` for a known string.
///
/// ```
/// use mcp_types::ProtocolVersion;
///
/// let v: ProtocolVersion = "2025-06-18".parse().unwrap();
/// assert_eq!(v, ProtocolVersion::V2025_06_18);
/// assert!(v < ProtocolVersion::LATEST);
/// assert_eq!(serde_json::to_string(&v).unwrap(), "\"2025-06-18\"");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first public revision (HTTP+SSE transport).
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, JSON-RPC batching, audio content, tool annotations,
    /// completions capability.
    V2025_03_26,
    /// `2025-06-18`: elicitation, structured tool output, resource links, titles; batching
    /// removed.
    V2025_06_18,
    /// `2025-11-25`: tasks, URL-mode elicitation, sampling with tools, icons.
    V2025_11_25,
    /// `2026-07-28`: stateless protocol: no `initialize`, no sessions, `server/discover`,
    /// per-request capabilities in `_meta`, `InputRequiredResult` instead of server requests.
    V2026_07_28,
    /// A version string this crate does not know, kept verbatim.
    Unknown(String),
}

/// How a connection is run under a protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Revisions up to 2025-11-25: an `initialize` handshake fixes the version and the
    /// capabilities for the whole session, and either side may send requests.
    Stateful,
    /// 2026-07-28 and later: no `initialize` and no sessions; every request carries its protocol
    /// version and client capabilities in `_meta`, and servers ask for client input by returning
    /// an `InputRequiredResult`.
    Stateless,
}

impl ProtocolVersion {
    /// The newest revision this crate knows.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// Every known revision, oldest first.
    pub const ALL: &'static [ProtocolVersion] = &[
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The date string, e.g. `"2025-06-18"`.
    pub fn as_str(&self) -> &str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
            ProtocolVersion::Unknown(s) => s,
        }
    }

    /// The known revision named `s`, or `None`.
    pub fn known(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .iter()
            .find(|v| v.as_str() == s)
            .cloned()
    }

    /// Whether this is one of the revisions in [`ProtocolVersion::ALL`].
    pub fn is_known(&self) -> bool {
        ProtocolVersion::known(self.as_str()).is_some()
    }

    /// The version a server answers with, following the lifecycle rule: the version the client
    /// requested if the server supports it, otherwise the latest version the server supports.
    ///
    /// `supported` is the server's list in any order. If it is empty, the client's version is
    /// returned unchanged (there is nothing better to offer).
    ///
    /// ```
    /// use mcp_types::ProtocolVersion as V;
    ///
    /// let supported = [V::V2025_06_18, V::V2025_11_25];
    /// assert_eq!(V::negotiate(&V::V2025_06_18, &supported), V::V2025_06_18);
    /// assert_eq!(V::negotiate(&"1999-01-01".parse().unwrap(), &supported), V::V2025_11_25);
    /// ```
    pub fn negotiate(
        requested: &ProtocolVersion,
        supported: &[ProtocolVersion],
    ) -> ProtocolVersion {
        if supported.contains(requested) {
            return requested.clone();
        }
        supported
            .iter()
            .max()
            .cloned()
            .unwrap_or_else(|| requested.clone())
    }

    /// The era of this revision. Unknown versions dated on or after 2026-07-28 count as
    /// [`Era::Stateless`], earlier ones as [`Era::Stateful`].
    pub fn era(&self) -> Era {
        if *self >= ProtocolVersion::V2026_07_28 {
            Era::Stateless
        } else {
            Era::Stateful
        }
    }

    /// Whether the revision opens a session with `initialize` / `notifications/initialized`
    /// (every revision before 2026-07-28).
    pub fn has_initialize(&self) -> bool {
        self.era() == Era::Stateful
    }

    /// Whether JSON-RPC batches (arrays of messages) are allowed: only 2025-03-26.
    pub fn supports_batching(&self) -> bool {
        *self == ProtocolVersion::V2025_03_26
    }

    /// Whether `elicitation/create` exists (2025-06-18 and later).
    pub fn has_elicitation(&self) -> bool {
        *self >= ProtocolVersion::V2025_06_18
    }

    /// Whether URL-mode elicitation exists (2025-11-25 and later).
    pub fn has_url_elicitation(&self) -> bool {
        *self >= ProtocolVersion::V2025_11_25
    }

    /// Whether tools may declare an `outputSchema` and return `structuredContent`
    /// (2025-06-18 and later).
    pub fn has_structured_content(&self) -> bool {
        *self >= ProtocolVersion::V2025_06_18
    }

    /// Whether tasks are part of the core protocol: only 2025-11-25. In 2026-07-28 they moved to
    /// the `io.modelcontextprotocol/tasks` extension (see [`crate::TASKS_EXTENSION`]).
    pub fn has_core_tasks(&self) -> bool {
        *self == ProtocolVersion::V2025_11_25
    }

    /// Whether results carry `resultType` (2026-07-28 and later).
    pub fn has_result_type(&self) -> bool {
        *self >= ProtocolVersion::V2026_07_28
    }
}

impl Default for ProtocolVersion {
    /// [`ProtocolVersion::LATEST`].
    fn default() -> Self {
        ProtocolVersion::LATEST
    }
}

impl PartialEq for ProtocolVersion {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ProtocolVersion {}

impl Hash for ProtocolVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for ProtocolVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ProtocolVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = Infallible;

    /// Never fails: unknown strings become [`ProtocolVersion::Unknown`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(ProtocolVersion::from(s))
    }
}

impl From<&str> for ProtocolVersion {
    fn from(s: &str) -> Self {
        ProtocolVersion::known(s).unwrap_or_else(|| ProtocolVersion::Unknown(s.to_owned()))
    }
}

impl From<String> for ProtocolVersion {
    fn from(s: String) -> Self {
        ProtocolVersion::known(&s).unwrap_or(ProtocolVersion::Unknown(s))
    }
}

impl From<ProtocolVersion> for String {
    fn from(v: ProtocolVersion) -> Self {
        match v {
            ProtocolVersion::Unknown(s) => s,
            known => known.as_str().to_owned(),
        }
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(ProtocolVersion::from(&*s))
    }
}

#[cfg(test)]
#[path = "version_tests.rs"]
mod tests;
