use serde_json::json;

use super::*;

/// The SEP-1034 form of `everything-server`: one field of each kind, each with a default.
fn defaults_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
        },
        "required": [],
    })
}

/// The SEP-1330 form: untitled, titled and legacy enums, single and multiple.
fn enums_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]},
            "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 2,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
            ]}},
        },
    })
}

fn fields_of(schema: &Value) -> Vec<Field> {
    fields(schema).unwrap()
}

fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
    fields.iter().find(|f| f.name == name).unwrap()
}

fn value(answer: Result<Answer, String>) -> Value {
    match answer {
        Ok(Answer::Value(v)) => serde_json::to_value(v).unwrap(),
        other => panic!("not a value: {other:?}"),
    }
}

#[test]
fn every_kind_of_field_is_read_and_checked() {
    let fields = fields(&defaults_form()).unwrap();
    assert_eq!(fields.len(), 5);
    let age = field(&fields, "age");
    assert_eq!(value(age.answer("41")), json!(41));
    // A default of `30.0` for an integer is the integer 30.
    let float_default = json!({"type": "object", "properties": {
        "age": {"type": "integer", "default": 30.0}}});
    let float_default = fields_of(&float_default);
    assert_eq!(value(float_default[0].answer("")), json!(30));
    assert!(float_default[0].heading().contains("default 30)"));
    assert_eq!(value(age.answer("")), json!(30), "the default");
    assert!(age.answer("4.5").unwrap_err().contains("not an integer"));
    assert!(age.answer("old").unwrap_err().contains("not a number"));
    let score = field(&fields, "score");
    assert_eq!(value(score.answer("1.25")), json!(1.25));
    let verified = field(&fields, "verified");
    assert_eq!(value(verified.answer("n")), json!(false));
    assert_eq!(value(verified.answer("YES")), json!(true));
    assert!(verified.answer("maybe").is_err());
    let status = field(&fields, "status");
    assert_eq!(value(status.answer("2")), json!("inactive"));
    assert_eq!(value(status.answer("pending")), json!("pending"));
    assert!(
        status
            .answer("4")
            .unwrap_err()
            .contains("not one of the options")
    );
    let name = field(&fields, "name");
    assert_eq!(value(name.answer("  Ada  ")), json!("Ada"));
    assert_eq!(name.answer("/decline"), Ok(Answer::Decline));
    assert_eq!(name.answer("/cancel"), Ok(Answer::Cancel));
}

#[test]
fn enums_single_multiple_titled_and_legacy() {
    let fields = fields(&enums_form()).unwrap();
    let titled = field(&fields, "titledSingle");
    assert_eq!(value(titled.answer("Second Option")), json!("value2"));
    assert_eq!(value(titled.answer("1")), json!("value1"));
    let legacy = field(&fields, "legacyEnum");
    assert_eq!(value(legacy.answer("Option Two")), json!("opt2"));
    assert!(
        legacy.heading().contains("1) Option One [opt1]"),
        "{}",
        legacy.heading()
    );
    let multi = field(&fields, "untitledMulti");
    assert_eq!(
        value(multi.answer("1, option3, 1")),
        json!(["option1", "option3"])
    );
    assert!(multi.answer("1,2,3").unwrap_err().contains("choose 1 to 2"));
    let titled_multi = field(&fields, "titledMulti");
    assert_eq!(value(titled_multi.answer("2")), json!(["value2"]));
}

#[test]
fn required_fields_without_a_default_must_be_answered() {
    let schema = json!({
        "type": "object",
        "properties": {
            "response": {"type": "string", "description": "User's response", "minLength": 2},
            "note": {"type": "string"},
            "n": {"type": "number", "minimum": 1, "maximum": 5},
        },
        "required": ["response"],
    });
    let fields = fields(&schema).unwrap();
    let response = field(&fields, "response");
    assert_eq!(
        response.answer(""),
        Err("this field is required".to_owned())
    );
    assert!(response.answer("x").unwrap_err().contains("at least 2"));
    assert_eq!(
        response.heading(),
        "response (text, required): User's response\n"
    );
    assert_eq!(field(&fields, "note").answer(""), Ok(Answer::Skip));
    let n = field(&fields, "n");
    assert!(n.answer("9").unwrap_err().contains("out of range"));
    assert!(
        n.heading().contains("number, 1 to 5, optional"),
        "{}",
        n.heading()
    );
}

#[test]
fn forms_mcp_cannot_show_are_named() {
    for (schema, why) in [
        (json!({"type": "object"}), "no properties"),
        (
            json!({"properties": {"x": {"type": "array"}}}),
            "field x: an array",
        ),
        (
            json!({"properties": {"x": {"type": "object"}}}),
            "field x: type object",
        ),
        (json!({"properties": {"x": {}}}), "field x: no type"),
    ] {
        let e = fields(&schema).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn sampling_requests_are_shown_message_by_message() {
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is 2+2?"}},
            {"role": "assistant", "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]},
        ],
        "systemPrompt": "Be brief",
        "maxTokens": 100,
    }))
    .unwrap();
    let text = describe_sampling(&params);
    assert!(text.contains("at most 100 tokens"), "{text}");
    assert!(text.contains("system: Be brief\n"), "{text}");
    assert!(text.contains("user: What is 2+2?\n"), "{text}");
    assert!(text.contains("assistant: [image]\n"), "{text}");
}
