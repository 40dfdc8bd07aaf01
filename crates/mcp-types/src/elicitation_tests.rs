use super::*;
use crate::elicitation_schema::*;
use crate::result::test_util::{decode_err, round_trip};

#[test]
fn form_params_examples_2026() {
    let p: ElicitRequestFormParams = round_trip(
        r#"{"mode":"form","message":"Please provide your contact information","requestedSchema":{
            "type":"object","properties":{
                "name":{"type":"string","description":"Your full name"},
                "email":{"type":"string","format":"email","description":"Your email address"},
                "age":{"type":"number","minimum":18,"description":"Your age"}},
            "required":["name","email"]}}"#,
    );
    let props = &p.requested_schema.properties;
    assert!(matches!(
        &props["email"],
        PrimitiveSchemaDefinition::String(StringSchema {
            format: Some(StringFormat::Email),
            ..
        })
    ));
    assert!(matches!(
        &props["age"],
        PrimitiveSchemaDefinition::Number(NumberSchema { minimum: Some(m), .. }) if *m == 18.0
    ));
    let single: ElicitRequestFormParams = round_trip(
        r#"{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{
            "type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
    );
    let mut properties = BTreeMap::new();
    properties.insert("name".to_owned(), StringSchema::default().into());
    let built = ElicitRequestFormParams::new(
        "Please provide your GitHub username",
        ElicitRequestedSchema {
            properties,
            required: Some(vec!["name".to_owned()]),
            ..Default::default()
        },
    );
    assert_eq!(single, built);
}

#[test]
fn url_params_and_dispatch() {
    let p: ElicitRequestURLParams = round_trip(
        r#"{"mode":"url","url":"https://mcp.example.com/ui/set_api_key","message":"Please provide your API key to continue."}"#,
    );
    assert_eq!(
        p,
        ElicitRequestURLParams::new(
            "Please provide your API key to continue.",
            "https://mcp.example.com/ui/set_api_key"
        )
    );
    // 2025-11-25 shape, with elicitationId, task and _meta.
    let p: ElicitRequestParams = round_trip(
        r#"{"mode":"url","url":"https://x.example","message":"m","elicitationId":"e1",
            "task":{"ttl":5},"_meta":{"progressToken":1}}"#,
    );
    assert!(matches!(&p, ElicitRequestParams::Url(u) if u.elicitation_id.as_deref() == Some("e1")));
    assert_eq!(p.message(), "m");
    // 2025-06-18 shape: no mode at all.
    let p: ElicitRequestParams =
        round_trip(r#"{"message":"m","requestedSchema":{"type":"object","properties":{}}}"#);
    assert!(matches!(
        p,
        ElicitRequestParams::Form(ElicitRequestFormParams { mode: None, .. })
    ));
    decode_err::<ElicitRequestURLParams>(r#"{"mode":"form","url":"u","message":"m"}"#);
    decode_err::<ElicitRequestFormParams>(
        r#"{"mode":"url","message":"m","requestedSchema":{"type":"object","properties":{}}}"#,
    );
    decode_err::<ElicitRequestParams>(r#"{"mode":"url","message":"m"}"#);
}

#[test]
fn whole_requests() {
    let r: ElicitRequest = round_trip(
        r#"{"method":"elicitation/create","params":{"mode":"form","message":"Please provide your GitHub username",
            "requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"GitHub Username",
            "description":"Your GitHub username"}},"required":["name"]}}}"#,
    );
    assert!(r.id.is_none());
    round_trip::<ElicitRequest>(
        r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"m",
            "requestedSchema":{"type":"object","properties":{}}}}"#,
    );
    let n: ElicitationCompleteNotification = round_trip(
        r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}"#,
    );
    assert_eq!(n.params.elicitation_id, "e1");
}

