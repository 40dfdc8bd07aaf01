//! The protocol revisions this client speaks.

use mcp_types::ProtocolVersion;

/// The protocol revisions this client speaks, oldest first.
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// [`SUPPORTED_VERSIONS`] as text, for error messages.
pub(crate) const SUPPORTED_VERSIONS_TEXT: &str = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25";
