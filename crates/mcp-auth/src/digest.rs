//! The one hash the crate needs.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// SHA-256 of `bytes`, base64url without padding: the PKCE S256 challenge (RFC 7636 §4.2) and
/// a DPoP proof's `ath` (RFC 9449 §4.2).
pub(crate) fn sha256_base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes).as_ref())
}
