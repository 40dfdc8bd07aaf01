use expect_test::{Expect, expect};

use super::*;

/// Decodes `input` and shows the result: the re-encoded message, or the invalid verdict.
fn check(input: &str, expected: Expect) {
    expected.assert_eq(&show(Message::decode(input.as_bytes())));
}

fn show(msg: Message) -> String {
    match msg {
        Message::Invalid(invalid) => format!(
            "invalid{} id={} {}",
            if invalid.is_response() {
                " response"
            } else {
                ""
            },
            invalid.id.map_or("null".to_owned(), |id| id.to_string()),
            invalid.error
        ),
        Message::Batch(items) => {
            let parts: Vec<String> = items.into_iter().map(show).collect();
            format!("batch[{}]", parts.join(", "))
        }
        m => m.to_json().unwrap(),
    }
}

#[test]
fn decodes_the_four_kinds() {
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#,
        expect![[r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#]],
    );
    check(
        r#"{"method":"n","jsonrpc":"2.0","params":[1, 2]}"#,
        expect![[r#"{"jsonrpc":"2.0","method":"n","params":[1, 2]}"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        expect![[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
        expect![[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#]],
    );
}

#[test]
fn params_stay_raw() {
    let Message::Request(r) =
        Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ "b" : 2,"a":1 }}"#)
    else {
        panic!("not a request");
    };
    assert_eq!(
        r.params.as_deref().map(RawValue::get),
        Some(r#"{ "b" : 2,"a":1 }"#)
    );
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct P {
        a: i32,
        b: i32,
    }
    assert_eq!(r.params::<P>().unwrap(), P { a: 1, b: 2 });
    let e = r.params::<Vec<i32>>().unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::INVALID_PARAMS);
}

#[test]
fn bad_json_is_a_parse_error() {
    check(
        "{",
        expect![
            "invalid id=null parse error: EOF while parsing an object at line 1 column 1 (-32700)"
        ],
    );
    check(
        "not json",
        expect!["invalid id=null parse error: expected ident at line 1 column 2 (-32700)"],
    );
    check(
        r#"{"jsonrpc":"2.0","method":5,"id":1,,}"#,
        expect![
            "invalid id=null parse error: invalid type: integer `5`, expected a string at line 1 column 27 (-32700)"
        ],
    );
    check(
        "[1,",
        expect![
            "invalid id=null parse error: EOF while parsing a value at line 1 column 3 (-32700)"
        ],
    );
}

#[test]
fn bad_envelopes_are_invalid_requests() {
    check(
        r#"{"jsonrpc":"1.0","id":7,"method":"m"}"#,
        expect![[r#"invalid id=7 jsonrpc must be "2.0" (-32600)"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":"x","method":5}"#,
        expect![[
            r#"invalid id="x" invalid request: invalid type: integer `5`, expected a string at line 1 column 36 (-32600)"#
        ]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
        expect!["invalid id=null request id must not be null (-32600)"],
    );
    check(
        r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
        expect!["invalid id=null id must be a string or an integer (-32600)"],
    );
    check(
        r#"{"jsonrpc":"2.0","id":2,"method":"m","params":3}"#,
        expect!["invalid id=2 params must be an object or an array (-32600)"],
    );
    check(
        r#"{"jsonrpc":"2.0"}"#,
        expect!["invalid id=null missing method (-32600)"],
    );
    check(
        r#"{"jsonrpc":"2.0","id":3}"#,
        expect!["invalid id=3 a response needs exactly one of result and error (-32600)"],
    );
    check(
        "5",
        expect![
            "invalid id=null invalid request: invalid type: integer `5`, expected struct Envelope at line 1 column 1 (-32600)"
        ],
    );
    check("[]", expect!["invalid id=null empty batch (-32600)"]);
}

#[test]
fn null_results_are_results() {
    check(
        r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
        expect![[r#"{"jsonrpc":"2.0","id":1,"result":null}"#]],
    );
}

#[test]
fn null_params_are_absent() {
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
        expect![[r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#]],
    );
}

#[test]
fn batches_decode_item_by_item() {
    check(
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","method":"n"}, [1]]"#,
        expect![[
            r#"batch[{"jsonrpc":"2.0","id":1,"method":"a"}, invalid id=null invalid request: invalid type: integer `5`, expected struct Envelope at line 1 column 1 (-32600), {"jsonrpc":"2.0","method":"n"}, invalid id=null nested batch (-32600)]"#
        ]],
    );
    let batch = Message::Batch(vec![
        Message::Response(Response::ok(
            Id::Number(1),
            RawValue::from_string("true".into()).unwrap(),
        )),
        Message::Response(Response::error(None, ErrorObject::parse_error("x"))),
    ]);
    expect![[r#"[{"jsonrpc":"2.0","id":1,"result":true},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}]"#]]
        .assert_eq(&batch.to_json().unwrap());
}

#[test]
fn oversized_frames_are_refused_with_their_id() {
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"m","params":{{"x":"{}"}}}}"#,
        "a".repeat(100)
    );
    expect![[r#"invalid id="big" message of 159 bytes exceeds the limit of 64 bytes (-32600)"#]]
        .assert_eq(&show(Message::decode_limited(big.as_bytes(), 64)));
    expect!["invalid id=null message of 70 bytes exceeds the limit of 64 bytes (-32600)"]
        .assert_eq(&show(Message::decode_limited(&[b'{'; 70], 64)));
    assert!(matches!(
        Message::decode_limited(big.as_bytes(), 1000),
        Message::Request(_)
    ));
}

#[test]
fn invalid_messages_do_not_serialize() {
    assert!(Message::decode(b"{").to_json().is_err());
    let mut out = Vec::new();
    assert!(Message::decode(b"{").write_json(&mut out).is_err());
    let batch = Message::Batch(vec![
        Message::decode(br#"{"jsonrpc":"2.0","method":"m"}"#),
        Message::decode(b"{"),
    ]);
    assert!(batch.write_json(&mut out).is_err());
}

#[test]
fn escaped_strings_decode() {
    check(
        r#"{"jsonrpc":"2\u002e0","id":"a\"b","method":"m\u00e9"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":"a\"b","method":"mé"}"#]],
    );
}

#[test]
fn invalid_responses_are_told_apart() {
    check(
        r#"{"jsonrpc":"2.0","id":3,"error":"oops"}"#,
        expect!["invalid response id=3 malformed error object (-32600)"],
    );
    check(
        r#"{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}"#,
        expect!["invalid response id=3 a response needs exactly one of result and error (-32600)"],
    );
    check(
        r#"{"jsonrpc":"1.0","id":3,"result":1}"#,
        expect![[r#"invalid response id=3 jsonrpc must be "2.0" (-32600)"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":null,"result":1}"#,
        expect!["invalid response id=null result with a null id (-32600)"],
    );
    // Without `result` or `error` it may be a request that lost its method: answered.
    check(
        r#"{"jsonrpc":"1.0","id":3,"method":"m"}"#,
        expect![[r#"invalid id=3 jsonrpc must be "2.0" (-32600)"#]],
    );
}

#[test]
fn integer_ids_outside_i64_and_minus_zero_go_back_as_they_came() {
    check(
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#]],
    );
    check(
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}"#,
        expect![[r#"{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}"#]],
    );
    let Message::Request(r) = Message::decode(br#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#) else {
        panic!("not a request");
    };
    let reply = Message::Response(Response::ok(
        r.id,
        RawValue::from_string("{}".into()).unwrap(),
    ));
    expect![[r#"{"jsonrpc":"2.0","id":-0,"result":{}}"#]].assert_eq(&reply.to_json().unwrap());
    check(
        r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"m"}"#,
        expect!["invalid id=null id must be a string or an integer (-32600)"],
    );
}

#[test]
fn an_oversized_frame_keeps_its_id_and_kind() {
    let head = br#"{"jsonrpc":"2.0","id":9,"result":{"text":"aaaa"#;
    expect!["invalid response id=9 message of 5000 bytes exceeds the limit of 100 bytes (-32600)"]
        .assert_eq(&show(Message::oversized(head, 5000, 100)));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":"r","result":"{}"}}"#,
        "a".repeat(100)
    );
    expect![[
        r#"invalid response id="r" message of 138 bytes exceeds the limit of 64 bytes (-32600)"#
    ]]
    .assert_eq(&show(Message::decode_limited(big.as_bytes(), 64)));
}

#[test]
fn the_version_member_is_read_without_a_copy_and_judged_the_same() {
    // Escaped, it is still "2.0".
    check(
        r#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#,
        expect![[r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#]],
    );
    check(
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        expect![[r#"invalid id=1 jsonrpc must be "2.0" (-32600)"#]],
    );
    check(
        r#"{"jsonrpc":null,"id":1,"method":"ping"}"#,
        expect![[r#"invalid id=1 jsonrpc must be "2.0" (-32600)"#]],
    );
    check(
        r#"{"id":1,"method":"ping"}"#,
        expect![[r#"invalid id=1 jsonrpc must be "2.0" (-32600)"#]],
    );
    check(
        r#"{"jsonrpc":2,"id":1,"method":"ping"}"#,
        expect![
            "invalid id=1 invalid request: invalid type: integer `2`, expected a string at line 1 column 12 (-32600)"
        ],
    );
}
