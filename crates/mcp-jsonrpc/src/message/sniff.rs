//! Reading what the first bytes of a frame (cut anywhere) say about it: its id, and whether
//! it is a response. For frames too large to keep, of which a transport kept a prefix.

use std::borrow::Cow;
use std::fmt;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::Id;

/// What a frame's prefix shows.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Prefix {
    /// The id, when it comes whole before the cut.
    pub(crate) id: Option<Id>,
    /// A `result` or `error` member came before the cut, and no `method`.
    pub(crate) response: bool,
}

/// Reads the members of a JSON object in order, up to the cut: the id when it comes whole,
/// and which of `method`, `result` and `error` appear (a member counts once its name is
/// read, even if its value is cut). Never allocates more than the id.
pub(crate) fn prefix(head: &[u8]) -> Prefix {
    #[derive(Default)]
    struct Seen<'de> {
        id: Option<&'de RawValue>,
        method: bool,
        answer: bool,
    }

    struct Find<'a, 'de>(&'a mut Seen<'de>);

    impl<'de> Visitor<'de> for Find<'_, 'de> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "id" => self.0.id = Some(map.next_value::<&'de RawValue>()?),
                    "method" => {
                        self.0.method = true;
                        map.next_value::<IgnoredAny>()?;
                    }
                    "result" | "error" => {
                        self.0.answer = true;
                        map.next_value::<IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }

    let mut seen = Seen::default();
    let mut de = serde_json::Deserializer::from_slice(head);
    // A cut object fails the parse after the visitor has seen what it could.
    let _ = serde::Deserializer::deserialize_map(&mut de, Find(&mut seen));
    let id = seen.id.and_then(|raw| {
        let text = raw.get();
        let end = (text.as_ptr() as usize - head.as_ptr() as usize) + text.len();
        // Ending at the cut, a number may have lost digits.
        (end < head.len()).then(|| Id::from_json(text)).flatten()
    });
    Prefix {
        id,
        response: seen.answer && !seen.method,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(head: &str, id: Option<Id>, response: bool) {
        assert_eq!(prefix(head.as_bytes()), Prefix { id, response }, "{head}");
    }

    #[test]
    fn reads_the_id_and_the_kind_before_the_cut() {
        check(
            r#"{"jsonrpc":"2.0","id":7,"result":{"x":"aaa"#,
            Some(Id::Number(7)),
            true,
        );
        check(
            r#"{"id":"abc","error":{"code":1"#,
            Some(Id::from("abc")),
            true,
        );
        check(
            r#"{"id":3,"method":"x","params":{"#,
            Some(Id::Number(3)),
            false,
        );
        check(
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":"#,
            Some(Id::Unsigned(u64::MAX)),
            true,
        );
        // The id after a long result is not seen; the kind still is.
        check(r#"{"result":"aaaa"#, None, true);
        // A number cut at the end may be missing digits.
        check(r#"{"jsonrpc":"2.0","id":12"#, None, false);
        // A whole frame is read whole.
        check(r#"{"result":1,"id":4}"#, Some(Id::Number(4)), true);
        // Not an object at all.
        check("[1,2", None, false);
        check(r#"{"jsonrpc":"2.0","#, None, false);
    }
}
