//! A `tools/call`'s params as the router reads them, and the call's arguments on their way to
//! the tool.
//!
//! The arguments stay the JSON text the client sent until something asks for them as a JSON
//! object (a layer through [`ToolCall::arguments`](crate::ToolCall::arguments), a raw tool
//! and its schema check, an `Mcp-Param-*` header check); a typed tool reads its input straight
//! from the text. Read into a [`JsonObject`] first, every call built a map of `Value`s and then
//! the tool's type from it. `_meta` likewise stays text until
//! [`Context::meta`](crate::Context::meta) asks (on 2026-07-28 it carries the client's info and
//! capabilities, read by then already). callgrind, sequential `tools/call` of an echo tool over
//! HTTP: 2.5k instructions and four allocations per call fewer, and 9k on 2026-07-28.

use std::sync::OnceLock;

use mcp_types::{InputResponses, JsonObject, TaskMetadata};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// The params of `tools/call`, with `arguments` and `_meta` kept as text. The members are
/// those of [`mcp_types::CallToolRequestParams`], checked the same way (members it does not
/// know are ignored here: only the router reads this).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallParams {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) task: Option<TaskMetadata>,
    // Read for their shape only (the 2026-07-28 retry reads them itself, see `modern`).
    #[serde(default)]
    #[allow(dead_code)]
    input_responses: Option<InputResponses>,
    #[serde(default)]
    #[allow(dead_code)]
    request_state: Option<String>,
    #[serde(rename = "_meta", default)]
    pub(crate) meta: Option<Box<RawValue>>,
}

impl CallParams {
    /// Reads `params` (`None` when the request had none); the message of a -32602 when they
    /// are not `tools/call` params.
    pub(crate) fn read(params: Option<&RawValue>) -> Result<CallParams, String> {
        let text = params.map_or("{}", RawValue::get);
        let call: CallParams = serde_json::from_str(text).map_err(|e| without_position(&e))?;
        for (member, raw) in [("arguments", &call.arguments), ("_meta", &call.meta)] {
            let Some(raw) = raw.as_deref() else {
                continue;
            };
            if !raw.get().trim_start().starts_with('{') {
                return Err(format!("invalid type: `{member}` must be an object"));
            }
            // Kept as text, an object is not held to serde_json's nesting limit, which reading
            // it as a map (when something asks) would then fail: checked here instead, by a
            // read, only when its brackets are too many to rule that out.
            if may_nest_too_deep(raw.get()) {
                serde_json::from_str::<JsonObject>(raw.get())
                    .map_err(|e| format!("`{member}`: {}", without_position(&e)))?;
            }
        }
        Ok(call)
    }
}

/// serde_json's nesting limit (its recursion limit), the deepest a JSON object reads as a map.
const MAX_NESTING: usize = 128;

/// Whether `text` could nest deeper than [`MAX_NESTING`]: it has more opening brackets than
/// that (those inside strings counted too, so this only ever errs towards a check).
fn may_nest_too_deep(text: &str) -> bool {
    text.bytes().filter(|b| matches!(b, b'{' | b'[')).count() > MAX_NESTING
}

/// A serde_json error's message without the " at line L column C" serde_json appends for an
/// error in a text (one in a `Value` has none): the position in the arguments' own text would
/// only confuse, and the messages stay what they were when the arguments were read as a map.
pub(crate) fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    if e.line() == 0 {
        return message;
    }
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// The arguments of a call: the text as sent (`None` without arguments), until something
/// asks for them as a JSON object.
#[derive(Debug)]
pub(crate) enum Arguments {
    Text(Option<Box<RawValue>>, OnceLock<Option<JsonObject>>),
    Object(Option<JsonObject>),
}

impl Arguments {
    pub(crate) fn text(text: Option<Box<RawValue>>) -> Self {
        Arguments::Text(text, OnceLock::new())
    }

    /// As a JSON object, read from the text the first time.
    pub(crate) fn object(&self) -> Option<&JsonObject> {
        match self {
            Arguments::Text(text, object) => object.get_or_init(|| read_object(text)).as_ref(),
            Arguments::Object(object) => object.as_ref(),
        }
    }

    /// As a JSON object to change: the text is read once and dropped.
    pub(crate) fn object_mut(&mut self) -> &mut Option<JsonObject> {
        if let Arguments::Text(text, object) = self {
            let read = object.take().unwrap_or_else(|| read_object(text));
            *self = Arguments::Object(read);
        }
        match self {
            Arguments::Object(object) => object,
            Arguments::Text(..) => unreachable!("made an object just above"),
        }
    }

    /// The JSON object (for a raw tool).
    pub(crate) fn into_object(mut self) -> Option<JsonObject> {
        self.object_mut().take()
    }

    /// The tool's input, from the text when it is still the text. No arguments read as `{}`.
    pub(crate) fn decode<A: DeserializeOwned>(self) -> Result<A, String> {
        match self {
            Arguments::Text(Some(text), _) => {
                serde_json::from_str(text.get()).map_err(|e| without_position(&e))
            }
            Arguments::Text(None, _) => {
                serde_json::from_value(Value::Object(JsonObject::new())).map_err(|e| e.to_string())
            }
            Arguments::Object(object) => {
                serde_json::from_value(Value::Object(object.unwrap_or_default()))
                    .map_err(|e| e.to_string())
            }
        }
    }
}

