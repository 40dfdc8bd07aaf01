//! `Deserialize` for the hot request params without `#[serde(flatten)]`.
//!
//! A struct that keeps unknown fields in `#[serde(flatten)] extra` makes serde buffer the whole
//! object into an intermediate tree first, then deserialize every field out of it: on
//! `tools/call` that was most of the cost of reading the params. [`deserialize_with_extra!`]
//! writes the visitor serde would if it could: known keys go straight to their fields, others
//! into `extra`. Serialization keeps the derive (flatten costs little there).

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// A map key, borrowed from the input when it has no escapes.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// `impl Deserialize` for a struct with `required` fields (an error when absent), `optional`
/// ones (their `Default` when absent) and `extra: JsonObject` for the rest, reading the same
/// JSON as the derive with `#[serde(default)]` on the optional fields and `#[serde(flatten)]`
/// on `extra` (duplicate known fields are an error, as there).
macro_rules! deserialize_with_extra {
    (
        $ty:ident, $expecting:literal,
        required { $($rfield:ident: $rty:ty = $rkey:literal),* $(,)? }
        optional { $($ofield:ident: $oty:ty = $okey:literal),* $(,)? }
    ) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct FieldsVisitor;
                impl<'de> serde::de::Visitor<'de> for FieldsVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$ty, A::Error> {
                        use serde::de::Error as _;
                        $(let mut $rfield: Option<$rty> = None;)*
                        $(let mut $ofield: Option<$oty> = None;)*
                        let mut extra = $crate::JsonObject::new();
                        while let Some($crate::extra_fields::Key(key)) = map.next_key()? {
                            match &*key {
                                $($rkey => {
                                    if $rfield.is_some() {
                                        return Err(A::Error::duplicate_field($rkey));
                                    }
                                    $rfield = Some(map.next_value()?);
                                })*
                                $($okey => {
                                    if $ofield.is_some() {
                                        return Err(A::Error::duplicate_field($okey));
                                    }
                                    $ofield = Some(map.next_value()?);
                                })*
                                _ => {
                                    extra.insert(key.into_owned(), map.next_value()?);
                                }
                            }
                        }
                        Ok($ty {
                            $($rfield: $rfield.ok_or_else(|| A::Error::missing_field($rkey))?,)*
                            $($ofield: $ofield.unwrap_or_default(),)*
                            extra,
                        })
                    }
                }
                d.deserialize_map(FieldsVisitor)
            }
        }
    };
}

pub(crate) use deserialize_with_extra;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};

    #[test]
    fn known_fields_unknown_fields_and_nulls_read_as_the_derive_did() {
        let p: CallToolRequestParams = serde_json::from_value(json!({
            "name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 1},
            "requestState": "s", "futureField": [1, 2], "task": null
        }))
        .unwrap();
        assert_eq!(p.name, "echo");
        assert_eq!(p.arguments.unwrap()["text"], "hi");
        assert_eq!(p.meta.unwrap()["progressToken"], 1);
        assert_eq!(p.request_state.as_deref(), Some("s"));
        assert!(p.task.is_none());
        assert_eq!(p.extra["futureField"], json!([1, 2]));
        // An escaped key is still recognized.
        let p: CallToolRequestParams =
            serde_json::from_str(r#"{"n\u0061me": "x", "argu\u006dents": null}"#).unwrap();
        assert_eq!(p.name, "x");
        assert!(p.arguments.is_none() && p.extra.is_empty());
    }

    #[test]
    fn a_missing_required_field_a_duplicate_and_a_wrong_type_are_errors() {
        let e =
            serde_json::from_value::<CallToolRequestParams>(json!({"arguments": {}})).unwrap_err();
        assert!(e.to_string().contains("missing field `name`"), "{e}");
        let e = serde_json::from_str::<ReadResourceRequestParams>(r#"{"uri":"a","uri":"b"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("duplicate field `uri`"), "{e}");
        let e = serde_json::from_value::<GetPromptRequestParams>(json!({"name": 1})).unwrap_err();
        assert!(e.to_string().contains("invalid type"), "{e}");
        assert!(serde_json::from_value::<CallToolRequestParams>(json!([1])).is_err());
    }

    #[test]
    fn each_round_trips_through_its_serialization() {
        let call: CallToolRequestParams = serde_json::from_value(json!({
            "name": "t", "arguments": {"a": 1}, "inputResponses": {"k": {"action": "cancel"}},
            "x-extra": true
        }))
        .unwrap();
        let again: CallToolRequestParams =
            serde_json::from_value(serde_json::to_value(&call).unwrap()).unwrap();
        assert_eq!(again, call);
        let prompt: GetPromptRequestParams =
            serde_json::from_value(json!({"name": "p", "arguments": {"a": "b"}, "y": 2})).unwrap();
        let again: GetPromptRequestParams =
            serde_json::from_value(serde_json::to_value(&prompt).unwrap()).unwrap();
        assert_eq!(again, prompt);
        let read: ReadResourceRequestParams =
            serde_json::from_value(json!({"uri": "file:///a", "_meta": {}})).unwrap();
        assert_eq!(read.uri, "file:///a");
        assert_eq!(read.meta, Some(crate::JsonObject::new()));
    }

    #[test]
    fn a_modern_meta_and_what_it_holds_keep_their_unknown_members() {
        let meta: crate::RequestMeta = serde_json::from_value(json!({
            "progressToken": "p",
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "sampling": {}, "extensions": {"x/y": {}}, "future": 1
            },
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1", "vendor": "v"},
            "io.modelcontextprotocol/logLevel": "debug",
            "com.example/trace": "t"
        }))
        .unwrap();
        assert_eq!(
            meta.protocol_version,
            Some(crate::ProtocolVersion::V2026_07_28)
        );
        let caps = meta.client_capabilities.as_ref().unwrap();
        assert!(caps.sampling.is_some() && caps.extensions.as_ref().unwrap().contains_key("x/y"));
        assert_eq!(caps.extra["future"], 1);
        let info = meta.client_info.as_ref().unwrap();
        assert_eq!((&*info.name, &*info.version), ("c", "1"));
        assert_eq!(info.extra["vendor"], "v");
        assert_eq!(meta.log_level, Some(crate::LoggingLevel::Debug));
        assert_eq!(meta.extra["com.example/trace"], "t");
        let again: crate::RequestMeta =
            serde_json::from_value(serde_json::to_value(&meta).unwrap()).unwrap();
        assert_eq!(again, meta);
        // Nulls read as absent; an implementation needs its name and version.
        let meta: crate::RequestMeta =
            serde_json::from_value(json!({"io.modelcontextprotocol/logLevel": null})).unwrap();
        assert_eq!(meta, crate::RequestMeta::default());
        let e = serde_json::from_value::<crate::Implementation>(json!({"name": "c"})).unwrap_err();
        assert!(e.to_string().contains("missing field `version`"), "{e}");
    }
}
