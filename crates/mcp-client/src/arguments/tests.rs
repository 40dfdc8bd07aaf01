use std::collections::{BTreeMap, HashMap};
use std::error::Error as _;

use mcp_types::{CallToolRequestParams, GetPromptRequestParams, JsonObject};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::{IntoCallToolParams, IntoGetPromptParams};
use crate::error::Error;

#[derive(Serialize)]
struct AddNote {
    text: String,
    pinned: bool,
}

/// A value whose serialization always fails.
struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("cannot serialize this"))
    }
}

/// The params as JSON, for comparing.
fn call(c: impl IntoCallToolParams) -> Value {
    serde_json::to_value(c.into_call_tool_params().unwrap()).unwrap()
}

fn prompt(p: impl IntoGetPromptParams) -> Value {
    serde_json::to_value(p.into_get_prompt_params().unwrap()).unwrap()
}

/// The message of a refused conversion, and whether it has a source.
fn refused(e: Error) -> (String, bool) {
    assert!(matches!(e, Error::InvalidArguments { .. }), "{e:?}");
    (e.to_string(), e.source().is_some())
}

#[test]
fn a_name_alone_calls_without_arguments() {
    let name = String::from("ping");
    for value in [call("ping"), call(name.clone()), call(&name)] {
        assert_eq!(value, json!({"name": "ping"}));
    }
}

#[test]
fn params_pass_through_unchanged() {
    let mut params = CallToolRequestParams::with_arguments("add", JsonObject::new());
    params.request_state = Some("s".to_owned());
    assert_eq!(params.clone().into_call_tool_params().unwrap(), params);
}

#[test]
fn a_tuple_serializes_its_arguments() {
    let note = AddNote {
        text: "milk".into(),
        pinned: true,
    };
    let expected = json!({"name": "add_note", "arguments": {"text": "milk", "pinned": true}});
    assert_eq!(call(("add_note", note)), expected);
    // By reference, with any name that converts into a String.
    let note = AddNote {
        text: "milk".into(),
        pinned: true,
    };
    let name = String::from("add_note");
    assert_eq!(call((&name, &note)), expected);
    assert_eq!(
        call((std::borrow::Cow::Borrowed("add_note"), &note)),
        expected
    );

    assert_eq!(
        call(("add", json!({"a": 1, "b": 2}))),
        json!({"name": "add", "arguments": {"a": 1, "b": 2}})
    );
    let map = BTreeMap::from([("a", 1)]);
    assert_eq!(
        call(("add", map)),
        json!({"name": "add", "arguments": {"a": 1}})
    );
    // An empty object is sent as one.
    assert_eq!(
        call(("add", JsonObject::new())),
        json!({"name": "add", "arguments": {}})
    );
    // Integer map keys become strings, as serde_json writes them.
    assert_eq!(
        call(("add", HashMap::from([(1, "x")]))),
        json!({"name": "add", "arguments": {"1": "x"}})
    );
}

#[test]
fn null_arguments_are_no_arguments() {
    for value in [
        call(("ping", ())),
        call(("ping", None::<AddNote>)),
        call(("ping", Value::Null)),
    ] {
        assert_eq!(value, json!({"name": "ping"}));
    }
    let some = Some(AddNote {
        text: "x".into(),
        pinned: false,
    });
    assert_eq!(
        call(("add_note", some)),
        json!({"name": "add_note", "arguments": {"text": "x", "pinned": false}})
    );
}

#[test]
fn tool_arguments_that_are_not_an_object_are_refused() {
    let cases: [(Result<CallToolRequestParams, Error>, &str); 4] = [
        (("add", [1, 2]).into_call_tool_params(), "an array"),
        (("add", 3).into_call_tool_params(), "a number"),
        (("add", "a=1").into_call_tool_params(), "a string"),
        (("add", json!(true)).into_call_tool_params(), "a boolean"),
    ];
    for (result, kind) in cases {
        let (message, has_source) = refused(result.unwrap_err());
        assert_eq!(
            message,
            format!(
                r#"invalid arguments for tool "add": the arguments must be a JSON object, not {kind}"#
            )
        );
        assert!(!has_source);
    }
}

#[test]
fn tool_arguments_that_fail_to_serialize_are_refused_with_the_cause() {
    let bad_keys = BTreeMap::from([(vec![1u8], 1)]);
    for e in [
        ("add", bad_keys).into_call_tool_params().unwrap_err(),
        ("add", Unserializable).into_call_tool_params().unwrap_err(),
    ] {
        let (message, has_source) = refused(e);
        assert_eq!(
            message,
            r#"invalid arguments for tool "add": the arguments must serialize to a JSON object"#
        );
        assert!(has_source);
    }
    let e = ("add", Unserializable).into_call_tool_params().unwrap_err();
    assert_eq!(e.source().unwrap().to_string(), "cannot serialize this");
}

#[test]
fn prompt_names_alone_and_params() {
    let name = String::from("greeting");
    for value in [prompt("greeting"), prompt(name.clone()), prompt(&name)] {
        assert_eq!(value, json!({"name": "greeting"}));
    }
    let params = GetPromptRequestParams::with_arguments(
        "review",
        BTreeMap::from([("language".to_owned(), "rust".to_owned())]),
    );
    assert_eq!(params.clone().into_get_prompt_params().unwrap(), params);
    assert_eq!(prompt(("greeting", ())), json!({"name": "greeting"}));
}

#[test]
fn prompt_argument_values_become_strings() {
    #[derive(Serialize)]
    struct Review {
        language: &'static str,
        max_comments: u32,
        temperature: f64,
        offset: i64,
        strict: bool,
        focus: Option<String>,
    }
    let review = Review {
        language: "rust",
        max_comments: 5,
        temperature: 0.5,
        offset: -2,
        strict: false,
        focus: None,
    };
    assert_eq!(
        prompt(("review", review)),
        json!({"name": "review", "arguments": {
            "language": "rust", "max_comments": "5", "temperature": "0.5", "offset": "-2",
            "strict": "false"
        }})
    );
    assert_eq!(
        prompt(("review", json!({"language": "go", "focus": null}))),
        json!({"name": "review", "arguments": {"language": "go"}})
    );
}

#[test]
fn prompt_arguments_that_cannot_be_strings_are_refused() {
    let (message, has_source) = refused(
        ("review", json!({"language": "rust", "tags": ["a"]}))
            .into_get_prompt_params()
            .unwrap_err(),
    );
    assert_eq!(
        message,
        r#"invalid arguments for prompt "review": argument "tags" must be a string, a number or a boolean, not an array"#
    );
    assert!(!has_source);
    let (message, _) = refused(
        ("review", json!({"options": {"a": 1}}))
            .into_get_prompt_params()
            .unwrap_err(),
    );
    assert_eq!(
        message,
        r#"invalid arguments for prompt "review": argument "options" must be a string, a number or a boolean, not an object"#
    );
    let (message, has_source) = refused(("review", ["rust"]).into_get_prompt_params().unwrap_err());
    assert_eq!(
        message,
        r#"invalid arguments for prompt "review": the arguments must be a JSON object, not an array"#
    );
    assert!(!has_source);
    let (message, has_source) = refused(
        ("review", Unserializable)
            .into_get_prompt_params()
            .unwrap_err(),
    );
    assert_eq!(
        message,
        r#"invalid arguments for prompt "review": the arguments must serialize to a JSON object"#
    );
    assert!(has_source);
}