/// The text of an object as a JSON object ([`CallParams::read`] checked that it reads as one).
fn read_object(text: &Option<Box<RawValue>>) -> Option<JsonObject> {
    let text = text.as_deref()?;
    Some(serde_json::from_str(text.get()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Add {
        a: i64,
        b: i64,
    }

    #[test]
    fn params_are_read_with_their_arguments_and_meta_as_text() {
        let params =
            raw(r#"{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":7},"x":1}"#);
        let call = CallParams::read(Some(&params)).unwrap();
        assert_eq!(call.name, "add");
        assert_eq!(call.arguments.as_deref().unwrap().get(), r#"{"a":1,"b":2}"#);
        assert_eq!(
            call.meta.as_deref().unwrap().get(),
            r#"{"progressToken":7}"#
        );
        assert!(
            CallParams::read(Some(&raw(r#"{"name":"add","arguments":null}"#)))
                .unwrap()
                .arguments
                .is_none()
        );
    }

    #[test]
    fn params_of_the_wrong_shape_are_refused() {
        for bad in [
            r#"{"arguments":{}}"#,
            r#"{"name":"add","arguments":[1]}"#,
            r#"{"name":"add","arguments":"x"}"#,
            r#"{"name":"add","_meta":[]}"#,
            r#"{"name":"add","task":7}"#,
            r#"{"name":"add","inputResponses":[]}"#,
            r#"{"name":7}"#,
        ] {
            let refused = CallParams::read(Some(&raw(bad)));
            assert!(refused.is_err(), "{bad}");
            assert!(!refused.err().unwrap().contains(" at line "), "{bad}");
        }
        assert!(CallParams::read(None).is_err(), "no name");
    }

    /// Nested past serde_json's limit, the arguments could not be read as a map: refused at
    /// once, as when they were read as one up front; nested within it, kept as text and read
    /// whole when asked for.
    #[test]
    fn arguments_nested_too_deep_are_refused_and_others_kept() {
        let nested = |depth: usize| {
            format!(
                r#"{{"name":"t","arguments":{}1{}}}"#,
                r#"{"a":"#.repeat(depth),
                "}".repeat(depth)
            )
        };
        let refused = CallParams::read(Some(&raw(&nested(200)))).err().unwrap();
        assert!(refused.contains("recursion limit"), "{refused}");
        let kept = CallParams::read(Some(&raw(&nested(120)))).unwrap();
        let args = Arguments::text(kept.arguments);
        let mut depth = 0;
        let mut at = args.object().map(|o| Value::Object(o.clone()));
        while let Some(Value::Object(o)) = at {
            depth += 1;
            at = o.get("a").cloned();
        }
        assert_eq!(depth, 120);
        // Brackets inside strings only make the check run; they are not nesting.
        let in_strings = format!(
            r#"{{"name":"t","arguments":{{"s":"{}"}}}}"#,
            "{[".repeat(100)
        );
        assert!(CallParams::read(Some(&raw(&in_strings))).is_ok());
        let meta = format!(
            r#"{{"name":"t","_meta":{}1{}}}"#,
            r#"{"a":"#.repeat(200),
            "}".repeat(200)
        );
        assert!(
            CallParams::read(Some(&raw(&meta)))
                .err()
                .unwrap()
                .starts_with("`_meta`: ")
        );
    }

    #[test]
    fn arguments_decode_from_the_text_or_the_object_alike() {
        let text = || Arguments::text(Some(raw(r#"{"a":1,"b":2}"#)));
        assert_eq!(text().decode::<Add>(), Ok(Add { a: 1, b: 2 }));
        // Looked at as an object first: still the same input.
        let looked = text();
        assert_eq!(looked.object().unwrap()["a"], json!(1));
        assert_eq!(looked.decode::<Add>(), Ok(Add { a: 1, b: 2 }));
        // Changed: the change is what the tool gets.
        let mut changed = text();
        changed
            .object_mut()
            .as_mut()
            .unwrap()
            .insert("b".into(), json!(5));
        assert_eq!(changed.decode::<Add>(), Ok(Add { a: 1, b: 5 }));
        // The same message either way, without a position.
        let missing = Arguments::text(Some(raw(r#"{"a":1}"#)))
            .decode::<Add>()
            .unwrap_err();
        let from_object = Arguments::Object(Some(JsonObject::from_iter([("a".into(), json!(1))])))
            .decode::<Add>()
            .unwrap_err();
        assert_eq!(missing, from_object);
        assert_eq!(missing, "missing field `b`");
        // No arguments: an empty object.
        assert!(Arguments::text(None).decode::<Add>().is_err());
        assert_eq!(Arguments::text(None).object(), None);
        assert_eq!(Arguments::text(None).into_object(), None);
    }
}