#[test]
fn schema_examples_2026() {
    let s: StringSchema = round_trip(
        r#"{"type":"string","title":"Display Name","description":"d","minLength":3,"maxLength":50,"default":"x"}"#,
    );
    assert_eq!(s.min_length, Some(3));
    round_trip::<StringSchema>(r#"{"type":"string","format":"date-time"}"#);
    let s: StringSchema = round_trip(r#"{"type":"string","format":"hostname"}"#);
    assert_eq!(s.format, Some(StringFormat::Other("hostname".into())));
    let n: NumberSchema =
        round_trip(r#"{"type":"integer","title":"Age","minimum":0,"maximum":150,"default":30}"#);
    assert_eq!(n.r#type, NumberSchemaType::Integer);
    round_trip::<BooleanSchema>(r#"{"type":"boolean","title":"Subscribe","default":true}"#);
    round_trip::<UntitledSingleSelectEnumSchema>(
        r#"{"type":"string","title":"Color","enum":["red","green"],"default":"red"}"#,
    );
    round_trip::<TitledSingleSelectEnumSchema>(
        r##"{"type":"string","oneOf":[{"const":"#FF0000","title":"Red"},{"const":"#00FF00","title":"Green"}],"default":"#FF0000"}"##,
    );
    round_trip::<UntitledMultiSelectEnumSchema>(
        r#"{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]},"default":["a"]}"#,
    );
    round_trip::<TitledMultiSelectEnumSchema>(
        r#"{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"default":["b"]}"#,
    );
    round_trip::<LegacyTitledEnumSchema>(
        r#"{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"a"}"#,
    );
    decode_err::<StringSchema>(r#"{"type":"number"}"#);
    decode_err::<BooleanSchema>(r#"{"type":"string"}"#);
    decode_err::<UntitledMultiSelectEnumSchema>(
        r#"{"type":"string","items":{"type":"string","enum":[]}}"#,
    );
}

#[test]
fn primitive_dispatch() {
    use PrimitiveSchemaDefinition as P;
    type Check = fn(&P) -> bool;
    let cases: [(&str, Check); 8] = [
        (r#"{"type":"string"}"#, |p| matches!(p, P::String(_))),
        (r#"{"type":"integer"}"#, |p| matches!(p, P::Number(_))),
        (r#"{"type":"boolean"}"#, |p| matches!(p, P::Boolean(_))),
        (r#"{"type":"string","enum":["a"]}"#, |p| {
            matches!(
                p,
                P::Enum(EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled(
                    _
                )))
            )
        }),
        (
            r#"{"type":"string","oneOf":[{"const":"a","title":"A"}]}"#,
            |p| {
                matches!(
                    p,
                    P::Enum(EnumSchema::SingleSelect(SingleSelectEnumSchema::Titled(_)))
                )
            },
        ),
        (
            r#"{"type":"array","items":{"type":"string","enum":["a"]}}"#,
            |p| {
                matches!(
                    p,
                    P::Enum(EnumSchema::MultiSelect(MultiSelectEnumSchema::Untitled(_)))
                )
            },
        ),
        (
            r#"{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}"#,
            |p| {
                matches!(
                    p,
                    P::Enum(EnumSchema::MultiSelect(MultiSelectEnumSchema::Titled(_)))
                )
            },
        ),
        // The 2025-06-18 EnumSchema with enumNames.
        (
            r#"{"type":"string","enum":["a"],"enumNames":["A"],"title":"t","description":"d"}"#,
            |p| matches!(p, P::Enum(EnumSchema::LegacyTitled(_))),
        ),
    ];
    for (json, check) in cases {
        let p: P = round_trip(json);
        assert!(check(&p), "{json} decoded as {p:?}");
    }
    assert!(decode_err::<P>(r#"{"type":"object"}"#).contains("unsupported schema type"));
    assert!(decode_err::<P>(r#"{"enum":["a"]}"#).contains("without a string `type`"));
    decode_err::<SingleSelectEnumSchema>(r#"{"type":"string"}"#);
    decode_err::<MultiSelectEnumSchema>(r#"{"type":"string","enum":["a"]}"#);
    decode_err::<EnumSchema>(r#"{"type":"boolean"}"#);
    let e: EnumSchema = round_trip(r#"{"type":"string","enum":["x"],"x-order":1}"#);
    assert!(
        matches!(e, EnumSchema::SingleSelect(SingleSelectEnumSchema::Untitled(u)) if u.extra.contains_key("x-order"))
    );
}

#[test]
fn results() {
    let r: ElicitResult = round_trip(r#"{"action":"accept"}"#);
    assert_eq!(r, ElicitResult::accept(None));
    let r: ElicitResult = round_trip(
        r#"{"action":"accept","content":{"name":"Monalisa Octocat","email":"octocat@github.com","age":30}}"#,
    );
    let content = r.content.expect("content");
    assert_eq!(content["age"], ElicitValue::from(30));
    assert_eq!(content["name"], ElicitValue::from("Monalisa Octocat"));
    round_trip::<ElicitResult>(r#"{"action":"accept","content":{"name":"octocat"}}"#);
    let r: ElicitResult = round_trip(
        r#"{"action":"accept","content":{"tags":["a","b"],"ok":true,"ratio":0.5},"_meta":{"m":1},"x":2}"#,
    );
    assert_eq!(
        r.content.expect("content")["tags"],
        ElicitValue::from(vec!["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(
        serde_json::to_value(ElicitResult::decline()).expect("encodes"),
        serde_json::json!({"action":"decline"})
    );
    assert_eq!(ElicitResult::cancel().action, ElicitAction::Cancel);
    decode_err::<ElicitResult>(r#"{"action":"maybe"}"#);
    decode_err::<ElicitResult>(r#"{"action":"accept","content":{"nested":{"a":1}}}"#);
}
