//! [`Id`]: a request id (also a progress token), and how it reads and writes.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A request id: a string or an integer (never null on a request).
///
/// JSON-RPC allows any number; this accepts every integer that `i64` or `u64` holds, and
/// `-0`, and sends each back in the form it came in, so a peer finds its own id in the
/// response whatever its JSON library makes of it. Fractions and exponents (`1.5`, `1e3`)
/// are refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// An integer id (every id this side makes is one).
    Number(i64),
    /// A string id.
    String(Arc<str>),
    /// An integer above `i64::MAX` (up to `u64::MAX`). Ids read from the wire use this only
    /// for such values; make smaller ones with [`Id::Number`], or they will not match.
    Unsigned(u64),
    /// The integer `-0`, which some peers send and which must go back as `-0` (serde_json
    /// alone would read it as a float, and write `0` or `-0.0`).
    NegativeZero,
}

/// A progress token: like a request id, a string or an integer.
pub type ProgressToken = Id;

impl Id {
    /// Reads an id from its JSON text (as a raw value holds it): a string, or an integer in
    /// JSON's grammar (`-?(0|[1-9][0-9]*)`) that fits `i64` or `u64`. `None` otherwise
    /// (including `null`).
    /// [`Id::Number`] when `i64` holds `n`, else [`Id::Unsigned`]: the id the wire gives.
    /// (Not a `From` impl: with two, an integer literal would no longer infer.)
    pub fn from_u64(n: u64) -> Id {
        i64::try_from(n).map_or(Id::Unsigned(n), Id::Number)
    }

    pub(crate) fn from_json(text: &str) -> Option<Id> {
        let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
        if text.starts_with('"') {
            return serde_json::from_str::<Cow<'_, str>>(text)
                .ok()
                .map(|s| Id::String(s.as_ref().into()));
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        let grammar = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        if !grammar {
            return None;
        }
        if text == "-0" {
            return Some(Id::NegativeZero);
        }
        if let Ok(n) = text.parse::<i64>() {
            return Some(Id::Number(n));
        }
        text.parse::<u64>().ok().map(Id::from_u64)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => fmt::Display::fmt(n, f),
            Id::String(s) => fmt::Debug::fmt(s, f),
            Id::Unsigned(n) => fmt::Display::fmt(n, f),
            Id::NegativeZero => f.write_str("-0"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.into())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s.into())
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(n) => s.serialize_i64(*n),
            Id::String(v) => s.serialize_str(v),
            Id::Unsigned(n) => s.serialize_u64(*n),
            // serde_json writes a raw value verbatim; no serializer has a "-0" integer.
            Id::NegativeZero => RawValue::from_string("-0".to_owned())
                .map_err(serde::ser::Error::custom)?
                .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    /// Reads a string or an integer. A deserializer that reads `-0` as a float (serde_json
    /// does) yields [`Id::NegativeZero`] for the float `-0.0`; any other float is refused.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl<'de> Visitor<'de> for IdVisitor {
            type Value = Id;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }

            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Id, E> {
                Ok(Id::Number(n))
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Id, E> {
                Ok(Id::from_u64(n))
            }

            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Id, E> {
                if n == 0.0 && n.is_sign_negative() {
                    Ok(Id::NegativeZero)
                } else {
                    Err(E::invalid_type(de::Unexpected::Float(n), &self))
                }
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<Id, E> {
                Ok(Id::String(s.into()))
            }
        }

        d.deserialize_any(IdVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `text` as an id and writes it back.
    fn round_trip(text: &str) -> Option<String> {
        Id::from_json(text).map(|id| serde_json::to_string(&id).unwrap())
    }

    #[test]
    fn every_integer_of_i64_and_u64_goes_back_as_it_came() {
        for text in [
            "0",
            "-0",
            "7",
            "-7",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "18446744073709551615",
            r#""abc""#,
            r#""""#,
        ] {
            assert_eq!(round_trip(text).as_deref(), Some(text), "{text}");
        }
        assert_eq!(
            Id::from_json("18446744073709551615"),
            Some(Id::Unsigned(u64::MAX))
        );
        assert_eq!(Id::from_json("-0"), Some(Id::NegativeZero));
        assert_eq!(Id::from_json("5"), Some(Id::Number(5)));
    }

    #[test]
    fn other_numbers_are_not_ids() {
        for text in [
            "18446744073709551616",
            "-9223372036854775809",
            "1.5",
            "1.0",
            "-0.0",
            "1e3",
            "01",
            "-",
            "+1",
            "null",
            "true",
            "[1]",
        ] {
            assert_eq!(Id::from_json(text), None, "{text}");
        }
    }

    #[test]
    fn deserialize_agrees_for_integers() {
        for text in ["0", "-0", "-7", "18446744073709551615", r#""x""#] {
            let id: Id = serde_json::from_str(text).unwrap();
            assert_eq!(Some(id), Id::from_json(text), "{text}");
        }
        assert!(serde_json::from_str::<Id>("1.5").is_err());
        assert!(serde_json::from_str::<Id>("null").is_err());
    }

    #[test]
    fn display() {
        assert_eq!(Id::NegativeZero.to_string(), "-0");
        assert_eq!(Id::Unsigned(u64::MAX).to_string(), "18446744073709551615");
        assert_eq!(Id::from("a").to_string(), r#""a""#);
    }
}
