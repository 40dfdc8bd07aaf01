//! How 2026-07-28 Streamable HTTP carries a name or an argument in a header (`Mcp-Name`,
//! `Mcp-Param-*`): plain when it is visible ASCII without edge spaces, otherwise (and when the
//! plain text would itself look encoded) as `=?base64?<standard base64 of the UTF-8>?=`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const PREFIX: &str = "=?base64?";
const SUFFIX: &str = "?=";

/// Why a header value could not be decoded.
#[cfg(any(feature = "server", test))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidHeaderValue;

/// The text a received header value stands for: decoded if it is in the `=?base64?...?=`
/// form (strictly: standard alphabet, canonical padding, UTF-8), else the value as is, without
/// the optional whitespace around it.
#[cfg(any(feature = "server", test))]
pub(crate) fn decode(value: &[u8]) -> Result<String, InvalidHeaderValue> {
    let text = std::str::from_utf8(value).map_err(|_| InvalidHeaderValue)?;
    let text = text.trim_matches([' ', '\t']);
    match text
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(SUFFIX))
    {
        Some(encoded) => {
            let bytes = STANDARD.decode(encoded).map_err(|_| InvalidHeaderValue)?;
            String::from_utf8(bytes).map_err(|_| InvalidHeaderValue)
        }
        None => Ok(text.to_owned()),
    }
}

/// The header value that carries `text` (what the server's `decode` reads back).
#[cfg(any(feature = "client", test))]
pub(crate) fn encode(text: &str) -> String {
    let visible_ascii = text
        .bytes()
        .all(|b| (0x21..=0x7e).contains(&b) || b == b' ');
    let edge_space = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with(PREFIX) && text.ends_with(SUFFIX);
    let plain = visible_ascii && !edge_space && !looks_encoded;
    if plain {
        text.to_owned()
    } else {
        format!("{PREFIX}{}{SUFFIX}", STANDARD.encode(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_strictly_and_round_trips() {
        assert_eq!(decode(b"=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert_eq!(decode(b"  plain  ").unwrap(), "plain");
        // Only the whole form is encoded; anything else is literal.
        assert_eq!(decode(b"SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(decode(b"=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
        assert_eq!(decode(b"=?base64?SGVsbG8?="), Err(InvalidHeaderValue));
        assert_eq!(decode(b"=?base64?SGVs!!!bG8=?="), Err(InvalidHeaderValue));
        for text in [
            "Hello, 世界",
            " edge",
            "=?base64?x?=",
            "",
            "tab\there",
            "ok-value",
        ] {
            assert_eq!(decode(encode(text).as_bytes()).unwrap(), text, "{text:?}");
        }
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode(""), "");
    }
}
