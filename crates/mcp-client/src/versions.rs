//! The protocol revisions this client speaks.

use mcp_types::ProtocolVersion;

/// The protocol revisions this client speaks, oldest first: the handshake revisions
/// ([`HANDSHAKE_VERSIONS`]) and the stateless ones ([`MODERN_VERSIONS`]).
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
    ProtocolVersion::V2026_07_28,
];

/// The revisions that open a session with `initialize`, oldest first.
pub const HANDSHAKE_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// The stateless revisions (`server/discover`, per-request `_meta`), oldest first.
pub const MODERN_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V2026_07_28];

/// [`SUPPORTED_VERSIONS`] as text, for error messages.
pub(crate) const SUPPORTED_VERSIONS_TEXT: &str =
    "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28";
