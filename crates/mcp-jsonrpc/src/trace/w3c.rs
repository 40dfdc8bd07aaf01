//! The W3C formats a [`TraceContext`](super::TraceContext) is made of, read strictly: a
//! value that breaks its grammar is ignored, never repaired.
//!
//! - `traceparent` (W3C Trace Context): `version-traceid-parentid-flags`, lowercase hex;
//!   version `ff`, an all-zero trace id or parent id are invalid; a version above `00` is read
//!   by its first four fields (and must be 55 characters or followed by `-`), and written
//!   back as `00`.
//! - `tracestate`: at most 32 members `key=value` (empty members between commas allowed),
//!   keys by the specification's grammar (`[a-z][a-z0-9_\-*/]{0,255}` or
//!   `tenant@system`), values of printable ASCII without `,` and `=`, at most 256
//!   characters, not ending in a space; no key twice. Invalid as a whole: dropped.
//! - `baggage` (W3C Baggage): at most 8,192 bytes of printable ASCII, each non-empty
//!   comma-separated member holding a `=`; its keys and percent-encoded values are the
//!   propagator's to read. Invalid: dropped.

use std::fmt;

/// A W3C `traceparent`: which trace a request belongs to, and the span that sent it.
///
/// ```
/// use mcp_jsonrpc::trace::TraceParent;
///
/// let parent = TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
///     .expect("a valid traceparent");
/// assert!(parent.sampled());
/// assert_eq!(parent.parent_id(), [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]);
/// assert_eq!(
///     parent.to_string(),
///     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
/// );
///
/// // Uppercase hex, a zero trace id, version ff: not a traceparent.
/// assert!(TraceParent::parse("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01").is_none());
/// assert!(TraceParent::parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01").is_none());
/// assert!(TraceParent::parse("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
}

/// The length of a version-00 `traceparent`.
const LEN: usize = 55;

impl TraceParent {
    /// A traceparent from its parts; `None` if the trace id or the parent id is all zeros.
    pub fn new(trace_id: [u8; 16], parent_id: [u8; 8], flags: u8) -> Option<Self> {
        (trace_id != [0; 16] && parent_id != [0; 8]).then_some(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// Reads a `traceparent` value; `None` if it is not one (see the module's rules).
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() < LEN {
            return None;
        }
        let version = hex_byte(&bytes[0..2])?;
        match version {
            0xff => return None,
            0x00 if bytes.len() != LEN => return None,
            // A later version may append fields, after a `-`.
            _ if bytes.len() > LEN && bytes[LEN] != b'-' => return None,
            _ => {}
        }
        if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return None;
        }
        let mut trace_id = [0; 16];
        for (i, byte) in trace_id.iter_mut().enumerate() {
            *byte = hex_byte(&bytes[3 + 2 * i..5 + 2 * i])?;
        }
        let mut parent_id = [0; 8];
        for (i, byte) in parent_id.iter_mut().enumerate() {
            *byte = hex_byte(&bytes[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&bytes[53..55])?;
        TraceParent::new(trace_id, parent_id, flags)
    }

    /// The trace id (16 bytes, never all zeros).
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The id of the span that sent the request (8 bytes, never all zeros).
    pub fn parent_id(&self) -> [u8; 8] {
        self.parent_id
    }

    /// The trace flags.
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the sampled flag (bit 0) is set.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }
}

/// The version-00 form, as it goes on the wire.
impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("00-")?;
        for b in self.trace_id {
            write!(f, "{b:02x}")?;
        }
        f.write_str("-")?;
        for b in self.parent_id {
            write!(f, "{b:02x}")?;
        }
        write!(f, "-{:02x}", self.flags)
    }
}

impl fmt::Debug for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceParent({self})")
    }
}

/// Two lowercase hex digits.
fn hex_byte(pair: &[u8]) -> Option<u8> {
    fn digit(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        }
    }
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

/// The most members a `tracestate` holds.
const MAX_TRACESTATE_MEMBERS: usize = 32;

/// Whether `text` is a valid `tracestate`.
pub(super) fn valid_tracestate(text: &str) -> bool {
    let mut keys: Vec<&str> = Vec::new();
    for member in text.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue;
        }
        let Some((key, value)) = member.split_once('=') else {
            return false;
        };
        if !valid_key(key) || !valid_value(value) || keys.contains(&key) {
            return false;
        }
        keys.push(key);
        if keys.len() > MAX_TRACESTATE_MEMBERS {
            return false;
        }
    }
    true
}

/// `lcalpha / DIGIT / "_" / "-" / "*" / "/"`: what follows a key's first character.
fn key_char(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'*' | b'/')
}

fn valid_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    match key.split_once('@') {
        None => {
            (1..=256).contains(&bytes.len())
                && bytes[0].is_ascii_lowercase()
                && bytes[1..].iter().all(|&b| key_char(b))
        }
        Some((tenant, system)) => {
            let (t, s) = (tenant.as_bytes(), system.as_bytes());
            (1..=241).contains(&t.len())
                && (t[0].is_ascii_lowercase() || t[0].is_ascii_digit())
                && t[1..].iter().all(|&b| key_char(b))
                && (1..=14).contains(&s.len())
                && s[0].is_ascii_lowercase()
                && s[1..].iter().all(|&b| key_char(b))
        }
    }
}

fn valid_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    (1..=256).contains(&bytes.len())
        && bytes
            .iter()
            .all(|&b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
        && bytes.last() != Some(&b' ')
}

/// The most bytes of `baggage` kept.
const MAX_BAGGAGE_BYTES: usize = 8192;

/// Whether `text` is a `baggage` value worth passing on.
pub(super) fn valid_baggage(text: &str) -> bool {
    text.len() <= MAX_BAGGAGE_BYTES
        && text.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && text
            .split(',')
            .map(|m| m.trim_matches([' ', '\t']))
            .all(|m| m.is_empty() || m.contains('='))
}
